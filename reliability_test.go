package sms_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// These tests prove the retry policy against the mock's injected faults: an SMS is never sent
// or charged twice because of a retry, and an OTP is never sent twice. The mock deduplicates
// references, so the proofs of retried sends tell the client so (WithReferenceDeduplication);
// without it, sends are not retried after an ambiguous failure.

// transports are the two ways the proofs reach the mock: real loopback sockets, where a drop
// closes a TCP connection, and the in-process transport.
var transports = []string{"in-process", "loopback"}

// mockOver starts a mock and returns a client of its test key over transport.
func mockOver(t *testing.T, transport string, opts ...sms.Option) (*mockserver.Server, *sms.Client) {
	t.Helper()
	if transport == "loopback" {
		srv := mockserver.NewTest(t)
		return srv, newClient(t, srv, opts...)
	}
	srv := mockserver.New()
	return srv, newClient(t, srv, append([]sms.Option{sms.WithRetryWait(time.Millisecond, 5*time.Millisecond)}, opts...)...)
}

func TestProofServerErrorsThenSuccessSendOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := mockserver.New()
		c := newClient(t, srv, sms.WithReferenceDeduplication())
		before := balance(t, srv)
		srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/send", Status: 503, Times: 2})

		start := time.Now()
		res, err := c.SMS.Send(context.Background(), &sms.SendParams{To: []string{"08025671695"}, From: "MOCKSMS", Message: "hello"})
		require.NoError(t, err)
		assert.Less(t, time.Since(start), 10*time.Second, "backoff stays within its bounds")

		assert.Equal(t, 3, requestsTo(srv, "POST", "/v1/sms/send"), "two 503s, then the success")
		assert.Equal(t, 1, campaignTotal(t, c), "one campaign")
		assert.Equal(t, before-res.Campaign.Amount.Kobo(), balance(t, srv), "one debit")
		assert.Equal(t, int64(320), res.Campaign.Amount.Kobo())
	})
}

func TestProofDroppedAfterCommitReplays(t *testing.T) {
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
			require.Len(t, page.Campaigns, 1, "exactly one campaign")
			assert.Equal(t, page.Campaigns[0].ID, res.Campaign.ID, "the caller sees the committed campaign")
			assert.Equal(t, before-res.Campaign.Amount.Kobo(), balance(t, srv), "exactly one debit")
			assert.Equal(t, int64(2*320), res.Campaign.Amount.Kobo())
		})
	}
}

func TestProofCampaignDroppedAfterCommitReplays(t *testing.T) {
	t.Parallel()
	srv := mockserver.New()
	c := newClient(t, srv, sms.WithRetryWait(time.Millisecond, 5*time.Millisecond), sms.WithReferenceDeduplication())
	before := balance(t, srv)
	srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Drop: true, Times: 2})

	res, err := c.Campaigns.Create(context.Background(), &sms.CreateCampaignParams{
		To:      []sms.Recipient{{Phone: "08025671695", Name: "Ada"}, {Phone: "08025671696", Name: "Obi"}},
		From:    "MOCKSMS",
		Message: "Hi {{name}}",
	})
	require.NoError(t, err)
	assert.Equal(t, 3, requestsTo(srv, "POST", "/v1/sms/campaigns"))
	assert.Equal(t, 1, campaignTotal(t, c))
	assert.Equal(t, before-res.Campaign.Amount.Kobo(), balance(t, srv))
}

// Without WithReferenceDeduplication, a send whose connection dropped after the mock
// committed it is not retried: one request, one campaign, one debit, and an error matching
// ErrOutcomeUnknown that names the reference. Repeating the send with that reference (the
// mock deduplicates) returns the committed campaign without sending or charging again.
func TestProofDroppedSendIsNotRetriedByDefault(t *testing.T) {
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

// Without WithReferenceDeduplication, a 5xx to a send is not retried and may have been
// processed; a 429 or a refused connection, which prove nothing was processed, are retried.
func TestProofSendRetriedOnlyWhenUnprocessedByDefault(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := mockserver.New()
		c := newClient(t, srv)
		srv.AddFaults(
			mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Status: 429, RetryAfter: 1, Times: 1},
			mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Status: 502, Times: 1},
		)
		_, err := c.Campaigns.Create(context.Background(), &sms.CreateCampaignParams{
			To: []sms.Recipient{{Phone: "08025671695"}}, From: "MOCKSMS", Message: "hi", Reference: "spring",
		})
		require.ErrorIs(t, err, sms.ErrServer)
		assert.ErrorIs(t, err, sms.ErrOutcomeUnknown)
		assert.Contains(t, err.Error(), `Reference "spring"`)
		assert.Equal(t, 2, requestsTo(srv, "POST", "/v1/sms/campaigns"), "the 429 was retried, the 502 was not")
	})
}

