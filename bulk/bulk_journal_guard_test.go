package bulk_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

// A journal belongs to the account its job was sent to: a run of the job against another
// key (the live key after a rehearsal with the test key, another workspace's) or another
// server is refused before any request, naming both accounts.
func TestSendBulkJournalOtherAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileDocumented, false)
	rs := customersOf([]int{1, 2, 3, 4})
	jr := openJournal(t, filepath.Join(t.TempDir(), "job.journal"))
	_, err := bulk.Send(ctx, s.client(t, nil), journalJob("job", rs, jr))
	require.NoError(t, err)

	ws := s.srv.Default()
	other, err := s.srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.NoError(t, err)
	tests := []struct {
		name   string
		client *sms.Client
	}{
		{"the live key of the workspace", newClientOf(t, s.srv, ws.LiveKey, ws.LiveSecret)},
		{"another workspace's test key", newClientOf(t, s.srv, other.TestKey, other.TestSecret)},
		{"another server", s.client(t, nil, sms.WithBaseURL("http://127.0.0.2"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(s.srv.Requests())
			for _, dry := range []bool{true, false} {
				p := journalJob("job", rs, jr)
				p.DryRun = dry
				r, err := bulk.Send(ctx, tt.client, p)
				require.ErrorIs(t, err, bulk.ErrJournalAccount)
				assert.Nil(t, r)
				assert.ErrorContains(t, err, s.client(t, nil).Account().String())
				assert.ErrorContains(t, err, tt.client.Account().String())
				assert.ErrorContains(t, err, "new JobID")
			}
			assert.Len(t, s.srv.Requests(), before, "no request")
		})
	}
	// The same account goes on.
	r, err := bulk.Send(ctx, s.client(t, nil), journalJob("job", rs, jr))
	require.NoError(t, err)
	assert.Equal(t, 4, r.FromJournal)
}

// A journal records the job's shard layout: a run under another layout is refused unless the
// journal holds the records of every shard of the earlier one (MultiJournal over the shards'
// files), and then sends none of their batches again.
func TestSendBulkJournalShardLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileDocumented, false)
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	dir := t.TempDir()
	shards := make([]*bulk.FileJournal, 2)
	for i := range shards {
		shards[i] = openJournal(t, filepath.Join(dir, "shard"+string(rune('0'+i))))
		p := journalJob("job", rs, shards[i])
		p.Shard = bulk.Shard{Index: i, Count: 2}
		_, err := bulk.Send(ctx, s.client(t, nil), p)
		require.NoError(t, err)
	}
	assertReceived(t, s, timesEach(rs, 1))
	posts := s.posts()

	// The whole job with shard 0's journal alone would send shard 1's batches again.
	for _, dry := range []bool{true, false} {
		p := journalJob("job", rs, shards[0])
		p.DryRun = dry
		_, err := bulk.Send(ctx, s.client(t, nil), p)
		require.ErrorIs(t, err, bulk.ErrJournalShards)
		assert.ErrorContains(t, err, "not those of shard 1")
	}
	// So would shard 1 of 3, or SkipSentBy of the job.
	p := journalJob("job", rs, shards[0])
	p.Shard = bulk.Shard{Index: 1, Count: 3}
	_, err := bulk.Send(ctx, s.client(t, nil), p)
	require.ErrorIs(t, err, bulk.ErrJournalShards)
	p = journalJob("next", rs, shards[0])
	p.SkipSentBy = []string{"job"}
	_, err = bulk.Send(ctx, s.client(t, nil), p)
	require.ErrorIs(t, err, bulk.ErrJournalShards)
	assert.Equal(t, posts, s.posts())

	// Over both shards' journals, the whole job sends nothing.
	whole := openJournal(t, filepath.Join(dir, "whole"))
	r, err := bulk.Send(ctx, s.client(t, nil), journalJob("job", rs, bulk.MultiJournal(whole, shards[0], shards[1])))
	require.NoError(t, err)
	assert.True(t, r.Complete)
	assert.Equal(t, 12, r.FromJournal)
	assert.Equal(t, posts, s.posts())
}

// commitThenFail is a journal whose intent is recorded although Append reports an error: a
// database that committed it while the call was cancelled.
type commitThenFail struct {
	recordingJournal
	once sync.Once
}

func (j *commitThenFail) Append(ctx context.Context, r bulk.JournalRecord) error {
	if err := j.recordingJournal.Append(ctx, r); err != nil {
		return err
	}
	failed := false
	if r.Kind == bulk.JournalKindIntent {
		j.once.Do(func() { failed = true })
	}
	if failed {
		return context.Canceled
	}
	return nil
}

// A batch whose intent could not be confirmed is not sent, and is recorded as not sent: a
// rerun sends it instead of leaving it in doubt for ever.
func TestSendBulkJournalIntentNotConfirmed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileDocumented, false)
	rs := customersOf([]int{1, 2, 3, 4, 5, 6})
	jr := &commitThenFail{}
	_, err := bulk.Send(ctx, s.client(t, nil), journalJob("job", rs, jr))
	require.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, s.posts(), "not sent")

	r, err := bulk.Send(ctx, s.client(t, nil), journalJob("job", rs, jr))
	require.NoError(t, err)
	assert.Zero(t, r.InDoubt)
	assert.Equal(t, 6, r.Sent)
	assertReceived(t, s, timesEach(rs, 1))
}

