package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

// peopleCSV writes a CSV with a header row and distinct+dups+bad rows: distinct numbers,
// then dups rows repeating some of them, with bad rows (invalid numbers) spread through the
// file, the first on line 3. It returns the path.
func peopleCSV(t testing.TB, distinct, dups, bad int) string {
	t.Helper()
	rows := make([]string, 0, distinct+dups+bad)
	for i := range distinct {
		rows = append(rows, fmt.Sprintf("0803%07d,Person %d", i, i))
	}
	for i := range dups {
		rows = append(rows, fmt.Sprintf("0803%07d,Again %d", i*7%distinct, i))
	}
	for j := range bad {
		rows = slices.Insert(rows, 1+j*(len(rows)/bad), fmt.Sprintf("12%d,Bad %d", j, j))
	}
	p := filepath.Join(t.TempDir(), "people.csv")
	require.NoError(t, os.WriteFile(p, []byte("phone,name\n"+strings.Join(rows, "\n")+"\n"), 0o600))
	return p
}

// campaignRecipients sums the recipients of every campaign of the test mode.
func (f *fixture) campaignRecipients(t *testing.T) (campaigns, recipients int) {
	t.Helper()
	c, err := sms.NewClient(f.ws.TestKey, f.ws.TestSecret, sms.WithBaseURL(f.srv.URL()))
	require.NoError(t, err)
	for camp, err := range c.Campaigns.All(context.Background(), nil) {
		require.NoError(t, err)
		campaigns++
		recipients += camp.Recipients
	}
	return campaigns, recipients
}

// cancelOnWrite cancels a context at the first write that contains marker, as Ctrl-C would.
type cancelOnWrite struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if bytes.Contains(p, []byte(w.marker)) {
		w.cancel()
	}
	return w.buf.Write(p)
}

