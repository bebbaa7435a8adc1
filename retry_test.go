package sms_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header func() http.Header // built inside the bubble, for HTTP dates
		status int
		wait   time.Duration
	}{
		{"429 seconds", func() http.Header { return retryAfter("2") }, 429, 2 * time.Second},
		{"503 seconds", func() http.Header { return retryAfter("4") }, 503, 4 * time.Second},
		{"429 HTTP date", func() http.Header { return retryAfter(time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)) }, 429, 3 * time.Second},
		{"date in the past", func() http.Header { return retryAfter("Sat, 01 Jan 1994 00:00:00 GMT") }, 429, 0},
		{"equal to the maximum wait", func() http.Header { return retryAfter("10") }, 429, 10 * time.Second},
		{"invalid header: backoff", func() http.Header { return retryAfter("soon") }, 503, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s := &script{steps: []step{apiErrorStep(tt.status, "x", tt.header()), balanceOK}}
				c := newClientFor(t, s, sms.WithRetryWait(time.Second, 10*time.Second))
				start := time.Now()
				require.NoError(t, getBalance(c))
				n, waits := s.attempts()
				assert.Equal(t, 2, n)
				assert.Equal(t, []time.Duration{tt.wait}, waits)
				assert.Equal(t, tt.wait, time.Since(start))
			})
		})
	}
}

func TestBackoffIsExponentialWithJitter(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: []step{apiErrorStep(503, "server_error", nil), apiErrorStep(503, "server_error", nil), apiErrorStep(503, "server_error", nil), balanceOK}}
		c := newClientFor(t, s, sms.WithRetryWait(time.Second, 3*time.Second))
		require.NoError(t, getBalance(c))
		n, waits := s.attempts()
		require.Equal(t, 4, n)
		assert.Equal(t, time.Second, waits[0], "the first wait is the minimum")
		assert.GreaterOrEqual(t, waits[1], time.Second)
		assert.LessOrEqual(t, waits[1], 2*time.Second)
		assert.GreaterOrEqual(t, waits[2], time.Second)
		assert.LessOrEqual(t, waits[2], 3*time.Second, "capped by the maximum")
	})
}

func TestRetryDefaults(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: []step{apiErrorStep(503, "server_error", nil)}}
		c := newClientFor(t, s)
		start := time.Now()
		err := getBalance(c)
		n, _ := s.attempts()
		assert.Equal(t, 1+sms.DefaultMaxRetries, n)
		assert.LessOrEqual(t, time.Since(start), 7*time.Second, "waits of 1 s, up to 2 s and up to 4 s")
		e := asAPIError(t, err)
		assert.Equal(t, 503, e.StatusCode)
		assert.Equal(t, "server_error", e.Code)
		assert.Equal(t, "m", e.Message)
		assert.Equal(t, "req_body", e.RequestID)
		assert.NotContains(t, err.Error(), "giving up")
	})
}

func TestFinalErrorIsTheLastResponse(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: []step{
			apiErrorStep(503, "server_error", nil), apiErrorStep(502, "server_error", nil),
			apiErrorStep(500, "server_error", nil), {status: 429, header: retryAfter("1"), body: `{"error":{"code":"rate_limited","message":"slow down"}}`},
		}}
		c := newClientFor(t, s)
		err := getBalance(c)
		require.ErrorIs(t, err, sms.ErrRateLimited)
		e := asAPIError(t, err)
		assert.Equal(t, 429, e.StatusCode)
		assert.Equal(t, "slow down", e.Message)
		assert.Equal(t, "req_4", e.RequestID, "from X-Request-Id when the body has none")
		assert.Equal(t, time.Second, e.RetryAfter)
	})
}

func TestMaxRetriesZero(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: []step{apiErrorStep(503, "server_error", nil), balanceOK}}
		require.ErrorIs(t, getBalance(newClientFor(t, s, sms.WithMaxRetries(0))), sms.ErrServer)
		n, _ := s.attempts()
		assert.Equal(t, 1, n)
	})
}

func TestCancelDuringWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: []step{apiErrorStep(429, "rate_limited", retryAfter("60")), balanceOK}}
		c := newClientFor(t, s, sms.WithRetryWait(time.Second, 2*time.Minute))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(5*time.Second, cancel)
		start := time.Now()
		_, err := c.Balance.Get(ctx)
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 5*time.Second, time.Since(start), "the wait ends at once")
		n, _ := s.attempts()
		assert.Equal(t, 1, n)
	})
}

func TestDeadlineDuringWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: []step{apiErrorStep(503, "server_error", retryAfter("30")), sentOK}}
		c := newClientFor(t, s, sms.WithRetryWait(time.Second, time.Minute), sms.WithReferenceDeduplication())
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		_, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"2348025671695"}, From: "ACME", Message: "hi"})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorIs(t, err, sms.ErrServer, "the reason for the retry is kept")
		assert.True(t, errors.Is(err, sms.ErrOutcomeUnknown), "a 503 may have been processed")
		assert.Equal(t, 2*time.Second, time.Since(start))
	})
}

func TestRetryPolicyByCall(t *testing.T) {
	t.Parallel()
	type callFunc func(*sms.Client) error
	tests := []struct {
		name     string
		call     callFunc
		steps    []step
		attempts int
		target   error // nil: success
		unknown  bool
		dedup    bool // the client is told the server deduplicates references
	}{
		{"GET: 500", getBalance, []step{apiErrorStep(500, "server_error", nil), balanceOK}, 2, nil, false, false},
		{"GET: 502", getBalance, []step{apiErrorStep(502, "server_error", nil), balanceOK}, 2, nil, false, false},
		{"GET: 504", getBalance, []step{apiErrorStep(504, "server_error", nil), balanceOK}, 2, nil, false, false},
		{"GET: 429", getBalance, []step{apiErrorStep(429, "rate_limited", nil), balanceOK}, 2, nil, false, false},
		{"GET: connection refused", getBalance, []step{{err: refused}, balanceOK}, 2, nil, false, false},
		{"GET: connection reset", getBalance, []step{{err: dropped}, balanceOK}, 2, nil, false, false},
		{"GET: body cut short", getBalance, []step{{status: 200, body: `{"data":`, cut: io.ErrUnexpectedEOF}, balanceOK}, 2, nil, false, false},
		{"GET: 501 is final", getBalance, []step{apiErrorStep(501, "server_error", nil)}, 1, sms.ErrServer, false, false},
		{"GET: 505 is final", getBalance, []step{apiErrorStep(505, "server_error", nil)}, 1, sms.ErrServer, false, false},
		{"GET: 400 is final", getBalance, []step{apiErrorStep(400, "bad_request", nil)}, 1, sms.ErrBadRequest, false, false},
		{"GET: 401 is final", getBalance, []step{apiErrorStep(401, "unauthorized", nil)}, 1, sms.ErrUnauthorized, false, false},
		{"GET: 404 is final", getBalance, []step{apiErrorStep(404, "not_found", nil)}, 1, sms.ErrNotFound, false, false},
		{"GET: always reset", getBalance, []step{{err: dropped}}, 4, syscall.ECONNRESET, false, false},

		// By default, a send is retried only when it cannot have been processed.
		{"send: 503 is final", sendSMS, []step{apiErrorStep(503, "server_error", nil), sentOK}, 1, sms.ErrServer, true, false},
		{"send: 500 is final", sendSMS, []step{apiErrorStep(500, "server_error", nil), sentOK}, 1, sms.ErrServer, true, false},
		{"send: 501 is final, not ambiguous", sendSMS, []step{apiErrorStep(501, "server_error", nil), sentOK}, 1, sms.ErrServer, false, false},
		{"send: reset after sending is final", sendSMS, []step{{err: dropped}, sentOK}, 1, sms.ErrOutcomeUnknown, true, false},
		{"send: EOF is final", sendSMS, []step{{err: io.EOF}, sentOK}, 1, sms.ErrOutcomeUnknown, true, false},
		{"send: 429", sendSMS, []step{apiErrorStep(429, "rate_limited", nil), sentOK}, 2, nil, false, false},
		{"send: connection refused", sendSMS, []step{{err: refused}, sentOK}, 2, nil, false, false},
		{"send: 409 is final", sendSMS, []step{apiErrorStep(409, "conflict", nil)}, 1, sms.ErrConflict, false, false},
		{"send: 402 is final", sendSMS, []step{apiErrorStep(402, "insufficient_balance", nil)}, 1, sms.ErrInsufficientBalance, false, false},
		{"send: always refused", sendSMS, []step{{err: refused}}, 4, syscall.ECONNREFUSED, false, false},

		// With WithReferenceDeduplication, ambiguous failures are retried too.
		{"dedup send: 503", sendSMS, []step{apiErrorStep(503, "server_error", nil), sentOK}, 2, nil, false, true},
		{"dedup send: reset after sending", sendSMS, []step{{err: dropped}, sentOK}, 2, nil, false, true},
		{"dedup send: EOF", sendSMS, []step{{err: io.EOF}, sentOK}, 2, nil, false, true},
		{"dedup send: 409 is final", sendSMS, []step{apiErrorStep(409, "conflict", nil)}, 1, sms.ErrConflict, false, true},
		{"dedup send: always reset", sendSMS, []step{{err: dropped}}, 4, sms.ErrOutcomeUnknown, true, true},
		{"dedup send: reset, then 503s", sendSMS, []step{{err: dropped}, apiErrorStep(503, "server_error", nil)}, 4, sms.ErrServer, true, true},
		{"dedup send: always refused", sendSMS, []step{{err: refused}}, 4, syscall.ECONNREFUSED, false, true},

		{"OTP: 503 is final", sendOTPOffline, []step{apiErrorStep(503, "server_error", nil), otpOK}, 1, sms.ErrServer, true, false},
		{"OTP: 500 is final", sendOTPOffline, []step{apiErrorStep(500, "server_error", nil), otpOK}, 1, sms.ErrServer, true, false},
		{"OTP: 503 is final, even with dedup", sendOTPOffline, []step{apiErrorStep(503, "server_error", nil), otpOK}, 1, sms.ErrServer, true, true},
		{"OTP: 429", sendOTPOffline, []step{apiErrorStep(429, "rate_limited", nil), otpOK}, 2, nil, false, false},
		{"OTP: connection refused", sendOTPOffline, []step{{err: refused}, otpOK}, 2, nil, false, false},
		{"OTP: DNS failure", sendOTPOffline, []step{{err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x"}}}, otpOK}, 2, nil, false, false},
		{"OTP: reset after sending", sendOTPOffline, []step{{err: dropped}, otpOK}, 1, sms.ErrOutcomeUnknown, true, false},
		{"OTP: EOF", sendOTPOffline, []step{{err: io.EOF}, otpOK}, 1, sms.ErrOutcomeUnknown, true, false},
		{"OTP: timeout", sendOTPOffline, []step{{err: &net.OpError{Op: "read", Err: timeoutErr{}}}, otpOK}, 1, sms.ErrOutcomeUnknown, true, false},
		{"OTP: body cut short", sendOTPOffline, []step{{status: 200, body: `{"data":`, cut: io.ErrUnexpectedEOF}, otpOK}, 1, sms.ErrOutcomeUnknown, true, false},
		{"OTP: always refused", sendOTPOffline, []step{{err: refused}}, 4, syscall.ECONNREFUSED, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s := &script{steps: tt.steps}
				var opts []sms.Option
				if tt.dedup {
					opts = append(opts, sms.WithReferenceDeduplication())
				}
				err := tt.call(newClientFor(t, s, opts...))
				n, _ := s.attempts()
				assert.Equal(t, tt.attempts, n, "attempts")
				if tt.target == nil {
					require.NoError(t, err)
					return
				}
				require.ErrorIs(t, err, tt.target)
				assert.Equal(t, tt.unknown, errors.Is(err, sms.ErrOutcomeUnknown), "%v", err)
				assert.NotContains(t, err.Error(), "giving up")
			})
		})
	}
}

func TestSendRetriesCarryOneReference(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: []step{{err: dropped}, apiErrorStep(503, "server_error", nil), sentOK}}
		res, err := newClientFor(t, s, sms.WithReferenceDeduplication()).Campaigns.Create(context.Background(), &sms.CreateCampaignParams{
			To: []sms.Recipient{{Phone: "2348025671695"}}, From: "ACME", Message: "hi",
		})
		require.NoError(t, err)
		require.Len(t, s.bodies, 3)
		assert.Contains(t, s.bodies[0], `"reference":"`+res.Campaign.Reference+`"`)
		assert.Equal(t, s.bodies[0], s.bodies[1])
		assert.Equal(t, s.bodies[0], s.bodies[2])
	})
}
