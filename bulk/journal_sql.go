package bulk

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// SQLJournal is a Journal kept in a table of a database/sql database, so that a job's record
// outlives the machine or the pod that ran it, and shards of a job share one database. The
// SDK imports no driver: open db with the driver of your database. The SQL is portable but
// for its placeholders, PostgreSQL's $1, $2, ...; it is tested against PostgreSQL.
//
// Each record is a row: the job ID, the batch index, the attempt, the kind, a sequence number
// (the order of the job's appends) and the record in JSON (the numbers of each batch, no
// names, no message text and no credentials). A second intent of one attempt of a batch is
// refused by the table's primary key, and that batch is not sent. The Appends of concurrent
// goroutines share one transaction and one commit.
//
// One journal owns a job at a time, through a lease: a row of the table (of kind "lease")
// that names the journal and when its lease expires. The first Load or Append of a job takes
// it; the journal renews it in the background while it is open, and Close releases it.
// Another SQLJournal (another process, a replaced pod, or another value in this one) is
// refused with ErrJournalLocked on that job while the lease lives, and takes it over once it
// has expired (see WithSQLJournalLeaseTTL), as it does when the process that held it died.
// Every Append checks, in the transaction that inserts its record, that the journal still
// holds the lease: a process that stalled past it and was taken over records nothing more, so
// it sends nothing more. The expiry is read by the clocks of the journals' machines, which
// must agree to well within the TTL.
//
// The shards of a job (Params.Shard) run in several processes at once: give each its
// shard with WithSQLJournalShard, and the lease is the shard's, not the job's. A run of the
// job under another shard count (the whole job included) is refused while any of them holds
// its lease, and the reverse: they would send the same batches.
type SQLJournal struct {
	db       *sql.DB
	table    string
	ttl      time.Duration
	leaseKey [2]int // the lease rows' batch and attempt: -1-shard index, shard count
	owner    string // this journal, in its lease rows

	acquire sync.Mutex // one lease taken at a time

	mu      sync.Mutex
	leases  map[string]*sqlLease // by job
	closed  bool
	group   groupCommit[sqlRecord]
	stop    chan struct{} // closed by Close: the renewals end
	renewed chan struct{} // closed when they have
}

// sqlLease is a job's lease that a SQLJournal holds.
type sqlLease struct {
	next int64 // the sequence number of the job's next record
	lost error // set when another journal took it over
}

// sqlRecord is the record of one Append waiting for its group (see groupCommit).
type sqlRecord struct {
	ctx  context.Context
	rec  *JournalRecord
	body string
}

// sqlPending is one Append waiting for its group.
type sqlPending = pending[sqlRecord]

// SQLJournalOption configures NewSQLJournal.
type SQLJournalOption func(*SQLJournal)

// DefaultSQLJournalLeaseTTL is how long a SQLJournal's lease of a job lives without being
// renewed, unless WithSQLJournalLeaseTTL says otherwise.
const DefaultSQLJournalLeaseTTL = 30 * time.Second

// WithSQLJournalLeaseTTL sets how long the journal's lease of a job lives without being
// renewed (DefaultSQLJournalLeaseTTL when d is not positive). The journal renews it every
// third of it while it is open. A process that dies leaves the job to another one after at
// most d; a shorter d frees it sooner but asks more of the database, and a journal whose
// renewals stall for longer than d (a paused process, a slow database) may lose the job to
// another one, after which its Appends fail.
func WithSQLJournalLeaseTTL(d time.Duration) SQLJournalOption {
	return func(j *SQLJournal) {
		if d > 0 {
			j.ttl = d
		}
	}
}

// WithSQLJournalShard makes the journal's leases those of shard s of each job rather than of
// the whole job, so that the processes of a job's other shards, each with its own shard, run
// at the same time. Every process of a job must be given its shard (the zero Shard is the
// whole job, shard 0 of 1); a process of the same shard is refused.
func WithSQLJournalShard(s Shard) SQLJournalOption {
	return func(j *SQLJournal) {
		j.leaseKey = [2]int{-1 - s.Index, max(s.Count, 1)}
	}
}

