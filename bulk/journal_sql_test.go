package bulk_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/internal/pgtest"
	"github.com/seedsms/sms-go/mockserver"
)

// postgres is the tests' PostgreSQL server (see internal/pgtest); TestMain stops it.
var postgres pgtest.Server

// postgresDB returns a new database of the tests' PostgreSQL server.
func postgresDB(t *testing.T) *sql.DB { return postgres.DB(t) }

func TestSQLJournalPostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := postgresDB(t)
	jr, err := bulk.NewSQLJournal(ctx, db, "sms_journal")
	require.NoError(t, err)
	defer jr.Close()
	again, err := bulk.NewSQLJournal(ctx, db, "sms_journal") // the table exists: kept
	require.NoError(t, err)
	require.NoError(t, again.Close())

	a, b := journalIntent("job-a", 0, 3), journalIntent("job-b", 0, 2)
	unknown := journalAccepted(b, 0)
	unknown.State, unknown.CampaignID, unknown.Status, unknown.Amount, unknown.Reason = bulk.JournalStateUnknown, "", "", sms.Amount{}, "connection dropped"
	for _, r := range []bulk.JournalRecord{a, b, journalAccepted(a, 960), unknown} {
		require.NoError(t, jr.Append(ctx, r))
	}
	got, err := jr.Load(ctx, "job-a")
	require.NoError(t, err)
	assert.Equal(t, []bulk.JournalRecord{a, journalAccepted(a, 960)}, got)
	got, err = jr.Load(ctx, "job-b")
	require.NoError(t, err)
	assert.Equal(t, []bulk.JournalRecord{b, unknown}, got)

	// The same attempt's intent written twice is refused.
	assert.Error(t, jr.Append(ctx, a))

	_, err = bulk.NewSQLJournal(ctx, db, "x; DROP TABLE sms_journal")
	assert.ErrorIs(t, err, sms.ErrInvalidParams)
	for _, s := range []bulk.Shard{{Index: 2, Count: 2}, {Index: -1, Count: 2}} {
		_, err = bulk.NewSQLJournal(ctx, db, "sms_journal", bulk.WithSQLJournalShard(s))
		assert.ErrorIs(t, err, sms.ErrInvalidParams, "shard %+v", s)
	}
}

// A job journaled in PostgreSQL survives the death of its process like one journaled in a
// file: the batch answered but not recorded is found in the campaign list, and no number is
// sent twice by a server that does not deduplicate.
func TestSendBulkSQLJournalCrash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := postgresDB(t)
	jr, err := bulk.NewSQLJournal(ctx, db, "public.bulk_journal")
	require.NoError(t, err)
	defer jr.Close()
	s := newJournalServer(t, mockserver.ProfileFull, false)
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	c := &crash{crashAt: crashAt{afterAnswer: "job:1"}}
	_, err = bulk.Send(ctx, s.client(t, c), journalJob("job", rs, crashJournal{jr, c}))
	require.ErrorIs(t, err, errCrashed)

	require.NoError(t, jr.Close())                                 // the dead pod's lease has expired, or it was released
	jr2, err := bulk.NewSQLJournal(ctx, db, "public.bulk_journal") // another pod
	require.NoError(t, err)
	defer jr2.Close()
	r, err := bulk.Send(ctx, s.client(t, nil), journalJob("job", rs, jr2))
	require.NoError(t, err)
	assert.True(t, r.Complete)
	assert.Equal(t, 6, r.FromJournal)
	assert.Equal(t, 4, r.Sent)
	assertReceived(t, s, timesEach(rs, 1))
}

// hookJournal runs after once the intent of reference is durable.
type hookJournal struct {
	bulk.Journal
	reference string
	after     func()
}

func (j hookJournal) Append(ctx context.Context, rec bulk.JournalRecord) error {
	if err := j.Journal.Append(ctx, rec); err != nil {
		return err
	}
	if rec.Kind == bulk.JournalKindIntent && rec.Reference == j.reference {
		j.after()
	}
	return nil
}

