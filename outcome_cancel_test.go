package sms_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// Sends cancelled at random times never hide a charge: every send that returned an error not
// matching ErrOutcomeUnknown was neither recorded nor charged by the mock, and the wallet
// moved by exactly what the successes and the unknown outcomes cost. (Before the SDK decoded
// a 2xx read whole whatever the context, a send cancelled after its answer had arrived
// returned a plain "context canceled" and had been charged.)
func TestRandomCancellationHidesNoCharge(t *testing.T) {
	t.Parallel()
	const sends = 1000 // per transport: a few seconds under -race on a loaded 2-core machine
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			// Without mockOpts's check of every request against the API description, which
			// would take most of the time.
			var srv *mockserver.Server
			var rt http.RoundTripper
			if transport == "loopback" {
				srv = mockserver.NewTest(t)
				tr := http.DefaultTransport.(*http.Transport).Clone()
				t.Cleanup(tr.CloseIdleConnections)
				rt = tr
			} else {
				srv = newServer(t)
				rt = srv.Transport()
			}
			c := newClient(t, srv, sms.WithHTTPClient(&http.Client{Transport: rt}))
			const start = 1_000_000_000
			fund(t, srv, start)
			from := srv.Default().SenderID
			send := func(ctx context.Context, i int) (*sms.SendResult, error) {
				ref := fmt.Sprintf("cancel-%d", i)
				if i%2 == 0 {
					return c.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: from, Message: "hi", Reference: ref})
				}
				return c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "08025671695"}}, From: from, Message: "hi", Reference: ref})
			}
			// The cancellation falls anywhere from before the request to after the answer:
			// within 1.5 times the recent time of a send, which each worker follows as the
			// load of the machine changes.
			const workers = 8
			var warm sync.WaitGroup
			took := make([]time.Duration, workers)
			for w := range workers {
				warm.Go(func() {
					t0 := time.Now()
					_, err := send(context.Background(), -1-w)
					assert.NoError(t, err)
					took[w] = time.Since(t0)
				})
			}
			warm.Wait()
			slices.Sort(took)

			type outcome struct {
				ref    string
				res    *sms.SendResult
				err    error
				status int // of an *OutcomeError
			}
			outs := make([]outcome, sends)
			var wg sync.WaitGroup
			next := make(chan int)
			for range workers {
				wg.Go(func() {
					recent := took[workers/2]
					for i := range next {
						ctx, cancel := context.WithCancel(context.Background())
						timer := time.AfterFunc(rand.N(recent*3/2+1), cancel)
						t0 := time.Now()
						res, err := send(ctx, i)
						if err == nil {
							recent = (7*recent + time.Since(t0)) / 8
						}
						timer.Stop()
						cancel()
						o := outcome{ref: fmt.Sprintf("cancel-%d", i), res: res, err: err}
						if oe := (*sms.OutcomeError)(nil); errors.As(err, &oe) {
							o.status = oe.StatusCode
						}
						outs[i] = o
					}
				})
			}
			for i := range sends {
				next <- i
			}
			close(next)
			wg.Wait()
			if transport == "loopback" {
				// A request the client gave up on may still be in the server's hands: let every
				// handler finish before reading the wallet, or a late charge is counted against
				// nothing (the outcome was unknown, and the campaign not yet there).
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				require.NoError(t, srv.Shutdown(ctx))
				cancel()
			}

			list, err := srv.Campaigns(srv.Default().WorkspaceID, mockserver.ModeTest)
			require.NoError(t, err)
			charged := make(map[string]int64, len(list))
			var all int64
			for _, cp := range list {
				charged[cp.Reference] = cp.AmountKobo
				all += cp.AmountKobo
			}
			for _, o := range outs {
				all -= charged[o.ref]
			}
			calibration := all // what the first sends cost
			var ok, unknown, unknown2xx, plain int
			var want int64
			for _, o := range outs {
				amount, recorded := charged[o.ref]
				switch {
				case o.err == nil:
					ok++
					require.True(t, recorded, "a success names a campaign: %s", o.ref)
					assert.Equal(t, amount, o.res.Campaign.Amount.Kobo(), o.ref)
					want += amount
				case errors.Is(o.err, sms.ErrOutcomeUnknown):
					unknown++
					if o.status >= 200 && o.status <= 299 {
						unknown2xx++
					}
					want += amount // 0 when it was not recorded
				default:
					plain++
					assert.False(t, recorded, "%s returned a plain error, %v, but was recorded and charged %d kobo", o.ref, o.err, amount)
					assert.ErrorIs(t, o.err, context.Canceled, o.ref)
				}
			}
			t.Logf("%d sends cancelled at random: %d succeeded, %d unknown (%d after a 2xx status line), %d plain errors",
				sends, ok, unknown, unknown2xx, plain)
			assert.Equal(t, int64(start)-calibration-want, balance(t, srv),
				"the wallet moved by what the successes and the unknown outcomes cost")
		})
	}
}

// cancelAfter passes requests to base and cancels the call's context once the whole answer
// has arrived, before the SDK reads it: as a Ctrl-C or a deadline right after the answer.
type cancelAfter struct {
	base   http.RoundTripper
	cancel context.CancelFunc
}

func (c cancelAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	c.cancel()
	return resp, err
}

// A 2xx answer read whole is the result, even when the context ended after it arrived: the
// send happened, and the SDK says what it knows.
func TestContextEndedAfterTheAnswerKeepsTheResult(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newClient(t, srv, sms.WithHTTPClient(&http.Client{Transport: cancelAfter{srv.Transport(), cancel}}))
	res, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: srv.Default().SenderID, Message: "hi"})
	require.NoError(t, err)
	assert.NotEmpty(t, res.Campaign.ID)
	require.ErrorIs(t, ctx.Err(), context.Canceled, "the context did end")
	assert.Equal(t, 1, campaignTotal(t, newClient(t, srv)))
}

// A context that ends after the status line of a 2xx arrived, while the body is being read,
// gives an error that matches both ErrOutcomeUnknown and context.Canceled, with the status,
// the request ID, the reference and what of the body had arrived.
func TestContextEndedAfterTheStatusLine(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-cut")
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"message":"SMS request accepted.","campaign":{"id":"c1",`))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest never comes: the client goes away
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	c, err := sms.NewClient(fakeKey, fakeSecret, sms.WithBaseURL(srv.URL), sms.WithMaxRetries(0),
		sms.WithHTTPClient(&http.Client{Transport: cancelAfter{tr, cancel}})) // once the status line is in
	require.NoError(t, err)
	_, err = c.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "hi", Reference: "ref-cut"})
	require.ErrorIs(t, err, sms.ErrOutcomeUnknown)
	require.ErrorIs(t, err, context.Canceled)
	var oe *sms.OutcomeError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, http.StatusAccepted, oe.StatusCode)
	assert.Equal(t, "req-cut", oe.RequestID)
	assert.Equal(t, "ref-cut", oe.Reference)
	assert.Contains(t, err.Error(), `"ref-cut"`)
	assert.Contains(t, err.Error(), "202 Accepted")
	assert.Contains(t, err.Error(), "[request req-cut]")
}
