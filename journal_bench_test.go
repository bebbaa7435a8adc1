package sms_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	sms "github.com/seedsms/sms-go"
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
			j, err := sms.OpenFileJournal(path)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			ctx := context.Background()
			b.ResetTimer()
			for k := 0; b.Loop(); k++ {
				ref := "bench:" + strconv.Itoa(k)
				in := sms.JournalRecord{Kind: sms.JournalIntent, JobID: "bench", Index: k, Reference: ref, Attempt: 1,
					Digest: sms.BatchDigest("MOCKSMS", "", "Hi {{name}}, 20% off today only.", to), Recipients: size, Numbers: nums, Time: time.Now()}
				if err := j.Append(ctx, in); err != nil {
					b.Fatal(err)
				}
				out := sms.JournalRecord{Kind: sms.JournalOutcome, JobID: "bench", Index: k, Reference: ref, Attempt: 1, Recipients: size,
					State: sms.JournalAccepted, CampaignID: "cmp_0123456789abcdef", Status: sms.StatusSent, Amount: sms.AmountFromKobo(int64(320 * size)), Time: time.Now()}
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