// A batch in doubt whose campaign the server does not list is sent again only when the list
// proves it was never processed: its intent is older than the settle time (a request the
// server holds may still be processed), and the list still shows a campaign older than the
// intent (the server has not forgotten campaigns of its time). Otherwise it stays in doubt.
func TestSendBulkJournalSettleTime(t *testing.T) {
	t.Parallel()
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9})
	tests := []struct {
		name   string
		settle time.Duration
		clock  func() time.Time // the mock's
		resent bool
		reason string
	}{
		{"recent: the server may still process it", 0, nil, false, "may still process it"},
		{"old enough, and the list covers its time", time.Nanosecond, nil, true, ""},
		{"old enough, but the list holds nothing older", time.Nanosecond, time.Now, false, "holds no campaign older"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var opts []mockserver.Option
			if tt.clock != nil {
				opts = append(opts, mockserver.WithClock(tt.clock))
			}
			s := newJournalServer(t, mockserver.ProfileFull, false, opts...)
			jr := openJournal(t, filepath.Join(t.TempDir(), "job.journal"))
			c := &crash{crashAt: crashAt{afterIntent: "job:2"}} // written, never sent
			_, err := bulk.Send(ctx, s.client(t, c), journalJob("job", rs, crashJournal{jr, c}))
			require.ErrorIs(t, err, errCrashed)

			p := journalJob("job", rs, jr)
			p.SettleAfter = tt.settle
			r, err := bulk.Send(ctx, s.client(t, nil), p)
			if tt.resent {
				require.NoError(t, err)
				assert.Equal(t, 3, r.Sent)
				assertReceived(t, s, timesEach(rs, 1))
				return
			}
			require.ErrorIs(t, err, bulk.ErrBatchesInDoubt)
			require.True(t, r.Batches[2].InDoubt)
			assert.ErrorContains(t, r.Batches[2].Err, tt.reason)
			assert.Equal(t, 3, r.InDoubt)
			assert.Zero(t, r.Sent)
		})
	}
}

// Settle records one batch in doubt as sent (its campaign) or not sent, refusing a batch that
// is not in doubt and what the server's campaign list contradicts; a rerun then sends only
// the batches settled as not sent.
func TestBulkSettle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileFull, false)
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	jr := &recordingJournal{}
	// Batches 1 and 2 are in doubt: 1 reached the server, 2 did not.
	c := &crash{crashAt: crashAt{afterAnswer: "job:1"}}
	_, err := bulk.Send(ctx, s.client(t, c), journalJob("job", rs, crashJournal{jr, c}))
	require.ErrorIs(t, err, errCrashed)
	batch2 := rs[6:9]
	require.NoError(t, jr.Append(ctx, bulk.JournalRecord{Kind: bulk.JournalKindIntent, JobID: "job", Index: 2, Reference: "job:2", Attempt: 1,
		Digest: bulk.BatchDigest("MOCKSMS", "", "Hi {{name}}", batch2), Recipients: 3,
		Numbers: []string{batch2[0].Phone, batch2[1].Phone, batch2[2].Phone}, Time: time.Now()}))

	var camp1, camp0 string
	for _, m := range s.srv.Messages(mockserver.Filter{Kind: mockserver.KindSMS}) {
		switch m.Reference {
		case "job:1":
			camp1 = m.CampaignID
		case "job:0":
			camp0 = m.CampaignID
		}
	}
	cl := s.client(t, nil)
	settle := func(index int, campaign string) error {
		_, err := bulk.Settle(ctx, cl, &bulk.SettleParams{Journal: jr, JobID: "job", Index: index, CampaignID: campaign, NotSent: campaign == ""})
		return err
	}
	for _, bad := range []struct {
		index    int
		campaign string
		want     string
	}{
		{0, camp0, "bulk: the batch is not in doubt"},
		{3, "", "never started"},
		{1, "", "it was sent"},
		{1, camp0, "journal records campaign"},
		{2, camp1, `has the reference "job:1"`},
	} {
		err := settle(bad.index, bad.campaign)
		require.Error(t, err, "batch %d", bad.index)
		assert.ErrorContains(t, err, bad.want)
	}
	var ve *sms.ValidationError
	_, err = bulk.Settle(ctx, cl, &bulk.SettleParams{Journal: jr, JobID: "job", Index: 1})
	require.ErrorAs(t, err, &ve)

	require.NoError(t, settle(1, camp1))
	require.NoError(t, settle(2, ""))
	require.ErrorContains(t, settle(2, ""), "not in doubt")

	posts := s.posts()
	p := journalJob("job", rs, jr)
	p.SettleAfter = time.Hour
	r, err := bulk.Send(ctx, cl, p)
	require.NoError(t, err)
	assert.True(t, r.Complete)
	assert.Equal(t, 6, r.Sent, "batches 2 and 3")
	assert.Equal(t, posts+2, s.posts())
	assertReceived(t, s, timesEach(rs, 1))
}
