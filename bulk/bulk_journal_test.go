package bulk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/internal/apitest"
	"github.com/seedsms/sms-go/mockserver"
)

// crash stands for the death of the process at a chosen point of a bulk job: once it has
// happened, no journal record is written and no request leaves.
type crash struct {
	crashAt
	dead atomic.Bool
}

// crashAt is where a process dies.
type crashAt struct {
	afterIntent string // dies once the intent of this reference is durable
	afterAnswer string // dies once the server answered this reference, before its outcome is recorded
}

var errCrashed = errors.New("the process died")

// crashJournal is a journal of a process that may die (see crash).
type crashJournal struct {
	bulk.Journal
	c *crash
}

func (j crashJournal) Append(ctx context.Context, rec bulk.JournalRecord) error {
	if j.c.dead.Load() {
		return errCrashed
	}
	if err := j.Journal.Append(ctx, rec); err != nil {
		return err
	}
	if rec.Kind == bulk.JournalKindIntent && rec.Reference == j.c.afterIntent {
		j.c.dead.Store(true)
	}
	return nil
}

// crashTransport is the network of a process that may die (see crash).
type crashTransport struct {
	base http.RoundTripper
	c    *crash
}

func (t crashTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.c.dead.Load() {
		return nil, errCrashed // never written
	}
	ref := ""
	if req.Method == http.MethodPost && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		var m struct{ Reference string }
		_ = json.Unmarshal(body, &m)
		ref = m.Reference
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && ref != "" && ref == t.c.afterAnswer {
		t.c.dead.Store(true)
	}
	return resp, err
}

// journalServer is a mock and the clients of the processes that run a job against it.
type journalServer struct {
	srv   *mockserver.Server
	dedup bool // the mock deduplicates references
}

// newJournalServer starts a mock whose clock is an hour behind: every campaign it lists is
// older than the intents of the job's runs, so that its list covers their time (see
// bulk.Params.SettleAfter).
func newJournalServer(t *testing.T, profile mockserver.Profile, dedup bool, opts ...mockserver.Option) *journalServer {
	t.Helper()
	opts = append([]mockserver.Option{mockserver.WithProfile(profile), mockserver.WithReferenceDeduplication(dedup),
		mockserver.WithClock(func() time.Time { return time.Now().Add(-time.Hour) })}, opts...)
	return &journalServer{srv: newServer(t, opts...), dedup: dedup}
}

// client returns the client of a new process, which dies as c says (nil: never).
func (s *journalServer) client(t *testing.T, c *crash, opts ...sms.Option) *sms.Client {
	t.Helper()
	var rt http.RoundTripper = apitest.Transport(t, s.srv.Transport(), true)
	if c != nil {
		rt = crashTransport{base: rt, c: c}
	}
	opts = append([]sms.Option{sms.WithHTTPClient(&http.Client{Transport: rt}), sms.WithRetryWait(time.Millisecond, 5*time.Millisecond)}, opts...)
	return newClient(t, s.srv, opts...)
}

// received returns how many SMS each number received.
func (s *journalServer) received() map[string]int {
	out := make(map[string]int)
	for _, m := range s.srv.Messages(mockserver.Filter{Kind: mockserver.KindSMS}) {
		out[m.To]++
	}
	return out
}

// posts counts the campaign requests the mock received.
func (s *journalServer) posts() int { return requestsTo(s.srv, http.MethodPost, "/v1/sms/campaigns") }

// openJournal opens the journal file at path, closed at the end of the test.
func openJournal(t *testing.T, path string) *bulk.FileJournal {
	t.Helper()
	j, err := bulk.OpenFileJournal(path)
	require.NoError(t, err)
	t.Cleanup(func() { j.Close() })
	return j
}

// journalJob is a job of 12 numbers in batches of 3, one at a time, whose batches in doubt
// can no longer be processed by the server as soon as the next run starts (SettleAfter).
func journalJob(jobID string, rs []sms.Recipient, jr bulk.Journal) *bulk.Params {
	return &bulk.Params{JobID: jobID, From: "MOCKSMS", Message: "Hi {{name}}", Recipients: bulk.RecipientsFrom(rs),
		BatchSize: 3, Concurrency: 1, Journal: jr, SettleAfter: time.Nanosecond}
}

