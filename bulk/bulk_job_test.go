package bulk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

// The acceptance run: 25,000 personalised recipients, 300 duplicates, 5 invalid,
// through drops, 503s and a 429.
func TestSendBulkExactlyOnceThroughFaults(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		// Its 300 exchanges go unchecked against the OpenAPI document, which would take three
		// times as long; the smaller bulk tests check theirs.
		c := newClient(t, srv, sms.WithHTTPClient(&http.Client{Transport: srv.Transport()}),
			sms.WithRetryWait(100*time.Millisecond, 2*time.Second), sms.WithReferenceDeduplication())
		fund(t, srv, 100_000_000)
		srv.AddFaults(
			mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Drop: true, Times: 3},
			mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Status: 503, Times: 4},
			mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Status: 429, RetryAfter: 3, Times: 1},
		)
		in := bulkInput{n: 24_695, dups: 300, bad: 5}
		require.Equal(t, 25_000, in.total())
		ctx := context.Background()

		var calls []bulk.Progress
		p := bulkParams("orders-2026-11", in, 1000)
		p.Progress = func(pg bulk.Progress) { calls = append(calls, pg) }
		r, err := bulk.Send(ctx, c, p)
		require.NoError(t, err)
		assert.Empty(t, srv.Faults(), "every fault was met")

		assert.True(t, r.Complete)
		assert.Equal(t, 24_695, r.Recipients)
		assert.Equal(t, 24_695, r.Sent)
		assert.Equal(t, 0, r.Replayed)
		assert.Equal(t, 300, r.Duplicates)
		assert.Equal(t, 5, r.Invalid)
		assert.Equal(t, 24_695, r.Parts, "one part each")
		positions := make([]int, len(r.InvalidRecipients))
		for i, ir := range r.InvalidRecipients {
			positions[i] = ir.Position
			assert.Equal(t, "Phone", ir.Field)
		}
		assert.Equal(t, in.badPositions(), positions)
		require.Len(t, r.Batches, 25)
		for k, b := range r.Batches {
			assert.Equal(t, k, b.Index)
			assert.Equal(t, fmt.Sprintf("orders-2026-11:%d", k), b.Reference)
			assert.NotEmpty(t, b.CampaignID)
			assert.NoError(t, b.Err)
			assert.False(t, b.Replayed, "batch %d: replays after its own dropped attempt are this run's sends", k)
		}
		assert.Equal(t, 695, r.Batches[24].Recipients)
		n, amount := sumBatches(r)
		assert.Equal(t, 24_695, n)
		assert.Equal(t, amount, r.Amount)
		assert.Equal(t, int64(24_695*320), r.Amount.Kobo())
		assert.Equal(t, int64(100_000_000)-r.Amount.Kobo(), balance(t, srv), "the wallet moved by the report's amount")

		require.Len(t, calls, 25, "one progress call per batch")
		assert.Equal(t, 25, calls[24].Batches)
		assert.Equal(t, 24_695, calls[24].Sent)
		assert.Equal(t, r.Amount, calls[24].Amount)

		camps, seen := campaignsOf(t, srv, c)
		assert.Len(t, camps, 25, "one campaign per batch")
		assert.Len(t, seen, 24_695)
		for phone, k := range seen {
			if k != 1 {
				t.Errorf("%s was sent %d times", phone, k)
			}
		}

		// The same job again: everything replays.
		before := balance(t, srv)
		requests := requestsTo(srv, "POST", "/v1/sms/campaigns")
		again, err := bulk.Send(ctx, c, bulkParams("orders-2026-11", in, 1000))
		require.NoError(t, err)
		assert.True(t, again.Complete)
		assert.Equal(t, 0, again.Sent)
		assert.Equal(t, 24_695, again.Replayed)
		assert.Equal(t, sms.Amount{}, again.Amount)
		assert.Equal(t, before, balance(t, srv), "nothing charged")
		assert.Equal(t, r.Amount, again.ReplayedAmount, "what the first run charged")
		assert.Equal(t, r.Amount, again.JobAmount)
		assert.Equal(t, requests+25, requestsTo(srv, "POST", "/v1/sms/campaigns"))
		assert.Equal(t, 25, campaignTotal(t, c), "nothing created")
		for k, b := range again.Batches {
			assert.True(t, b.Replayed, "batch %d", k)
			assert.Equal(t, r.Batches[k].CampaignID, b.CampaignID)
			assert.Equal(t, r.Batches[k].Amount, b.Amount, "what it cost the first time")
		}
	})
}

