package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// The command's words about what went wrong: they name what the user gave, the exit status
// says it failed, and with --json the error is a JSON object on stdout.
func TestCommandOutcomes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	send := func(to string, more ...string) []string {
		return append([]string{"send", "--to", to, "--from", f.ws.SenderID, "--message", "Hello"}, more...)
	}
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stderr []string // lines or parts of stderr
		absent string   // not on stderr
		json   map[string]any
	}{
		{
			name: "a pin typed on stdin is named so, not --pin", stdin: "12\n", args: []string{"otp", "verify", "3f2b9c1e-8d4a-4c2e-9b7f-1a2b3c4d5e6f"},
			code: exitUsage, stderr: []string{"sms: invalid pin read from stdin: "}, absent: "--pin",
		},
		{
			name: "a pin given as --pin is named --pin", args: []string{"otp", "verify", "3f2b9c1e-8d4a-4c2e-9b7f-1a2b3c4d5e6f", "--pin", "12"},
			code: exitUsage, stderr: []string{"sms: invalid --pin: "},
		},
		{
			name: "a campaign the provider refused fails the command", args: send(mockserver.MagicRefused),
			code: exitFailure, stderr: []string{"failed: the provider refused it, and it was refunded (0.00 NGN)"},
		},
		{
			name: "an inactive sender ID points to the list", args: []string{"send", "--to", "08025671695", "--from", "NOTMINE", "--message", "Hello"},
			code: exitFailure, stderr: []string{"sms: 400 ", "'sms sender-ids list' shows the workspace's sender IDs and which are active"},
		},
		{
			name: "--json: an API error is a JSON object on stdout", args: []string{"send", "--to", "08025671695", "--from", "NOTMINE", "--message", "Hello", "--json"},
			code: exitFailure, stderr: []string{"sms: 400 "},
			json: map[string]any{"status": 400.0, "exitCode": 1.0, "field": "from", "code": "bad_request"},
		},
		{
			name: "--json: a usage error too", args: []string{"send", "--to", "12", "--from", "ACME", "--message", "Hello", "--json"},
			code: exitUsage, stderr: []string{"sms: invalid --to"},
			json: map[string]any{"exitCode": 2.0},
		},
		{
			name: "--json: a refused campaign prints the campaign, not an error object", args: send(mockserver.MagicRefused, "--json"),
			code: exitFailure, json: map[string]any{"status": "failed"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, f.env, tt.stdin, tt.args...)
			require.Equal(t, tt.code, r.code, r.stderr)
			for _, s := range tt.stderr {
				assert.Contains(t, r.stderr, s)
			}
			if tt.absent != "" {
				assert.NotContains(t, r.stderr, tt.absent)
			}
			if tt.json == nil {
				return
			}
			m := decodeJSON(t, r.stdout)
			if e, ok := m["error"].(map[string]any); ok {
				assert.NotEmpty(t, e["message"])
				m = e
			}
			for k, v := range tt.json {
				assert.Equal(t, v, m[k], k)
			}
		})
	}
}

// sms send claims a refund only when the answer states one (a cost of 0.00), and a 200 whose
// body says it is an error fails the command with the server's words.
func TestCommandRefundAndErrorBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		status int
		body   string
		stderr string
		absent string
	}{
		{"a cost, not a refund", []string{"send", "--to", "08025671695", "--from", "ACME", "--message", "Hi"}, 202,
			`{"campaign":{"id":"c1","status":"failed","amount":3.20,"currency":"NGN"}}`, "the answer states a cost of 3.20 NGN, not a refund", "refunded ("},
		{"no cost stated", []string{"send", "--to", "08025671695", "--from", "ACME", "--message", "Hi"}, 202,
			`{"campaign":{"id":"c1","status":"failed"}}`, "the answer does not say whether it was refunded", "refunded ("},
		{"a list answered 200 success false", []string{"campaigns", "list"}, 200,
			`{"success":false,"message":"DB timeout","data":[]}`, "DB timeout", ""},
		{"sender IDs answered 200 status error", []string{"sender-ids", "list"}, 200,
			`{"status":"error","message":"Invalid API key"}`, "Invalid API key", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			t.Cleanup(srv.Close)
			env := map[string]string{envBaseURL: srv.URL, envAPIKey: "pk_test_abc", envAPISecret: "sk_test_def"}
			r := runCLI(t, env, "", tt.args...)
			assert.NotEqual(t, 0, r.code, "the command fails")
			assert.Contains(t, r.stderr, tt.stderr)
			if tt.absent != "" {
				assert.NotContains(t, r.stderr, tt.absent)
			}
		})
	}
}
