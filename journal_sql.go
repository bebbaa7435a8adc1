package sms

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
)

// SQLJournal is a Journal kept in a table of a database/sql database, so that a job's record
// outlives the machine or the pod that ran it, and shards of a job share one database. The
// SDK imports no driver: open db with the driver of your database. The SQL is portable but
// for its placeholders, PostgreSQL's $1, $2, ...; it is tested against PostgreSQL.
//
// Each record is a row: the job ID, the batch index, the attempt, the kind, a sequence number
// and the record in JSON (the numbers of each batch, no names, no message text and no
// credentials). A second intent of one attempt of a batch (two processes running the same
// shard of a job) is refused by the table's primary key, and that batch is not sent.
type SQLJournal struct {
	db    *sql.DB
	table string
}

// sqlTableName is what NewSQLJournal takes as a table name: an identifier, optionally
// qualified by a schema, which it puts in its SQL as is.
var sqlTableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$`)

// NewSQLJournal returns the journal kept in table of db, creating the table when missing.
// table is a plain identifier (letters, digits and underscores, optionally schema.table).
func NewSQLJournal(ctx context.Context, db *sql.DB, table string) (*SQLJournal, error) {
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
		return nil, fmt.Errorf("sms: creating the journal table %s: %w", table, err)
	}
	return &SQLJournal{db: db, table: table}, nil
}

// Load returns the records of the job jobID.
func (j *SQLJournal) Load(ctx context.Context, jobID string) ([]JournalRecord, error) {
	rows, err := j.db.QueryContext(ctx, `SELECT record FROM `+j.table+` WHERE job_id = $1 ORDER BY batch, attempt, kind, seq`, jobID)
	if err != nil {
		return nil, fmt.Errorf("sms: reading the journal table %s: %w", j.table, err)
	}
	defer rows.Close()
	var out []JournalRecord
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("sms: reading the journal table %s: %w", j.table, err)
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
		return nil, fmt.Errorf("sms: reading the journal table %s: %w", j.table, err)
	}
	return out, nil
}

// Append inserts rec; it is durable as the database's commit is.
func (j *SQLJournal) Append(ctx context.Context, rec JournalRecord) error {
	if err := checkRecord(&rec); err != nil {
		return fmt.Errorf("sms: journal table %s: refusing a record: %w", j.table, err)
	}
	l := lineOf(&rec)
	body, err := json.Marshal(&l)
	if err != nil {
		return fmt.Errorf("sms: journal: encoding a record: %w", err)
	}
	_, err = j.db.ExecContext(ctx, `INSERT INTO `+j.table+` (job_id, batch, attempt, kind, state, seq, record) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		rec.JobID, rec.Index, rec.Attempt, string(rec.Kind), string(rec.State), rec.Time.UnixNano(), string(body))
	if err != nil {
		return fmt.Errorf("sms: journal table %s: recording %s of batch %d (attempt %d): %w", j.table, rec.Kind, rec.Index, rec.Attempt, err)
	}
	return nil
}

// Close does nothing: the database is the caller's to close.
func (j *SQLJournal) Close() error { return nil }