func TestBulk(t *testing.T) {
	t.Parallel()
	const price = mockserver.DefaultGenericPrice
	tests := []struct {
		name string
		run  func(t *testing.T, f *fixture, csv string, distinct int, base []string)
	}{
		{
			name: "dry run counts and sends nothing",
			run: func(t *testing.T, f *fixture, _ string, distinct int, base []string) {
				r := runCLI(t, f.env, "", append(base, "--skip-invalid", "--dry-run")...)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Regexp(t, fmt.Sprintf(`^JOB\s+BATCHES\s+RECIPIENTS\s+PARTS\s+DUPLICATES\s+BAD ROWS\s+COST\s+BALANCE\njob-1\s+5\s+%d\s+%d\s+10\s+3\s+726\.40 NGN\s+10000\.00 NGN\n$`, distinct, distinct), r.stdout)
				assert.Zero(t, f.requests("/v1/sms/campaigns"))
				assert.Equal(t, int64(mockserver.DefaultBalance), f.balance(t))
			},
		},
		{
			name: "bad rows without --skip-invalid are an input error, listed by line",
			run: func(t *testing.T, f *fixture, _ string, _ int, base []string) {
				report := filepath.Join(t.TempDir(), "report.json")
				r := runCLI(t, f.env, "", append(base, "--report", report)...)
				require.Equal(t, 2, r.code, r.stderr)
				assert.Empty(t, r.stdout)
				assert.Regexp(t, `(?m)^  line 3: invalid phone number "120": `, r.stderr)
				assert.Contains(t, r.stderr, "sms: 3 rows of ")
				assert.Contains(t, r.stderr, "use --skip-invalid to send the others")
				assert.Zero(t, f.requests("/v1/sms/campaigns"))
				var rep bulkJSON
				b, err := os.ReadFile(report)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &rep))
				assert.Equal(t, []int{3, 82, 161}, []int{rep.BadList[0].Line, rep.BadList[1].Line, rep.BadList[2].Line})
			},
		},
		{
			name: "sends each recipient once; the same command again sends nothing",
			run: func(t *testing.T, f *fixture, _ string, distinct int, base []string) {
				report := filepath.Join(t.TempDir(), "report.json")
				args := append(base, "--skip-invalid", "--report", report)
				r := runCLI(t, f.env, "", args...)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Regexp(t, fmt.Sprintf(`(?m)^job-1\s+yes\s+5\s+%d\s+%d\s+0\s+0\s+0\s+0\s+%s NGN\s+%[3]s NGN$`, distinct, distinct, sms.AmountFromKobo(int64(distinct*price))), r.stdout)
				assert.Contains(t, r.stderr, fmt.Sprintf("batch 5/5: %d/%d recipients (100%%)", distinct, distinct))
				assert.Equal(t, int64(mockserver.DefaultBalance-distinct*price), f.balance(t))

				var rep bulkJSON
				b, err := os.ReadFile(report)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &rep))
				assert.True(t, rep.Complete)
				assert.Len(t, rep.BatchList, 5)
				assert.Equal(t, "job-1:0", rep.BatchList[0].Reference)
				assert.Len(t, rep.BadList, 3)
				assert.Equal(t, 10, rep.Duplicates)

				r = runCLI(t, f.env, "", append(args, "--json")...)
				require.Equal(t, 0, r.code, r.stderr)
				m := decodeJSON(t, r.stdout)
				assert.Equal(t, 0.0, m["sent"])
				assert.Equal(t, float64(distinct), m["replayed"].(float64)+m["fromJournal"].(float64), "answered from the journal, or replayed")
				assert.Equal(t, true, m["complete"])
				assert.Nil(t, m["batchList"], "the batches are in --report only")
				assert.Equal(t, int64(mockserver.DefaultBalance-distinct*price), f.balance(t), "nothing charged twice")
				campaigns, recipients := f.campaignRecipients(t)
				assert.Equal(t, 5, campaigns)
				assert.Equal(t, distinct, recipients)
			},
		},
		{
			name: "an empty wallet stops the job; after a top-up the same command finishes it",
			run: func(t *testing.T, f *fixture, _ string, distinct int, base []string) {
				require.NoError(t, f.srv.SetBalance(f.ws.WorkspaceID, mockserver.ModeTest, 100*price))
				args := append(base, "--skip-invalid", "--concurrency", "1")
				r := runCLI(t, f.env, "", args...)
				require.Equal(t, 1, r.code, r.stderr)
				assert.Contains(t, r.stderr, "402 insufficient_balance")
				assert.Contains(t, r.stderr, "the wallet ran out after 2 batches (320.00 NGN charged); the balance is 0.00 NGN against about 406.40 NGN for the 127 recipients not sent "+
					"(at 3.20 NGN a part, --price): top up 406.40 NGN or more, then run the same command again to send the rest (the journal "+
					filepath.Join(f.env[envJournalDir], "job-1.journal")+" keeps it from sending a batch twice):\n  sms bulk --csv ")
				assert.Contains(t, r.stderr, `stopped at batch 2, the first in input order not sent, as the wallet could not pay`)
				assert.Regexp(t, `(?m)^job-1\s+no\s+`, r.stdout)
				spent := 100*price - int(f.balance(t))

				require.NoError(t, f.srv.SetBalance(f.ws.WorkspaceID, mockserver.ModeTest, mockserver.DefaultBalance))
				r = runCLI(t, f.env, "", args...)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, int64(mockserver.DefaultBalance-(distinct*price-spent)), f.balance(t))
				_, recipients := f.campaignRecipients(t)
				assert.Equal(t, distinct, recipients)
			},
		},
		{
			name: "interrupted: the batches in flight finish, and the printed command resumes the job",
			run: func(t *testing.T, f *fixture, _ string, distinct int, base []string) {
				// Requests take 50 ms, so that two batches are in flight when the interrupt comes.
				f.srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Latency: 50 * time.Millisecond})
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				errw := &cancelOnWrite{marker: "batch 1/", cancel: cancel}
				var out bytes.Buffer
				args := append(base, "--skip-invalid", "--concurrency", "2", "--json", "--api-secret", f.env[envAPISecret])
				env := map[string]string{envBaseURL: f.env[envBaseURL], envAPIKey: f.env[envAPIKey], envJournalDir: f.env[envJournalDir]}
				code := run(ctx, args, strings.NewReader(""), &out, errw, func(k string) string { return env[k] })
				stderr := errw.buf.String()
				require.Equal(t, exitInterrupted, code, stderr)
				assert.Contains(t, stderr, "once the batches in flight were done.\nTo finish the job, run the same command again, at any time: the journal "+
					filepath.Join(f.env[envJournalDir], "job-1.journal")+" keeps it from sending a batch twice, whatever the server (it sends the batches never sent, not those in doubt):\n  sms bulk --csv ")
				assert.NotContains(t, stderr, f.env[envAPISecret], "the resume command leaves the secret out")
				assert.Contains(t, stderr, "(the secret given as a flag is left out: set SMS_API_SECRET or add --api-secret-file)")
				first := decodeJSON(t, out.String())
				assert.Equal(t, false, first["complete"])
				assert.Equal(t, 0.0, first["failedBatches"], "no batch in flight was abandoned")
				sent := int(first["sent"].(float64))
				assert.GreaterOrEqual(t, sent, 100, "the batch in flight with the first finished too")
				assert.Less(t, sent, distinct, "stopped before the end")
				assert.Equal(t, int64(mockserver.DefaultBalance-sent*price), f.balance(t), "the report accounts for every charge")

				f.srv.ClearFaults()
				r := runCLI(t, f.env, "", append(base, "--skip-invalid", "--json")...)
				require.Equal(t, 0, r.code, r.stderr)
				m := decodeJSON(t, r.stdout)
				assert.Equal(t, float64(sent), m["replayed"].(float64)+m["fromJournal"].(float64))
				assert.Equal(t, float64(distinct-sent), m["sent"])
				assert.Equal(t, int64(mockserver.DefaultBalance-distinct*price), f.balance(t))
				_, recipients := f.campaignRecipients(t)
				assert.Equal(t, distinct, recipients)
			},
		},
		{
			name: "two shards send the job once between them",
			run: func(t *testing.T, f *fixture, _ string, distinct int, base []string) {
				var wg sync.WaitGroup
				codes := make([]result, 2)
				for i := range 2 {
					wg.Go(func() {
						codes[i] = runCLI(t, f.env, "", append(base, "--skip-invalid", "--shard", fmt.Sprintf("%d/2", i), "--json")...)
					})
				}
				wg.Wait()
				total := 0.0
				for _, r := range codes {
					require.Equal(t, 0, r.code, r.stderr)
					total += decodeJSON(t, r.stdout)["sent"].(float64)
				}
				assert.Equal(t, float64(distinct), total)
				assert.Equal(t, int64(mockserver.DefaultBalance-distinct*price), f.balance(t))
			},
		},
		{
			name: "--wait prints the delivery counts",
			run: func(t *testing.T, f *fixture, _ string, distinct int, base []string) {
				r := runCLI(t, f.env, "", append(base, "--skip-invalid", "--json")...)
				require.Equal(t, 0, r.code, r.stderr)
				c, err := sms.NewClient(f.ws.TestKey, f.ws.TestSecret, sms.WithBaseURL(f.srv.URL()))
				require.NoError(t, err)
				first := true
				for camp, err := range c.Campaigns.All(context.Background(), nil) {
					require.NoError(t, err)
					var counts *mockserver.DeliverCounts // all delivered
					if first {
						counts, first = &mockserver.DeliverCounts{Delivered: camp.Recipients - 2, Failed: 2}, false
					}
					require.NoError(t, f.srv.Deliver(camp.ID, counts))
				}
				r = runCLI(t, f.env, "", append(base, "--skip-invalid", "--wait", "--poll-interval", "100ms")...)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Regexp(t, fmt.Sprintf(`(?m)^CAMPAIGNS\s+FINAL\s+FAILED CAMPAIGNS\s+NO REPORT\s+DELIVERED\s+FAILED\s+DND\n5\s+5\s+0\s+0\s+%d\s+2\s+0$`, distinct-2), r.stdout)
				assert.Contains(t, r.stderr, "waiting for the delivery of 5 campaigns\n")
				assert.Contains(t, r.stderr, fmt.Sprintf("delivery: 5 of 5 campaigns final; %d of %d recipients delivered, 2 failed, 0 dnd, 0 awaiting a report\n", distinct-2, distinct))
			},
		},
		{
			name: "refused credentials stop the job: exit 1, with the command to run once they are fixed",
			run: func(t *testing.T, f *fixture, _ string, _ int, base []string) {
				f.env[envAPISecret] = "sk_test_" + strings.Repeat("x", 40)
				r := runCLI(t, f.env, "", append(base, "--skip-invalid")...)
				require.Equal(t, 1, r.code, r.stderr)
				assert.Contains(t, r.stderr, "the API key was refused after 0 batches: fix the credentials, then run the same command again to send the rest (the journal ")
				assert.Contains(t, r.stderr, "401 unauthorized")
				assert.Equal(t, int64(mockserver.DefaultBalance), f.balance(t))
			},
		},
		{
			name: "a bad shard is a usage error",
			run: func(t *testing.T, f *fixture, _ string, _ int, base []string) {
				r := runCLI(t, f.env, "", append(base, "--shard", "2/2")...)
				require.Equal(t, 2, r.code)
				assert.Contains(t, r.stderr, `--shard "2/2": want i/n with 0 <= i < n`)
			},
		},
		{
			name: "an invalid sender ID is an input error before any send",
			run: func(t *testing.T, f *fixture, csv string, _ int, _ []string) {
				r := runCLI(t, f.env, "", "bulk", "--csv", csv, "--from", "A!", "--message", "Hi", "--job-id", "j", "--skip-invalid")
				require.Equal(t, 2, r.code)
				assert.Contains(t, r.stderr, "sms: invalid --from: a sender ID is")
				assert.Zero(t, f.requests("/v1/sms/campaigns"))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			const distinct = 227
			csv := peopleCSV(t, distinct, 10, 3)
			base := []string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", "job-1", "--batch-size", "50"}
			tt.run(t, f, csv, distinct, base)
		})
	}
}

func TestResumeCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		want     string
		stripped bool
	}{
		{[]string{"bulk", "--csv", "people.csv", "--message", "Hi {{name}}", "--job-id", "promo-2026-11"}, `sms bulk --csv people.csv --message 'Hi {{name}}' --job-id promo-2026-11`, false},
		{[]string{"bulk", "--api-secret", "sk_live_x", "--message=it's", "--dashboard-token=a.b.c"}, `sms bulk '--message=it'\''s'`, true},
		{[]string{"bulk", "--csv", "my people.csv", "--api-secret-file", "-"}, `sms bulk --csv 'my people.csv' --api-secret-file -`, false},
	}
	for _, tt := range tests {
		a := &app{args: tt.args}
		got, stripped := a.resumeCommand()
		assert.Equal(t, tt.want, got)
		assert.Equal(t, tt.stripped, stripped, tt.want)
	}
}

func TestParseShard(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bulk.Shard{"": {}, "0/1": {Index: 0, Count: 1}, "3/4": {Index: 3, Count: 4}} {
		got, err := parseShard(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got)
	}
	for _, in := range []string{"1/1", "4/4", "-1/4", "1/0", "1", "a/b", "1/2/3"} {
		_, err := parseShard(in)
		assert.Error(t, err, in)
	}
}

