package sms_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
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
	"github.com/seedsms/sms-go/internal/apitest"
	"github.com/seedsms/sms-go/mockserver"
)

func TestSMSSend(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	before := balance(t, srv)

	res, err := client.SMS.Send(context.Background(), &sms.SendParams{
		To:      []string{"08025671695", "+2348025671695", "2348030000001"},
		From:    srv.Default().SenderID,
		Message: strings.Repeat("a", 161), // two parts
	})
	require.NoError(t, err)

	c := res.Campaign
	assert.Equal(t, "SMS request accepted.", res.Message)
	assert.False(t, res.Replayed)
	assert.Len(t, c.ID, 24)
	assert.Equal(t, sms.CampaignStatusSent, c.Status)
	assert.Regexp(t, `^[0-9]{25}$`, c.MessageID, "the live shape")
	assert.Equal(t, 2, c.Recipients, "duplicates are sent once")
	assert.Equal(t, ptr(2), c.Parts)
	assert.Equal(t, "12.80", c.Amount.String(), "2 recipients x 2 parts x 3.20")
	assert.Equal(t, "NGN", c.Currency)
	assert.Equal(t, srv.Default().SenderID, c.SenderID)
	assert.Equal(t, sms.ChannelGeneric, c.Channel)
	assert.True(t, strings.HasPrefix(c.Reference, "sms-go-"), "a reference is generated: %q", c.Reference)
	assert.Equal(t, before-1280, balance(t, srv))

	// The numbers went out normalized, with the generated reference.
	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	var body struct {
		To        []string `json:"to"`
		Reference string   `json:"reference"`
	}
	require.NoError(t, json.Unmarshal(reqs[len(reqs)-1].Body, &body))
	assert.Equal(t, []string{"2348025671695", "2348025671695", "2348030000001"}, body.To)
	assert.Equal(t, c.Reference, body.Reference)
}

func TestSMSSendDNDChannel(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	res, err := newClient(t, srv).SMS.Send(context.Background(), &sms.SendParams{
		To: []string{"2348025671695"}, From: srv.Default().SenderID, Message: "hi", Channel: sms.ChannelDND,
	})
	require.NoError(t, err)
	assert.Equal(t, sms.ChannelDND, res.Campaign.Channel)
	assert.Equal(t, ptr(sms.AmountFromKobo(450)), res.Campaign.Amount)
}

func TestSMSSendReference(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	ctx := context.Background()
	p := &sms.SendParams{To: []string{"2348025671695"}, From: srv.Default().SenderID, Message: "Order 42 shipped", Reference: "order-42"}
	before := balance(t, srv)

	first, err := client.SMS.Send(ctx, p)
	require.NoError(t, err)
	again, err := client.SMS.Send(ctx, p)
	require.NoError(t, err)
	assert.False(t, first.Replayed)
	assert.True(t, again.Replayed)
	assert.Equal(t, first.Campaign, again.Campaign)
	assert.Equal(t, "order-42", again.Campaign.Reference)
	assert.Equal(t, before-320, balance(t, srv), "charged once")

	other := *p
	other.Message = "Order 43 shipped"
	_, err = client.SMS.Send(ctx, &other)
	require.ErrorIs(t, err, sms.ErrConflict)
	assert.Equal(t, "reference", asAPIError(t, err).Field)
}

func TestSMSSendProviderFailure(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	before := balance(t, srv)
	srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/send", ProviderFailure: true, Times: 1})

	res, err := newClient(t, srv).SMS.Send(context.Background(), &sms.SendParams{
		To: []string{"2348025671695"}, From: srv.Default().SenderID, Message: "hi",
	})
	require.NoError(t, err)
	assert.Equal(t, sms.CampaignStatusFailed, res.Campaign.Status)
	assert.Empty(t, res.Campaign.MessageID)
	assert.Equal(t, ptr(sms.Amount{}), res.Campaign.Amount)
	assert.Equal(t, before, balance(t, srv), "refunded")
}