func TestSendBulkOutOfMoneyThenTopUp(t *testing.T) {
	t.Parallel()
	for _, concurrency := range []int{1, 4} {
		t.Run(fmt.Sprint("concurrency ", concurrency), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t)
				c := newClient(t, srv)
				const start = 1_000_000 // enough for 3 batches of 1,000 at 3.20
				fund(t, srv, start)
				in := bulkInput{n: 6_000, dups: 40, bad: 2}
				ctx := context.Background()

				p := bulkParams("promo", in, 1000)
				p.Concurrency = concurrency
				r, err := bulk.Send(ctx, c, p)
				require.ErrorIs(t, err, sms.ErrInsufficientBalance)
				first := 0 // the first batch in input order that was not sent
				for _, b := range r.Batches {
					if b.Index == first && b.Err == nil {
						first++
					}
				}
				assert.Contains(t, err.Error(), fmt.Sprintf(`job "promo" stopped at batch %d, the first in input order not sent, as the wallet could not pay; this run sent 3000 recipients, for 9600.00`, first))
				assert.False(t, r.Complete)
				assert.Equal(t, 3000, r.Sent, "three batches were paid for")
				assert.Equal(t, r.Recipients, r.Parts, "parts of the batches in the report only, one each")
				assert.Equal(t, int64(start)-r.Amount.Kobo(), balance(t, srv), "the report matches the wallet")
				var paid int
				for _, b := range r.Batches {
					if b.Err == nil {
						paid++
					} else {
						assert.ErrorIs(t, b.Err, sms.ErrInsufficientBalance)
					}
				}
				assert.Equal(t, 3, paid)
				assert.Equal(t, 3, campaignTotal(t, c))

				fund(t, srv, 5_000_000)
				p = bulkParams("promo", in, 1000)
				p.Concurrency = concurrency
				again, err := bulk.Send(ctx, c, p)
				require.NoError(t, err)
				assert.True(t, again.Complete)
				assert.Equal(t, 3000, again.Replayed)
				assert.Equal(t, 3000, again.Sent)
				assert.Equal(t, int64(5_000_000)-again.Amount.Kobo(), balance(t, srv))
				assert.Equal(t, int64(6000*320), r.Amount.Add(again.Amount).Kobo(), "each recipient charged once over both runs")
				assert.Equal(t, int64(6000*320), again.JobAmount.Kobo(), "the last run states the job's whole cost")
				assert.Equal(t, r.Amount, again.ReplayedAmount, "what the first run charged")

				camps, seen := campaignsOf(t, srv, c)
				assert.Len(t, camps, 6)
				assert.Len(t, seen, 6000)
				for phone, k := range seen {
					if k != 1 {
						t.Errorf("%s was sent %d times", phone, k)
					}
				}
			})
		})
	}
}

// A job's batches are its input cut into BatchSize recipients: a rerun with another input or
// another batch size is refused at its first batch that differs, and the error says what may
// have changed.
func TestSendBulkInputChangedIsConflict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    bulkInput
		batch int
	}{
		{"one more recipient in the last batch", bulkInput{n: 251}, 100},
		{"another batch size", bulkInput{n: 250}, 125},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			c := newClient(t, srv)
			ctx := context.Background()
			_, err := bulk.Send(ctx, c, bulkParams("job-7", bulkInput{n: 250}, 100))
			require.NoError(t, err)

			r, err := bulk.Send(ctx, c, bulkParams("job-7", tt.in, tt.batch))
			require.ErrorIs(t, err, sms.ErrConflict)
			assert.Contains(t, err.Error(), "the input, the message or the batch size changed since an earlier run of this job")
			assert.False(t, r.Complete)
			assert.Equal(t, 0, r.Sent)
			assert.Equal(t, 3, campaignTotal(t, c), "nothing new was created")
		})
	}
}

