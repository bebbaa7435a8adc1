package bulk_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

// BenchmarkJournal measures what a FileJournal costs a bulk job per batch: the batch's
// digest, its intent (with its numbers) written and synced before the request, and its
// outcome written and synced after the answer. One op is one batch; the job of 1,000,000
// recipients is 100 batches of 10,000 or 10,000 batches of 100, so its journal costs
// ns/batch times that, and bytes/batch times that on disk.
func BenchmarkJournal(b *testing.B) {
	for _, size := range []int{10_000, 100} {
		b.Run("batch="+strconv.Itoa(size), func(b *testing.B) {
			to := make([]sms.Recipient, size)
			nums := make([]string, size)
			for i := range to {
				nums[i] = bulkPhone(i)
				to[i] = sms.Recipient{Phone: nums[i], Name: "Customer " + strconv.Itoa(i)}
			}
			path := filepath.Join(b.TempDir(), "job.journal")
			j, err := bulk.OpenFileJournal(path)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			ctx := context.Background()
			b.ResetTimer()
			for k := 0; b.Loop(); k++ {
				ref := "bench:" + strconv.Itoa(k)
				in := bulk.JournalRecord{Kind: bulk.JournalKindIntent, JobID: "bench", Index: k, Reference: ref, Attempt: 1,
					Digest: bulk.BatchDigest("MOCKSMS", "", "Hi {{name}}, 20% off today only.", to), Recipients: size, Numbers: nums, Time: time.Now()}
				if err := j.Append(ctx, in); err != nil {
					b.Fatal(err)
				}
				out := bulk.JournalRecord{Kind: bulk.JournalKindOutcome, JobID: "bench", Index: k, Reference: ref, Attempt: 1, Recipients: size,
					State: bulk.JournalStateAccepted, CampaignID: "cmp_0123456789abcdef", Status: sms.CampaignStatusSent, Amount: sms.AmountFromKobo(int64(320 * size)), Time: time.Now()}
				if err := j.Append(ctx, out); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.Size())/float64(b.N), "bytes/batch")
		})
	}
}

// BenchmarkJournalJob measures how many batches a second a journal lets a bulk job record
// when its workers append at once: each of `concurrency` goroutines takes the next batch,
// appends its intent (with the batch's numbers) and then its outcome, as bulk.Send does
// around each request (without the request). One op is one batch; batches/s is the rate.
// The file journal is in b.TempDir() (the machine's disk, fsync included); the PostgreSQL
// one in a table of the tests' server (see internal/pgtest), skipped without PostgreSQL
// unless CI is set.
func BenchmarkJournalJob(b *testing.B) {
	var jobs atomic.Int64
	stores := []struct {
		name string
		// setup runs once per store, and returns what opens a journal for a run.
		setup func(b *testing.B) func(b *testing.B) bulk.Journal
	}{
		{"file", func(*testing.B) func(b *testing.B) bulk.Journal {
			return func(b *testing.B) bulk.Journal {
				j, err := bulk.OpenFileJournal(filepath.Join(b.TempDir(), "job.journal"))
				if err != nil {
					b.Fatal(err)
				}
				return j
			}
		}},
		{"postgres", func(b *testing.B) func(b *testing.B) bulk.Journal {
			db := postgres.DB(b) // one database for every run, each its own job; skipped without PostgreSQL
			return func(b *testing.B) bulk.Journal {
				j, err := bulk.NewSQLJournal(context.Background(), db, "bench_journal")
				if err != nil {
					b.Fatal(err)
				}
				return j
			}
		}},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			open := st.setup(b)
			for _, size := range []int{100, 10_000} {
				to := make([]sms.Recipient, size)
				nums := make([]string, size)
				for i := range to {
					nums[i] = bulkPhone(i)
					to[i] = sms.Recipient{Phone: nums[i], Name: "Customer " + strconv.Itoa(i)}
				}
				digest := bulk.BatchDigest("MOCKSMS", "", "Hi {{name}}, 20% off today only.", to)
				for _, conc := range []int{1, 4, 16} {
					b.Run("batch="+strconv.Itoa(size)+"/concurrency="+strconv.Itoa(conc), func(b *testing.B) {
						j := open(b)
						defer j.Close()
						job := "bench-" + strconv.FormatInt(jobs.Add(1), 10)
						ctx := context.Background()
						var next atomic.Int64
						var wg sync.WaitGroup
						b.ResetTimer()
						start := time.Now()
						for range conc {
							wg.Go(func() {
								for {
									k := int(next.Add(1) - 1)
									if k >= b.N {
										return
									}
									ref := job + ":" + strconv.Itoa(k)
									in := bulk.JournalRecord{Kind: bulk.JournalKindIntent, JobID: job, Index: k, Reference: ref, Attempt: 1,
										Digest: digest, Recipients: size, Numbers: nums, Time: time.Now()}
									if err := j.Append(ctx, in); err != nil {
										b.Error(err)
										return
									}
									out := bulk.JournalRecord{Kind: bulk.JournalKindOutcome, JobID: job, Index: k, Reference: ref, Attempt: 1, Recipients: size,
										State: bulk.JournalStateAccepted, CampaignID: "cmp_0123456789abcdef", Status: sms.CampaignStatusSent,
										Amount: sms.AmountFromKobo(int64(320 * size)), Time: time.Now()}
									if err := j.Append(ctx, out); err != nil {
										b.Error(err)
										return
									}
								}
							})
						}
						wg.Wait()
						b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "batches/s")
					})
				}
			}
		})
	}
}
