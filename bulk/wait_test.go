package bulk_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
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

// statusPolls counts the status requests the mock received.
func statusPolls(srv *mockserver.Server, id string) int {
	return requestsTo(srv, "GET", "/v1/sms/campaigns/"+id+"/status")
}

func TestWaitReturnsWhenDelivered(t *testing.T) {
	t.Parallel()
	wall := time.Now()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		ctx := context.Background()
		res, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: numbers(150), From: "MOCKSMS", Message: "hi"})
		require.NoError(t, err)
		require.Equal(t, sms.CampaignStatusProcessing, res.Campaign.Status)
		id := res.Campaign.ID

		go func() {
			time.Sleep(100 * time.Second) // the provider reports late
			if err := srv.Deliver(id, &mockserver.DeliverCounts{Delivered: 140, Failed: 5, DND: 5}); err != nil {
				panic(err)
			}
		}()
		start := time.Now()
		st, err := bulk.WaitCampaign(ctx, c, id, nil)
		require.NoError(t, err)
		elapsed := time.Since(start)
		assert.Equal(t, sms.DeliveryStatusPartiallyDelivered, st.Status)
		assert.Equal(t, &sms.DeliveryCounts{Delivered: 140, Failed: 5, DND: 5}, st.Counts)
		assert.NotEmpty(t, st.MessageID)
		assert.True(t, st.Final())
		assert.GreaterOrEqual(t, elapsed, 100*time.Second)
		assert.LessOrEqual(t, elapsed, 100*time.Second+bulk.DefaultWaitMaxDelay, "polls at most MaxDelay apart")
		polls := statusPolls(srv, id)
		assert.GreaterOrEqual(t, polls, 5, "polled while processing and while sent")
		assert.LessOrEqual(t, polls, 20, "backs off: 2s, then a random wait under a ceiling doubling up to 30s (about 11 polls in 100s; 50 without backoff)")
	})
	assert.Less(t, time.Since(wall), 5*time.Second, "100 seconds of waiting cost no wall time")
}

func TestWaitFailedCampaignReturnsAtOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		ctx := context.Background()
		srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/campaigns", ProviderFailure: true, Times: 1})
		res, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: numbers(3), From: "MOCKSMS", Message: "hi"})
		require.NoError(t, err)
		require.Equal(t, sms.CampaignStatusFailed, res.Campaign.Status)

		start := time.Now()
		st, err := bulk.WaitCampaign(ctx, c, res.Campaign.ID, nil)
		require.NoError(t, err)
		assert.Zero(t, time.Since(start), "no wait")
		assert.Equal(t, 1, statusPolls(srv, res.Campaign.ID))
		assert.Equal(t, sms.DeliveryStatusFailed, st.Status)
		assert.Empty(t, st.MessageID)
		assert.Equal(t, &sms.DeliveryCounts{Failed: 3}, st.Counts)
		require.Len(t, st.Recipients.Items, 3)
		assert.Equal(t, sms.RecipientStatusFailed, st.Recipients.Items[0].Status)
	})
}

func TestWaitContextEndsFirst(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		res, err := c.Campaigns.Create(context.Background(), &sms.CreateCampaignParams{To: numbers(2), From: "MOCKSMS", Message: "hi"})
		require.NoError(t, err)

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		st, err := bulk.WaitCampaign(ctx, c, res.Campaign.ID, &bulk.WaitParams{MinDelay: time.Second, MaxDelay: 5 * time.Second})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NotNil(t, st, "the last status read")
		assert.Equal(t, sms.DeliveryStatusSent, st.Status)
		assert.Equal(t, 2, st.Counts.Sent)
		assert.False(t, st.Final())
		assert.GreaterOrEqual(t, statusPolls(srv, res.Campaign.ID), 12, "a minute of polls at most 5s apart")
	})
}

func TestWaitHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv, sms.WithMaxRetries(0))
		ctx := context.Background()
		res, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: numbers(2), From: "MOCKSMS", Message: "hi"})
		require.NoError(t, err)
		id := res.Campaign.ID
		require.NoError(t, srv.Deliver(id, nil))
		srv.AddFaults(mockserver.FaultRule{Method: "GET", Path: "/v1/sms/campaigns/*", Status: 429, RetryAfter: 45, Times: 1})

		start := time.Now()
		st, err := bulk.WaitCampaign(ctx, c, id, nil)
		require.NoError(t, err)
		assert.Equal(t, sms.DeliveryStatusDelivered, st.Status)
		assert.Equal(t, 45*time.Second, time.Since(start), "the second poll waits the Retry-After, beyond MaxDelay")
		assert.Equal(t, 2, statusPolls(srv, id))
	})
}