// onceEach checks that each of the numbers of rs, and no other, received exactly n[i] SMS.
func assertReceived(t *testing.T, s *journalServer, want map[string]int) {
	t.Helper()
	got := s.received()
	for k, v := range want {
		if v == 0 {
			delete(want, k)
		}
	}
	assert.Equal(t, want, got)
}

func timesEach(rs []sms.Recipient, n int) map[string]int {
	out := make(map[string]int)
	for _, r := range rs {
		out[r.Phone] = n
	}
	return out
}

const onePart = 320 // kobo: one GSM part on the generic channel

// A job run with a journal survives a crash at any point without sending a number twice,
// whether or not the server deduplicates references: what the journal cannot settle (a
// request that may have been processed, on a server that neither deduplicates nor lists
// references) is reported in doubt, and sent again only when told to.
func TestSendBulkJournalCrash(t *testing.T) {
	t.Parallel()
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}) // batches 0 to 3
	tests := []struct {
		name    string
		profile mockserver.Profile
		dedup   bool // the server deduplicates, and the client is told so
		crash   crashAt
		// The second run: batches from the journal, sent, in doubt.
		fromJournal, sent, inDoubt int
		// Batch 2 reached the server in the first run.
		batch2Sent bool
	}{
		{name: "intent written, request not: full profile, settled by the list",
			profile: mockserver.ProfileFull, crash: crashAt{afterIntent: "job:2"}, fromJournal: 6, sent: 6},
		{name: "intent written, request not: documented profile, in doubt",
			profile: mockserver.ProfileDocumented, crash: crashAt{afterIntent: "job:2"}, fromJournal: 6, sent: 3, inDoubt: 3},
		{name: "answered, outcome not recorded: full profile, settled by the list",
			profile: mockserver.ProfileFull, crash: crashAt{afterAnswer: "job:2"}, fromJournal: 9, sent: 3, batch2Sent: true},
		{name: "answered, outcome not recorded: documented profile, in doubt",
			profile: mockserver.ProfileDocumented, crash: crashAt{afterAnswer: "job:2"}, fromJournal: 6, sent: 3, inDoubt: 3, batch2Sent: true},
		{name: "answered, outcome not recorded: a deduplicating server replays it",
			profile: mockserver.ProfileDocumented, dedup: true, crash: crashAt{afterAnswer: "job:2"}, fromJournal: 6, sent: 3, batch2Sent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := newJournalServer(t, tt.profile, tt.dedup)
			var opts []sms.Option
			if tt.dedup {
				opts = append(opts, sms.WithReferenceDeduplication())
			}
			path := filepath.Join(t.TempDir(), "job.journal")
			before := balance(t, s.srv)

			// The first process dies.
			c := &crash{crashAt: tt.crash}
			jr := openJournal(t, path)
			_, err := bulk.Send(ctx, s.client(t, c, opts...), journalJob("job", rs, crashJournal{jr, c}))
			require.ErrorIs(t, err, errCrashed)
			require.NoError(t, jr.Close())
			first := 6
			if tt.batch2Sent {
				first = 9
			}
			require.Equal(t, first, len(s.received()))

			// The second one finishes the job.
			posts := s.posts()
			jr = openJournal(t, path)
			r, err := bulk.Send(ctx, s.client(t, nil, opts...), journalJob("job", rs, jr))
			require.NotNil(t, r)
			assert.Equal(t, tt.fromJournal, r.FromJournal, "from the journal")
			assert.Equal(t, tt.sent+r.Replayed, r.Sent+r.Replayed, "sent")
			assert.Equal(t, tt.inDoubt, r.InDoubt, "in doubt")
			assert.Equal(t, tt.inDoubt/3, r.InDoubtBatches)
			assert.Equal(t, tt.fromJournal/3, countBatches(r, func(b bulk.Batch) bool { return b.FromJournal }))
			want := timesEach(rs, 1)
			if tt.inDoubt > 0 {
				require.ErrorIs(t, err, bulk.ErrBatchesInDoubt)
				assert.NotErrorIs(t, err, bulk.ErrIncomplete)
				assert.False(t, r.Complete)
				assert.True(t, r.Batches[2].InDoubt, "a dry run does not ask the campaign list")
				assert.Empty(t, r.Failed())
				assert.Contains(t, err.Error(), `reference "job:2"`)
				if !tt.batch2Sent {
					for _, x := range rs[6:9] {
						want[x.Phone] = 0
					}
				}
				assertReceived(t, s, want)
				assert.Equal(t, posts+1, s.posts(), "only batch 3 was sent")

				if !tt.batch2Sent { // told that batch 2 is not on the server, the job resends it
					require.NoError(t, jr.Close())
					jr = openJournal(t, path)
					p := journalJob("job", rs, jr)
					p.ResendInDoubt = true
					r, err = bulk.Send(ctx, s.client(t, nil, opts...), p)
					require.NoError(t, err)
					assert.True(t, r.Complete)
					assert.Equal(t, 3, r.Sent)
					assert.Equal(t, 9, r.FromJournal)
					assertReceived(t, s, timesEach(rs, 1))
					assert.Equal(t, before-12*onePart, balance(t, s.srv), "the wallet moved once per number")
				}
				return
			}
			require.NoError(t, err)
			assert.True(t, r.Complete)
			assertReceived(t, s, timesEach(rs, 1))
			assert.Equal(t, before-12*onePart, balance(t, s.srv), "the wallet moved once per number")
			assert.Equal(t, int64(12*onePart), r.JobAmount.Kobo(), "the job's amount over both runs")
		})
	}
}

