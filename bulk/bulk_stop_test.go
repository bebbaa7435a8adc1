package bulk_test

import (
	"context"
	"iter"
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

// stopAfter yields rs, and closes stop once it has yielded n of them: a SIGTERM in the middle
// of the input, while a batch is being filled.
func stopAfter(rs []sms.Recipient, n int, stop chan struct{}) iter.Seq2[sms.Recipient, error] {
	return func(yield func(sms.Recipient, error) bool) {
		for i, r := range rs {
			if i == n {
				close(stop)
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// bulk.Params.Stop stops a job gracefully: the batches in flight finish and are recorded,
// none is started after it (not even the one being filled), nothing is left in doubt, and
// the rerun finishes the job, each number once, against a server that does not deduplicate.
func TestSendBulkStop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileDocumented, false)
	require.NoError(t, s.srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Latency: 200 * time.Millisecond}))
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18})
	jr := openJournal(t, filepath.Join(t.TempDir(), "job.journal"))

	stop := make(chan struct{})
	p := journalJob("job", rs, jr)
	p.Concurrency, p.Stop = 2, stop
	p.Recipients = stopAfter(rs, 7, stop) // batches 0 and 1 are under way, batch 2 is being filled
	r, err := bulk.Send(ctx, s.client(t, nil), p)
	require.ErrorIs(t, err, bulk.ErrStopped)
	assert.NotErrorIs(t, err, bulk.ErrBatchesInDoubt)
	assert.False(t, r.Complete)
	assert.Zero(t, r.InDoubt)
	assert.Empty(t, r.Failed())
	assert.LessOrEqual(t, r.Sent, 6, "no batch after the stop")
	assert.Equal(t, r.Sent/3, s.posts())
	recs, err := jr.Load(ctx, "job")
	require.NoError(t, err)
	intents, outcomes := 0, 0
	for _, rec := range recs {
		switch rec.Kind {
		case bulk.JournalKindIntent:
			intents++
		case bulk.JournalKindOutcome:
			outcomes++
		}
	}
	assert.Equal(t, intents, outcomes, "every batch started has its outcome")

	r2, err := bulk.Send(ctx, s.client(t, nil), journalJob("job", rs, jr))
	require.NoError(t, err)
	assert.True(t, r2.Complete)
	assert.Equal(t, 18-r.Sent, r2.Sent)
	assertReceived(t, s, timesEach(rs, 1))
}

// A stop while workers wait for the rate limit starts none of their batches; a nil Stop, or
// one never closed, changes nothing.
func TestSendBulkStopWhileWaiting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newJournalServer(t, mockserver.ProfileDocumented, false)
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	jr := openJournal(t, filepath.Join(t.TempDir(), "job.journal"))
	stop := make(chan struct{})
	var once sync.Once
	p := journalJob("job", rs, jr)
	p.Stop, p.Rate = stop, 0.5 // one request every 2 s
	p.Progress = func(bulk.Progress) { once.Do(func() { close(stop) }) }
	r, err := bulk.Send(ctx, s.client(t, nil), p)
	require.ErrorIs(t, err, bulk.ErrStopped)
	assert.Equal(t, 3, r.Sent)
	assert.Equal(t, 1, s.posts())

	never := make(chan struct{})
	p = journalJob("job", rs, jr)
	p.Stop = never
	r, err = bulk.Send(ctx, s.client(t, nil), p)
	require.NoError(t, err)
	assert.True(t, r.Complete)
	assertReceived(t, s, timesEach(rs, 1))
}
