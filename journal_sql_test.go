package sms_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx", in the tests only
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// postgres is one PostgreSQL server for the tests of the package, started by the first test
// that needs it, in a temporary directory, listening on a unix socket only.
var postgres struct {
	once sync.Once
	dir  string // its socket's directory; "" when it could not start
	why  string // why it could not
	stop func()
}

// postgresDB returns a new database of the tests' PostgreSQL server. Without PostgreSQL (its
// initdb not found, or no user to run it as) the test is skipped, or fails when CI is set.
func postgresDB(t *testing.T) *sql.DB {
	t.Helper()
	postgres.once.Do(startPostgres)
	if postgres.dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL is needed in CI (apt-get install postgresql): %s", postgres.why)
		}
		t.Skipf("no PostgreSQL: %s", postgres.why)
	}
	admin, err := sql.Open("pgx", "host="+postgres.dir+" user=postgres dbname=postgres sslmode=disable")
	require.NoError(t, err)
	defer admin.Close()
	name := "t_" + strings.ToLower(strings.NewReplacer("/", "_", " ", "_", "-", "_").Replace(t.Name()))
	name = name[:min(len(name), 50)] + "_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 10)
	_, err = admin.Exec("CREATE DATABASE " + name)
	require.NoError(t, err)
	db, err := sql.Open("pgx", "host="+postgres.dir+" user=postgres dbname="+name+" sslmode=disable")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// startPostgres runs initdb and pg_ctl start, as the postgres user when this process is root.
func startPostgres() {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	initdb := ""
	if len(bins) > 0 {
		initdb = bins[len(bins)-1]
	} else if p, err := exec.LookPath("initdb"); err == nil {
		initdb = p
	}
	if initdb == "" {
		postgres.why = "initdb not found"
		return
	}
	bin := filepath.Dir(initdb)
	run := func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
	dir, err := os.MkdirTemp("", "sms-journal-pg")
	if err != nil {
		postgres.why = err.Error()
		return
	}
	if os.Geteuid() == 0 { // root cannot run postgres
		u, err := user.Lookup("postgres")
		if err != nil {
			postgres.why = "running as root, and no postgres user to run PostgreSQL as"
			return
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			postgres.why = err.Error()
			return
		}
		run = func(args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := run(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync").CombinedOutput(); err != nil {
		postgres.why = fmt.Sprintf("initdb: %v: %s", err, out)
		return
	}
	start := run(filepath.Join(bin, "pg_ctl"), "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "120",
		"-o", "-k "+dir+" -c listen_addresses= -F", "start")
	if out, err := start.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		postgres.why = fmt.Sprintf("pg_ctl start: %v: %s %s", err, out, log)
		return
	}
	postgres.dir = dir
	postgres.stop = func() {
		_ = run(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop").Run()
		_ = os.RemoveAll(dir)
	}
}

// stopPostgres stops the tests' PostgreSQL server, if one started; TestMain calls it.
func stopPostgres() {
	if postgres.stop != nil {
		postgres.stop()
	}
}

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
	_, err = s.client(t, c).Campaigns.SendBulk(ctx, journalJob("job", rs, crashJournal{jr, c}))
	require.ErrorIs(t, err, errCrashed)

	jr2, err := sms.NewSQLJournal(ctx, db, "public.bulk_journal") // another pod
	require.NoError(t, err)
	r, err := s.client(t, nil).Campaigns.SendBulk(ctx, journalJob("job", rs, jr2))
	require.NoError(t, err)
	assert.True(t, r.Complete)
	assert.Equal(t, 6, r.FromJournal)
	assert.Equal(t, 4, r.Sent)
	assertReceived(t, s, timesEach(rs, 1))
}
