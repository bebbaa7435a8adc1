package main

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goNames are the SDK's Go names of parameters and options, which no error may show.
var goNames = regexp.MustCompile(`invalid [A-Z][A-Za-z]*(\[[0-9]+\])?:|With[A-Z][A-Za-z]+|\(field `)

// Errors name the flags and arguments the user typed, not the SDK's Go names; each is
// refused before any request.
func TestErrorsInTheCommandsWords(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sender := f.ws.SenderID
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"send", "--to", "12", "--from", sender, "--message", "Hi"}, "sms: invalid --to, value 1: phone number must be"},
		{[]string{"send", "--to", "08025671695,12", "--from", sender, "--message", "Hi"}, "sms: invalid --to, value 2: "},
		{[]string{"send", "--to", "08025671695", "--from", "A!", "--message", "Hi"}, "sms: invalid --from: a sender ID is"},
		{[]string{"send", "--to", "08025671695", "--from", sender, "--message", "Hi", "--reference", "é"}, "sms: invalid --reference: "},
		{[]string{"send", "--to", "08025671695", "--from", sender, "--message", "Hi", "--channel", "sms"}, "sms: invalid --channel: "},
		{[]string{"otp", "send", "--to", "08025671695", "--from", sender, "--message", "Code < 1234 >", "--length", "3"}, "sms: invalid --length: "},
		{[]string{"otp", "send", "--to", "08025671695", "--from", sender, "--message", "Code < 1234 >", "--ttl", "90m"}, "sms: invalid --ttl: "},
		{[]string{"otp", "send", "--to", "08025671695", "--from", sender, "--message", "Code < 1234 >", "--type", "hex"}, "sms: invalid --type: "},
		{[]string{"otp", "send", "--to", "08025671695", "--from", sender, "--message", "Code"}, "sms: invalid --message: "},
		{[]string{"otp", "send", "--to", "08025671695", "--from", sender, "--message-text", "Code"}, "sms: invalid --message: "},
		{[]string{"otp", "verify", "", "--pin", "123456"}, "sms: invalid PIN_ID: "},
		{[]string{"campaigns", "status", ""}, "sms: invalid CAMPAIGN_ID: an id is required"},
		{[]string{"campaigns", "list", "--limit", "101"}, "sms: invalid --limit: "},
		{[]string{"campaigns", "list", "--page", "-1"}, "sms: invalid --page: "},
		{[]string{"sender-ids", "request", "A", "--usecase", "x", "--company", "y"}, "sms: invalid SENDER_ID: "},
		{[]string{"sender-ids", "list", "--status", "gone"}, "sms: invalid --status: "},
		{[]string{"keys", "create", "--name", ""}, "sms: invalid --name: "},
		{[]string{"keys", "create", "--name", "ci", "--scopes", "sms,bogus"}, "sms: invalid --scopes, value 2: unknown scope"},
		{[]string{"keys", "create", "--name", "ci", "--expires-in-days", "5000"}, "sms: invalid --expires-in-days: "},
		{[]string{"keys", "revoke", ""}, "sms: invalid KEY_ID: "},
		{[]string{"bulk", "--csv", peopleCSV(t, 3, 0, 0), "--from", sender, "--message", "Hi", "--job-id", "a b\x01"}, "sms: invalid --job-id: "},
		{[]string{"balance", "--base-url", "http://example.com"}, "use https:// or --insecure-http"},
	}
	for _, tt := range tests {
		r := runCLI(t, f.env, "", tt.args...)
		assert.Equal(t, 2, r.code, "%q: %s", tt.args, r.stderr)
		assert.Contains(t, r.stderr, tt.want, "%q", tt.args)
		assert.NotRegexp(t, goNames, r.stderr, "%q", tt.args)
	}
	assert.Empty(t, f.srv.Requests(), "every error was found before any request")
}

// A server's 400 that names a field in the wire's words is shown in the command's.
func TestServerFieldInTheCommandsWords(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"code":"bad_request","message":"this number cannot be reached","field":"to[1]"},"requestId":"req-1"}`))
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{envBaseURL: srv.URL, envAPIKey: "pk_test_abc", envAPISecret: "sk_test_abc"}
	r := runCLI(t, env, "", "send", "--to", "08025671695,08031234567", "--from", "ACME", "--message", "Hi")
	require.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, "sms: 400 bad_request: this number cannot be reached (--to, value 2) [request req-1]\n", r.stderr)
}
