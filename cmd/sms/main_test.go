package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// result is what one run of the command printed and returned.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs the command in-process with env as its whole environment.
func runCLI(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	return runCLIContext(t, context.Background(), env, stdin, args...)
}

func runCLIContext(t *testing.T, ctx context.Context, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	jdir := testJournalDir(t)
	code := run(ctx, args, strings.NewReader(stdin), &out, &errb, func(k string) string {
		if v, ok := env[k]; ok || k != envJournalDir {
			return v
		}
		return jdir
	})
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// journalDirs holds the journal directory of each test: the runs of one test share it, as
// the runs of one user do, unless env sets SMS_JOURNAL_DIR.
var journalDirs sync.Map // *testing.T -> string

func testJournalDir(t *testing.T) string {
	if d, ok := journalDirs.Load(t); ok {
		return d.(string)
	}
	d := t.TempDir()
	journalDirs.Store(t, d)
	t.Cleanup(func() { journalDirs.Delete(t) })
	return d
}

// fixture is a mock server and the environment of its default workspace's test key.
type fixture struct {
	srv   *mockserver.Server
	ws    mockserver.Workspace
	env   map[string]string
	stdin string // what the command reads on stdin
}

func newFixture(t *testing.T, opts ...mockserver.Option) *fixture {
	t.Helper()
	srv := mockserver.NewTest(t, opts...)
	ws := srv.Default()
	return &fixture{srv: srv, ws: ws, env: map[string]string{
		envBaseURL:    srv.URL(),
		envAPIKey:     ws.TestKey,
		envAPISecret:  ws.TestSecret,
		envDashboard:  ws.DashboardToken,
		envJournalDir: t.TempDir(),
	}}
}

// balance returns the test wallet in kobo.
func (f *fixture) balance(t *testing.T) int64 {
	t.Helper()
	b, err := f.srv.Balance(f.ws.WorkspaceID, mockserver.ModeTest)
	require.NoError(t, err)
	return b
}

// requests counts the requests the mock received for path.
func (f *fixture) requests(path string) int {
	n := 0
	for _, r := range f.srv.Requests() {
		if r.Path == path {
			n++
		}
	}
	return n
}

// secrets are the credentials that must never be printed.
func (f *fixture) secrets() []string {
	return []string{f.ws.TestSecret, f.ws.LiveSecret, f.ws.DashboardToken}
}

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m), "stdout is one JSON document: %q", s)
	return m
}

func decodeLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "each line is a JSON object: %q", sc.Text())
		out = append(out, m)
	}
	return out
}

