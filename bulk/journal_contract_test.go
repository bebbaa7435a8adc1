package bulk_test

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

// journalOpener opens a new journal value over one storage (a file, a table), as another
// process would; opening may itself be refused while another value holds the storage.
type journalOpener func(t *testing.T) (bulk.Journal, error)

// testJournalContract checks a Journal implementation against what the Journal interface
// says every implementation guarantees. storage returns the opener of a new, empty storage.
func testJournalContract(t *testing.T, storage func(t *testing.T) journalOpener) {
	ctx := context.Background()
	mustOpen := func(t *testing.T, open journalOpener) bulk.Journal {
		t.Helper()
		j, err := open(t)
		require.NoError(t, err)
		t.Cleanup(func() { j.Close() })
		return j
	}
	// byBatch groups records by batch, in the order loaded.
	byBatch := func(recs []bulk.JournalRecord) map[int][]bulk.JournalRecord {
		out := map[int][]bulk.JournalRecord{}
		for _, r := range recs {
			out[r.Index] = append(out[r.Index], r)
		}
		return out
	}
	unknownOf := func(in bulk.JournalRecord) bulk.JournalRecord {
		u := journalAccepted(in, 0)
		u.State, u.CampaignID, u.Status, u.Amount, u.Reason = bulk.JournalStateUnknown, "", "", sms.Amount{}, "connection dropped"
		return u
	}
	retry := func(in bulk.JournalRecord) bulk.JournalRecord {
		in.Attempt++
		return in
	}

	t.Run("round trip of several jobs in order across close and reopen", func(t *testing.T) {
		t.Parallel()
		open := storage(t)
		j := mustOpen(t, open)
		a0, a1, b0 := journalIntent("job-a", 0, 3), journalIntent("job-a", 1, 2), journalIntent("job-b", 0, 1)
		noAmount := journalAccepted(a1, 0)
		noAmount.AmountUnknown = true
		appended := []bulk.JournalRecord{a0, b0, a1, unknownOf(a0), journalAccepted(b0, 320), retry(a0), noAmount, journalAccepted(retry(a0), 960)}
		for _, r := range appended {
			require.NoError(t, j.Append(ctx, r))
		}
		want := map[string]map[int][]bulk.JournalRecord{
			"job-a": {0: {a0, unknownOf(a0), retry(a0), journalAccepted(retry(a0), 960)}, 1: {a1, noAmount}},
			"job-b": {0: {b0, journalAccepted(b0, 320)}},
		}
		check := func(j bulk.Journal) {
			for job, batches := range want {
				got, err := j.Load(ctx, job)
				require.NoError(t, err)
				assert.Equal(t, batches, byBatch(got), "job %s", job)
			}
			got, err := j.Load(ctx, "job-c")
			require.NoError(t, err)
			assert.Empty(t, got)
		}
		check(j)
		require.NoError(t, j.Close())
		check(mustOpen(t, open))
	})

	t.Run("one owner per job then taken over after close", func(t *testing.T) {
		t.Parallel()
		if !bulk.JournalLocks {
			t.Skip("no file locks on this system")
		}
		open := storage(t)
		first := mustOpen(t, open)
		require.NoError(t, first.Append(ctx, journalIntent("job", 0, 1)))
		refused := func(t *testing.T) {
			t.Helper()
			second, err := open(t)
			if err == nil {
				defer second.Close()
				_, err = second.Load(ctx, "job")
				require.ErrorIs(t, err, bulk.ErrJournalLocked, "Load")
				err = second.Append(ctx, journalIntent("job", 1, 1))
			}
			require.ErrorIs(t, err, bulk.ErrJournalLocked)
		}
		refused(t)
		_, err := first.Load(ctx, "job")
		require.NoError(t, err, "the owner goes on")
		require.NoError(t, first.Append(ctx, journalIntent("job", 1, 1)))
		refused(t)
		require.NoError(t, first.Close())
		second := mustOpen(t, open)
		require.NoError(t, second.Append(ctx, journalIntent("job", 2, 1)), "taken over once closed")
		got, err := second.Load(ctx, "job")
		require.NoError(t, err)
		assert.Len(t, got, 3)
	})

	t.Run("concurrent appends are all loaded, each batch in order", func(t *testing.T) {
		t.Parallel()
		open := storage(t)
		j := mustOpen(t, open)
		const workers, each = 16, 8
		var wg sync.WaitGroup
		errs := make(chan error, 2*workers*each+1)
		for w := range workers {
			wg.Go(func() {
				for k := range each {
					in := journalIntent("job", w*each+k, 1+k%3)
					errs <- j.Append(ctx, in)
					errs <- j.Append(ctx, journalAccepted(in, 320))
				}
			})
		}
		wg.Go(func() { // a Load among the Appends reads whole records
			_, err := j.Load(ctx, "job")
			errs <- err
		})
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		check := func(j bulk.Journal) {
			got, err := j.Load(ctx, "job")
			require.NoError(t, err)
			batches := byBatch(got)
			require.Len(t, batches, workers*each)
			for k, recs := range batches {
				in := journalIntent("job", k, 1+k%each%3)
				assert.Equal(t, []bulk.JournalRecord{in, journalAccepted(in, 320)}, recs, "batch %d", k)
			}
		}
		check(j)
		require.NoError(t, j.Close())
		check(mustOpen(t, open))
	})

	t.Run("a record that makes no sense is refused", func(t *testing.T) {
		t.Parallel()
		j := mustOpen(t, storage(t))
		bad := journalIntent("job", 0, 2)
		bad.Numbers = bad.Numbers[:1]
		require.Error(t, j.Append(ctx, bad))
		bad = journalAccepted(journalIntent("job", 0, 2), 320)
		bad.State = "maybe"
		require.Error(t, j.Append(ctx, bad))
		got, err := j.Load(ctx, "job")
		require.NoError(t, err)
		assert.Empty(t, got)
	})

	t.Run("closed", func(t *testing.T) {
		t.Parallel()
		j := mustOpen(t, storage(t))
		require.NoError(t, j.Append(ctx, journalIntent("job", 0, 1)))
		require.NoError(t, j.Close())
		require.Error(t, j.Append(ctx, journalIntent("job", 1, 1)))
		_, err := j.Load(ctx, "job")
		require.Error(t, err)
		require.NoError(t, j.Close(), "closing twice")
	})
}

func TestFileJournalContract(t *testing.T) {
	t.Parallel()
	testJournalContract(t, func(t *testing.T) journalOpener {
		path := filepath.Join(t.TempDir(), "job.journal")
		return func(*testing.T) (bulk.Journal, error) { return bulk.OpenFileJournal(path) }
	})
}

func TestSQLJournalContract(t *testing.T) {
	t.Parallel()
	var tables sync.Mutex
	n := 0
	testJournalContract(t, func(t *testing.T) journalOpener {
		db := postgresDB(t)
		tables.Lock()
		n++
		table := "journal_" + strconv.Itoa(n)
		tables.Unlock()
		return func(t *testing.T) (bulk.Journal, error) { return bulk.NewSQLJournal(context.Background(), db, table) }
	})
}