func TestSendBulkFailedBatchIsRetriedByRerun(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv, sms.WithReferenceDeduplication())
		ctx := context.Background()
		// The first batch fails on every attempt: 1 + DefaultMaxRetries.
		srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Status: 500, Times: 1 + sms.DefaultMaxRetries})
		p := bulkParams("retry-me", bulkInput{n: 500}, 100)
		p.Concurrency = 1
		r, err := bulk.Send(ctx, c, p)
		require.ErrorIs(t, err, bulk.ErrIncomplete)
		require.ErrorIs(t, err, sms.ErrServer)
		assert.False(t, r.Complete)
		failed := r.Failed()
		require.Len(t, failed, 1)
		assert.Equal(t, 0, failed[0].Index)
		assert.Equal(t, 400, r.Sent, "the job went on")
		assert.Len(t, r.Batches, 5)

		requests := requestsTo(srv, "POST", "/v1/sms/campaigns")
		again, err := bulk.Send(ctx, c, bulkParams("retry-me", bulkInput{n: 500}, 100))
		require.NoError(t, err)
		assert.True(t, again.Complete)
		assert.Equal(t, 100, again.Sent, "only the failed batch is sent")
		assert.Equal(t, 400, again.Replayed)
		assert.Equal(t, requests+5, requestsTo(srv, "POST", "/v1/sms/campaigns"))
		assert.Equal(t, 5, campaignTotal(t, c))
	})
}

func TestSendBulk429PausesEveryWorker(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv, sms.WithRetryWait(10*time.Millisecond, 30*time.Second))
		srv.AddFaults(
			mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Status: 429, RetryAfter: 5, Times: 1},
			mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Latency: 100 * time.Millisecond},
		)
		p := bulkParams("paced", bulkInput{n: 1200}, 100)
		p.Concurrency = 4
		r, err := bulk.Send(context.Background(), c, p)
		require.NoError(t, err)
		require.True(t, r.Complete)

		var limited time.Time
		var times []time.Time
		for _, q := range srv.Requests() {
			if q.Path != "/v1/sms/campaigns" {
				continue
			}
			times = append(times, q.Time)
			if q.Status == http.StatusTooManyRequests {
				limited = q.Time
			}
		}
		require.False(t, limited.IsZero())
		require.Len(t, times, 13)
		later := 0
		for _, at := range times {
			if at.After(limited) {
				later++
				assert.GreaterOrEqual(t, at.Sub(limited), 5*time.Second, "no worker starts a request during the pause")
			}
		}
		assert.GreaterOrEqual(t, later, 8, "the batches not yet started waited")
	})
}

func TestSendBulkRate(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		p := bulkParams("slow", bulkInput{n: 1000}, 100)
		p.Rate, p.Concurrency = 2, 4
		start := time.Now()
		_, err := bulk.Send(context.Background(), c, p)
		require.NoError(t, err)
		elapsed := time.Since(start)
		assert.GreaterOrEqual(t, elapsed, 4500*time.Millisecond, "10 requests at 2 per second")
		assert.Less(t, elapsed, 5500*time.Millisecond)
	})
}

func TestSendBulkDryRun(t *testing.T) {
	t.Parallel()
	c, _, ct := offlineClients(t)
	in := bulkInput{n: 250, dups: 10, bad: 1}
	p := bulkParams("dry", in, 100)
	p.DryRun = true
	p.Message = "{{name}}: " + strings.Repeat("x", 150) // 2 parts for every name here
	r, err := bulk.Send(context.Background(), c, p)
	require.NoError(t, err)
	assert.Zero(t, ct.N.Load(), "nothing sent")
	assert.False(t, r.Complete, "nothing was sent")
	assert.Equal(t, 250, r.Recipients)
	assert.Equal(t, 500, r.Parts)
	assert.Equal(t, 10, r.Duplicates)
	assert.Equal(t, 1, r.Invalid)
	require.Len(t, r.Batches, 3)
	assert.Equal(t, []int{100, 100, 50}, []int{r.Batches[0].Recipients, r.Batches[1].Recipients, r.Batches[2].Recipients})
	assert.Equal(t, 2, r.Batches[0].Parts)
	assert.Equal(t, "dry:2", r.Batches[2].Reference)
	assert.Equal(t, 0, r.Sent)
	assert.Equal(t, sms.Amount{}, r.Amount)
}