// A send retried after a 5xx, a 429 or a dropped connection, by a client told the server
// deduplicates references (the mock does), carries one reference on every attempt, and is
// sent and charged once.
func TestSMSSendRetriedWithSameReference(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		fault    mockserver.FaultRule
		replayed bool
	}{
		{"503 twice", mockserver.FaultRule{Status: 503, Times: 2}, false},
		{"500", mockserver.FaultRule{Status: 500, Times: 1}, false},
		{"502", mockserver.FaultRule{Status: 502, Times: 1}, false},
		{"504", mockserver.FaultRule{Status: 504, Times: 1}, false},
		{"429", mockserver.FaultRule{Status: 429, Times: 1}, false},
		// The retry is answered from the dropped attempt, which this call sent and charged:
		// not a replay of an earlier request.
		{"dropped after processing", mockserver.FaultRule{Drop: true, Times: 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// In a bubble: the 429's Retry-After of 1 s takes no wall time.
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t)
				before := balance(t, srv)
				tt.fault.Method, tt.fault.Path = "POST", "/v1/sms/send"
				srv.AddFaults(tt.fault)
				rec := &recorder{Base: apitest.Transport(t, srv.Transport(), true)}
				c := newClient(t, srv, sms.WithHTTPClient(&http.Client{Transport: rec}),
					sms.WithReferenceDeduplication()) // the mock deduplicates references
				start := time.Now()
				res, err := c.SMS.Send(context.Background(), &sms.SendParams{
					To: []string{"2348025671695"}, From: srv.Default().SenderID, Message: "hi",
				})
				require.NoError(t, err)
				assert.Less(t, time.Since(start), 10*time.Second, "backoff stays within its bounds")
				assert.Equal(t, tt.replayed, res.Replayed)
				assert.Equal(t, int64(320), res.Campaign.Amount.Kobo())
				assert.Equal(t, before-320, balance(t, srv), "sent and charged once")

				var refs []string
				for _, body := range rec.Sent() {
					var b struct{ Reference string }
					require.NoError(t, json.Unmarshal([]byte(body), &b))
					refs = append(refs, b.Reference)
				}
				want := max(tt.fault.Times, 1) + 1
				require.Len(t, refs, want)
				for _, r := range refs {
					assert.Equal(t, res.Campaign.Reference, r, "every attempt carries the same reference")
				}
				assert.Equal(t, 1, campaignTotal(t, c), "one campaign")
			})
		})
	}
}

// A send that fails returns the last answer's *Error, with its sentinel, status, code and
// request ID, and charges nothing; only an answer that may have been processed makes the
// outcome unknown.
func TestSMSSendErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	send := func(c *sms.Client, from string) error {
		_, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"2348025671695"}, From: from, Message: "hi"})
		return err
	}
	tests := []struct {
		name    string
		run     func(t *testing.T, srv *mockserver.Server) error
		target  error
		status  int
		code    string
		unknown bool // the send may have been processed
	}{
		{"400 sender ID not active", func(t *testing.T, srv *mockserver.Server) error {
			return send(newClient(t, srv), "NOTMINE")
		}, sms.ErrBadRequest, 400, "bad_request", false},
		{"401 wrong secret", func(t *testing.T, srv *mockserver.Server) error {
			c := newClientOf(t, srv, srv.Default().TestKey, "sk_test_wrong")
			return send(c, srv.Default().SenderID)
		}, sms.ErrUnauthorized, 401, "unauthorized", false},
		{"402 empty wallet", func(t *testing.T, srv *mockserver.Server) error {
			require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.ModeTest, 319))
			return send(newClient(t, srv), srv.Default().SenderID)
		}, sms.ErrInsufficientBalance, 402, "insufficient_balance", false},
		{"403 scope", func(t *testing.T, srv *mockserver.Server) error {
			return send(newScopedClient(t, srv, sms.ScopeOTP), srv.Default().SenderID)
		}, sms.ErrInsufficientScope, 403, "insufficient_scope", false},
		{"429 after retries", func(t *testing.T, srv *mockserver.Server) error {
			srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 429, RetryAfter: 7})
			return send(newClient(t, srv), srv.Default().SenderID)
		}, sms.ErrRateLimited, 429, "rate_limited", false},
		{"503 after retries", func(t *testing.T, srv *mockserver.Server) error {
			srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 503})
			err := send(newClient(t, srv, sms.WithMaxRetries(2), sms.WithReferenceDeduplication()), srv.Default().SenderID)
			assert.Equal(t, 3, requestsTo(srv, "POST", "/v1/sms/send"), "WithMaxRetries(2): three attempts")
			assert.Equal(t, "Injected fault.", asAPIError(t, err).Message, "the last answer's")
			return err
		}, sms.ErrServer, 503, "server_error", true},
		{"503 not retried by default", func(t *testing.T, srv *mockserver.Server) error {
			srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 503})
			return send(newClient(t, srv), srv.Default().SenderID)
		}, sms.ErrServer, 503, "server_error", true},
		{"501 is not retried", func(t *testing.T, srv *mockserver.Server) error {
			srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 501})
			return send(newClient(t, srv), srv.Default().SenderID)
		}, sms.ErrServer, 501, "server_error", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := mockserver.NewTest(t)
			before := balance(t, srv)
			err := tt.run(t, srv)
			require.ErrorIs(t, err, tt.target)
			e := asAPIError(t, err)
			assert.Equal(t, tt.status, e.StatusCode)
			assert.Equal(t, tt.code, e.Code)
			assert.NotEmpty(t, e.Message)
			assert.True(t, strings.HasPrefix(e.RequestID, "req-"), e.RequestID)
			assert.Equal(t, tt.unknown, errors.Is(err, sms.ErrOutcomeUnknown))
			assert.NotContains(t, err.Error(), "giving up", "the final error is the API's")
			reqs := srv.Requests()
			require.NotEmpty(t, reqs)
			assert.Equal(t, reqs[len(reqs)-1].RequestID, e.RequestID, "the error is the last response's")
			if tt.status != 402 {
				assert.Equal(t, before, balance(t, srv), "nothing charged")
			}
		})
	}
}

