package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// campaigns wait runs on virtual time, through the mock's in-process transport: its polls,
// backoff and timeout take no wall time.
func TestCampaignsWait(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		deliver func(srv *mockserver.Server, id string) // what happens to the campaign meanwhile
		code    int
		check   func(t *testing.T, r result, elapsed time.Duration, polls int)
	}{
		{
			name:    "a final delivery is printed at once",
			args:    []string{"--json"},
			deliver: func(srv *mockserver.Server, id string) { _ = srv.Deliver(id, &mockserver.DeliverCounts{Failed: 1}) },
			check: func(t *testing.T, r result, elapsed time.Duration, polls int) {
				m := decodeJSON(t, r.stdout)
				assert.Equal(t, "failed", m["status"])
				assert.Equal(t, map[string]any{"sent": 0.0, "delivered": 0.0, "failed": 1.0, "dnd": 0.0}, m["counts"])
				assert.Zero(t, elapsed)
				assert.Equal(t, 1, polls)
			},
		},
		{
			name: "polls with backoff until the delivery is final",
			args: []string{"--min-delay", "1s", "--max-delay", "4s"},
			deliver: func(srv *mockserver.Server, id string) {
				time.AfterFunc(10*time.Second, func() { _ = srv.Deliver(id, nil) })
			},
			check: func(t *testing.T, r result, elapsed time.Duration, polls int) {
				assert.Regexp(t, `^CAMPAIGN\s+DELIVERY\s+NO REPORT\s+DELIVERED\s+FAILED\s+DND\n[0-9a-f]{24}\s+delivered\s+0\s+1\s+0\s+0\n`, r.stdout)
				assert.GreaterOrEqual(t, elapsed, 10*time.Second)
				assert.LessOrEqual(t, elapsed, 14*time.Second, "at most --max-delay after the delivery")
				assert.GreaterOrEqual(t, polls, 4, "polls: at once, after 1s, then backing off")
				assert.LessOrEqual(t, polls, int(elapsed/time.Second)+1, "no poll sooner than --min-delay after the previous")
			},
		},
		{
			name:    "past --timeout the last status is printed and the exit status is 1",
			args:    []string{"--timeout", "1m", "--min-delay", "2s", "--max-delay", "30s"},
			deliver: func(*mockserver.Server, string) {},
			code:    1,
			check: func(t *testing.T, r result, elapsed time.Duration, _ int) {
				assert.Regexp(t, `(?m)^[0-9a-f]{24}\s+sent\s+1\s+0\s+0\s+0$`, r.stdout)
				assert.Regexp(t, `^delivery: 0 of 1 recipient delivered, 0 failed, 0 dnd, 1 awaiting a report\n`+
					`sms: the delivery of campaign ([0-9a-f]{24}) was not final after 1m0s\n`+
					`to go on waiting: sms campaigns wait ([0-9a-f]{24})\n$`, r.stderr, "progress once, as the counts never changed; the campaign and the command to go on")
				assert.Equal(t, time.Minute, elapsed)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t)
				r := bubbleCLI(srv, "send", "--to", "08025671695", "--from", srv.Default().SenderID, "--message", "Hi", "--json")
				require.Equal(t, 0, r.code, r.stderr)
				id := decodeJSON(t, r.stdout)["id"].(string)

				tt.deliver(srv, id)
				start := time.Now()
				r = bubbleCLI(srv, append([]string{"campaigns", "wait", id}, tt.args...)...)
				elapsed := time.Since(start)
				require.Equal(t, tt.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
				polls := 0
				for _, rq := range srv.Requests() {
					if rq.Path == "/v1/sms/campaigns/"+id+"/status" {
						polls++
					}
				}
				tt.check(t, r, elapsed, polls)
			})
		})
	}
}

// bubbleCLI runs the command on a synctest bubble's virtual time, through srv's in-process
// transport, with the test key of srv's default workspace.
func bubbleCLI(srv *mockserver.Server, args ...string) result {
	ws := srv.Default()
	env := map[string]string{envBaseURL: "http://127.0.0.1", envAPIKey: ws.TestKey, envAPISecret: ws.TestSecret}
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return env[k] }, args: args, transport: srv.Transport()}
	code := a.execute(context.Background())
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// campaigns wait shows each change of the counts on stderr as the reports come in.
func TestCampaignsWaitProgress(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		r := bubbleCLI(srv, "send", "--to", "08025671695,08031234567,08051234567", "--from", srv.Default().SenderID, "--message", "Hi", "--json")
		require.Equal(t, 0, r.code, r.stderr)
		id := decodeJSON(t, r.stdout)["id"].(string)
		time.AfterFunc(5*time.Second, func() { _ = srv.Deliver(id, &mockserver.DeliverCounts{Delivered: 1}) })
		time.AfterFunc(20*time.Second, func() { _ = srv.Deliver(id, &mockserver.DeliverCounts{Delivered: 1, Failed: 1}) })

		r = bubbleCLI(srv, "campaigns", "wait", id, "--min-delay", "1s", "--max-delay", "4s", "--timeout", "1h")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "delivery: 0 of 3 recipients delivered, 0 failed, 0 dnd, 3 awaiting a report\n"+
			"delivery: 1 of 3 recipients delivered, 0 failed, 0 dnd, 2 awaiting a report\n"+
			"delivery: 2 of 3 recipients delivered, 1 failed, 0 dnd, 0 awaiting a report\n", r.stderr)
		assert.Regexp(t, `(?m)^[0-9a-f]{24}\s+partially_delivered\s+0\s+2\s+1\s+0$`, r.stdout)
	})
}

