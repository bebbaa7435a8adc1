package mockserver

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
