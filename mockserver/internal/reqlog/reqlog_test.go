package reqlog

import (
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
