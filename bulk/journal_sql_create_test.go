package bulk_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seedsms/sms-go/bulk"
)

// The shards of a job start at once, each creating the journal's table: none of them fails.
func TestSQLJournalCreatedAtOnce(t *testing.T) {
	t.Parallel()
	db := postgresDB(t)
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = bulk.NewSQLJournal(context.Background(), db, "journal_at_once")
		})
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "journal %d", i)
	}
}
