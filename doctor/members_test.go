package doctor

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMembersCompare(t *testing.T) {
	t.Parallel()
	m := known("data[]._id", "data[].title", "data[].tags.a", "meta.page", "meta.total", "requestId")
	tests := []struct {
		name             string
		body             string
		missing, unknown []string
	}{
		{
			name: "all there",
			body: `{"data":[{"_id":"1","title":"A","tags":{"a":1}}],"meta":{"page":1,"total":1},"requestId":"r"}`,
		},
		{
			name:    "missing in the order declared, depth first",
			body:    `{"data":[{"title":"A"}],"meta":{}}`,
			missing: []string{"data[0]._id", "data[0].tags", "meta.page", "meta.total", "requestId"},
		},
		{
			name:    "unknown members at every depth, sorted",
			body:    `{"data":[{"_id":"1","title":"A","tags":{"a":1,"b":2},"z":0}],"meta":{"page":1,"total":1,"next":2},"requestId":"r","extra":{"deep":1}}`,
			unknown: []string{"data[0].tags.b", "data[0].z", "extra", "meta.next"},
		},
		{
			name: "only the first item of an array is compared",
			body: `{"data":[{"_id":"1","title":"A","tags":{"a":1}},{"other":1}],"meta":{"page":1,"total":1},"requestId":"r"}`,
		},
		{
			name: "an empty array has no item to compare",
			body: `{"data":[],"meta":{"page":1,"total":0},"requestId":"r"}`,
		},
		{
			name: "null is present, and not looked into",
			body: `{"data":null,"meta":null,"requestId":null}`,
		},
		{
			name: "a value of another type is not looked into",
			body: `{"data":"none","meta":[{"x":1}],"requestId":{"a":1}}`,
		},
		{
			name:    "an empty object lacks every top-level member",
			body:    `{}`,
			missing: []string{"data", "meta", "requestId"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v any
			require.NoError(t, json.Unmarshal([]byte(tt.body), &v))
			missing, unknown := m.compare(v)
			assert.Equal(t, tt.missing, missing, "missing")
			assert.Equal(t, tt.unknown, unknown, "unknown")
		})
	}
}

func TestKnownMergesPaths(t *testing.T) {
	t.Parallel()
	m := known("a.b", "a.c", "d[].e", "d[].f.g")
	assert.Equal(t, []string{"a", "d"}, m.order)
	assert.Equal(t, []string{"b", "c"}, m.names["a"].order)
	require.NotNil(t, m.names["d"].item)
	assert.Equal(t, []string{"e", "f"}, m.names["d"].item.order)
	assert.Equal(t, []string{"g"}, m.names["d"].item.names["f"].order)
}

func TestPrintable(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 300)
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"line\nbreak\x1b[31m", `line\nbreak\x1b[31m`},
		{"bad \xff byte", "bad \uFFFD byte"},
		{long, long[:maxText] + "…"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, printable(tt.in), "%q", tt.in)
	}
}