func TestSendBulkContextCancelStops(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		ctx, cancel := context.WithTimeout(context.Background(), 2200*time.Millisecond)
		defer cancel()
		p := bulkParams("cancelled", bulkInput{n: 1000}, 100)
		p.Rate = 1 // a request a second: the deadline comes after 3
		r, err := bulk.Send(ctx, c, p)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.False(t, r.Complete)
		assert.Equal(t, 300, r.Sent)
		assert.Equal(t, 3, campaignTotal(t, c))
	})
}

// What going on cannot fix stops the job at once: nothing more is sent.
func TestSendBulkStopsOnRefusedCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		want   error
	}{
		{http.StatusUnauthorized, sms.ErrUnauthorized},
		{http.StatusForbidden, sms.ErrInsufficientScope},
		{http.StatusPaymentRequired, sms.ErrInsufficientBalance},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			c := newClient(t, srv)
			srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Status: tt.status, Times: 1})
			p := bulkParams("refused", bulkInput{n: 500}, 100)
			p.Concurrency = 1
			r, err := bulk.Send(context.Background(), c, p)
			require.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), `bulk: job "refused" stopped at batch 0`)
			assert.Equal(t, 1, requestsTo(srv, "POST", "/v1/sms/campaigns"), "not retried, and nothing more sent")
			require.Len(t, r.Batches, 1)
			assert.ErrorIs(t, r.Batches[0].Err, tt.want)
			assert.Equal(t, 0, r.Sent)
			assert.False(t, r.Complete)
			assert.Equal(t, 0, campaignTotal(t, c))
		})
	}
}

// A read error of the input stops the job: the batch being filled is not sent, nor anything
// after it, and the error is returned, wrapped. Running the job again with the whole input
// replays what was sent and sends the rest.
func TestSendBulkInputError(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		fund(t, srv, 100_000_000)
		srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Latency: time.Second})
		errDisk := errors.New("disk on fire")
		in := bulkInput{n: 300}
		failing := func(yield func(sms.Recipient, error) bool) {
			n := 0
			for r := range in.seq() {
				if n == 250 {
					time.Sleep(time.Millisecond) // the batches handed over are under way
					yield(sms.Recipient{}, errDisk)
					return
				}
				n++
				if !yield(r, nil) {
					return
				}
			}
		}
		ctx := context.Background()
		p := bulkParams("flaky-file", in, 100)
		p.Recipients = failing
		r, err := bulk.Send(ctx, c, p)
		require.ErrorIs(t, err, errDisk)
		assert.Contains(t, err.Error(), `bulk: job "flaky-file": reading the input at position 250: disk on fire`)
		assert.False(t, r.Complete)
		assert.Equal(t, 200, r.Sent, "the batches handed over before the error are sent, the one being filled is not")
		assert.Equal(t, 2, campaignTotal(t, c))

		again, err := bulk.Send(ctx, c, bulkParams("flaky-file", in, 100))
		require.NoError(t, err)
		assert.True(t, again.Complete)
		assert.Equal(t, 200, again.Replayed)
		assert.Equal(t, 100, again.Sent)
		assert.Equal(t, 3, campaignTotal(t, c))
	})
}