// sqlTableName is what NewSQLJournal takes as a table name: an identifier, optionally
// qualified by a schema, which it puts in its SQL as is.
var sqlTableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$`)

// NewSQLJournal returns the journal kept in table of db, creating the table when missing.
// table is a plain identifier (letters, digits and underscores, optionally schema.table).
// Close it when done: that releases its leases (see SQLJournal) and ends their renewals.
func NewSQLJournal(ctx context.Context, db *sql.DB, table string, opts ...SQLJournalOption) (*SQLJournal, error) {
	if db == nil {
		return nil, invalid("db", "a database is required")
	}
	if !sqlTableName.MatchString(table) {
		return nil, invalid("table", "a table name is letters, digits and underscores, not starting with a digit, optionally schema.table")
	}
	create := `CREATE TABLE IF NOT EXISTS ` + table + ` (
	job_id VARCHAR(90) NOT NULL,
	batch INTEGER NOT NULL,
	attempt INTEGER NOT NULL,
	kind VARCHAR(8) NOT NULL,
	state VARCHAR(8) NOT NULL,
	seq BIGINT NOT NULL,
	record TEXT NOT NULL,
	PRIMARY KEY (job_id, batch, attempt, kind, state)
)`
	_, err := db.ExecContext(ctx, create)
	if err != nil && ctx.Err() == nil {
		// Processes that create the table at once (the shards of a job) race in PostgreSQL:
		// IF NOT EXISTS does not stop all but one from failing ("already exists", or a
		// duplicate key in pg_type). Once that one has committed, the table is there.
		_, err = db.ExecContext(ctx, create)
	}
	if err != nil {
		return nil, fmt.Errorf("bulk: creating the journal table %s: %w", table, err)
	}
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("bulk: journal table %s: %w", table, err)
	}
	j := &SQLJournal{db: db, table: table, ttl: DefaultSQLJournalLeaseTTL, leaseKey: [2]int{-1, 1}, owner: hex.EncodeToString(id[:]),
		leases: map[string]*sqlLease{}, stop: make(chan struct{}), renewed: make(chan struct{})}
	for _, o := range opts {
		if o != nil {
			o(j)
		}
	}
	if j.leaseKey[0] >= 0 || j.leaseKey[0] < -j.leaseKey[1] {
		return nil, invalid("Shard", "the shard index is 0 to Count-1")
	}
	j.group.init(&j.mu)
	return j, nil
}

// sqlLeaseKind is the kind of the lease rows, which Load never returns.
const sqlLeaseKind = "lease"

// lease returns the journal's lease of job, taking it when the journal does not hold it:
// ErrJournalLocked when another journal does and its lease has not expired.
func (j *SQLJournal) lease(ctx context.Context, job string) (*sqlLease, error) {
	j.mu.Lock()
	l, closed := j.leases[job], j.closed
	j.mu.Unlock()
	switch {
	case closed:
		return nil, errJournalClosed
	case l != nil && l.lost != nil:
		return nil, l.lost
	case l != nil:
		return l, nil
	}
	j.acquire.Lock()
	defer j.acquire.Unlock()
	j.mu.Lock()
	l = j.leases[job]
	j.mu.Unlock()
	if l != nil {
		return j.lease(ctx, job)
	}
	if err := j.take(ctx, job); err != nil {
		return nil, err
	}
	// The job's records go after those there are: this journal alone appends to it now.
	var last int64
	err := j.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM `+j.table+` WHERE job_id = $1 AND kind <> $2`, job, sqlLeaseKind).Scan(&last)
	if err != nil {
		return nil, fmt.Errorf("bulk: journal table %s: reading job %q: %w", j.table, job, err)
	}
	l = &sqlLease{next: last + 1}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed { // while the lease was taken: give it back
		_ = j.release(ctx, job)
		return nil, errJournalClosed
	}
	if len(j.leases) == 0 {
		go j.renew()
	}
	j.leases[job] = l
	return l, nil
}

