package doctor

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/seedsms/sms-go/internal/safetext"
)

// FuzzSavedBody: whatever the answer's body, what SaveDir keeps of it is one JSON value, and
// none of its strings or member names holds the run's secret.
func FuzzSavedBody(f *testing.F) {
	f.Add([]byte(`{"data":{"balance":1},"secret":"sk_live_abc","note":"call 08031234567"}`), "abc")
	f.Add([]byte("\ufeff{\"to\":[\"2348025671695\"],\"pin\":\"1234\"}"), "x/y z")
	f.Add([]byte(`<html>sk_live_abc</html>`), "abc")
	f.Add([]byte(`[1,"sk_live_q\"r",{"a":null}]`), `q"r`)
	f.Fuzz(func(t *testing.T, body []byte, tail string) {
		secret := "sk_live_" + tail
		out := redactor{safetext.New(safetext.Config{Secrets: []string{secret}, People: true})}.body(body)
		if out == nil {
			if len(bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\ufeff")))) != 0 {
				t.Fatalf("%q: a body with content kept as nothing", body)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil || dec.More() {
			t.Fatalf("%q kept as %q: not one JSON value: %v", body, out, err)
		}
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				if strings.Contains(x, secret) {
					t.Fatalf("%q kept as %q: the secret is in %q", body, out, x)
				}
			case map[string]any:
				for k, e := range x {
					walk(k)
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(v)
	})
}