func TestSMSSendErrorDetails(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	_, err := newClient(t, srv).SMS.Send(context.Background(), &sms.SendParams{
		To: []string{"2348025671695"}, From: "NOTMINE", Message: "hi",
	})
	e := asAPIError(t, err)
	assert.Equal(t, "from", e.Field)
	assert.Contains(t, err.Error(), "400 bad_request")
	assert.Contains(t, err.Error(), e.RequestID)

	srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 429, RetryAfter: 7})
	_, err = newClient(t, srv, sms.WithMaxRetries(0)).SMS.Send(context.Background(), &sms.SendParams{
		To: []string{"2348025671695"}, From: srv.Default().SenderID, Message: "hi",
	})
	assert.Equal(t, 7*time.Second, asAPIError(t, err).RetryAfter)
	assert.Equal(t, 1, requestsTo(srv, "POST", "/v1/sms/send")-1, "WithMaxRetries(0): one attempt")
}

// The tests below prove the retry policy of sends against the mock's injected faults: an SMS
// is never sent or charged twice because of a retry. The mock deduplicates references, so
// the tests of retried sends tell the client so (WithReferenceDeduplication); without it,
// sends are not retried after an ambiguous failure.

// A send whose connection dropped after the mock committed it is retried with the same body
// and answered from the committed campaign: one campaign, one debit.
func TestSMSSendDroppedAfterCommitIsReplayed(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			srv, c := mockOver(t, transport, sms.WithReferenceDeduplication())
			before := balance(t, srv)
			srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/send", Drop: true, Times: 1})

			res, err := c.SMS.Send(context.Background(), &sms.SendParams{
				To: []string{"08025671695", "2348025671696"}, From: "MOCKSMS", Message: "order shipped",
			})
			require.NoError(t, err)

			reqs := srv.Requests()
			require.Len(t, reqs, 2, "the dropped attempt and its retry")
			assert.Equal(t, reqs[0].Body, reqs[1].Body, "the retry carries the same body, reference included")
			page, err := c.Campaigns.List(context.Background(), nil)
			require.NoError(t, err)
			require.Len(t, page.Items, 1, "exactly one campaign")
			assert.Equal(t, page.Items[0].ID, res.Campaign.ID, "the caller sees the committed campaign")
			assert.Equal(t, before-res.Campaign.Amount.Kobo(), balance(t, srv), "exactly one debit")
			assert.Equal(t, int64(2*320), res.Campaign.Amount.Kobo())
			assert.False(t, res.Replayed, "the answer is this call's own dropped attempt's: it sent and charged")
		})
	}
}