// take takes the lease of job (see takeRow), and gives it back when a journal holds a live
// lease of the job under another shard count: a run of the whole job and a run of one of its
// shards, or runs of two shard counts, would send the same batches. Each run checks after
// writing its own lease, so of two that start at once, at least one sees the other.
func (j *SQLJournal) take(ctx context.Context, job string) error {
	if err := j.takeRow(ctx, job); err != nil {
		return err
	}
	var shards int
	var until int64
	err := j.db.QueryRowContext(ctx, `SELECT attempt, seq FROM `+j.table+` WHERE job_id = $1 AND kind = $2 AND state = '' AND attempt <> $3 AND seq > $4`,
		job, sqlLeaseKind, j.leaseKey[1], time.Now().UnixNano()).Scan(&shards, &until)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		_ = j.release(ctx, job)
		return fmt.Errorf("bulk: journal table %s: taking the lease of job %q: %w", j.table, job, err)
	}
	_ = j.release(ctx, job)
	in := "as a whole"
	if shards > 1 {
		in = fmt.Sprintf("in %d shards", shards)
	}
	return fmt.Errorf("bulk: journal table %s: job %q%s: %w: a run of the job %s holds it until %s, unless it is released",
		j.table, job, j.shardName(), ErrJournalLocked, in, time.Unix(0, until).UTC().Format(time.RFC3339))
}

// takeRow takes the lease row of job: renews it when this journal holds it, takes it over
// when it has expired, and creates it when there is none.
func (j *SQLJournal) takeRow(ctx context.Context, job string) error {
	now := time.Now()
	res, err := j.db.ExecContext(ctx, `UPDATE `+j.table+` SET seq = $1, record = $2 WHERE job_id = $3 AND batch = $4 AND attempt = $5 AND kind = $6 AND state = '' AND (record = $2 OR seq < $7)`,
		now.Add(j.ttl).UnixNano(), j.owner, job, j.leaseKey[0], j.leaseKey[1], sqlLeaseKind, now.UnixNano())
	if err == nil {
		if n, e := res.RowsAffected(); e == nil && n == 1 {
			return nil
		} else if e != nil {
			err = e
		}
	}
	if err == nil {
		_, err = j.db.ExecContext(ctx, `INSERT INTO `+j.table+` (job_id, batch, attempt, kind, state, seq, record) VALUES ($1, $2, $3, $4, '', $5, $6)`,
			job, j.leaseKey[0], j.leaseKey[1], sqlLeaseKind, now.Add(j.ttl).UnixNano(), j.owner)
		if err == nil {
			return nil
		}
	}
	// Refused (the primary key: another journal created it meanwhile), or the database failed.
	var holder string
	var until int64
	if e := j.db.QueryRowContext(ctx, `SELECT record, seq FROM `+j.table+` WHERE job_id = $1 AND batch = $2 AND attempt = $3 AND kind = $4 AND state = ''`,
		job, j.leaseKey[0], j.leaseKey[1], sqlLeaseKind).Scan(&holder, &until); e == nil && holder != j.owner {
		return fmt.Errorf("bulk: journal table %s: job %q%s: %w: another journal (another process, or another journal of this one) holds it until %s, unless it is released",
			j.table, job, j.shardName(), ErrJournalLocked, time.Unix(0, until).UTC().Format(time.RFC3339))
	}
	return fmt.Errorf("bulk: journal table %s: taking the lease of job %q: %w", j.table, job, err)
}

// release deletes the journal's lease of job, if it still holds it.
func (j *SQLJournal) release(ctx context.Context, job string) error {
	_, err := j.db.ExecContext(ctx, `DELETE FROM `+j.table+` WHERE job_id = $1 AND batch = $2 AND attempt = $3 AND kind = $4 AND state = '' AND record = $5`,
		job, j.leaseKey[0], j.leaseKey[1], sqlLeaseKind, j.owner)
	return err
}

// shardName names the shard of the leases, when they are a shard's.
func (j *SQLJournal) shardName() string {
	if j.leaseKey[1] == 1 {
		return ""
	}
	return fmt.Sprintf(" (shard %d of %d)", -1-j.leaseKey[0], j.leaseKey[1])
}

