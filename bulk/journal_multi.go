package bulk

import (
	"context"
	"errors"
)

// MultiJournal returns a Journal that loads a job's records from every journal given and
// appends to the first: for a job whose records are in several journals, such as the files of
// its shards. Send orders each batch's records by attempt whatever journal holds them, so
// a rerun of the whole job, or under another shard count, reads what every shard recorded and
// sends none of it again. Close closes every journal.
func MultiJournal(primary Journal, others ...Journal) Journal {
	return &multiJournal{all: append([]Journal{primary}, others...)}
}

type multiJournal struct{ all []Journal }

func (m *multiJournal) Load(ctx context.Context, jobID string) ([]JournalRecord, error) {
	var out []JournalRecord
	for _, j := range m.all {
		recs, err := j.Load(ctx, jobID)
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
	}
	return out, nil
}

func (m *multiJournal) Append(ctx context.Context, rec JournalRecord) error {
	return m.all[0].Append(ctx, rec)
}

func (m *multiJournal) Close() error {
	var errs []error
	for _, j := range m.all {
		errs = append(errs, j.Close())
	}
	return errors.Join(errs...)
}