func countBatches(r *bulk.Report, f func(bulk.Batch) bool) int {
	n := 0
	for _, b := range r.Batches {
		if f(b) {
			n++
		}
	}
	return n
}

// A batch the journal records as accepted is never sent again, against a server that does
// not deduplicate references: a rerun of a finished job sends nothing.
func TestSendBulkJournalRerunSendsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileDocumented, false)
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7})
	path := filepath.Join(t.TempDir(), "job.journal")
	jr := openJournal(t, path)
	first, err := bulk.Send(ctx, s.client(t, nil), journalJob("job", rs, jr))
	require.NoError(t, err)
	require.NoError(t, jr.Close())
	posts := s.posts()

	jr = openJournal(t, path)
	var progress []bulk.Progress
	p := journalJob("job", rs, jr)
	p.Progress = func(pg bulk.Progress) { progress = append(progress, pg) }
	r, err := bulk.Send(ctx, s.client(t, nil), p)
	require.NoError(t, err)
	assert.Equal(t, posts, s.posts(), "no request")
	assert.True(t, r.Complete)
	assert.Equal(t, 7, r.FromJournal)
	assert.Zero(t, r.Sent)
	assert.Equal(t, first.Amount, r.FromJournalAmount)
	assert.Equal(t, first.Amount, r.JobAmount)
	assert.Equal(t, first.CampaignIDs(), r.CampaignIDs())
	require.Len(t, progress, 3)
	assert.Equal(t, 7, progress[2].FromJournal)
	assertReceived(t, s, timesEach(rs, 1))
}

// An input that differs from what the journal recorded is refused before anything is sent,
// whichever batch differs.
func TestSendBulkJournalMismatch(t *testing.T) {
	t.Parallel()
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	edit := func(f func([]sms.Recipient) []sms.Recipient) []sms.Recipient {
		return f(append([]sms.Recipient(nil), rs...))
	}
	tests := []struct {
		name  string
		input []sms.Recipient
		edit  func(*bulk.Params)
		batch string // the batch named
	}{
		{"a name changed in an accepted batch", edit(func(r []sms.Recipient) []sms.Recipient { r[4].Name = "Other"; return r }), nil, "batch 1"},
		{"a row inserted", edit(func(r []sms.Recipient) []sms.Recipient {
			return append([]sms.Recipient{{Phone: bulkPhone(99), Name: "New"}}, r...)
		}), nil, "batch 0"},
		{"the batch in doubt changed", edit(func(r []sms.Recipient) []sms.Recipient { r[7].Name = "Other"; return r }), nil, "batch 2"},
		{"the input cut short", rs[:6], nil, "batch 2"},
		{"the input cut inside a batch", rs[:5], nil, "batch 1"},
		{"another message", rs, func(p *bulk.Params) { p.Message = "Hello {{name}}" }, "batch 0"},
		{"another batch size", rs, func(p *bulk.Params) { p.BatchSize = 4 }, "batch 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := newJournalServer(t, mockserver.ProfileFull, false)
			path := filepath.Join(t.TempDir(), "job.journal")
			c := &crash{crashAt: crashAt{afterIntent: "job:2"}}
			jr := openJournal(t, path)
			_, err := bulk.Send(ctx, s.client(t, c), journalJob("job", rs, crashJournal{jr, c}))
			require.ErrorIs(t, err, errCrashed)
			require.NoError(t, jr.Close())
			posts := s.posts()

			jr = openJournal(t, path)
			dry := journalJob("job", tt.input, jr)
			dry.DryRun = true
			if tt.edit != nil {
				tt.edit(dry)
			}
			_, err = bulk.Send(ctx, s.client(t, nil), dry)
			require.ErrorIs(t, err, bulk.ErrJournalMismatch, "a dry run finds it too")
			assert.ErrorContains(t, err, tt.batch)

			p := journalJob("job", tt.input, jr)
			p.Concurrency = 4
			if tt.edit != nil {
				tt.edit(p)
			}
			_, err = bulk.Send(ctx, s.client(t, nil), p)
			require.ErrorIs(t, err, bulk.ErrJournalMismatch)
			assert.ErrorContains(t, err, tt.batch)
			assert.ErrorContains(t, err, "SkipSentBy")
			assert.ErrorContains(t, err, "nothing was sent")
			assert.Equal(t, posts, s.posts(), "no request")
		})
	}
}