// renew renews the journal's leases every third of their TTL until Close. A lease another
// journal has taken over is marked lost: Append of its job then fails.
func (j *SQLJournal) renew() {
	defer close(j.renewed)
	t := time.NewTicker(j.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-t.C:
		}
		j.mu.Lock()
		var jobs []string
		for job, l := range j.leases {
			if l.lost == nil {
				jobs = append(jobs, job)
			}
		}
		j.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), j.ttl/3)
		for _, job := range jobs {
			if held, err := j.renewLease(ctx, j.db, job); err == nil && !held {
				j.lose(job)
			}
		}
		cancel()
	}
}

// execer is a *sql.DB or a *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// renewLease pushes back the expiry of the journal's lease of job, and reports whether the
// journal still holds it. In a transaction, the row stays locked until its end, so that no
// other journal takes the lease over before the transaction's records are committed.
func (j *SQLJournal) renewLease(ctx context.Context, db execer, job string) (bool, error) {
	res, err := db.ExecContext(ctx, `UPDATE `+j.table+` SET seq = $1 WHERE job_id = $2 AND batch = $3 AND attempt = $4 AND kind = $5 AND state = '' AND record = $6`,
		time.Now().Add(j.ttl).UnixNano(), job, j.leaseKey[0], j.leaseKey[1], sqlLeaseKind, j.owner)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// lose marks the lease of job lost.
func (j *SQLJournal) lose(job string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if l := j.leases[job]; l != nil && l.lost == nil {
		l.lost = fmt.Errorf("bulk: journal table %s: job %q%s: %w: its lease was taken over by another journal (this one did not renew it in time); nothing more is recorded or sent",
			j.table, job, j.shardName(), ErrJournalLocked)
	}
}

// Load returns the records of the job jobID, those of each batch in the order they were
// appended. It takes the job's lease (see SQLJournal) when the journal does not hold it.
func (j *SQLJournal) Load(ctx context.Context, jobID string) ([]JournalRecord, error) {
	if _, err := j.lease(ctx, jobID); err != nil {
		return nil, err
	}
	rows, err := j.db.QueryContext(ctx, `SELECT record FROM `+j.table+` WHERE job_id = $1 AND kind <> $2 ORDER BY batch, seq`, jobID, sqlLeaseKind)
	if err != nil {
		return nil, fmt.Errorf("bulk: reading the journal table %s: %w", j.table, err)
	}
	defer rows.Close()
	var out []JournalRecord
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("bulk: reading the journal table %s: %w", j.table, err)
		}
		rec, err := decodeJournalRecord([]byte(body))
		if err != nil {
			return nil, &JournalCorruptError{Path: j.table, Reason: fmt.Sprintf("record %d of job %q: %v", len(out)+1, jobID, err)}
		}
		if rec.JobID != jobID {
			return nil, &JournalCorruptError{Path: j.table, Reason: fmt.Sprintf("a record of job %q among those of job %q", rec.JobID, jobID)}
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("bulk: reading the journal table %s: %w", j.table, err)
	}
	return out, nil
}

// Append inserts rec, in the transaction of the Appends running at the same time, once it
// has checked in it that the journal still holds the job's lease (taking it first when the
// journal does not hold it yet). It is durable as the database's commit is.
func (j *SQLJournal) Append(ctx context.Context, rec JournalRecord) error {
	if err := checkRecord(&rec); err != nil {
		return fmt.Errorf("bulk: journal table %s: refusing a record: %w", j.table, err)
	}
	l := lineOf(&rec)
	body, err := json.Marshal(&l)
	if err != nil {
		return fmt.Errorf("bulk: journal: encoding a record: %w", err)
	}
	if _, err := j.lease(ctx, rec.JobID); err != nil {
		return err
	}
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return errJournalClosed
	}
	return j.group.do(newPending(sqlRecord{ctx: ctx, rec: &rec, body: string(body)}), func(group []*sqlPending) {
		j.mu.Unlock()
		j.commitGroup(group)
		j.mu.Lock()
	})
}