// After any sequence of runs that ends complete, the last run's report states the job's whole
// cost, equal to the wallet's move: a batch that an interrupted run sent without learning the
// outcome is replayed by the rerun, and its amount counts in ReplayedAmount and JobAmount.
func TestSendBulkReportsTheWholeCostAfterAnInterruptedRun(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		const start = 100_000_000
		fund(t, srv, start)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// The third request is committed by the server, then the run is interrupted before
		// its answer arrives.
		cut := &interruptAt{base: srv.Transport(), n: 3, cancel: cancel}
		c := newClient(t, srv, sms.WithHTTPClient(&http.Client{Transport: cut}))
		in := bulkInput{n: 500}
		p := bulkParams("interrupted", in, 100)
		p.Concurrency = 1
		r, err := bulk.Send(ctx, c, p)
		require.ErrorIs(t, err, context.Canceled)
		assert.False(t, r.Complete)
		assert.Equal(t, 200, r.Sent)
		require.Len(t, r.Failed(), 1)
		assert.ErrorIs(t, r.Failed()[0].Err, sms.ErrOutcomeUnknown)
		assert.Equal(t, int64(start-300*320), balance(t, srv), "three batches were charged")
		assert.Equal(t, int64(200*320), r.JobAmount.Kobo(), "this run learned the cost of two")

		again, err := bulk.Send(context.Background(), c, bulkParams("interrupted", in, 100))
		require.NoError(t, err)
		assert.True(t, again.Complete)
		assert.Equal(t, 300, again.Replayed)
		assert.Equal(t, int64(300*320), again.ReplayedAmount.Kobo(), "what the earlier run charged for the replayed batches")
		assert.Equal(t, 200, again.Sent)
		assert.Equal(t, int64(200*320), again.Amount.Kobo(), "what this run charged")
		assert.Equal(t, again.Amount.Add(again.ReplayedAmount), again.JobAmount)
		assert.Equal(t, int64(start)-balance(t, srv), again.JobAmount.Kobo(), "the job's whole cost is the wallet's move")
	})
}

// interruptAt passes requests to base; the n-th campaign request is committed by base, then
// cancel is called and the answer is lost, as when a run is interrupted mid-request.
type interruptAt struct {
	base   http.RoundTripper
	n      int
	cancel context.CancelFunc
	mu     sync.Mutex
	seen   int
}

func (c *interruptAt) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if req.Method == http.MethodPost && req.URL.Path == "/v1/sms/campaigns" {
		c.seen++
	}
	cut := c.seen == c.n
	c.mu.Unlock()
	resp, err := c.base.RoundTrip(req)
	if !cut || err != nil {
		return resp, err
	}
	_ = resp.Body.Close()
	c.cancel()
	return nil, io.ErrUnexpectedEOF
}

// A 429 whose Retry-After is beyond MaxRetryAfter (68 years, or a minute against a cap of 10
// seconds) stops the job at once with the 429's *Error, its RetryAfter set, rather than
// pausing it silently; a rerun once the wait is over finishes the job.
func TestSendBulkRetryAfterBeyondTheCapStopsTheJob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		retryAfter int // seconds
		max        time.Duration
	}{
		{"decades against the default", math.MaxInt32, 0},
		{"a minute against 10s", 60, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t)
				c := newClient(t, srv)
				srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Status: 429, RetryAfter: tt.retryAfter, Times: 1})
				p := bulkParams("limited", bulkInput{n: 500}, 100)
				p.Concurrency, p.MaxRetryAfter = 1, tt.max
				start := time.Now()
				r, err := bulk.Send(context.Background(), c, p)
				require.ErrorIs(t, err, sms.ErrRateLimited)
				assert.Zero(t, time.Since(start), "no pause")
				assert.Equal(t, time.Duration(tt.retryAfter)*time.Second, asAPIError(t, err).RetryAfter)
				assert.Contains(t, err.Error(), "more than MaxRetryAfter")
				assert.False(t, r.Complete)
				assert.Equal(t, 0, r.Sent)
				assert.Equal(t, 1, requestsTo(srv, "POST", "/v1/sms/campaigns"), "nothing more was sent")

				again, err := bulk.Send(context.Background(), c, bulkParams("limited", bulkInput{n: 500}, 100))
				require.NoError(t, err)
				assert.True(t, again.Complete)
				assert.Equal(t, 500, again.Sent)
			})
		})
	}
}

// hostileAPI answers every campaign request with a 202 that answer writes for a request of n
// recipients and index k (the batch, from its reference's end).
type hostileAPI struct {
	answer func(n, k int) string
}

func (h hostileAPI) RoundTrip(req *http.Request) (*http.Response, error) {
	var body struct {
		To        []json.RawMessage `json:"to"`
		Reference string            `json:"reference"`
	}
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
		return nil, err
	}
	_ = req.Body.Close()
	_, index, _ := strings.Cut(body.Reference, ":")
	k, _ := strconv.Atoi(index)
	return &http.Response{
		StatusCode: http.StatusAccepted, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(h.answer(len(body.To), k))), Request: req,
	}, nil
}