// A dry run reads the journal and writes nothing, asking the server nothing: it reports the
// batches the journal records as accepted and in doubt, and the others as it would send them.
func TestSendBulkJournalDryRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileFull, false)
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	path := filepath.Join(t.TempDir(), "job.journal")
	c := &crash{crashAt: crashAt{afterIntent: "job:2"}}
	jr := openJournal(t, path)
	_, err := bulk.Send(ctx, s.client(t, c), journalJob("job", rs, crashJournal{jr, c}))
	require.ErrorIs(t, err, errCrashed)
	require.NoError(t, jr.Close())
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	requests := len(s.srv.Requests())

	jr = openJournal(t, path)
	p := journalJob("job", rs, jr)
	p.DryRun = true
	r, err := bulk.Send(ctx, s.client(t, nil), p)
	require.NoError(t, err, "a dry run reports what is in doubt; the run may settle it")
	require.Len(t, r.Batches, 4)
	assert.Equal(t, []bool{true, true, false, false}, []bool{r.Batches[0].FromJournal, r.Batches[1].FromJournal, r.Batches[2].FromJournal, r.Batches[3].FromJournal})
	assert.True(t, r.Batches[2].InDoubt)
	assert.Equal(t, 6, r.FromJournal)
	assert.Equal(t, 1, r.InDoubtBatches)
	assert.Equal(t, 3, r.InDoubt)
	assert.False(t, r.Complete)
	assert.Equal(t, requests, len(s.srv.Requests()), "no request")
	require.NoError(t, jr.Close())
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing written")
}

// SkipSentBy reads an earlier job's numbers from the journal: finishing a corrected job needs
// nothing from the server, not even a campaign list that shows references.
func TestSendBulkSkipSentByJournal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileDocumented, false)
	path := filepath.Join(t.TempDir(), "jobs.journal")
	jr := openJournal(t, path)
	first := customersOf([]int{1, 2, 3, 4, 5}, "0803-BAD")
	_, err := bulk.Send(ctx, s.client(t, nil), journalJob("first", first, jr))
	require.NoError(t, err)
	gets := requestsTo(s.srv, http.MethodGet, "/v1/sms/campaigns")

	second := customersOf([]int{1, 2, 3, 6, 4, 5, 7})
	p := journalJob("second", second, jr)
	p.SkipSentBy = []string{"first"}
	r, err := bulk.Send(ctx, s.client(t, nil), p)
	require.NoError(t, err)
	assert.Equal(t, 5, r.Skipped)
	assert.Equal(t, 2, r.Sent)
	assert.Equal(t, gets, requestsTo(s.srv, http.MethodGet, "/v1/sms/campaigns"), "no campaign list read")
	assertReceived(t, s, timesEach(customersOf([]int{1, 2, 3, 4, 5, 6, 7}), 1))
}