func TestProofFinalFailureIsTheAPIError(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := mockserver.New()
		c := newClient(t, srv, sms.WithMaxRetries(2), sms.WithReferenceDeduplication())
		srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/send", Status: 503})
		before := balance(t, srv)

		_, err := c.SMS.Send(context.Background(), &sms.SendParams{To: []string{"08025671695"}, From: "MOCKSMS", Message: "x"})
		require.Error(t, err)
		var apiErr *sms.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 503, apiErr.StatusCode)
		assert.Equal(t, "server_error", apiErr.Code)
		assert.Equal(t, "Injected fault.", apiErr.Message)
		assert.NotEmpty(t, apiErr.RequestID)
		assert.ErrorIs(t, err, sms.ErrServer)
		assert.NotContains(t, err.Error(), "giving up")
		assert.Equal(t, 3, requestsTo(srv, "POST", "/v1/sms/send"))
		assert.Equal(t, before, balance(t, srv), "nothing charged")
	})
}

func TestProofOTPDroppedIsNotRetried(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			srv, c := mockOver(t, transport)
			before := balance(t, srv)
			srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/otp/send", Drop: true, Times: 1})

			_, err := c.OTP.Send(context.Background(), &sms.SendOTPParams{
				To: "08025671695", From: "MOCKSMS", MessageText: "Your code is < 1234 >",
			})
			require.Error(t, err)
			assert.ErrorIs(t, err, sms.ErrOutcomeUnknown)
			assert.Equal(t, 1, requestsTo(srv, "POST", "/v1/otp/send"), "not retried")
			pinID, pin, err := srv.LatestOTP("08025671695")
			require.NoError(t, err, "the OTP was sent once")
			assert.NotEmpty(t, pinID)
			assert.NotEmpty(t, pin)
			assert.Equal(t, before-320, balance(t, srv), "charged once")
		})
	}
}

func TestProofOTPRetriedOn429Only(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := mockserver.New()
		c := newClient(t, srv)
		srv.AddFaults(
			mockserver.FaultRule{Method: "POST", Path: "/v1/otp/send", Status: 429, RetryAfter: 1, Times: 1},
			mockserver.FaultRule{Method: "POST", Path: "/v1/otp/send", Status: 503, Times: 1},
		)
		_, err := c.OTP.Send(context.Background(), &sms.SendOTPParams{To: "08025671695", From: "MOCKSMS", MessageText: "< 1234 >"})
		require.Error(t, err)
		assert.ErrorIs(t, err, sms.ErrServer, "the 503 after the 429 is final")
		assert.ErrorIs(t, err, sms.ErrOutcomeUnknown, "a 503 may have been processed")
		assert.Equal(t, 2, requestsTo(srv, "POST", "/v1/otp/send"))
		_, _, err = srv.LatestOTP("08025671695")
		assert.Error(t, err, "no OTP was sent")
	})
}

func TestProofConcurrentDuplicatesSendOnce(t *testing.T) {
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

func ExampleSMSService_Send_idempotent() {
	srv := mockserver.New()
	ws := srv.Default()
	c, _ := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL("http://127.0.0.1"),
		sms.WithHTTPClient(&http.Client{Transport: srv.Transport()}))
	p := &sms.SendParams{To: []string{"08025671695"}, From: "MOCKSMS", Message: "Your order shipped", Reference: "order-1001"}
	first, _ := c.SMS.Send(context.Background(), p)
	again, _ := c.SMS.Send(context.Background(), p) // same reference, same body: replayed
	b, _ := c.Balance.Get(context.Background())
	fmt.Println(first.Campaign.ID == again.Campaign.ID, first.Campaign.Amount, b.Balance)
	// Output: true 3.20 9996.80
}