func sentAnswer(id string, recipients int, amount string) string {
	return fmt.Sprintf(`{"message":"SMS request accepted.","campaign":{"id":%q,"status":"processing","message_id":null,"recipients":%d,"amount":%s,"currency":"NGN","sms_parts":1}}`,
		id, recipients, amount)
}

// A 202 that contradicts its batch is never a count or an amount the report trusts, nor a
// failure: the batch was accepted, at a cost the report does not know (Unconfirmed), for a
// campaign of another number of recipients, a negative amount, or amounts whose sum an
// Amount cannot hold. Without reference deduplication, nothing advises a rerun.
func TestSendBulkRefusesAnswersThatContradictTheBatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		answer      func(n, k int) string
		unconfirmed []int // batches
		want        string
		amount      sms.Amount // the report's JobAmount
	}{
		{"fewer recipients", func(n, k int) string { return sentAnswer(fmt.Sprint("c", k), n-1, "3.20") },
			[]int{0, 1}, `the 202 answer counts 99 recipients in campaign "c`, sms.Amount{}},
		{"more recipients", func(n, k int) string { return sentAnswer(fmt.Sprint("c", k), n+1, "3.20") },
			[]int{0, 1}, `counts 101 recipients`, sms.Amount{}},
		{"a negative amount", func(n, k int) string { return sentAnswer(fmt.Sprint("c", k), n, "-320.00") },
			[]int{0, 1}, `the member "campaign.amount" is negative, -320.00`, sms.Amount{}},
		{"amounts that overflow", func(n, k int) string { return sentAnswer(fmt.Sprint("c", k), n, "92233720368547758.07") },
			[]int{1}, "takes the job's total past what an Amount holds", sms.AmountFromKobo(math.MaxInt64)},
		{"no recipients member", func(n, k int) string {
			return fmt.Sprintf(`{"message":"SMS request accepted.","campaign":{"id":"c%d","status":"sent","amount":320.00}}`, k)
		}, nil, "", sms.AmountFromKobo(2 * 32000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newClientFor(t, hostileAPI{tt.answer})
			p := bulkParams("hostile", bulkInput{n: 200}, 100)
			p.Concurrency = 1
			r, err := bulk.Send(context.Background(), c, p)
			assert.Empty(t, r.Failed(), "an accepted batch did not fail")
			var unconfirmed []int
			for _, b := range r.Batches {
				if b.Unconfirmed {
					unconfirmed = append(unconfirmed, b.Index)
					assert.ErrorIs(t, b.Err, sms.ErrOutcomeUnknown)
					assert.Contains(t, b.Err.Error(), tt.want)
				}
			}
			assert.Equal(t, tt.unconfirmed, unconfirmed)
			assert.Equal(t, 100*len(tt.unconfirmed), r.Unconfirmed)
			assert.Equal(t, len(tt.unconfirmed), r.UnconfirmedBatches)
			if tt.unconfirmed == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, sms.ErrOutcomeUnknown)
				assert.NotErrorIs(t, err, bulk.ErrIncomplete)
				assert.Contains(t, err.Error(), tt.want)
				assert.Contains(t, err.Error(), "do not run the job again before checking their campaigns by reference")
			}
			assert.True(t, r.Complete, "nothing is left to send")
			assert.Equal(t, tt.amount, r.JobAmount)
			assert.GreaterOrEqual(t, r.Amount.Kobo(), int64(0))
		})
	}
}

// An input that panics stops the job: the batches under way are finished, and the panic
// goes on up the caller's goroutine only then, so that no worker outlives bulk.Send and
// Progress is never called after it.
func TestSendBulkInputPanics(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Latency: time.Second})
		in := bulkInput{n: 1000}
		panicking := func(yield func(sms.Recipient, error) bool) {
			n := 0
			for r := range in.seq() {
				if n == 250 {
					time.Sleep(time.Millisecond) // the batches handed over are under way
					panic("input broke")
				}
				n++
				if !yield(r, nil) {
					return
				}
			}
		}
		var returned atomic.Bool
		var calls, late atomic.Int32
		p := bulkParams("panicky", in, 100)
		p.Recipients = panicking
		p.Progress = func(bulk.Progress) {
			calls.Add(1)
			if returned.Load() {
				late.Add(1)
			}
		}
		func() {
			defer func() {
				assert.Equal(t, "input broke", recover(), "the input's panic reaches the caller")
				returned.Store(true)
			}()
			_, _ = bulk.Send(context.Background(), c, p)
		}()
		time.Sleep(time.Minute) // any request still under way would end
		synctest.Wait()
		assert.Zero(t, late.Load(), "Progress called after bulk.Send returned")
		assert.Equal(t, int32(2), calls.Load(), "the two batches handed over were finished first")
		assert.Equal(t, 2, campaignTotal(t, c))
	})
}