// sendOne sends one SMS through the command and returns the campaign id.
func (f *fixture) sendOne(t *testing.T, to string) string {
	t.Helper()
	r := runCLI(t, f.env, "", "send", "--to", to, "--from", f.ws.SenderID, "--message", "Hello", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	return decodeJSON(t, r.stdout)["id"].(string)
}

func TestCommands(t *testing.T) {
	t.Parallel()
	type check func(t *testing.T, f *fixture, r result)
	tests := []struct {
		name  string
		setup func(t *testing.T, f *fixture) []string // returns the args
		code  int
		check check
	}{
		{
			name:  "balance table",
			setup: func(*testing.T, *fixture) []string { return []string{"balance"} },
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Regexp(t, `(?m)^BALANCE\s+CASHBACK\s+CURRENCY\n10000\.00\s+0\.00\s+NGN\n$`, r.stdout)
			},
		},
		{
			name:  "balance json",
			setup: func(*testing.T, *fixture) []string { return []string{"balance", "--json"} },
			check: func(t *testing.T, _ *fixture, r result) {
				assert.JSONEq(t, `{"balance": 10000.00, "cashback": 0.00, "currency": "NGN"}`, r.stdout)
			},
		},
		{
			name: "send table",
			setup: func(_ *testing.T, f *fixture) []string {
				return []string{"send", "--to", "08025671695", "--from", f.ws.SenderID, "--message", "Your order has shipped."}
			},
			check: func(t *testing.T, f *fixture, r result) {
				assert.Regexp(t, `(?m)^CAMPAIGN\s+SENT TO PROVIDER\s+RECIPIENTS\s+PARTS\s+AMOUNT\s+REFERENCE\n[0-9a-f]{24}\s+sent\s+1\s+1\s+3\.20 NGN\s+sms-go-\S+\n$`, r.stdout)
				assert.Equal(t, int64(mockserver.DefaultBalance-320), f.balance(t))
			},
		},
		{
			name: "send json to two numbers, duplicates once",
			setup: func(_ *testing.T, f *fixture) []string {
				return []string{"send", "--to", "08025671695,2348025671695", "--to", "+2348031234567", "--from", f.ws.SenderID, "--message", "Sale", "--channel", "dnd", "--json"}
			},
			check: func(t *testing.T, f *fixture, r result) {
				m := decodeJSON(t, r.stdout)
				assert.Equal(t, 2.0, m["recipients"])
				assert.Equal(t, 9.0, m["amount"])
				assert.Equal(t, "dnd", m["channel"])
				assert.Equal(t, int64(mockserver.DefaultBalance-900), f.balance(t))
			},
		},
		{
			name: "send replayed by reference charges once",
			setup: func(t *testing.T, f *fixture) []string {
				r := runCLI(t, f.env, "", "send", "--to", "08025671695", "--from", f.ws.SenderID, "--message", "Hi", "--reference", "order-1")
				require.Equal(t, 0, r.code, r.stderr)
				return []string{"send", "--to", "08025671695", "--from", f.ws.SenderID, "--message", "Hi", "--reference", "order-1", "--json"}
			},
			check: func(t *testing.T, f *fixture, r result) {
				assert.Equal(t, true, decodeJSON(t, r.stdout)["replayed"])
				assert.Equal(t, int64(mockserver.DefaultBalance-320), f.balance(t))
			},
		},
		{
			name: "send invalid number is an input error before any request",
			setup: func(_ *testing.T, f *fixture) []string {
				return []string{"send", "--to", "12", "--from", f.ws.SenderID, "--message", "Hi"}
			},
			code: 2,
			check: func(t *testing.T, f *fixture, r result) {
				assert.Empty(t, r.stdout)
				assert.Contains(t, r.stderr, "sms: invalid --to, value 1: phone number must be")
				assert.Zero(t, f.requests("/v1/sms/send"))
			},
		},
		{
			name:  "send without --from is a usage error",
			setup: func(*testing.T, *fixture) []string { return []string{"send", "--to", "08025671695", "--message", "Hi"} },
			code:  2,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stderr, `required flag(s) "from" not set`)
				assert.Contains(t, r.stderr, "Run 'sms send --help' for usage.")
			},
		},
		{
			name:  "unknown flag is a usage error",
			setup: func(*testing.T, *fixture) []string { return []string{"balance", "--bogus"} },
			code:  2,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Equal(t, "sms: unknown flag: --bogus\nRun 'sms balance --help' for usage.\n", r.stderr)
			},
		},
		{
			name:  "unknown command is a usage error",
			setup: func(*testing.T, *fixture) []string { return []string{"sned"} },
			code:  2,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stderr, `unknown command "sned"`)
			},
		},
		{
			name: "insufficient balance is an API error with code and request ID",
			setup: func(t *testing.T, f *fixture) []string {
				require.NoError(t, f.srv.SetBalance(f.ws.WorkspaceID, mockserver.ModeTest, 0))
				return []string{"send", "--to", "08025671695", "--from", f.ws.SenderID, "--message", "Hi"}
			},
			code: 1,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Empty(t, r.stdout)
				assert.Regexp(t, `^sms: 402 insufficient_balance: .+ \[request req-[0-9a-f]+\]\n$`, r.stderr)
			},
		},
		{
			name: "a key without the scope gets a scope error",
			setup: func(t *testing.T, f *fixture) []string {
				r := runCLI(t, f.env, "", "keys", "create", "--name", "reader", "--scopes", "balance", "--test", "--json")
				require.Equal(t, 0, r.code, r.stderr)
				k := decodeJSON(t, r.stdout)
				f.env = map[string]string{envBaseURL: f.env[envBaseURL], envAPIKey: k["publicKey"].(string), envAPISecret: k["secret"].(string)}
				return []string{"send", "--to", "08025671695", "--from", f.ws.SenderID, "--message", "Hi"}
			},
			code: 1,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Regexp(t, `^sms: 403 insufficient_scope: the API key lacks the "sms" scope \[request req-[0-9a-f]+\]\n$`, r.stderr)
			},
		},
		{
			name: "campaigns list table",
			setup: func(t *testing.T, f *fixture) []string {
				f.sendOne(t, "08025671695")
				f.sendOne(t, "08031234567")
				return []string{"campaigns", "list"}
			},
			check: func(t *testing.T, f *fixture, r result) {
				lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
				require.Len(t, lines, 3)
				assert.Regexp(t, `^CAMPAIGN\s+CREATED\s+SENDER\s+SENT TO PROVIDER\s+RECIPIENTS\s+PARTS\s+AMOUNT\s+REFERENCE$`, lines[0])
				assert.Regexp(t, `^[0-9a-f]{24}\s+\d{4}-\d\d-\d\dT\S+Z\s+MOCKSMS\s+sent\s+1\s+1\s+3\.20 NGN\s+sms-go-\S+$`, lines[1])
			},
		},
		{
			name: "campaigns list --all --json is one object per line, newest first",
			setup: func(t *testing.T, f *fixture) []string {
				for _, n := range []string{"08025671695", "08031234567", "08051234567"} {
					f.sendOne(t, n)
				}
				return []string{"campaigns", "list", "--all", "--limit", "2", "--json"}
			},
			check: func(t *testing.T, f *fixture, r result) {
				items := decodeLines(t, r.stdout)
				require.Len(t, items, 3)
				assert.Greater(t, items[0]["id"], items[1]["id"])
				assert.Greater(t, items[1]["id"], items[2]["id"])
				assert.Equal(t, 2, f.requests("/v1/sms/campaigns"), "two pages of 2")
			},
		},
		{
			name: "campaigns list tells on stderr that there are more pages",
			setup: func(t *testing.T, f *fixture) []string {
				for _, n := range []string{"08025671695", "08031234567", "08051234567"} {
					f.sendOne(t, n)
				}
				return []string{"campaigns", "list", "--limit", "2"}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Len(t, strings.Split(strings.TrimSpace(r.stdout), "\n"), 3, "a header and 2 campaigns")
				assert.Equal(t, "page 1 of 2 (3 campaigns); --page N for more, --all for every one\n", r.stderr)
			},
		},
		{
			name: "campaigns status --all fetches every recipient",
			setup: func(t *testing.T, f *fixture) []string {
				r := runCLI(t, f.env, "", "send", "--to", "08025671695,08031234567,08051234567", "--from", f.ws.SenderID, "--message", "Hi", "--json")
				require.Equal(t, 0, r.code, r.stderr)
				return []string{"campaigns", "status", decodeJSON(t, r.stdout)["id"].(string), "--all", "--limit", "2", "--json"}
			},
			check: func(t *testing.T, f *fixture, r result) {
				m := decodeJSON(t, r.stdout)
				require.Len(t, m["recipients"], 3)
				assert.Equal(t, "2348051234567", m["recipients"].([]any)[2].(map[string]any)["to"])
				assert.Equal(t, 3.0, m["counts"].(map[string]any)["sent"])
			},
		},
		{
			name: "campaigns status table",
			setup: func(t *testing.T, f *fixture) []string {
				return []string{"campaigns", "status", f.sendOne(t, "08025671695")}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Regexp(t, `(?s)^CAMPAIGN\s+DELIVERY\s+NO REPORT\s+DELIVERED\s+FAILED\s+DND\n[0-9a-f]{24}\s+sent\s+1\s+0\s+0\s+0\n\nTO\s+DELIVERY\s+UPDATED\n2348025671695\s+sent\s+\S+Z\n$`, r.stdout)
			},
		},
		{
			name: "campaigns status --json after delivery",
			setup: func(t *testing.T, f *fixture) []string {
				id := f.sendOne(t, "08025671695")
				require.NoError(t, f.srv.Deliver(id, nil))
				return []string{"campaigns", "status", id, "--json"}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				m := decodeJSON(t, r.stdout)
				assert.Equal(t, "delivered", m["status"])
				assert.Equal(t, map[string]any{"sent": 0.0, "delivered": 1.0, "failed": 0.0, "dnd": 0.0}, m["counts"])
				assert.Len(t, m["recipients"], 1)
			},
		},
		{
			name: "campaigns status of an unknown id is not found",
			setup: func(*testing.T, *fixture) []string {
				return []string{"campaigns", "status", "ffffffffffffffffffffffff"}
			},
			code: 1,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stderr, "404 not_found")
			},
		},
		{
			name: "otp send then verify with the pin on stdin",
			setup: func(t *testing.T, f *fixture) []string {
				r := runCLI(t, f.env, "", "otp", "send", "--to", "08025671695", "--from", f.ws.SenderID, "--message", "Code < 1234 >", "--json")
				require.Equal(t, 0, r.code, r.stderr)
				pinID := decodeJSON(t, r.stdout)["pinId"].(string)
				gotID, pin, err := f.srv.LatestOTP("08025671695")
				require.NoError(t, err)
				require.Equal(t, pinID, gotID)
				require.NotContains(t, r.stdout+r.stderr, pin, "the pin is never printed")
				f.stdin = pin + "\n"
				return []string{"otp", "verify", pinID, "--json"}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				m := decodeJSON(t, r.stdout)
				assert.Equal(t, true, m["verified"])
				assert.Equal(t, "2348025671695", m["msisdn"])
			},
		},
		{
			name: "otp send without --message leaves the text to the server",
			setup: func(_ *testing.T, f *fixture) []string {
				return []string{"otp", "send", "--to", "08025671695", "--from", f.ws.SenderID, "--json"}
			},
			check: func(t *testing.T, f *fixture, r result) {
				assert.NotEmpty(t, decodeJSON(t, r.stdout)["pinId"])
				var bodies []string
				for _, rec := range f.srv.Requests() {
					if rec.Path == "/v1/otp/send" {
						bodies = append(bodies, string(rec.Body))
					}
				}
				require.Len(t, bodies, 1)
				assert.NotContains(t, bodies[0], "message_text")
			},
		},
		{
			name: "otp send --message-text is the deprecated spelling of --message",
			setup: func(_ *testing.T, f *fixture) []string {
				return []string{"otp", "send", "--to", "08025671695", "--from", f.ws.SenderID, "--message-text", "Code < 1234 >", "--json"}
			},
			check: func(t *testing.T, f *fixture, r result) {
				assert.NotEmpty(t, decodeJSON(t, r.stdout)["pinId"])
				assert.Contains(t, r.stderr, "--message-text is deprecated: use --message")
				var body string
				for _, rec := range f.srv.Requests() {
					if rec.Path == "/v1/otp/send" {
						body = string(rec.Body)
					}
				}
				assert.Contains(t, body, `"message_text":"Code \u003c 1234 \u003e"`, "the text of --message-text is sent")
			},
		},
		{
			name: "otp verify --pin-id says that the pin ID is the argument",
			setup: func(*testing.T, *fixture) []string {
				return []string{"otp", "verify", "--pin-id", "3f2b9c1e", "--pin", "123456"}
			},
			code: 2,
			check: func(t *testing.T, f *fixture, r result) {
				assert.Contains(t, r.stderr, "sms: the pin ID is the argument: sms otp verify PIN_ID")
				assert.Zero(t, f.requests("/v1/otp/verify"))
			},
		},
		{
			name: "otp verify with a wrong pin exits 1",
			setup: func(t *testing.T, f *fixture) []string {
				r := runCLI(t, f.env, "", "otp", "send", "--to", "08025671695", "--from", f.ws.SenderID, "--message", "Code < 1234 >", "--length", "8", "--json")
				require.Equal(t, 0, r.code, r.stderr)
				return []string{"otp", "verify", decodeJSON(t, r.stdout)["pinId"].(string), "--pin", "0000000x"} // 8 characters, never a numeric pin
			},
			code: 1,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Regexp(t, `PIN ID\s+VERIFIED\s+NUMBER\n\S+\s+no\s+2348025671695`, r.stdout)
				assert.Contains(t, r.stderr, "the pin did not match; 4 attempts remaining")
			},
		},
		{
			name: "otp send with a bad pin length is an input error",
			setup: func(_ *testing.T, f *fixture) []string {
				return []string{"otp", "send", "--to", "08025671695", "--from", f.ws.SenderID, "--message", "Code < 1234 >", "--length", "3"}
			},
			code: 2,
			check: func(t *testing.T, f *fixture, r result) {
				assert.Contains(t, r.stderr, "sms: invalid --length: a pin is 4 to 8 characters")
				assert.Zero(t, f.requests("/v1/otp/send"))
			},
		},
		{
			name: "sender-ids request then list pending as JSON lines",
			setup: func(t *testing.T, f *fixture) []string {
				r := runCLI(t, f.env, "", "sender-ids", "request", "ACME", "--usecase", "Order updates", "--company", "Acme Ltd")
				require.Equal(t, 0, r.code, r.stderr)
				require.Regexp(t, `SENDER ID\s+STATUS\s+COUNTRY\s+COMPANY\s+CREATED\nACME\s+pending\s+Nigeria\s+Acme Ltd\s+\S+Z\n`, r.stdout)
				return []string{"sender-ids", "list", "--status", "pending", "--json"}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				items := decodeLines(t, r.stdout)
				require.Len(t, items, 1)
				assert.Equal(t, "ACME", items[0]["title"])
				assert.Equal(t, "pending", items[0]["status"])
			},
		},
		{
			name:  "sender-ids list table",
			setup: func(*testing.T, *fixture) []string { return []string{"sender-ids", "list"} },
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Regexp(t, `^SENDER ID\s+STATUS\s+COUNTRY\s+COMPANY\s+CREATED\nMOCKSMS\s+active\s+Nigeria\s+`, r.stdout)
			},
		},
		{
			name:  "sender-ids list with a bad status is an input error",
			setup: func(*testing.T, *fixture) []string { return []string{"sender-ids", "list", "--status", "gone"} },
			code:  2,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stderr, "sms: invalid --status: ")
			},
		},
		{
			name: "keys create shows the new secret once, list never",
			setup: func(t *testing.T, f *fixture) []string {
				r := runCLI(t, f.env, "", "keys", "create", "--name", "billing", "--scopes", "sms,balance")
				require.Equal(t, 0, r.code, r.stderr)
				require.Regexp(t, `KEY ID\s+NAME\s+PUBLIC KEY\s+SECRET\s+SCOPES\s+EXPIRES\n[0-9a-f]{24}\s+billing\s+pk_live_\w+\s+sk_live_\w+\s+sms,balance\s+-\n`, r.stdout)
				require.Contains(t, r.stderr, "shown only this once")
				return []string{"keys", "list", "--json"}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				items := decodeLines(t, r.stdout)
				require.NotEmpty(t, items)
				assert.Equal(t, "billing", items[0]["name"])
				assert.Equal(t, []any{"sms", "balance"}, items[0]["scopes"])
				assert.NotContains(t, r.stdout, "sk_live_")
				assert.NotContains(t, r.stdout, "secret")
			},
		},
		{
			name: "keys revoke",
			setup: func(t *testing.T, f *fixture) []string {
				r := runCLI(t, f.env, "", "keys", "create", "--name", "old", "--json")
				require.Equal(t, 0, r.code, r.stderr)
				return []string{"keys", "revoke", decodeJSON(t, r.stdout)["id"].(string)}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Regexp(t, `KEY ID\s+NAME\s+PUBLIC KEY\s+SCOPES\s+STATE.*\n[0-9a-f]{24}\s+old\s+pk_live_\w+\s+sms,otp,campaigns,sender_ids,balance\s+revoked\s`, r.stdout)
			},
		},
		{
			name: "keys without a dashboard token is a usage error",
			setup: func(_ *testing.T, f *fixture) []string {
				delete(f.env, envDashboard)
				return []string{"keys", "list"}
			},
			code: 2,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stderr, "no dashboard token: set SMS_DASHBOARD_TOKEN")
			},
		},
		{
			name: "no API key is a usage error",
			setup: func(_ *testing.T, f *fixture) []string {
				delete(f.env, envAPIKey)
				return []string{"balance"}
			},
			code: 2,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Equal(t, "sms: no API key: set SMS_API_KEY or use --api-key\n", r.stderr)
			},
		},
		{
			name: "no base URL is a usage error",
			setup: func(_ *testing.T, f *fixture) []string {
				delete(f.env, envBaseURL)
				return []string{"balance"}
			},
			code: 2,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stderr, "no base URL: set SMS_BASE_URL or use --base-url")
			},
		},
		{
			name: "flags override the environment",
			setup: func(_ *testing.T, f *fixture) []string {
				key, url := f.env[envAPIKey], f.env[envBaseURL]
				f.env[envAPIKey], f.env[envBaseURL] = "pk_test_wrong", "http://127.0.0.1:1"
				return []string{"balance", "--api-key", key, "--base-url", url}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stdout, "10000.00")
			},
		},
		{
			name: "a wrong secret is unauthorized",
			setup: func(_ *testing.T, f *fixture) []string {
				f.env[envAPISecret] = "sk_test_" + strings.Repeat("x", 40)
				return []string{"balance"}
			},
			code: 1,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stderr, "401 unauthorized")
			},
		},
		{
			name: "a secret flag warns that it lands in shell history",
			setup: func(_ *testing.T, f *fixture) []string {
				secret := f.env[envAPISecret]
				delete(f.env, envAPISecret)
				return []string{"balance", "--api-secret", secret}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stdout, "10000.00")
				assert.Contains(t, r.stderr, "warning: --api-secret is visible in shell history and process lists; set SMS_API_SECRET or use --api-secret-file")
			},
		},
		{
			name: "a dashboard token flag warns too",
			setup: func(_ *testing.T, f *fixture) []string {
				tok := f.env[envDashboard]
				delete(f.env, envDashboard)
				return []string{"keys", "list", "--dashboard-token", tok}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stdout, "Default test key")
				assert.Contains(t, r.stderr, "warning: --dashboard-token is visible in shell history and process lists; set SMS_DASHBOARD_TOKEN or use --dashboard-token-file")
			},
		},
		{
			name: "a secret flag and a secret file are exclusive",
			setup: func(*testing.T, *fixture) []string {
				return []string{"balance", "--api-secret", "sk_test_x", "--api-secret-file", "-"}
			},
			code: 2,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stderr, "--api-secret and --api-secret-file are exclusive")
			},
		},
		{
			name: "otp verify without a pin is a usage error",
			setup: func(*testing.T, *fixture) []string {
				return []string{"otp", "verify", "3f2b9c1e-8d4a-4c2e-9b7f-1a2b3c4d5e6f"}
			},
			code: 2,
			check: func(t *testing.T, f *fixture, r result) {
				assert.Contains(t, r.stderr, "no pin: give --pin or type it on stdin")
				assert.Zero(t, f.requests("/v1/otp/verify"))
			},
		},
		{
			name: "the secret read from stdin",
			setup: func(_ *testing.T, f *fixture) []string {
				f.stdin = f.env[envAPISecret] + "\n"
				delete(f.env, envAPISecret)
				return []string{"balance", "--api-secret-file", "-"}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stdout, "10000.00")
				assert.Empty(t, r.stderr)
			},
		},
		{
			name: "the secret read from a file",
			setup: func(t *testing.T, f *fixture) []string {
				p := filepath.Join(t.TempDir(), "secret")
				require.NoError(t, os.WriteFile(p, []byte(f.env[envAPISecret]+"\n"), 0o600))
				delete(f.env, envAPISecret)
				return []string{"balance", "--api-secret-file", p}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stdout, "10000.00")
			},
		},
		{
			name: "a network error exits 1",
			setup: func(t *testing.T, f *fixture) []string {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				require.NoError(t, err)
				f.env[envBaseURL] = "http://" + ln.Addr().String()
				require.NoError(t, ln.Close())
				return []string{"balance", "--max-retries", "0"}
			},
			code: 1,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stderr, "sms: GET /v1/balance")
				assert.Contains(t, r.stderr, "connection refused")
			},
		},
		{
			name:  "help shows the example",
			setup: func(*testing.T, *fixture) []string { return []string{"send", "--help"} },
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stdout, "Examples:\n  sms send --to 08025671695")
			},
		},
		{
			name: "shell completion of flag values",
			setup: func(*testing.T, *fixture) []string {
				return []string{"__complete", "sender-ids", "list", "--status", ""}
			},
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Equal(t, "pending\nactive\nblocked\n:4\n", r.stdout)
			},
		},
		{
			name:  "shell completion",
			setup: func(*testing.T, *fixture) []string { return []string{"completion", "bash"} },
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Contains(t, r.stdout, "bash completion V2 for sms")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			args := tt.setup(t, f)
			r := runCLI(t, f.env, f.stdin, args...)
			require.Equal(t, tt.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			if tt.code != 0 {
				assert.NotEmpty(t, r.stderr)
			}
			for _, s := range f.secrets() {
				assert.NotContains(t, r.stdout+r.stderr, s, "a credential was printed")
			}
			tt.check(t, f, r)
		})
	}
}