// A batch of the earlier job in doubt stops SkipSentBy before anything is sent, named, even
// with SkipSentByPartial (its numbers may or may not have been sent), until it is settled; a
// batch of it never started is no error: its numbers are sent.
func TestSendBulkSkipSentByJournalInDoubt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileDocumented, false)
	path := filepath.Join(t.TempDir(), "jobs.journal")
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9})
	c := &crash{crashAt: crashAt{afterAnswer: "first:1"}} // batch 2 is never started
	jr := openJournal(t, path)
	_, err := bulk.Send(ctx, s.client(t, c), journalJob("first", rs, crashJournal{jr, c}))
	require.ErrorIs(t, err, errCrashed)
	posts := s.posts()

	for _, partial := range []bool{false, true} {
		p := journalJob("second", rs, jr)
		p.SkipSentBy, p.SkipSentByPartial = []string{"first"}, partial
		_, err = bulk.Send(ctx, s.client(t, nil), p)
		require.ErrorIs(t, err, bulk.ErrBatchesInDoubt, "SkipSentByPartial %v", partial)
		assert.ErrorContains(t, err, "batch 1")
		assert.ErrorContains(t, err, "sms bulk settle first")
		assert.Equal(t, posts, s.posts())
	}

	var camp string // the campaign of batch 1, as a person would find it
	for _, m := range s.srv.Messages(mockserver.Filter{Kind: mockserver.KindSMS}) {
		if m.Reference == "first:1" {
			camp = m.CampaignID
		}
	}
	require.NotEmpty(t, camp)
	_, err = bulk.Settle(ctx, s.client(t, nil), &bulk.SettleParams{Journal: jr, JobID: "first", Index: 1, CampaignID: camp})
	require.NoError(t, err)

	p := journalJob("second", rs, jr)
	p.SkipSentBy = []string{"first"}
	r, err := bulk.Send(ctx, s.client(t, nil), p)
	require.NoError(t, err)
	assert.Equal(t, 6, r.Skipped, "batches 0 and 1")
	assert.Equal(t, 3, r.Sent, "batch 2, never started by the first job")
	assertReceived(t, s, timesEach(rs, 1))
}

// Without a journal, SkipSentBy refuses to go on when the server lists a job's batches with a
// gap (a campaign it forgot, or one never sent): their numbers would be sent again in silence.
func TestSendBulkSkipSentByGap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newServer(t)
	c := newClient(t, srv)
	for _, k := range []int{0, 2} {
		_, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: customersOf([]int{k}), From: "MOCKSMS", Message: "Hi", Reference: "first:" + strconv.Itoa(k)})
		require.NoError(t, err)
	}
	srv.DeliverAll()
	posts := requestsTo(srv, http.MethodPost, "/v1/sms/campaigns")
	p := &bulk.Params{JobID: "second", From: "MOCKSMS", Message: "Hi", Recipients: bulk.RecipientsFrom(customersOf([]int{0, 1, 2, 3})),
		SkipSentBy: []string{"first"}}
	_, err := bulk.Send(ctx, c, p)
	require.Error(t, err)
	assert.ErrorContains(t, err, "not batch 1")
	assert.ErrorContains(t, err, "SkipSentByPartial")
	assert.Equal(t, posts, requestsTo(srv, http.MethodPost, "/v1/sms/campaigns"), "nothing sent")

	p.SkipSentByPartial = true
	r, err := bulk.Send(ctx, c, p)
	require.NoError(t, err)
	assert.Equal(t, 2, r.Skipped)
	assert.Equal(t, 2, r.Sent)
}

