package sms_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
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
	jr, err := sms.NewSQLJournal(ctx, db, "sms_journal")
	require.NoError(t, err)
	_, err = sms.NewSQLJournal(ctx, db, "sms_journal") // the table exists: kept
	require.NoError(t, err)

	a, b := journalIntent("job-a", 0, 3), journalIntent("job-b", 0, 2)
	unknown := journalAccepted(b, 0)
	unknown.State, unknown.CampaignID, unknown.Status, unknown.Amount, unknown.Reason = sms.JournalUnknown, "", "", sms.Amount{}, "connection dropped"
	for _, r := range []sms.JournalRecord{a, b, journalAccepted(a, 960), unknown} {
		require.NoError(t, jr.Append(ctx, r))
	}
	got, err := jr.Load(ctx, "job-a")
	require.NoError(t, err)
	assert.Equal(t, []sms.JournalRecord{a, journalAccepted(a, 960)}, got)
	got, err = jr.Load(ctx, "job-b")
	require.NoError(t, err)
	assert.Equal(t, []sms.JournalRecord{b, unknown}, got)

	// A second process writing the same attempt's intent is refused.
	assert.Error(t, jr.Append(ctx, a))

	_, err = sms.NewSQLJournal(ctx, db, "x; DROP TABLE sms_journal")
	assert.ErrorIs(t, err, sms.ErrInvalidParams)
}

// A job journaled in PostgreSQL survives the death of its process like one journaled in a
// file: the batch answered but not recorded is found in the campaign list, and no number is
// sent twice by a server that does not deduplicate.
func TestSendBulkSQLJournalCrash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := postgresDB(t)
	jr, err := sms.NewSQLJournal(ctx, db, "public.bulk_journal")
	require.NoError(t, err)
	s := newJournalServer(t, mockserver.ProfileFull, false)
	rs := customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	c := &crash{crashAt: crashAt{afterAnswer: "job:1"}}
	_, err = s.client(t, c).Bulk.Send(ctx, journalJob("job", rs, crashJournal{jr, c}))
	require.ErrorIs(t, err, errCrashed)

	jr2, err := sms.NewSQLJournal(ctx, db, "public.bulk_journal") // another pod
	require.NoError(t, err)
	r, err := s.client(t, nil).Bulk.Send(ctx, journalJob("job", rs, jr2))
	require.NoError(t, err)
	assert.True(t, r.Complete)
	assert.Equal(t, 6, r.FromJournal)
	assert.Equal(t, 4, r.Sent)
	assertReceived(t, s, timesEach(rs, 1))
}