func TestWaitErrors(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := newClient(t, srv)
	ctx := context.Background()

	_, err := bulk.WaitCampaign(ctx, c, "0123456789abcdef01234567", nil)
	assert.ErrorIs(t, err, sms.ErrNotFound, "an unknown campaign ends the wait")

	for _, tt := range []struct {
		name  string
		id    string
		p     *bulk.WaitParams
		field string
	}{
		{"no id", "", nil, "id"},
		{"negative delay", "x", &bulk.WaitParams{MinDelay: -1}, "WaitParams"},
		{"max below min", "x", &bulk.WaitParams{MinDelay: time.Minute, MaxDelay: time.Second}, "MaxDelay"},
		{"negative longest Retry-After", "x", &bulk.WaitParams{MaxRetryAfter: -time.Second}, "WaitParams"},
		{"concurrency too high", "x", &bulk.WaitParams{Concurrency: bulk.MaxConcurrency + 1}, "Concurrency"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bulk.WaitCampaign(ctx, c, tt.id, tt.p)
			var ve *sms.ValidationError
			require.True(t, errors.As(err, &ve), "got %v", err)
			assert.Equal(t, tt.field, ve.Field)
		})
	}
	assert.Zero(t, len(srv.Requests())-1, "only the unknown campaign was asked for")
}

func TestWaitBulkSumsTheJob(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		fund(t, srv, 100_000_000)
		ctx := context.Background()
		// The provider refuses one of the batches: it is failed and refunded.
		srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", ProviderFailure: true, Times: 1})
		r, err := bulk.Send(ctx, c, bulkParams("wait-all", bulkInput{n: 3500, dups: 20}, 1000))
		require.NoError(t, err)
		require.Len(t, r.CampaignIDs(), 4)
		refused := -1
		for i, b := range r.Batches {
			if b.Status == sms.CampaignStatusFailed {
				refused = i
				assert.Equal(t, sms.Amount{}, b.Amount, "refunded")
			}
		}
		require.NotEqual(t, -1, refused)

		go func() {
			time.Sleep(time.Minute)
			for i, id := range r.CampaignIDs() {
				if i == refused {
					continue
				}
				if err := srv.Deliver(id, &mockserver.DeliverCounts{Delivered: r.Batches[i].Recipients - 10, DND: 10}); err != nil {
					panic(err)
				}
			}
		}()
		start := time.Now()
		d, err := bulk.Wait(ctx, c, r, nil)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, time.Since(start), time.Minute)
		assert.Equal(t, 4, d.Campaigns)
		assert.Equal(t, 1, d.Failed)
		n := r.Batches[refused].Recipients
		assert.Equal(t, sms.DeliveryCounts{Delivered: 3500 - n - 30, DND: 30, Failed: n}, d.Counts)
		assert.Equal(t, r.Recipients, d.Counts.Total())
	})
}

// A Retry-After beyond MaxRetryAfter (68 years against the default 5 minutes, or a minute
// against 10 seconds) ends the wait at once with the answer's *Error, its RetryAfter set,
// and the last status read; one within it is waited for, even beyond MaxDelay.
func TestWaitRetryAfterBeyondTheCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		retryAfter int // seconds
		max        time.Duration
		ends       bool
	}{
		{"decades against the default", math.MaxInt32, 0, true},
		{"a minute against 10s", 60, 10 * time.Second, true},
		{"a minute against the default", 60, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t)
				c := newClient(t, srv, sms.WithMaxRetries(0))
				ctx := context.Background()
				res, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: numbers(2), From: "MOCKSMS", Message: "hi"})
				require.NoError(t, err)
				id := res.Campaign.ID
				var provider sync.WaitGroup
				defer provider.Wait()
				provider.Go(func() {
					time.Sleep(10 * time.Second)
					if err := srv.AddFaults(mockserver.FaultRule{Method: "GET", Path: "/v1/sms/campaigns/*", Status: 429, RetryAfter: tt.retryAfter, Times: 1}); err != nil {
						panic(err)
					}
					time.Sleep(30 * time.Second)
					if err := srv.Deliver(id, nil); err != nil {
						panic(err)
					}
				})
				start := time.Now()
				st, err := bulk.WaitCampaign(ctx, c, id, &bulk.WaitParams{MinDelay: time.Second, MaxDelay: time.Second, MaxRetryAfter: tt.max})
				if !tt.ends {
					require.NoError(t, err)
					assert.Equal(t, sms.DeliveryStatusDelivered, st.Status)
					assert.GreaterOrEqual(t, time.Since(start), 70*time.Second, "the Retry-After was waited for, beyond MaxDelay")
					return
				}
				require.ErrorIs(t, err, sms.ErrRateLimited)
				assert.Contains(t, err.Error(), "more than MaxRetryAfter")
				assert.Equal(t, time.Duration(tt.retryAfter)*time.Second, asAPIError(t, err).RetryAfter)
				assert.LessOrEqual(t, time.Since(start), 11*time.Second, "the first poll after the fault ends the wait")
				require.NotNil(t, st, "the last status read")
				assert.Equal(t, sms.DeliveryStatusSent, st.Status)
			})
		})
	}
}

// statusAPI answers every delivery status request with counts.
type statusAPI struct{ counts string }