// Without WithReferenceDeduplication, a send whose connection dropped after the mock
// committed it is not retried: one request, one campaign, one debit, and an error matching
// ErrOutcomeUnknown that names the reference. Repeating the send with that reference (the
// mock deduplicates) returns the committed campaign without sending or charging again.
func TestSMSSendDroppedIsNotRetriedByDefault(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			srv, c := mockOver(t, transport)
			before := balance(t, srv)
			srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/send", Drop: true, Times: 1})
			p := &sms.SendParams{To: []string{"08025671695"}, From: "MOCKSMS", Message: "order shipped", Reference: "order-7"}

			_, err := c.SMS.Send(context.Background(), p)
			require.ErrorIs(t, err, sms.ErrOutcomeUnknown)
			assert.Contains(t, err.Error(), `Reference "order-7"`, "the error names the reference to repeat the send with")
			assert.Contains(t, err.Error(), "WithReferenceDeduplication")
			assert.Equal(t, 1, requestsTo(srv, "POST", "/v1/sms/send"), "not retried")
			assert.Equal(t, 1, campaignTotal(t, c), "the dropped request was committed")
			assert.Equal(t, before-320, balance(t, srv))

			res, err := c.SMS.Send(context.Background(), p)
			require.NoError(t, err)
			assert.True(t, res.Replayed, "answered from the committed send")
			assert.Equal(t, 1, campaignTotal(t, c), "still one campaign")
			assert.Equal(t, before-320, balance(t, srv), "still one debit")
		})
	}
}

// Concurrent sends of one reference and body make one campaign, which every caller sees.
func TestSMSSendConcurrentDuplicatesSendOnce(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	c := newClient(t, srv)
	before := balance(t, srv)
	const n = 16
	ids := make(chan string, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			res, err := c.SMS.Send(context.Background(), &sms.SendParams{
				To: []string{"08025671695"}, From: "MOCKSMS", Message: "once", Reference: "order-42",
			})
			if err != nil {
				errs <- err
				return
			}
			ids <- res.Campaign.ID
		}()
	}
	seen := map[string]int{}
	for range n {
		select {
		case id := <-ids:
			seen[id]++
		case err := <-errs:
			t.Fatalf("send: %v", err)
		}
	}
	assert.Len(t, seen, 1, "every caller sees the same campaign: %v", seen)
	assert.Equal(t, 1, campaignTotal(t, c))
	assert.Equal(t, before-320, balance(t, srv))
}

var soakScale = flag.Int("soak", 1, "size multiplier of TestSMSSendExactlyOnceUnderFaults (1: 2,000 sends)")

// faultCounter counts what the client's attempts met.
type faultCounter struct {
	base     http.RoundTripper
	attempts atomic.Int64
	errors   atomic.Int64 // no response: dropped connections
	replays  atomic.Int64 // answers with Idempotent-Replayed: true
	status   sync.Map     // int -> *atomic.Int64
}