// Two processes run one job on one table at once (a pod started twice, a rerun while the
// first run still runs): the second is refused before it sends anything, and the first sends
// every number once, even to a server that does not deduplicate references.
func TestSQLJournalOneProcessPerJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := postgresDB(t)
	s := newJournalServer(t, mockserver.ProfileFull, false)
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	first, err := bulk.NewSQLJournal(ctx, db, "bulk_journal")
	require.NoError(t, err)
	defer first.Close()
	var secondErr error
	var second *bulk.Report
	hook := hookJournal{Journal: first, reference: "job:0", after: func() {
		jr, err := bulk.NewSQLJournal(ctx, db, "bulk_journal")
		if !assert.NoError(t, err) { // on a worker's goroutine: no FailNow
			return
		}
		defer jr.Close()
		second, secondErr = bulk.Send(ctx, s.client(t, nil), journalJob("job", rs, jr))
	}}
	r, err := bulk.Send(ctx, s.client(t, nil), journalJob("job", rs, hook))
	if assert.NoError(t, err, "the first process runs the job") {
		assert.True(t, r.Complete)
	}
	assert.ErrorIs(t, secondErr, bulk.ErrJournalLocked, "the second process is refused (report %+v)", second)
	assertReceived(t, s, timesEach(rs, 1))
}

// A process that dies holding a job's lease leaves the job to another one once the lease has
// expired; one that closes its journal leaves it at once.
func TestSQLJournalLeaseTakeover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := postgresDB(t)
	a, err := bulk.NewSQLJournal(ctx, db, "j", bulk.WithSQLJournalLeaseTTL(time.Second))
	require.NoError(t, err)
	_, err = a.Load(ctx, "job")
	require.NoError(t, err)
	b, err := bulk.NewSQLJournal(ctx, db, "j")
	require.NoError(t, err)
	defer b.Close()
	_, err = b.Load(ctx, "job")
	require.ErrorIs(t, err, bulk.ErrJournalLocked)
	require.ErrorIs(t, b.Append(ctx, journalIntent("job", 0, 1)), bulk.ErrJournalLocked)
	_, err = b.Load(ctx, "other")
	require.NoError(t, err, "other jobs are free")
	require.NoError(t, a.Close())
	require.NoError(t, b.Append(ctx, journalIntent("job", 0, 1)), "released at Close")

	// The shards of a job lease their own part of it.
	shards := make([]*bulk.SQLJournal, 2)
	for i := range shards {
		shards[i], err = bulk.NewSQLJournal(ctx, db, "j", bulk.WithSQLJournalShard(bulk.Shard{Index: i, Count: 2}))
		require.NoError(t, err)
		defer shards[i].Close()
		_, err = shards[i].Load(ctx, "sharded")
		require.NoError(t, err, "shard %d", i)
	}
	again, err := bulk.NewSQLJournal(ctx, db, "j", bulk.WithSQLJournalShard(bulk.Shard{Index: 1, Count: 2}))
	require.NoError(t, err)
	defer again.Close()
	_, err = again.Load(ctx, "sharded")
	require.ErrorIs(t, err, bulk.ErrJournalLocked, "a second process of one shard")

	// A run of the whole job, or of another shard count, while shards run would send their
	// batches too: refused, whichever starts first.
	for _, layout := range []bulk.Shard{{}, {Index: 0, Count: 3}} {
		other, err := bulk.NewSQLJournal(ctx, db, "j", bulk.WithSQLJournalShard(layout))
		require.NoError(t, err)
		defer other.Close()
		_, err = other.Load(ctx, "sharded")
		require.ErrorIs(t, err, bulk.ErrJournalLocked, "%+v while 2 shards run", layout)
		assert.ErrorContains(t, err, "in 2 shards")
	}
	whole, err := bulk.NewSQLJournal(ctx, db, "j")
	require.NoError(t, err)
	defer whole.Close()
	_, err = whole.Load(ctx, "whole")
	require.NoError(t, err)
	shard, err := bulk.NewSQLJournal(ctx, db, "j", bulk.WithSQLJournalShard(bulk.Shard{Index: 1, Count: 2}))
	require.NoError(t, err)
	defer shard.Close()
	_, err = shard.Load(ctx, "whole")
	require.ErrorIs(t, err, bulk.ErrJournalLocked, "a shard while the whole job runs")
	assert.ErrorContains(t, err, "as a whole")
	require.NoError(t, whole.Close())
	_, err = shard.Load(ctx, "whole")
	require.NoError(t, err, "once the whole job's run is done")
}