func (s statusAPI) RoundTrip(req *http.Request) (*http.Response, error) {
	id := strings.TrimSuffix(strings.TrimPrefix(req.URL.Path, "/v1/sms/campaigns/"), "/status")
	body := fmt.Sprintf(`{"data":{"campaignId":%q,"messageId":"m-%s","status":"sent","counts":%s,"recipients":[]},"pagination":{"page":1,"limit":20,"total":2}}`,
		id, id, s.counts)
	return &http.Response{
		StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: req,
	}, nil
}

// A status that no campaign can have is an error, never a wait that cannot end: a negative
// count would keep Final false forever, and counts whose sum overflows cannot be summed.
func TestWaitRefusesMalformedCounts(t *testing.T) {
	t.Parallel()
	big := math.MaxInt/2 + 1
	tests := []struct {
		name   string
		counts string
		bulk   bool
		want   string
	}{
		{"negative sent", `{"sent":-1,"delivered":3,"failed":0,"dnd":0}`, false, "counts.sent is -1"},
		{"negative delivered", `{"sent":0,"delivered":-3,"failed":0,"dnd":0}`, false, "counts.delivered is -3"},
		{"sums that overflow", fmt.Sprintf(`{"sent":0,"delivered":%d,"failed":0,"dnd":0}`, big), true, "take the sum past what an int holds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				c := newClientFor(t, statusAPI{tt.counts})
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				var err error
				if tt.bulk {
					r := &bulk.Report{JobID: "j", Batches: []bulk.Batch{{CampaignID: "a"}, {CampaignID: "b"}}}
					_, err = bulk.Wait(ctx, c, r, &bulk.WaitParams{Concurrency: 1})
				} else {
					_, err = bulk.WaitCampaign(ctx, c, "a", nil)
				}
				require.Error(t, err)
				assert.NotErrorIs(t, err, context.DeadlineExceeded, "refused at once, not waited on")
				assert.Contains(t, err.Error(), tt.want)
			})
		})
	}
}

// WaitParams.Progress is told where the delivery stands after the first round of polls and
// after each round that changed it, never twice for the same state, and never concurrently;
// when the wait ends early, Pending names the campaigns not final.
func TestWaitBulkProgressAndPending(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		fund(t, srv, 100_000_000)
		r, err := bulk.Send(context.Background(), c, bulkParams("progress", bulkInput{n: 30}, 10))
		require.NoError(t, err)
		ids := r.CampaignIDs()
		require.Len(t, ids, 3)
		time.AfterFunc(10*time.Second, func() { _ = srv.Deliver(ids[0], &mockserver.DeliverCounts{Delivered: 9, Failed: 1}) })
		time.AfterFunc(30*time.Second, func() { _ = srv.Deliver(ids[2], nil) })

		var (
			calls  []bulk.Delivery
			inCall atomic.Int32
		)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		d, err := bulk.Wait(ctx, c, r, &bulk.WaitParams{MinDelay: time.Second, MaxDelay: 4 * time.Second,
			Progress: func(d bulk.Delivery) {
				require.Equal(t, int32(1), inCall.Add(1), "never concurrently")
				calls = append(calls, d)
				inCall.Add(-1)
			}})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, &bulk.Delivery{Campaigns: 3, Final: 2, Pending: []string{ids[1]},
			Counts: sms.DeliveryCounts{Sent: 10, Delivered: 19, Failed: 1}}, d)
		assert.Equal(t, []bulk.Delivery{
			{Campaigns: 3, Pending: ids, Counts: sms.DeliveryCounts{Sent: 30}},
			{Campaigns: 3, Final: 1, Pending: ids[1:], Counts: sms.DeliveryCounts{Sent: 20, Delivered: 9, Failed: 1}},
			{Campaigns: 3, Final: 2, Pending: ids[1:2], Counts: sms.DeliveryCounts{Sent: 10, Delivered: 19, Failed: 1}},
		}, calls, "once at the start, then once per change")
	})
}

// Wait reports its one campaign to Progress, and polls once per round: the loop bulk.Wait uses.
func TestWaitProgress(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		res, err := c.Campaigns.Create(context.Background(), &sms.CreateCampaignParams{To: numbers(2), From: "MOCKSMS", Message: "hi"})
		require.NoError(t, err)
		id := res.Campaign.ID
		time.AfterFunc(4500*time.Millisecond, func() { _ = srv.Deliver(id, nil) })
		var calls []bulk.Delivery
		st, err := bulk.WaitCampaign(context.Background(), c, id, &bulk.WaitParams{MinDelay: time.Second, MaxDelay: time.Second,
			Progress: func(d bulk.Delivery) { calls = append(calls, d) }})
		require.NoError(t, err)
		assert.True(t, st.Final())
		require.NotEmpty(t, calls)
		assert.Equal(t, bulk.Delivery{Campaigns: 1, Final: 1, Counts: sms.DeliveryCounts{Delivered: 2}}, calls[len(calls)-1])
		assert.Equal(t, 6, statusPolls(srv, id), "at once, then every second until the delivery at 4.5s")
	})
}