// An empty wallet refuses every batch in flight: the error names batch 0, the first in input
// order, whichever request the server refused first, so that identical runs say the same.
func TestSendBulkOutOfMoneyNamesTheFirstBatch(t *testing.T) {
	t.Parallel()
	for run := range 5 {
		t.Run(fmt.Sprint("run ", run), func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			c := newClient(t, srv)
			fund(t, srv, 0)
			p := bulkParams("broke", bulkInput{n: 800}, 100)
			p.Concurrency = 8
			r, err := bulk.Send(context.Background(), c, p)
			require.ErrorIs(t, err, sms.ErrInsufficientBalance)
			require.NotEmpty(t, r.Batches)
			var refused error // the 402 of the first refused batch in input order
			for _, b := range r.Batches {
				if refused == nil && b.Err != nil {
					refused = b.Err
				}
			}
			require.Error(t, refused)
			assert.Equal(t, `bulk: job "broke" stopped at batch 0, the first in input order not sent, as the wallet could not pay; `+
				`this run sent 0 recipients, for 0.00: top up, then run the job again: `+refused.Error(), err.Error())
		})
	}
}

// A batch that failed with an unknown outcome (its connection dropped after the request was
// written) may have been sent: without reference deduplication the job's error does not
// advise a rerun, which could send it twice; with it, a rerun replays it.
func TestSendBulkUnknownOutcomeIsNotAdvisedForARerun(t *testing.T) {
	t.Parallel()
	for _, dedup := range []bool{false, true} {
		t.Run(fmt.Sprint("dedup=", dedup), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t)
				opts := []sms.Option{sms.WithHTTPClient(&http.Client{Transport: srv.Transport()}), sms.WithRetryWait(100*time.Millisecond, 2*time.Second)}
				if dedup {
					opts = append(opts, sms.WithReferenceDeduplication())
				}
				c := newClient(t, srv, opts...)
				fund(t, srv, 100_000)
				require.NoError(t, srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Drop: true, Times: 100}))
				_, err := bulk.Send(context.Background(), c, bulkParams("maybe-sent", bulkInput{n: 5}, 5))
				require.ErrorIs(t, err, bulk.ErrIncomplete)
				require.ErrorIs(t, err, sms.ErrOutcomeUnknown)
				if dedup {
					assert.Contains(t, err.Error(), "run the job again within 24 hours to retry them")
					return
				}
				assert.NotContains(t, err.Error(), "run the job again")
				assert.Contains(t, err.Error(), "check their campaigns by reference first")
			})
		})
	}
}

// A batch whose answer gives no amount was sent at a cost the report does not know: it is
// counted apart, never as a cost of 0.00 that the report would add up as true.
func TestSendBulkAnswerWithoutAmount(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	c := newClientFor(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, r.Body)
		body := fmt.Sprintf(`{"campaign":{"id":"66700000000000000000000%d","status":"sent"}}`, n.Add(1))
		return &http.Response{StatusCode: http.StatusAccepted, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}))
	r, err := bulk.Send(context.Background(), c, bulkParams("no-amount", bulkInput{n: 30}, 10))
	require.NoError(t, err)
	require.Len(t, r.Batches, 3)
	for _, b := range r.Batches {
		assert.True(t, b.AmountUnknown, "batch %d", b.Index)
		assert.NoError(t, b.Err)
	}
	assert.Equal(t, 3, r.AmountUnknownBatches)
	assert.Equal(t, 30, r.Sent)
	assert.True(t, r.Complete)
}
