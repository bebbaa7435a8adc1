package main

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

func TestDoctor(t *testing.T) {
	t.Parallel()
	// limitKey swaps the fixture's key for a new test key with only scopes.
	limitKey := func(t *testing.T, f *fixture, scopes string) {
		t.Helper()
		r := runCLI(t, f.env, "", "keys", "create", "--name", "limited", "--scopes", scopes, "--test", "--json")
		require.Equal(t, 0, r.code, r.stderr)
		k := decodeJSON(t, r.stdout)
		f.env[envAPIKey], f.env[envAPISecret] = k["publicKey"].(string), k["secret"].(string)
		delete(f.env, envDashboard)
	}
	var saveDir string // the --save case's, set by its setup
	tests := []struct {
		name  string
		setup func(t *testing.T, f *fixture) []string // returns the args
		code  int
		check func(t *testing.T, f *fixture, r result)
	}{
		{
			name:  "table",
			setup: func(*testing.T, *fixture) []string { return []string{"doctor"} },
			check: func(t *testing.T, f *fixture, r result) {
				lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
				require.Len(t, lines, 14, r.stdout)
				assert.Regexp(t, `^LEVEL\s+CHECK\s+ENDPOINT\s+STATUS\s+LATENCY\s+DETAIL$`, lines[0])
				assert.Regexp(t, `^OK\s+credentials\s+GET /v1/balance\s+200\s+\S+\s+accepted: a test key \(test wallet and data\)$`, lines[1])
				assert.Regexp(t, `^OK\s+scope\.sms\s+GET /v1/keys\s+200\s+\S+\s+granted \(the key list shows it\)$`, lines[2])
				assert.Regexp(t, `^OK\s+balance\s+GET /v1/balance\s+200\s+\S+\s+9996\.80 NGN$`, lines[7])
				assert.Regexp(t, `^OK\s+campaign_status\s+GET /v1/sms/campaigns/\{id\}/status\s+200\s+\S+\s+campaign [0-9a-f]{24}: sent$`, lines[10])
				assert.Regexp(t, `^OK\s+keys\s+GET /v1/keys\s+200\s+\S+\s+2 keys$`, lines[11])
				for _, l := range lines[1:12] {
					assert.True(t, strings.HasPrefix(l, "OK "), l)
				}
				assert.Equal(t, "", lines[12])
				assert.Equal(t, f.env[envBaseURL]+", test key, 11 checks: 11 ok, 0 warn, 0 fail, 0 skip", lines[13])
				assert.Empty(t, r.stderr)
			},
		},
		{
			name:  "json",
			setup: func(*testing.T, *fixture) []string { return []string{"doctor", "--json"} },
			check: func(t *testing.T, f *fixture, r result) {
				m := decodeJSON(t, r.stdout)
				assert.Equal(t, true, m["passed"])
				assert.Equal(t, "test", m["mode"])
				assert.Equal(t, f.env[envBaseURL], m["baseUrl"])
				assert.Equal(t, map[string]any{"ok": 11.0, "warn": 0.0, "fail": 0.0, "skip": 0.0}, m["counts"])
				checks := m["checks"].([]any)
				require.Len(t, checks, 11)
				balance := checks[6].(map[string]any)
				assert.Equal(t, "balance", balance["name"])
				assert.Equal(t, "ok", balance["level"])
				assert.Equal(t, 200.0, balance["status"])
				assert.Equal(t, true, balance["documented"])
				assert.Contains(t, balance, "latencyMs")
				assert.Equal(t, map[string]any{"json": true, "sdk": true}, balance["decode"])
			},
		},
		{
			name: "a key without most scopes warns and exits 0",
			setup: func(t *testing.T, f *fixture) []string {
				limitKey(t, f, "balance")
				return []string{"doctor"}
			},
			check: func(t *testing.T, f *fixture, r result) {
				assert.Regexp(t, `(?m)^SKIP\s+scope\.sms\s+POST /v1/sms/send\s+-\s+-\s+not checked: no GET shows it; a dashboard token \(the key list\) or --probe-writes \(an empty POST\) checks it$`, r.stdout)
				assert.Regexp(t, `(?m)^WARN\s+scope\.campaigns\s+GET /v1/sms/campaigns\s+403\s+\S+\s+missing: the key lacks the campaigns scope$`, r.stdout)
				assert.Regexp(t, `(?m)^SKIP\s+sender_ids\s+GET /v1/sender-ids\?status=active\s+403\s+\S+\s+not checked: the key lacks the sender_ids scope$`, r.stdout)
				assert.Regexp(t, `(?m)^SKIP\s+keys\s+GET /v1/keys\s+-\s+-\s+not checked: no dashboard token given$`, r.stdout)
				assert.Contains(t, r.stdout, "11 checks: 3 ok, 2 warn, 0 fail, 6 skip\n")
			},
		},
		{
			name: "--probe-writes infers the write scopes from refused empty POSTs",
			setup: func(t *testing.T, f *fixture) []string {
				limitKey(t, f, "balance,otp")
				return []string{"doctor", "--probe-writes"}
			},
			check: func(t *testing.T, f *fixture, r result) {
				assert.Regexp(t, `(?m)^WARN\s+scope\.sms\s+POST /v1/sms/send\s+403\s+\S+\s+missing: the key lacks the sms scope$`, r.stdout)
				assert.Regexp(t, `(?m)^OK\s+scope\.otp\s+POST /v1/otp/send\s+400\s+\S+\s+granted \(inferred: `, r.stdout)
				assert.Regexp(t, `(?m)^WARN\s+scope\.campaigns\s+GET /v1/sms/campaigns\s+403\s+`, r.stdout, "the GET told: no POST")
				var probes []string
				for _, rq := range f.srv.Requests() {
					if rq.Method == http.MethodPost && rq.Status >= 400 {
						probes = append(probes, rq.Path)
					}
				}
				assert.Equal(t, []string{"/v1/sms/send", "/v1/otp/send"}, probes, "two refused empty POSTs")
			},
		},
		{
			name: "--save writes every answer, redacted",
			setup: func(t *testing.T, f *fixture) []string {
				saveDir = filepath.Join(t.TempDir(), "answers")
				return []string{"doctor", "--save", saveDir}
			},
			check: func(t *testing.T, f *fixture, r result) {
				dir := saveDir
				entries, err := os.ReadDir(dir)
				require.NoError(t, err)
				var names []string
				all := ""
				for _, e := range entries {
					names = append(names, e.Name())
					b, err := os.ReadFile(filepath.Join(dir, e.Name()))
					require.NoError(t, err)
					all += string(b)
					info, err := e.Info()
					require.NoError(t, err)
					assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), e.Name())
				}
				assert.Equal(t, []string{"01-get-v1-balance.json", "02-get-v1-sender-ids.json", "03-get-v1-sms-campaigns.json",
					"04-get-v1-sms-campaigns-id-status.json", "05-get-v1-keys.json"}, names)
				assert.Contains(t, all, `"status": 200`)
				assert.Regexp(t, `"X-Api-Secret": \[\s+"\[REDACTED\]"\s+\]`, all)
				assert.Contains(t, all, `"to": "234802****695"`, "the recipient of the fixture's SMS, masked")
				assert.Regexp(t, `"requestId": "req-[0-9a-f]{24}"`, all, "IDs stay")
				for _, s := range append(f.secrets(), f.env[envAPISecret], "2348025671695", "08025671695", "8025671695") {
					if s != "" {
						assert.NotContains(t, all, s)
					}
				}
			},
		},
		{
			name: "a required scope that the key lacks exits 1",
			setup: func(t *testing.T, f *fixture) []string {
				limitKey(t, f, "balance")
				return []string{"doctor", "--require-scopes", "balance,sms", "--json"}
			},
			code: 1,
			check: func(t *testing.T, _ *fixture, r result) {
				m := decodeJSON(t, r.stdout)
				assert.Equal(t, false, m["passed"])
				sms := m["checks"].([]any)[1].(map[string]any)
				assert.Equal(t, "scope.sms", sms["name"])
				assert.Equal(t, "fail", sms["level"])
				assert.Equal(t, "sms: doctor: 1 of 11 checks failed\n", r.stderr)
			},
		},
		{
			name: "a wrong secret exits 1",
			setup: func(_ *testing.T, f *fixture) []string {
				f.env[envAPISecret] = "sk_test_" + strings.Repeat("x", 40)
				return []string{"doctor"}
			},
			code: 1,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Regexp(t, `(?m)^FAIL\s+credentials\s+GET /v1/balance\s+401\s+\S+\s+refused: unauthorized: `, r.stdout)
				assert.Regexp(t, `(?m)^OK\s+keys\s+`, r.stdout)
				assert.Equal(t, "sms: doctor: 1 of 11 checks failed\n", r.stderr)
			},
		},
		{
			name: "no server exits 1",
			setup: func(t *testing.T, f *fixture) []string {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				require.NoError(t, err)
				f.env[envBaseURL] = "http://" + ln.Addr().String()
				require.NoError(t, ln.Close())
				return []string{"doctor", "--timeout", "5s"}
			},
			code: 1,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Regexp(t, `(?m)^FAIL\s+credentials\s+GET /v1/balance\s+-\s+\S+\s+no answer: .*connection refused$`, r.stdout)
				assert.Equal(t, "sms: doctor: 2 of 11 checks failed\n", r.stderr)
			},
		},
		{
			name:  "an unknown scope is a usage error",
			setup: func(*testing.T, *fixture) []string { return []string{"doctor", "--require-scopes", "email"} },
			code:  2,
			check: func(t *testing.T, f *fixture, r result) {
				assert.Empty(t, r.stdout)
				assert.Equal(t, "sms: doctor: unknown scope \"email\"; scopes are sms, otp, campaigns, sender_ids and balance\n", r.stderr)
			},
		},
		{
			name: "a malformed key is a usage error",
			setup: func(_ *testing.T, f *fixture) []string {
				f.env[envAPIKey] = "key"
				return []string{"doctor"}
			},
			code: 2,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Equal(t, "sms: the API key must start with pk_live_ or pk_test_\n", r.stderr)
			},
		},
		{
			name: "no API secret is a usage error",
			setup: func(_ *testing.T, f *fixture) []string {
				delete(f.env, envAPISecret)
				return []string{"doctor"}
			},
			code: 2,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Equal(t, "sms: no API secret: set SMS_API_SECRET or use --api-secret-file\n", r.stderr)
			},
		},
		{
			name:  "a timeout that is not positive is a usage error",
			setup: func(*testing.T, *fixture) []string { return []string{"doctor", "--timeout", "0s"} },
			code:  2,
			check: func(t *testing.T, _ *fixture, r result) {
				assert.Equal(t, "sms: --timeout must be positive\n", r.stderr)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.sendOne(t, "08025671695")
			args := tt.setup(t, f)
			balance, messages, requests := f.balance(t), len(f.srv.Messages(mockserver.Filter{})), len(f.srv.Requests())
			r := runCLI(t, f.env, f.stdin, args...)
			if !slices.Contains(args, "--probe-writes") {
				for _, rq := range f.srv.Requests()[requests:] {
					assert.Equal(t, http.MethodGet, rq.Method, "only GETs without --probe-writes: %s", rq.Path)
				}
			}
			require.Equal(t, tt.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			for _, s := range append(f.secrets(), f.env[envAPISecret]) {
				if s != "" {
					assert.NotContains(t, r.stdout+r.stderr, s, "a credential was printed")
				}
			}
			assert.Equal(t, balance, f.balance(t), "nothing was charged")
			assert.Len(t, f.srv.Messages(mockserver.Filter{}), messages, "nothing was sent")
			tt.check(t, f, r)
		})
	}
}