// commitGroup records the group's records in one transaction, setting the error of each.
// When the transaction fails and held more than one record, each is recorded again in its
// own, so that one record refused (a second intent of an attempt) fails only its Append.
func (j *SQLJournal) commitGroup(group []*sqlPending) {
	// The group is written whatever becomes of the context of the Append that writes it.
	ctx := context.WithoutCancel(group[0].v.ctx)
	err := j.commitTx(ctx, group)
	if err == nil || len(group) == 1 {
		for _, q := range group {
			if q.err == nil {
				q.err = err
			}
		}
		return
	}
	for _, q := range group {
		if q.err == nil {
			q.err = j.commitTx(ctx, []*sqlPending{q})
		}
	}
}

// commitTx checks the journal's leases of the group's jobs and inserts the records of those
// it holds, in one transaction. The records of a job whose lease was lost get that error and
// are not inserted; the error returned is the transaction's.
func (j *SQLJournal) commitTx(ctx context.Context, group []*sqlPending) (err error) {
	j.mu.Lock()
	closed := j.closed
	j.mu.Unlock()
	if closed {
		return errJournalClosed
	}
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("bulk: journal table %s: %w", j.table, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	held := map[string]error{} // by job: nil when the journal holds its lease
	var (
		values   []string
		args     []any
		recorded []*sqlPending
	)
	for _, q := range group {
		job := q.v.rec.JobID
		if _, ok := held[job]; !ok {
			ok, err := j.renewLease(ctx, tx, job)
			if err != nil {
				return fmt.Errorf("bulk: journal table %s: checking the lease of job %q: %w", j.table, job, err)
			}
			if !ok {
				j.lose(job)
			}
			j.mu.Lock()
			l := j.leases[job]
			if l == nil {
				held[job] = fmt.Errorf("bulk: journal table %s: job %q: %w: its lease was released", j.table, job, ErrJournalLocked)
			} else {
				held[job] = l.lost
			}
			j.mu.Unlock()
		}
		if held[job] != nil {
			q.err = held[job]
			continue
		}
		j.mu.Lock()
		l := j.leases[job]
		seq := l.next
		l.next++
		j.mu.Unlock()
		r := q.v.rec
		values = append(values, fmt.Sprintf("($%d, $%d, $%d, $%d, $%d, $%d, $%d)", len(args)+1, len(args)+2, len(args)+3, len(args)+4, len(args)+5, len(args)+6, len(args)+7))
		args = append(args, r.JobID, r.Index, r.Attempt, string(r.Kind), string(r.State), seq, q.v.body)
		recorded = append(recorded, q)
	}
	if len(recorded) == 0 {
		return nil
	}
	// One statement of every record: one round trip to the database.
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+j.table+` (job_id, batch, attempt, kind, state, seq, record) VALUES `+strings.Join(values, ", "), args...); err != nil {
		if len(recorded) == 1 {
			r := recorded[0].v.rec
			return fmt.Errorf("bulk: journal table %s: recording %s of batch %d (attempt %d): %w", j.table, r.Kind, r.Index, r.Attempt, err)
		}
		return fmt.Errorf("bulk: journal table %s: recording %d records: %w", j.table, len(recorded), err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("bulk: journal table %s: committing: %w", j.table, err)
	}
	return nil
}

// Close releases the journal's leases, once the Appends being committed are, so that another
// journal may take its jobs at once. The database is the caller's to close. Load and Append
// fail after it.
func (j *SQLJournal) Close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	j.closed = true
	j.group.wait()
	j.mu.Unlock()
	j.acquire.Lock() // a lease being taken is in j.leases, or given back, once this is free
	j.mu.Lock()
	renewing := len(j.leases) > 0
	j.mu.Unlock()
	j.acquire.Unlock()
	if !renewing {
		return nil
	}
	close(j.stop)
	<-j.renewed
	ctx, cancel := context.WithTimeout(context.Background(), j.ttl)
	defer cancel()
	j.mu.Lock()
	jobs := make([]string, 0, len(j.leases))
	for job, l := range j.leases {
		if l.lost == nil {
			jobs = append(jobs, job)
		}
	}
	j.mu.Unlock()
	var errs []error
	for _, job := range jobs {
		if err := j.release(ctx, job); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bulk: journal table %s: releasing the leases (they expire within %s): %w", j.table, j.ttl, err)
	}
	return nil
}
