package wire

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestInvalidUTF8Field(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, field string }{
		{"{\"message\":\"a\xffb\"}", "message"},
		{"{\"to\":[\"1\",\"2\",\"\xc0\"]}", "to[2]"},
		{"{\"to\":[{\"phone\":\"1\"},{\"phone\":\"2\",\"name\":\"\xed\xa0\x80\"}]}", "to[1].name"},
		{"{\"a\":{\"b\":[1,{\"c\":[true,null,\"\xff\"]}]}}", "a.b[1].c[2]"},
		{"{\"ok\":\"é\",\"bad\":\"\xff\"}", "bad"},
		{"[\"\xff\"]", "[0]"},
		{"\"\xff\"", ""},
		{"{\xff}", ""},
		{"{\"valid\":\"only\"}", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.field, invalidUTF8Field([]byte(tt.body)), "%q", tt.body)
	}
}

// FuzzInvalidUTF8Field: any body, no panic; a member holding invalid UTF-8 in an otherwise
// valid object is named.
func FuzzInvalidUTF8Field(f *testing.F) {
	f.Add([]byte("{\"message\":\"a\xffb\"}"), "name")
	f.Add([]byte("{\"to\":[{\"name\":\"\xc0\"}]}"), "to")
	f.Fuzz(func(t *testing.T, body []byte, name string) {
		_ = invalidUTF8Field(body)
		if name == "" || !utf8.ValidString(name) {
			return
		}
		key, err := json.Marshal(name)
		if err != nil {
			return
		}
		b := append(append([]byte("{"), key...), ":\"x\xffy\"}"...)
		if got := invalidUTF8Field(b); got != name {
			t.Fatalf("field of %q = %q, want %q", b, got, name)
		}
	})
}