func (f *faultCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	f.attempts.Add(1)
	resp, err := f.base.RoundTrip(req)
	if err != nil {
		f.errors.Add(1)
		return nil, err
	}
	if resp.Header.Get("Idempotent-Replayed") == "true" {
		f.replays.Add(1)
	}
	n, _ := f.status.LoadOrStore(resp.StatusCode, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	return resp, nil
}

func (f *faultCounter) count(status int) int64 {
	n, ok := f.status.Load(status)
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}

// TestSMSSendExactlyOnceUnderFaults, a soak test, has 64 goroutines share one client and send
// thousands of messages (-soak=N for N times more) while the mock injects random 5xx, 429s,
// dropped connections and latency. Afterwards every message exists exactly once, with the ID
// its caller was given, and the wallet moved by exactly the sum of the amounts returned. A
// caller whose call still failed after the SDK's retries tries again with the same
// reference, as an application would.
func TestSMSSendExactlyOnceUnderFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test")
	}
	n := 2000 * *soakScale
	const workers = 64

	srv := mockserver.NewTest(t, mockserver.WithBalances(1<<40, 1<<40))
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = workers
	t.Cleanup(tr.CloseIdleConnections)
	counter := &faultCounter{base: tr}
	ws := srv.Default()
	c := newClientOf(t, srv, ws.LiveKey, ws.LiveSecret,
		sms.WithHTTPClient(&http.Client{Transport: counter, Timeout: 10 * time.Second}),
		sms.WithMaxRetries(4),
		sms.WithRetryWait(time.Millisecond, 10*time.Millisecond),
	)
	before, err := srv.Balance(ws.WorkspaceID, mockserver.ModeLive)
	require.NoError(t, err)

	const path = "/v1/sms/send"
	srv.AddFaults(
		mockserver.FaultRule{Method: "POST", Path: path, Status: 503, Probability: 0.08},
		mockserver.FaultRule{Method: "POST", Path: path, Status: 500, Probability: 0.02},
		mockserver.FaultRule{Method: "POST", Path: path, Status: 429, RetryAfter: 1, Probability: 0.02},
		mockserver.FaultRule{Method: "POST", Path: path, Drop: true, Probability: 0.05},
		mockserver.FaultRule{Method: "POST", Path: path, Latency: 2 * time.Millisecond, Probability: 0.05},
	)

	type result struct {
		id     string
		amount int64
	}
	results := make([]result, n)
	var callerRetries atomic.Int64
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				p := &sms.SendParams{
					To:        soakNumbers(i),
					From:      "MOCKSMS",
					Message:   strings.Repeat("soak ", 1+i%70), // 1 to 3 parts
					Reference: fmt.Sprintf("soak-%d", i),
				}
				for try := 0; ; try++ {
					res, err := c.SMS.Send(context.Background(), p)
					if err == nil {
						results[i] = result{res.Campaign.ID, res.Campaign.Amount.Kobo()}
						break
					}
					if try == 20 {
						t.Errorf("send %d still failing after %d calls: %v", i, try+1, err)
						return
					}
					callerRetries.Add(1)
				}
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	srv.ClearFaults()
	require.False(t, t.Failed())

	// Every reference exists exactly once, with the campaign ID its caller saw.
	byRef := make(map[string]sms.Campaign, n)
	duplicates := 0
	for camp, err := range c.Campaigns.All(context.Background(), nil) {
		require.NoError(t, err)
		if _, dup := byRef[camp.Reference]; dup {
			duplicates++
		}
		byRef[camp.Reference] = camp
	}
	var sum int64
	lost := 0
	for i, r := range results {
		camp, ok := byRef[fmt.Sprintf("soak-%d", i)]
		if !ok {
			lost++
			continue
		}
		assert.Equal(t, r.id, camp.ID, "send %d", i)
		assert.Equal(t, r.amount, camp.Amount.Kobo(), "send %d", i)
		sum += r.amount
	}
	after, err := srv.Balance(ws.WorkspaceID, mockserver.ModeLive)
	require.NoError(t, err)

	assert.Equal(t, 0, duplicates, "duplicates")
	assert.Equal(t, 0, lost, "lost")
	assert.Len(t, byRef, n, "campaigns == distinct successful calls")
	assert.Equal(t, before-sum, after, "the wallet moved by exactly the sum of the returned amounts")
	t.Logf("soak: %d sends by %d goroutines, %d attempts; injected: %d x 503, %d x 500, %d x 429, %d dropped; "+
		"%d replays, %d caller retries; duplicates %d, lost %d; wallet moved %s NGN",
		n, workers, counter.attempts.Load(), counter.count(503), counter.count(500), counter.count(429),
		counter.errors.Load(), counter.replays.Load(), callerRetries.Load(), duplicates, lost, sms.AmountFromKobo(before-after))
}

// soakNumbers gives send i one to three distinct recipients.
func soakNumbers(i int) []string {
	out := make([]string, 1+i%3)
	for k := range out {
		out[k] = fmt.Sprintf("23480%08d", (i*3+k)%100_000_000)
	}
	return out
}
