package wire

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shapes senders write are read in one pass (fastCampaignTo), and to the same targets as
// item by item (readCampaignTo); the others go the slow way, which names the fault.
func TestCampaignToFastPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		to   string
		fast bool
	}{
		{`["08031234567"]`, true},
		{`["08031234567","+2348031234568",{"phone":"08031234569","name":"Ada"},{"name":"Obi","phone":"08031234570"}]`, true},
		{`[{"phone":"08031234567"},"08031234567",{"phone":"2348031234567","name":"again"}]`, true}, // duplicates: the first kept
		{`[{"phone":"08031234567","name":"\u00c9mile \"E\""}]`, true},
		{` [ "08031234567" , { "phone" : "08031234568" } ] `, true},
		{`[{"phone":"08031234567","name":null}]`, false},
		{`[{"phone":"08031234567","nick":"x"}]`, false},
		{`[{"Phone":"08031234567"}]`, false},
		{`[{"ph\u006fne":"08031234567"}]`, false},
		{`[{"phone":"08031234567","phone":"08031234568"}]`, false},
		{`[{"name":"Ada"}]`, false},
		{`[{"phone":8031234567}]`, false},
		{`[8031234567]`, false},
		{`["12-34"]`, false},
		{`[]`, false},
		{`["08031234567"`, false},
		{`"08031234567"`, false},
		{`[{"phone":"08031234567","name":"` + strings.Repeat("n", 101) + `"}]`, false},
		{"[\"0803123456\xff\"]", false},
	}
	for _, tt := range tests {
		raw := jsontext.Value(tt.to)
		fast, ok := fastCampaignTo(raw)
		assert.Equal(t, tt.fast, ok, "%s", tt.to)
		slow, err := readCampaignTo(raw)
		if ok {
			require.NoError(t, err, "%s", tt.to)
			assert.Equal(t, slow, fast, "%s", tt.to)
		}
		got, gotErr := parseCampaignTo(raw)
		assert.Equal(t, slow, got, "%s", tt.to)
		assert.Equal(t, err, gotErr, "%s: the slow way's words", tt.to)
	}
}

// Whatever the input, the fast path either declines or reads what the slow path reads.
func FuzzCampaignToFastPath(f *testing.F) {
	f.Add(`["08031234567",{"phone":"08031234569","name":"Ada"}]`)
	f.Add(`[{"phone":"08031234567","name":"x","phone":"1"}]`)
	f.Add(`[{"name":"\u00c9","phone":"+2348031234567"}]`)
	f.Fuzz(func(t *testing.T, to string) {
		raw := jsontext.Value(to)
		fast, ok := fastCampaignTo(raw)
		if !ok {
			return
		}
		slow, err := readCampaignTo(raw)
		if err != nil {
			t.Fatalf("%q: the fast path read it, the slow path refuses it: %v", to, err)
		}
		if len(fast) != len(slow) {
			t.Fatalf("%q: %d targets, the slow path %d", to, len(fast), len(slow))
		}
		for i := range fast {
			if fast[i] != slow[i] {
				t.Fatalf("%q: target %d is %+v, the slow path's %+v", to, i, fast[i], slow[i])
			}
		}
	})
}