// The plain progress lines: replays are said, a batch is "1 batch", and the rate and ETA
// appear only after 2 s and 2 batches sent, measured on the recipients sent (not replayed)
// over the last 30 s.
func TestProgressLine(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	type step struct {
		after time.Duration
		bp    bulk.Progress
		want  string
	}
	kobo := sms.AmountFromKobo
	tests := []struct {
		name  string
		steps []step
	}{
		{"no rate after the first batch, however fast", []step{
			{130 * time.Millisecond, bulk.Progress{Batches: 1, Recipients: 1000, Sent: 1000, Amount: kobo(320_000)},
				"batch 1/4: 1000/4000 recipients (25%), charged 3200.00 NGN"},
			{2 * time.Second, bulk.Progress{Batches: 2, Recipients: 2000, Sent: 2000, Amount: kobo(640_000)},
				"batch 2/4: 2000/4000 recipients (50%), charged 6400.00 NGN; 1000/s, ETA 2s"},
			{4 * time.Second, bulk.Progress{Batches: 4, Recipients: 4000, Sent: 4000, Amount: kobo(1_280_000)},
				"batch 4/4: 4000/4000 recipients (100%), charged 12800.00 NGN"},
		}},
		{"nor after 2 batches in less than 2 s", []step{
			{100 * time.Millisecond, bulk.Progress{Batches: 1, Recipients: 1000, Sent: 1000}, "batch 1/4: 1000/4000 recipients (25%), charged 0.00 NGN"},
			{200 * time.Millisecond, bulk.Progress{Batches: 2, Recipients: 2000, Sent: 2000}, "batch 2/4: 2000/4000 recipients (50%), charged 0.00 NGN"},
		}},
		{"replays are said, and do not count in the rate", []step{
			{50 * time.Millisecond, bulk.Progress{Batch: bulk.Batch{Replayed: true}, Batches: 1, Recipients: 1000, Replayed: 1000},
				"batch 1/4: 1000/4000 recipients (25%), charged 0.00 NGN, 1000 replayed from an earlier run"},
			{100 * time.Millisecond, bulk.Progress{Batch: bulk.Batch{Replayed: true}, Batches: 2, Recipients: 2000, Replayed: 2000},
				"batch 2/4: 2000/4000 recipients (50%), charged 0.00 NGN, 2000 replayed from an earlier run"},
			{3 * time.Second, bulk.Progress{Batches: 3, Recipients: 3000, Sent: 1000, Replayed: 2000, Amount: kobo(320_000)},
				"batch 3/4: 3000/4000 recipients (75%), charged 3200.00 NGN, 2000 replayed from an earlier run"},
		}},
		{"failed batches, one then two", []step{
			{time.Second, bulk.Progress{Batch: bulk.Batch{Err: sms.ErrServer}, Batches: 1, Failed: 1, Recipients: 1000},
				"batch 1/4: 0/4000 recipients (0%), charged 0.00 NGN, 1 batch failed"},
			{2 * time.Second, bulk.Progress{Batch: bulk.Batch{Err: sms.ErrServer}, Batches: 2, Failed: 2, Recipients: 2000},
				"batch 2/4: 0/4000 recipients (0%), charged 0.00 NGN, 2 batches failed"},
		}},
		{"a batch held back by an interrupt did not fail", []step{
			{3 * time.Second, bulk.Progress{Batch: bulk.Batch{Err: fmt.Errorf("held: %w", context.Canceled)}, Batches: 1, Failed: 1, Recipients: 1000},
				"batch 1/4: 0/4000 recipients (0%), charged 0.00 NGN"},
		}},
		{"the rate is over the last 30 s", []step{
			{10 * time.Second, bulk.Progress{Batches: 1, Recipients: 1000, Sent: 1000}, "batch 1/4: 1000/4000 recipients (25%), charged 0.00 NGN"},
			{60 * time.Second, bulk.Progress{Batches: 2, Recipients: 2000, Sent: 2000}, "batch 2/4: 2000/4000 recipients (50%), charged 0.00 NGN; 20/s, ETA 1m40s"},
			{62 * time.Second, bulk.Progress{Batches: 3, Recipients: 3000, Sent: 3000}, "batch 3/4: 3000/4000 recipients (75%), charged 0.00 NGN; 38/s, ETA 26s"},
			// From 62 s to 95 s: 900 in 33 s (the run's average would be 41/s).
			{95 * time.Second, bulk.Progress{Batches: 3, Recipients: 3900, Sent: 3900}, "batch 3/4: 3900/4000 recipients (97%), charged 0.00 NGN; 27/s, ETA 4s"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			now := start
			p := newProgress(&console{w: &buf}, 4000, 4)
			p.start, p.samples[0].at = start, start
			p.now = func() time.Time { return now }
			for _, st := range tt.steps {
				buf.Reset()
				now = start.Add(st.after)
				p.update(st.bp)
				assert.Equal(t, st.want+"\n", buf.String())
			}
		})
	}
}

// --dry-run prices the job at --price a part, reads the balance and says whether it pays,
// and reports invalid rows without refusing them; it sends nothing.
func TestBulkDryRun(t *testing.T) {
	t.Parallel()
	const distinct = 227 // "Hi {{name}}": one part each
	tests := []struct {
		name    string
		args    []string
		balance int64                                   // kobo; 0: the default
		key     func(t *testing.T, f *fixture) []string // another key's environment, or nil
		stdout  string                                  // regular expression
		stderr  []string
		json    map[string]any
	}{
		{
			name:   "invalid rows are reported, not refused; the cost at 3.20 a part, and the balance pays",
			stdout: `^JOB\s+BATCHES\s+RECIPIENTS\s+PARTS\s+DUPLICATES\s+BAD ROWS\s+COST\s+BALANCE\njob-1\s+5\s+227\s+227\s+10\s+3\s+726\.40 NGN\s+10000\.00 NGN\n$`,
			stderr: []string{
				"; 240 rows, 3 that cannot be sent\n",
				"  line 3: invalid phone number \"120\": ",
				"job job-1: 5 batches, 227 recipients, 227 SMS parts; 10 duplicate numbers sent once\n",
				"to send, fix the 3 rows that cannot be sent, or add --skip-invalid\n",
				"cost: 227 SMS parts at 3.20 NGN (--price) = 726.40 NGN\n",
				"balance: 10000.00 NGN, enough for this job\n",
			},
		},
		{
			name:    "a balance that cannot pay says by how much",
			args:    []string{"--price", "5"},
			balance: 100_000,
			stdout:  `(?m)^job-1\s+5\s+227\s+227\s+10\s+3\s+1135\.00 NGN\s+1000\.00 NGN$`,
			stderr: []string{
				"cost: 227 SMS parts at 5.00 NGN (--price) = 1135.00 NGN\n",
				"balance: 1000.00 NGN, not enough for this job: top up 135.00 NGN or more before sending\n",
			},
		},
		{
			name:   "the dnd channel's default price",
			args:   []string{"--channel", "dnd", "--skip-invalid"},
			stdout: `(?m)^job-1\s+5\s+227\s+227\s+10\s+3\s+1021\.50 NGN\s+10000\.00 NGN$`,
			stderr: []string{"cost: 227 SMS parts at 4.50 NGN (--price) = 1021.50 NGN\n"},
		},
		{
			name: "a key without the balance scope cannot read it, and that is said",
			key: func(t *testing.T, f *fixture) []string {
				r := runCLI(t, f.env, "", "keys", "create", "--name", "sender", "--scopes", "sms,campaigns", "--test", "--json")
				require.Equal(t, 0, r.code, r.stderr)
				k := decodeJSON(t, r.stdout)
				return []string{k["publicKey"].(string), k["secret"].(string)}
			},
			stdout: `(?m)^job-1\s+5\s+227\s+227\s+10\s+3\s+726\.40 NGN\s+-$`,
			stderr: []string{"the balance cannot be read: the API key lacks the \"balance\" scope\n"},
		},
		{
			name: "--json",
			args: []string{"--json", "--price", "3.5"},
			json: map[string]any{"dryRun": true, "recipients": 227.0, "parts": 227.0, "badRows": 3.0, "price": 3.5, "cost": 794.5, "balance": 10000.0, "balanceEnough": true, "complete": false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tt.balance > 0 {
				require.NoError(t, f.srv.SetBalance(f.ws.WorkspaceID, mockserver.ModeTest, tt.balance))
			}
			env := f.env
			if tt.key != nil {
				kp := tt.key(t, f)
				env = map[string]string{envBaseURL: f.env[envBaseURL], envAPIKey: kp[0], envAPISecret: kp[1]}
			}
			args := append([]string{"bulk", "--csv", peopleCSV(t, distinct, 10, 3), "--from", f.ws.SenderID, "--message", "Hi {{name}}",
				"--job-id", "job-1", "--batch-size", "50", "--dry-run"}, tt.args...)
			r := runCLI(t, env, "", args...)
			require.Equal(t, 0, r.code, r.stderr)
			if tt.stdout != "" {
				assert.Regexp(t, tt.stdout, r.stdout)
			}
			for _, s := range tt.stderr {
				assert.Contains(t, r.stderr, s)
			}
			if tt.json != nil {
				m := decodeJSON(t, r.stdout)
				for k, v := range tt.json {
					assert.Equal(t, v, m[k], k)
				}
			}
			assert.Zero(t, f.requests("/v1/sms/campaigns"), "nothing sent")
		})
	}
}

// The rows that cannot be sent are counted, and only the first few shown, each on a line
// that fits 80 columns: a rerun does not print them all again. The report lists them all.
func TestBulkBadRowLines(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rows := []string{"phone,name"}
	for i := range 50 {
		rows = append(rows, fmt.Sprintf("%s%d,Person %d", strings.Repeat("9", 30), i, i), fmt.Sprintf("0803%07d,Person %d", i, i))
	}
	csv := writeFile(t, "people.csv", strings.Join(rows, "\n")+"\n")
	report := filepath.Join(t.TempDir(), "report.json")
	tests := []struct {
		args []string
		more string
	}{
		{nil, "  and 47 more: --report FILE lists them\n"},
		{[]string{"--report", report}, "  and 47 more: " + report + " lists them\n"},
	}
	for _, tt := range tests {
		args := append([]string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", "j", "--skip-invalid"}, tt.args...)
		r := runCLI(t, f.env, "", args...)
		require.Equal(t, 0, r.code, r.stderr)
		var shown []string
		for _, line := range strings.Split(r.stderr, "\n") {
			if strings.HasPrefix(line, "  line ") {
				shown = append(shown, line)
				assert.LessOrEqual(t, utf8.RuneCountInString(line), 80, "%q", line)
			}
		}
		assert.Equal(t, []string{
			`  line 2: invalid phone number "9999999999999999999999999999990": must be 8-15 …`,
			`  line 4: invalid phone number "9999999999999999999999999999991": must be 8-15 …`,
			`  line 6: invalid phone number "9999999999999999999999999999992": must be 8-15 …`,
		}, shown)
		assert.Contains(t, r.stderr, tt.more)
	}
	var rep bulkJSON
	b, err := os.ReadFile(report)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Len(t, rep.BadList, 50, "the report lists every one")
	assert.Contains(t, rep.BadList[49].Reason, "must be 8-15 digits with an optional leading + and no leading 0, or a local Nigerian number (0 + 10 digits)", "in full")
}

// Numeric flags out of bounds are refused before the file is read or anything is sent.
func TestBulkFlagBounds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	csv := peopleCSV(t, 3, 0, 0)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--concurrency", strconv.Itoa(math.MaxInt)}, "sms: --concurrency 9223372036854775807: want 1 to 64\n"},
		{[]string{"--concurrency", "1099511627776"}, "sms: --concurrency 1099511627776: want 1 to 64\n"},
		{[]string{"--concurrency", "-1"}, "sms: --concurrency -1: want 1 to 64\n"},
		{[]string{"--batch-size", "10001"}, "sms: --batch-size 10001: want 1 to 10000\n"},
		{[]string{"--batch-size", "-5"}, "sms: --batch-size -5: want 1 to 10000\n"},
		{[]string{"--rate", "NaN"}, "sms: --rate NaN: want requests per second, at least 0.01 (0 for no limit)\n"},
		{[]string{"--rate", "+Inf"}, "sms: --rate +Inf: want requests per second, at least 0.01 (0 for no limit)\n"},
		{[]string{"--rate", "-1"}, "sms: --rate -1: want requests per second, at least 0.01 (0 for no limit)\n"},
		{[]string{"--rate", "1e-9"}, "sms: --rate 1e-09: want requests per second, at least 0.01 (0 for no limit)\n"},
		{[]string{"--poll-interval", "1ns"}, "sms: --poll-interval 1ns: want 100ms to 1h0m0s\n"},
		{[]string{"--wait", "--timeout", "-1s"}, "sms: --timeout -1s: cannot be negative (0 waits as long as it takes)\n"},
		{[]string{"--timeout", "1m"}, "sms: --timeout bounds the wait for delivery: give it with --wait\n"},
		{[]string{"--max-retries", "1000000"}, "sms: --max-retries 1000000: want 0 to 10\n"},
		{[]string{"--price", "-1"}, "sms: --price \"-1\": want the price of one SMS part in NGN, such as 3.20, at most 10000.00\n"},
		{[]string{"--price", "3.205"}, "sms: --price \"3.205\": want the price of one SMS part in NGN, such as 3.20, at most 10000.00\n"},
		{[]string{"--shard", "1/99999999999999999999"}, "sms: --shard \"1/99999999999999999999\": want i/n with 0 <= i < n\n"},
	}
	for _, tt := range tests {
		args := append([]string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi", "--job-id", "j"}, tt.args...)
		r := runCLI(t, f.env, "", args...)
		assert.Equal(t, 2, r.code, "%q", tt.args)
		assert.Equal(t, tt.want, r.stderr, "%q: before the file is read", tt.args)
	}
	assert.Empty(t, f.srv.Requests(), "nothing was sent")
}

// A file fixed and extended after its job was sent is finished by a new job that skips the
// numbers the first one reached: the rerun under the first job ID is refused (409), and
// --skip-sent-by sends and charges only the new numbers.
func TestBulkSkipSentBy(t *testing.T) {
	t.Parallel()
	const price = mockserver.DefaultGenericPrice
	f := newFixture(t)
	first := writeFile(t, "people.csv", "phone,name\n08030000001,Ada\n0803000000X,Bola\n08030000003,Chi\n")
	fixed := writeFile(t, "fixed.csv", "phone,name\n08030000001,Ada\n08030000002,Bola\n08030000003,Chi\n08030000004,Dayo\n")
	send := func(csv, job string, more ...string) result {
		args := append([]string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", job}, more...)
		return runCLI(t, f.env, "", args...)
	}
	r := send(first, "promo", "--skip-invalid")
	require.Equal(t, 0, r.code, r.stderr)
	wallet := f.balance(t)

	r = send(fixed, "promo")
	require.NotEqual(t, 0, r.code, "the input changed: the first job cannot be rerun with it")
	assert.Contains(t, r.stderr, "use a new --job-id")
	assert.Equal(t, wallet, f.balance(t))

	tests := []struct {
		name    string
		args    []string
		code    int
		stderr  string
		charged int64
	}{
		{name: "a dry run counts what is left", args: []string{"--dry-run"}, stderr: "2 numbers skipped: sent by job promo\n"},
		{name: "an unknown job sends nothing", args: []string{"--skip-sent-by", "nope"}, code: 1, stderr: `no campaign with the reference "nope:k" found`},
		{name: "only the numbers not reached are sent", stderr: "2 numbers skipped: sent by job promo\n", charged: 2 * price},
	}
	for _, tt := range tests {
		r := send(fixed, "promo-fixed", append([]string{"--skip-sent-by", "promo"}, tt.args...)...)
		if tt.code != 0 {
			r = send(fixed, "promo-fixed", tt.args...)
		}
		require.Equal(t, tt.code, r.code, "%s: %s", tt.name, r.stderr)
		assert.Contains(t, r.stderr, tt.stderr, tt.name)
		assert.Equal(t, wallet-tt.charged, f.balance(t), tt.name)
	}
}
