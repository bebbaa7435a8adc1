package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrintable(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want, text string }{
		{"ACME Ltd", "ACME Ltd", "ACME Ltd"},
		{"Adé 李 \"quoted\" back\\slash", "Adé 李 \"quoted\" back\\slash", "Adé 李 \"quoted\" back\\slash"},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\a`, `\x1b]0;pwned\a`},                   // OSC: window title
		{"\x1b]52;c;ZXZpbA==\x07", `\x1b]52;c;ZXZpbA==\a`, `\x1b]52;c;ZXZpbA==\a`}, // OSC 52: clipboard
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},                        // CSI: clear screen
		{"ok\rFORGED", `ok\rFORGED`, `ok\rFORGED`},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"\u009b31m C1 CSI \u0085", `\u009b31m C1 CSI \u0085`, `\u009b31m C1 CSI \u0085`},
		{"evil\u202etxt.exe \u2066x\u2069 zero\u200bwidth", `evil\u202etxt.exe \u2066x\u2069 zero\u200bwidth`, `evil\u202etxt.exe \u2066x\u2069 zero\u200bwidth`},
		{"del\x7f bad\xffutf8", `del\x7f bad\xffutf8`, `del\x7f bad\xffutf8`},
		{"", "", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, printable(tt.in), "%q", tt.in)
		assert.Equal(t, tt.text, printableText(tt.in), "%q", tt.in)
		assert.Equal(t, tt.want, printable(printable(tt.in)), "escaping twice changes nothing: %q", tt.in)
	}
}

func TestEscapeJSON(t *testing.T) {
	t.Parallel()
	in := map[string]string{"v": "ESC\x1b C1\u0085\u009b bidi\u202e DEL\x7f tag\U000E0041 ok: é 李 😀"}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	out := escapeJSON(b)
	assert.Equal(t, `{"v":"ESC\u001b C1\u0085\u009b bidi\u202e DEL\u007f tag\udb40\udc41 ok: é 李 😀"}`, string(out))
	var back map[string]string
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, in, back, "the same document")
	plain := []byte(`{"v":"plain"}`)
	assert.Equal(t, plain, escapeJSON(plain))
}

func TestFitAndPlural(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "abc", fit("abc", 3))
	assert.Equal(t, "ab…", fit("abcd", 3))
	assert.Equal(t, "李李…", fit("李李李李", 3))
	assert.Equal(t, "1 batch", plural(1, "batch", "batches"))
	assert.Equal(t, "0 batches", plural(0, "batch", "batches"))
	assert.Equal(t, "2 batches", plural(2, "batch", "batches"))
}

// hostile is text a server could answer with to forge what a terminal shows: an OSC title,
// a carriage return, a C1 CSI, a bidirectional override and a bell.
const hostile = "\x1b]0;pwned\x07\rFORGED\u009b31m\u202eevil"

// A hostile server's text reaches the terminal escaped, in every table, note and error, and
// --json keeps it, escaped, as the same JSON.
func TestServerTextIsEscaped(t *testing.T) {
	t.Parallel()
	h, err := json.Marshal(hostile)
	require.NoError(t, err)
	s := string(h)
	bodies := map[string]string{
		"/v1/balance":    `{"data":{"balance":1,"cashback":0,"currency":` + s + `}}`,
		"/v1/sender-ids": `{"data":[{"_id":"1","title":` + s + `,"status":"active","country":` + s + `,"company":` + s + `}],"count":1}`,
		"/v1/sms/campaigns": `{"data":[{"_id":` + s + `,"senderId":` + s + `,"recipientCount":1,"amount":3.2,"status":"sent","currency":"NGN","reference":` + s + `}],` +
			`"pagination":{"page":1,"limit":20,"total":1}}`,
		"/v1/sms/campaigns/abc/status": `{"data":{"campaignId":"abc","messageId":` + s + `,"status":"sent","counts":{"sent":1},` +
			`"recipients":[{"to":` + s + `,"status":` + s + `}]},"pagination":{"page":1,"limit":20,"total":1}}`,
		"/v1/keys": `{"data":[{"_id":"k1","name":` + s + `,"publicKey":` + s + `,"scopes":{"sms":true}}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if b, ok := bodies[r.URL.Path]; ok {
			_, _ = w.Write([]byte(b))
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"code":"bad_request","message":` + s + `,"field":` + s + `},"requestId":` + s + `}`))
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{
		envBaseURL: srv.URL, envAPIKey: "pk_test_abc", envAPISecret: "sk_test_abc",
		envDashboard: "aaa.bbb.ccc",
	}
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"balance"}, 0},
		{[]string{"sender-ids", "list"}, 0},
		{[]string{"campaigns", "list"}, 0},
		{[]string{"campaigns", "status", "abc"}, 0},
		{[]string{"keys", "list"}, 0},
		{[]string{"campaigns", "status", "other"}, 1}, // the error
		{[]string{"sender-ids", "list", "--json"}, 0},
		{[]string{"campaigns", "status", "abc", "--json"}, 0},
		{[]string{"keys", "list", "--json"}, 0},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, env, "", tt.args...)
			require.Equal(t, tt.code, r.code, "stdout: %q\nstderr: %q", r.stdout, r.stderr)
			printed := r.stdout + r.stderr
			for _, raw := range []string{"\x1b", "\x07", "\r", "\u009b", "\u202e"} {
				assert.NotContains(t, printed, raw, "printed raw")
			}
			if strings.Contains(strings.Join(tt.args, " "), "--json") {
				for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
					assert.True(t, json.Valid([]byte(line)) || json.Valid([]byte(r.stdout)), "valid JSON: %s", line)
				}
				assert.Contains(t, r.stdout, `\u001b]0;pwned\u0007\rFORGED\u009b31m\u202eevil`, "the same text, escaped as JSON")
				return
			}
			assert.Contains(t, printed, `\x1b]0;pwned\a\rFORGED\u009b31m\u202eevil`, "the text, escaped as in Go")
		})
	}
}
