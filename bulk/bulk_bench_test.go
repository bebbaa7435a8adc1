package bulk_test

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/internal/sdktest"
	"github.com/seedsms/sms-go/mockserver"
)

// Benchmarks of bulk.Send: time against a hand-written loop of Campaigns.Create doing the
// same batches with the same concurrency, and the client's peak heap as the total grows.
// docs/benchmarks.md has the commands and the figures. They only run under -bench; a
// million recipients is never sent by a plain go test.

var bulkTotals = []int{100_000, 1_000_000}

const (
	bulkBenchBatch       = 10_000
	bulkBenchConcurrency = 4
)

// benchPeople is n personalised recipients, each number distinct, written the international
// way with a "+" as a user's file would have them.
func benchPeople(n int) iter.Seq2[sms.Recipient, error] {
	return func(yield func(sms.Recipient, error) bool) {
		for i := range n {
			if !yield(sms.Recipient{Phone: "+2348" + fmt.Sprintf("%09d", i), Name: "Customer " + strconv.Itoa(i)}, nil) {
				return
			}
		}
	}
}

// createLoop is what a user writes without bulk.Send: chunk the input into batches of 10,000,
// and send them with Campaigns.Create from a pool of goroutines, with references derived
// from the job and the batch index.
func createLoop(ctx context.Context, c *sms.Client, in iter.Seq2[sms.Recipient, error], job string, workers int) error {
	type batch struct {
		k  int
		to []sms.Recipient
	}
	work := make(chan batch)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range workers {
		wg.Go(func() {
			for b := range work {
				_, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{
					To: b.to, From: "MOCKSMS", Message: bulkMessage, Reference: job + ":" + strconv.Itoa(b.k),
				})
				if err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
				}
			}
		})
	}
	k, cur := 0, make([]sms.Recipient, 0, bulkBenchBatch)
	var readErr error
	for r, err := range in {
		if err != nil {
			readErr = err
			break
		}
		cur = append(cur, r)
		if len(cur) == bulkBenchBatch {
			work <- batch{k, cur}
			k, cur = k+1, make([]sms.Recipient, 0, bulkBenchBatch)
		}
	}
	if readErr == nil && len(cur) > 0 {
		work <- batch{k, cur}
	}
	close(work)
	wg.Wait()
	if readErr != nil {
		return readErr
	}
	return first
}

// BenchmarkSendBulk sends 100,000 and 1,000,000 personalised recipients in batches of 10,000,
// 4 at a time, to the in-process mock: "bulk" through bulk.Send, "loop" through createLoop.
// Each op starts from an empty mock (Reset, untimed). ns/op includes the mock's own work
// (decoding, normalising and pricing every recipient, storing it); ns/recipient is ns/op over
// the total.
func BenchmarkSendBulk(b *testing.B) {
	for _, total := range bulkTotals {
		for _, kind := range []string{"bulk", "loop"} {
			b.Run(fmt.Sprintf("recipients=%d/%s", total, kind), func(b *testing.B) {
				srv := newServer(b, mockserver.WithBalances(1<<50, 1<<50))
				client := sdktest.BenchClient(b, srv, inProcessBase, &http.Client{Transport: srv.Transport()})
				ctx := context.Background()
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					srv.Reset()
					b.StartTimer()
					switch kind {
					case "bulk":
						r, err := bulk.Send(ctx, client, &bulk.Params{
							JobID: "bench", From: "MOCKSMS", Message: bulkMessage, Recipients: benchPeople(total),
							BatchSize: bulkBenchBatch, Concurrency: bulkBenchConcurrency,
						})
						if err != nil || r.Sent != total {
							b.Fatalf("sent %d of %d: %v", r.Sent, total, err)
						}
					case "loop":
						if err := createLoop(ctx, client, benchPeople(total), "bench", bulkBenchConcurrency); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(total), "ns/recipient")
			})
		}
	}
}

// acceptAll answers every campaign request with a canned 202, keeping nothing, so that the
// live heap is the client's alone. It samples the live heap while the SDK holds a request's
// encoded body and every batch in flight.
type acceptAll struct {
	mu sync.Mutex
	h  *sdktest.HeapPeak // nil: no sampling
	n  atomic.Int64
}