// bulk --wait shows the campaigns final and the recipients delivered as they come, and
// --timeout ends the wait with exit status 1 and the counts so far.
func TestBulkWait(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		timeout string
		deliver func(srv *mockserver.Server, ids []string)
		code    int
		stderr  []string
		json    map[string]any
	}{
		{
			name: "every campaign final",
			deliver: func(srv *mockserver.Server, ids []string) {
				time.AfterFunc(3*time.Second, func() { _ = srv.Deliver(ids[0], nil) })
				time.AfterFunc(10*time.Second, func() {
					_ = srv.Deliver(ids[1], &mockserver.DeliverCounts{Delivered: 5, Failed: 5})
					_ = srv.Deliver(ids[2], nil)
				})
			},
			stderr: []string{
				"waiting for the delivery of 3 campaigns\n" +
					"delivery: 0 of 3 campaigns final; 0 of 25 recipients delivered, 0 failed, 0 dnd, 25 awaiting a report\n" +
					"delivery: 1 of 3 campaigns final; 10 of 25 recipients delivered, 0 failed, 0 dnd, 15 awaiting a report\n" +
					"delivery: 3 of 3 campaigns final; 20 of 25 recipients delivered, 5 failed, 0 dnd, 0 awaiting a report\n",
			},
			json: map[string]any{"campaigns": 3.0, "finalCampaigns": 3.0, "failedCampaigns": 0.0,
				"counts": map[string]any{"sent": 0.0, "delivered": 20.0, "failed": 5.0, "dnd": 0.0}},
		},
		{
			name:    "past --timeout",
			timeout: "1m",
			deliver: func(srv *mockserver.Server, ids []string) {
				time.AfterFunc(3*time.Second, func() { _ = srv.Deliver(ids[0], nil) })
			},
			code: 1,
			stderr: []string{
				"delivery: 1 of 3 campaigns final; 10 of 25 recipients delivered, 0 failed, 0 dnd, 15 awaiting a report\n" +
					"sms: the delivery of 2 of 3 campaigns was not final after 1m0s: ID1, ID2\n" +
					"to go on waiting: sms campaigns wait ID1 (and likewise for each campaign named)\n",
			},
			json: map[string]any{"campaigns": 3.0, "finalCampaigns": 1.0, "failedCampaigns": 0.0,
				"counts":           map[string]any{"sent": 15.0, "delivered": 10.0, "failed": 0.0, "dnd": 0.0},
				"pendingCampaigns": []any{"ID1", "ID2"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t)
				csv := peopleCSV(t, 25, 0, 0)
				base := []string{"bulk", "--csv", csv, "--from", srv.Default().SenderID, "--message", "Hi", "--job-id", "j", "--batch-size", "10", "--journal-dir", t.TempDir()}
				report := filepath.Join(t.TempDir(), "report.json")
				r := bubbleCLI(srv, append(base, "--report", report)...)
				require.Equal(t, 0, r.code, r.stderr)
				var rep bulkJSON
				b, err := os.ReadFile(report)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &rep))
				var ids []string
				for _, b := range rep.BatchList {
					ids = append(ids, b.CampaignID)
				}
				require.Len(t, ids, 3)
				tt.deliver(srv, ids)
				timeout := cmp.Or(tt.timeout, "1h") // bounds a wait that would never end
				args := append(base, "--wait", "--poll-interval", "1s", "--json", "--timeout", timeout)
				start := time.Now()
				r = bubbleCLI(srv, args...)
				require.Equal(t, tt.code, r.code, r.stderr)
				named := strings.NewReplacer("ID1", ids[1], "ID2", ids[2]) // the campaigns not final
				for _, s := range tt.stderr {
					assert.Contains(t, r.stderr, named.Replace(s))
				}
				m := decodeJSON(t, r.stdout)
				if p, ok := tt.json["pendingCampaigns"].([]any); ok {
					tt.json["pendingCampaigns"] = []any{named.Replace(p[0].(string)), named.Replace(p[1].(string))}
				}
				assert.Equal(t, tt.json, m["delivery"])
				if tt.timeout != "" {
					assert.Equal(t, time.Minute, time.Since(start), "waited --timeout, on virtual time")
				}
			})
		})
	}
}

// The waits of campaigns wait are bounded before any request.
func TestCampaignsWaitFlagBounds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--min-delay", "1ns"}, "sms: --min-delay 1ns: want 100ms to 1h0m0s\n"},
		{[]string{"--min-delay", "2h"}, "sms: --min-delay 2h0m0s: want 100ms to 1h0m0s\n"},
		{[]string{"--min-delay", "10s", "--max-delay", "5s"}, "sms: --max-delay 5s: want 10s to 1h0m0s\n"},
		{[]string{"--timeout", "-1s"}, "sms: --timeout -1s: cannot be negative (0 waits as long as it takes)\n"},
	}
	for _, tt := range tests {
		r := runCLI(t, f.env, "", append([]string{"campaigns", "wait", "6740a1b2c3d4e5f601234567"}, tt.args...)...)
		assert.Equal(t, 2, r.code, "%q", tt.args)
		assert.Equal(t, tt.want, r.stderr, "%q", tt.args)
	}
	assert.Empty(t, f.srv.Requests())

	r := runCLI(t, f.env, "", "campaigns", "wait", "ffffffffffffffffffffffff")
	assert.Equal(t, 1, r.code)
	assert.Regexp(t, `^sms: 404 not_found: .*\n$`, r.stderr, "no progress before the first status is read")
}

// newServer returns a mock with opts, failing the test if New refuses them.
func newServer(t testing.TB, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	srv, err := mockserver.New(opts...)
	require.NoError(t, err)
	return srv
}
