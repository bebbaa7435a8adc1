package sms_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// These tests prove the retry policy against the mock's injected faults: an SMS is never sent
// or charged twice because of a retry, and an OTP is never sent twice. The mock deduplicates
// references, so the proofs of retried sends tell the client so (WithReferenceDeduplication);
// without it, sends are not retried after an ambiguous failure.

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