// A process that dies holding a job's lease (no Close) leaves the job to another one once
// the lease has expired, and not before.
func TestSQLJournalLeaseOfADeadProcess(t *testing.T) {
	if dsn := os.Getenv("SMS_TEST_LEASE_DSN"); dsn != "" {
		db, err := sql.Open("pgx", dsn)
		if err == nil {
			var jr *bulk.SQLJournal
			if jr, err = bulk.NewSQLJournal(context.Background(), db, "j", bulk.WithSQLJournalLeaseTTL(2*time.Second)); err == nil {
				err = jr.Append(context.Background(), journalIntent("job", 0, 1))
			}
		}
		if err != nil {
			os.Exit(4)
		}
		os.Exit(3) // dies holding the lease
	}
	t.Parallel()
	ctx := context.Background()
	dsn := postgres.DSN(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSQLJournalLeaseOfADeadProcess$")
	cmd.Env = append(os.Environ(), "SMS_TEST_LEASE_DSN="+dsn)
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 3, exit.ExitCode(), "the other process recorded its intent")

	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	defer db.Close()
	jr, err := bulk.NewSQLJournal(ctx, db, "j")
	require.NoError(t, err)
	defer jr.Close()
	_, err = jr.Load(ctx, "job")
	require.ErrorIs(t, err, bulk.ErrJournalLocked, "the dead process's lease lives for its TTL")
	var recs []bulk.JournalRecord
	for range 200 { // the lease expires 2 s after the other process took it
		time.Sleep(50 * time.Millisecond)
		if recs, err = jr.Load(ctx, "job"); !errors.Is(err, bulk.ErrJournalLocked) {
			break
		}
	}
	require.NoError(t, err, "taken over once expired")
	assert.Equal(t, []bulk.JournalRecord{journalIntent("job", 0, 1)}, recs)
}

// A journal whose lease was taken over (it stalled past its TTL) records nothing more, so
// its job sends nothing more.
func TestSQLJournalFencing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := postgresDB(t)
	stalled, err := bulk.NewSQLJournal(ctx, db, "j")
	require.NoError(t, err)
	defer stalled.Close()
	require.NoError(t, stalled.Append(ctx, journalIntent("job", 0, 1)))
	// Time passes: the lease expires, as it does when its renewals stall.
	_, err = db.ExecContext(ctx, `UPDATE j SET seq = 0 WHERE kind = 'lease'`)
	require.NoError(t, err)
	other, err := bulk.NewSQLJournal(ctx, db, "j")
	require.NoError(t, err)
	defer other.Close()
	_, err = other.Load(ctx, "job")
	require.NoError(t, err, "the expired lease is taken over")

	require.ErrorIs(t, stalled.Append(ctx, journalIntent("job", 1, 1)), bulk.ErrJournalLocked)
	require.NoError(t, other.Append(ctx, journalIntent("job", 1, 1)))
	require.NoError(t, stalled.Close(), "closing does not release the other's lease")
	got, err := other.Load(ctx, "job")
	require.NoError(t, err)
	assert.Equal(t, []bulk.JournalRecord{journalIntent("job", 0, 1), journalIntent("job", 1, 1)}, got)
	third, err := bulk.NewSQLJournal(ctx, db, "j")
	require.NoError(t, err)
	defer third.Close()
	_, err = third.Load(ctx, "job")
	require.ErrorIs(t, err, bulk.ErrJournalLocked, "the other still holds it")
}

// Appends committed together: one refused (a second intent of an attempt) fails alone.
func TestSQLJournalGroupWithARefusedRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	jr, err := bulk.NewSQLJournal(ctx, postgresDB(t), "j")
	require.NoError(t, err)
	defer jr.Close()
	require.NoError(t, jr.Append(ctx, journalIntent("job", 0, 1)))
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = jr.Append(ctx, journalIntent("job", i, 1)) }) // batch 0 again
	}
	wg.Wait()
	require.Error(t, errs[0])
	for i := 1; i < n; i++ {
		require.NoError(t, errs[i], "batch %d", i)
	}
	got, err := jr.Load(ctx, "job")
	require.NoError(t, err)
	assert.Len(t, got, n)
}