// accepted is the answer acceptAll gives every request, with a campaign ID of its own (a
// bulk job refuses an answer naming the campaign of another batch).
const accepted = `{"message":"SMS request accepted.","campaign":{"id":"%024d","status":"processing","message_id":null,"recipients":10000,"amount":32000.00,"currency":"NGN","sms_parts":1},"requestId":"req_1"}`

func (a *acceptAll) RoundTrip(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	_ = req.Body.Close()
	if a.h != nil {
		a.mu.Lock()
		a.h.Sample()
		a.mu.Unlock()
	}
	return &http.Response{
		StatusCode: http.StatusAccepted, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(fmt.Sprintf(accepted, a.n.Add(1)))), Request: req,
	}, nil
}

// BenchmarkSendBulkClient is BenchmarkSendBulk without the mock: every request is answered
// at once by a transport that keeps nothing, so that ns/op is the client's own work (reading
// the input, normalising, de-duplicating, counting parts, encoding the bodies, decoding the
// answers), "bulk" through bulk.Send against "loop" through createLoop.
func BenchmarkSendBulkClient(b *testing.B) {
	for _, total := range bulkTotals {
		for _, kind := range []string{"bulk", "loop"} {
			b.Run(fmt.Sprintf("recipients=%d/%s", total, kind), func(b *testing.B) {
				c, err := sms.NewClient("pk_test_bench", "sk_test_bench", sms.WithBaseURL(inProcessBase),
					sms.WithHTTPClient(&http.Client{Transport: &acceptAll{}}))
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					switch kind {
					case "bulk":
						r, err := bulk.Send(ctx, c, &bulk.Params{
							JobID: "bench", From: "MOCKSMS", Message: bulkMessage, Recipients: benchPeople(total),
							BatchSize: bulkBenchBatch, Concurrency: bulkBenchConcurrency,
						})
						if err != nil || r.Sent != total {
							b.Fatalf("sent %d of %d: %v", r.Sent, total, err)
						}
					case "loop":
						if err := createLoop(ctx, c, benchPeople(total), "bench", bulkBenchConcurrency); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(total), "ns/recipient")
			})
		}
	}
}

// BenchmarkSendBulkHeap measures the client's peak live heap through bulk.Send over 100,000
// and 1,000,000 recipients (10 and 100 batches), against a transport that keeps nothing.
// peak-MB is the most the live heap grew over the heap before the job, sampled with forced
// collections on every request (the request's body and the batches in flight held);
// set-MB is the size of the de-duplication set of the total (its slots); peak-set-MB is their
// difference, what is left of the client.
func BenchmarkSendBulkHeap(b *testing.B) {
	for _, total := range bulkTotals {
		b.Run(fmt.Sprintf("recipients=%d", total), func(b *testing.B) {
			set := setBytes(total)
			var peak uint64
			for i := 0; i < b.N; i++ {
				h := &sdktest.HeapPeak{}
				rt := &acceptAll{h: h}
				c, err := sms.NewClient("pk_test_bench", "sk_test_bench", sms.WithBaseURL(inProcessBase), sms.WithHTTPClient(&http.Client{Transport: rt}))
				if err != nil {
					b.Fatal(err)
				}
				h.Base = sdktest.LiveHeap()
				h.Peak = h.Base
				r, err := bulk.Send(context.Background(), c, &bulk.Params{
					JobID: "heap", From: "MOCKSMS", Message: bulkMessage, Recipients: benchPeople(total),
					BatchSize: bulkBenchBatch, Concurrency: bulkBenchConcurrency,
				})
				if err != nil || r.Sent != total {
					b.Fatalf("sent %d of %d: %v", r.Sent, total, err)
				}
				peak = max(peak, h.Peak-h.Base)
			}
			b.ReportMetric(float64(peak)/1e6, "peak-MB")
			b.ReportMetric(float64(set)/1e6, "set-MB")
			b.ReportMetric(float64(peak-min(peak, set))/1e6, "peak-set-MB")
		})
	}
}

// setBytes is the memory of bulk.Send's de-duplication set of n numbers.
func setBytes(n int) uint64 { return bulk.NumberSetBytes(n) }
