package reqlog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRedactBody(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"pin_id":"p1","pin":"123456"}`, `{"pin":"[REDACTED]","pin_id":"p1"}`},
		{`{"pin_id":"p1","PIN":"123456"}`, `{"PIN":"[REDACTED]","pin_id":"p1"}`},
		{`{"pin_id":"p1","p\u0069n":"123456"}`, `{"pin":"[REDACTED]","pin_id":"p1"}`},
		{`{"nested":[{"secret":"s"}]}`, `{"nested":[{"secret":"[REDACTED]"}]}`},
		{`{ "to": "2348025671695",  "message": "hi" }`, `{"to":"2348025671695","message":"hi"}`},
		// Every name that redactPins redacts (strings.EqualFold: Unicode folding, where "ſ"
		// is "s") takes the redacting path, whatever the text around it.
		{`{"ſecret":"s"}`, `{"ſecret":"[REDACTED]"}`},
		{`{"message":"say \"hi\"","Pin":"1234"}`, `{"Pin":"[REDACTED]","message":"say \"hi\""}`},
		{`{"message":"line\none","pin":"1234"}`, `{"message":"line\none","pin":"[REDACTED]"}`},
		{`{"message":"pin","to":"x"}`, `{"message":"pin","to":"x"}`},
		{`{"to":"x"} trailing`, `"[not JSON]"`},
		{`{"pin":"1"}}`, `"[not JSON]"`},
		{`{"to":"x"`, `"[not JSON]"`},
		{`not json`, `"[not JSON]"`},
		{``, ``},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(redactBody([]byte(tt.in))), tt.in)
	}
}

func TestLooksSecret(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value  string
		secret bool
	}{
		{"sk_live_0123456789ABCDEFGHIJabcdefghij0123456789", true},
		{"SK_TEST_abc", true},
		{"token=sk_test_abc; other", true},
		{"Bearer abc.def", true},
		{"  bearer x", true},
		{"Basic dXNlcjpwYXNz", true},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln", true},
		{"id=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.", true},
		{"pk_live_0123456789ABCDEFabcdefgh", false},
		{"application/json", false},
		{"Go-http-client/1.1", false},
		{"eyJust.one dot", false},
		{"eyJ.a.b", true}, // JWT-shaped, if barely: redacted, to be safe
		{"a.b.c", false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.secret, looksSecret(tt.value), tt.value)
	}
}

func TestRedactQuery(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"page=2&limit=20", "page=2&limit=20"},
		{"secret=sk_live_abc&page=2", "page=2&secret=%5BREDACTED%5D"},
		{"t=Bearer+abc", "t=%5BREDACTED%5D"},
		{"x=%zz&secret=sk_test_a", "[REDACTED]"}, // not a query url can parse: all of it
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, redactQuery(tt.in), tt.in)
	}
}

// FuzzRedactBody: whatever the body, what the log keeps of it is JSON in which every member
// that redactPins names (pin or secret, folded) holds only the redaction mark.
func FuzzRedactBody(f *testing.F) {
	for _, seed := range []string{
		`{"pin_id":"p1","pin":"123456"}`, `{"p\u0069n":"1"}`, `{"ſecret":"s"}`,
		`{"message":"say \"hi\"","Pin":"1234"}`, `{"nested":[{"SECRET":"s"}]}`, `{"to":"x"} trailing`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out := redactBody(body)
		if out == nil {
			return
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber() // 1e700 is JSON, not a float64
		if err := dec.Decode(&v); err != nil || dec.More() {
			t.Fatalf("kept %q of %q: not JSON: %v", out, body, err)
		}
		var walk func(any)
		walk = func(v any) {
			switch t2 := v.(type) {
			case map[string]any:
				for k, x := range t2 {
					if (strings.EqualFold(k, "pin") || strings.EqualFold(k, "secret")) && x != Redacted {
						t.Fatalf("kept %q of %q: member %q holds %v", out, body, k, x)
					}
					walk(x)
				}
			case []any:
				for _, x := range t2 {
					walk(x)
				}
			}
		}
		walk(v)
	})
}