// The journal is written as the job goes: an intent before each request, its outcome after,
// and a journal that cannot record an intent stops the job without sending the batch.
func TestSendBulkJournalRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileFull, true)
	rec := &recordingJournal{}
	r, err := bulk.Send(ctx, s.client(t, nil), journalJob("job", customersOf([]int{1, 2, 3, 4}), rec))
	require.NoError(t, err)
	require.Len(t, rec.recs, 5)
	job := rec.recs[0]
	acct := s.client(t, nil).Account()
	assert.Equal(t, bulk.JournalRecord{Kind: bulk.JournalKindJob, JobID: "job", Index: 0, Shards: 1, Server: acct.Server, Mode: "test", Key: acct.Key, Time: job.Time}, job)
	assert.Contains(t, job.Key, "pk_test_...")
	for i, want := range []struct {
		kind  bulk.JournalKind
		index int
	}{{bulk.JournalKindIntent, 0}, {bulk.JournalKindOutcome, 0}, {bulk.JournalKindIntent, 1}, {bulk.JournalKindOutcome, 1}} {
		got := rec.recs[i+1]
		assert.Equal(t, want.kind, got.Kind)
		assert.Equal(t, want.index, got.Index)
		assert.Equal(t, 1, got.Attempt)
	}
	assert.Equal(t, []string{bulkPhone(1), bulkPhone(2), bulkPhone(3)}, rec.recs[1].Numbers)
	assert.Equal(t, bulk.BatchDigest("MOCKSMS", "", "Hi {{name}}", customersOf([]int{1, 2, 3})), rec.recs[1].Digest)
	assert.Equal(t, bulk.JournalStateAccepted, rec.recs[2].State)
	assert.Equal(t, r.Batches[0].CampaignID, rec.recs[2].CampaignID)
	assert.Equal(t, int64(3*onePart), rec.recs[2].Amount.Kobo())

	posts := s.posts()
	failing := &recordingJournal{fail: errors.New("disk full")}
	r, err = bulk.Send(ctx, s.client(t, nil), journalJob("other", customersOf([]int{5}), failing))
	require.ErrorContains(t, err, "disk full")
	assert.Nil(t, r, "a job whose journal cannot record it does not start")
	assert.Equal(t, posts, s.posts(), "nothing is sent unrecorded")
}

// recordingJournal keeps its records in memory; fail, when set, refuses every append.
type recordingJournal struct {
	mu   sync.Mutex
	recs []bulk.JournalRecord
	fail error
}

func (j *recordingJournal) Load(_ context.Context, job string) ([]bulk.JournalRecord, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []bulk.JournalRecord
	for _, r := range j.recs {
		if r.JobID == job {
			out = append(out, r)
		}
	}
	return out, nil
}

func (j *recordingJournal) Append(_ context.Context, r bulk.JournalRecord) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fail != nil {
		return j.fail
	}
	j.recs = append(j.recs, r)
	return nil
}

func (j *recordingJournal) Close() error { return nil }

// Batches the journal has no record of, below the last one it has, are held until the input
// has been checked that far: a change found there stops the job before any of them is sent.
func TestSendBulkJournalHoldsBatchesUntilChecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileFull, false)
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	jr := &recordingJournal{}
	for _, k := range []int{0, 2} { // batches 1 and 3 never started (another worker's, when the process died)
		batch := rs[3*k : 3*k+3]
		nums := []string{batch[0].Phone, batch[1].Phone, batch[2].Phone}
		in := bulk.JournalRecord{Kind: bulk.JournalKindIntent, JobID: "job", Index: k, Reference: "job:" + strconv.Itoa(k), Attempt: 1,
			Digest: bulk.BatchDigest("MOCKSMS", "", "Hi {{name}}", batch), Recipients: 3, Numbers: nums, Time: time.Now()}
		require.NoError(t, jr.Append(ctx, in))
		require.NoError(t, jr.Append(ctx, journalAccepted(in, 3*onePart)))
	}
	changed := append([]sms.Recipient(nil), rs...)
	changed[7].Name = "Other" // in batch 2
	p := journalJob("job", changed, jr)
	p.Concurrency = 4
	_, err := bulk.Send(ctx, s.client(t, nil), p)
	require.ErrorIs(t, err, bulk.ErrJournalMismatch)
	assert.ErrorContains(t, err, "batch 2")
	assert.Zero(t, s.posts(), "batch 1 was held, and not sent")

	p = journalJob("job", rs, jr)
	p.Concurrency = 4
	r, err := bulk.Send(ctx, s.client(t, nil), p)
	require.NoError(t, err)
	assert.Equal(t, 2, s.posts())
	assert.Equal(t, 6, r.FromJournal)
	assert.Equal(t, 6, r.Sent)
	assert.True(t, r.Complete)
	assert.Equal(t, int64(12*onePart), r.JobAmount.Kobo())
	want := timesEach(rs, 1)
	for _, x := range append(rs[0:3:3], rs[6:9]...) {
		want[x.Phone] = 0 // the journal says an earlier run sent them; this mock never saw it
	}
	assertReceived(t, s, want)
}