// Every command has a summary and an example in its help.
func TestEveryCommandHasAnExample(t *testing.T) {
	t.Parallel()
	a := &app{getenv: func(string) string { return "" }}
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		assert.NotEmpty(t, c.Example, "%q has no example", c.CommandPath())
		assert.NotEmpty(t, c.Short, "%q has no summary", c.CommandPath())
		n++
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCmd())
	assert.Equal(t, 26, n, "sms, its 10 commands and groups, 11 subcommands and 4 shells")
}

// --reference-dedup lets a send whose answer was lost be retried: without it the command
// stops, says the outcome is unknown and names the flag; with it the retry is answered by
// reference from the attempt that was lost, which this send charged (not "replayed"). Either
// way the wallet moves once.
func TestReferenceDedupFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		flags    []string
		code     int
		requests int
		stderr   string
	}{
		{"default", nil, 1, 1, "--reference-dedup"},
		// The retry is answered from the dropped attempt, which this send charged: no "replayed".
		{"reference-dedup", []string{"--reference-dedup"}, 0, 2, "retry 1 of 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			before := f.balance(t)
			require.NoError(t, f.srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/send", Drop: true, Times: 1}))
			args := append([]string{"send", "--to", "2348025671695", "--from", f.ws.SenderID, "--message", "Hello", "--reference", "order-7"}, tt.flags...)
			r := runCLI(t, f.env, "", args...)
			require.Equal(t, tt.code, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.stderr)
			assert.NotContains(t, r.stderr, "replayed", "this send charged the attempt whose answer was lost")
			assert.NotContains(t, r.stderr, "WithReferenceDeduplication", "the error speaks of the flag")
			assert.Equal(t, tt.requests, f.requests("/v1/sms/send"))
			assert.Less(t, f.balance(t), before, "the first request was charged")
			charged := before - f.balance(t)
			r = runCLI(t, f.env, "", "send", "--to", "2348025671695", "--from", f.ws.SenderID, "--message", "Hello", "--reference", "order-7")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stderr, "replayed", "a send of a reference sent before is a replay")
			assert.Equal(t, charged, before-f.balance(t), "repeating the reference charges nothing more")
		})
	}
}
