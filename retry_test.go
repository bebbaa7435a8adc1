package sms_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

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
		// Without Retry-After, the end of the rate-limit window: never a wait of 0.
		{"429 X-RateLimit-Reset in seconds", func() http.Header { return http.Header{"X-Ratelimit-Reset": {"2"}} }, 429, 2 * time.Second},
		{"429 X-RateLimit-Reset a Unix time", func() http.Header {
			h := quota(60, 0)
			h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(3*time.Second).Unix(), 10))
			return h
		}, 429, 3 * time.Second},
		{"429 X-RateLimit-Reset in Unix milliseconds", func() http.Header {
			return http.Header{"X-Ratelimit-Reset": {strconv.FormatInt(time.Now().Add(5*time.Second).UnixMilli(), 10)}}
		}, 429, 5 * time.Second},
		{"429 RateLimit-Reset", func() http.Header {
			return http.Header{"Ratelimit-Limit": {"10"}, "Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"4"}}
		}, 429, 4 * time.Second},
		{"429 IETF RateLimit r and t", func() http.Header {
			return http.Header{"Ratelimit": {`"default";r=0;t=6`}, "Ratelimit-Policy": {`"default";q=10;w=60`}}
		}, 429, 6 * time.Second},
		{"429 IETF RateLimit reset", func() http.Header { return http.Header{"Ratelimit": {"limit=10, remaining=0, reset=7"}} }, 429, 7 * time.Second},
		{"503 with quota left: its window is no wait", func() http.Header {
			h := quota(60, 5)
			h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(9*time.Second).Unix(), 10))
			return h
		}, 503, time.Second},
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

// A Retry-After beyond the maximum wait (a locked pin asks for 600 s) returns the error at
// once, with its RetryAfter, instead of waiting the maximum three times.
func TestRetryAfterBeyondMaxWait(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		call   func(*sms.Client) error
		step   step
		target error
		after  time.Duration
		max    time.Duration // the client's maximum wait (0: the default, 30 s)
	}{
		{"OTP send limit", sendOTPOffline, apiErrorStep(429, "rate_limited", retryAfter("600")), sms.ErrRateLimited, 10 * time.Minute, 0},
		{"GET 429", getBalance, apiErrorStep(429, "rate_limited", retryAfter("31")), sms.ErrRateLimited, 31 * time.Second, 0},
		{"send 429", sendSMS, apiErrorStep(429, "rate_limited", retryAfter("3600")), sms.ErrRateLimited, time.Hour, 0},
		{"GET 503", getBalance, apiErrorStep(503, "server_error", retryAfter("120")), sms.ErrServer, 2 * time.Minute, 0},
		{"HTTP date", getBalance, apiErrorStep(429, "rate_limited", retryAfter("Fri, 01 Jan 2100 00:00:00 GMT")), sms.ErrRateLimited, 0, 0},
		{"GET 429 beyond WithRetryWait's maximum", getBalance, apiErrorStep(429, "rate_limited", retryAfter("6")), sms.ErrRateLimited, 6 * time.Second, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s := &script{steps: []step{tt.step, balanceOK}}
				var opts []sms.Option // default waits: at most 30 s
				if tt.max != 0 {
					opts = append(opts, sms.WithRetryWait(100*time.Millisecond, tt.max))
				}
				start := time.Now()
				err := tt.call(newClientFor(t, s, opts...))
				require.ErrorIs(t, err, tt.target)
				assert.Zero(t, time.Since(start), "no wait")
				n, _ := s.attempts()
				assert.Equal(t, 1, n, "not retried")
				e := asAPIError(t, err)
				if tt.after != 0 {
					assert.Equal(t, tt.after, e.RetryAfter)
				} else {
					assert.Greater(t, e.RetryAfter, sms.DefaultRetryWaitMax)
				}
				assert.NotErrorIs(t, err, sms.ErrOutcomeUnknown, "refused before processing")
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

func TestMaxRetriesZero(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: []step{apiErrorStep(503, "server_error", nil), balanceOK}}
		require.ErrorIs(t, getBalance(newClientFor(t, s, sms.WithMaxRetries(0))), sms.ErrServer)
		n, _ := s.attempts()
		assert.Equal(t, 1, n)
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

// When the caller's context ends during a retry wait, for a Retry-After or a backoff, the call
// returns at once, after one attempt, with an error that matches both the context's error
// and the reason for the retry.
func TestContextEndsDuringRetryWait(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		call    func(context.Context, *sms.Client) error
		step    step
		cancel  bool // cancel; otherwise a deadline
		ctxErr  error
		last    error
		unknown bool
	}{
		{"GET 429, cancelled", func(ctx context.Context, c *sms.Client) error { _, err := c.Balance.Get(ctx, nil); return err },
			apiErrorStep(429, "rate_limited", retryAfter("20")), true, context.Canceled, sms.ErrRateLimited, false},
		{"GET 503, deadline", func(ctx context.Context, c *sms.Client) error { _, err := c.Balance.Get(ctx, nil); return err },
			apiErrorStep(503, "server_error", retryAfter("20")), false, context.DeadlineExceeded, sms.ErrServer, false},
		{"send 503, deadline", func(ctx context.Context, c *sms.Client) error {
			_, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"2348025671695"}, From: "ACME", Message: "hi"})
			return err
		}, apiErrorStep(503, "server_error", retryAfter("20")), false, context.DeadlineExceeded, sms.ErrServer, true},
		{"OTP 429, cancelled", func(ctx context.Context, c *sms.Client) error {
			_, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: "2348025671695", From: "ACME", Message: "< 1234 >"})
			return err
		}, apiErrorStep(429, "rate_limited", retryAfter("20")), true, context.Canceled, sms.ErrRateLimited, false},
		{"GET 503 backoff, cancelled", func(ctx context.Context, c *sms.Client) error { _, err := c.Balance.Get(ctx, nil); return err },
			apiErrorStep(503, "server_error", nil), true, context.Canceled, sms.ErrServer, false},
		{"GET reset, cancelled", func(ctx context.Context, c *sms.Client) error { _, err := c.Balance.Get(ctx, nil); return err },
			step{err: dropped}, true, context.Canceled, syscall.ECONNRESET, false},
		{"send reset, deadline", func(ctx context.Context, c *sms.Client) error {
			_, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"2348025671695"}, From: "ACME", Message: "hi"})
			return err
		}, step{err: dropped}, false, context.DeadlineExceeded, syscall.ECONNRESET, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s := &script{steps: []step{tt.step, balanceOK}}
				// The sends are retried after a 503 or a reset only when the server deduplicates.
				c := newClientFor(t, s, sms.WithRetryWait(20*time.Second, 30*time.Second), sms.WithReferenceDeduplication())
				end := 5 * time.Second // the deadline
				ctx, cancel := context.WithTimeout(context.Background(), end)
				defer cancel()
				if tt.cancel {
					end = 3 * time.Second
					time.AfterFunc(end, cancel)
				}
				start := time.Now()
				err := tt.call(ctx, c)
				require.Error(t, err)
				assert.Equal(t, end, time.Since(start), "the wait (20 s at least) ended with the context, at once")
				assert.ErrorIs(t, err, tt.ctxErr)
				assert.ErrorIs(t, err, tt.last, "the reason for the retry is kept")
				assert.Equal(t, tt.unknown, errors.Is(err, sms.ErrOutcomeUnknown))
				n, _ := s.attempts()
				assert.Equal(t, 1, n)
			})
		})
	}
}

// badRecordServer is a TLS server that completes the handshake, reads one request per
// connection, counts it, and then answers with bytes that are not a TLS record, as a broken
// middlebox or an on-path attacker might: the client fails with a tls.RecordHeaderError after
// its request was written and read.
type badRecordServer struct {
	atOnce bool // answer the garbage before the handshake, instead of after a request
	url    string
	client *http.Client // trusts the server's certificate
	n      atomic.Int32 // requests read
}

func newBadRecordServer(t *testing.T, atOnce bool) *badRecordServer {
	t.Helper()
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.StartTLS() // for its certificate and a client that trusts it
	t.Cleanup(ts.Close)
	cfg := ts.TLS.Clone()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &badRecordServer{atOnce: atOnce, url: "https://" + ln.Addr().String(), client: ts.Client()}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			raw, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer raw.Close()
				_ = raw.SetDeadline(time.Now().Add(10 * time.Second))
				if s.atOnce {
					s.n.Add(1)
					_, _ = raw.Write(garbageRecord)
					return
				}
				req, err := http.ReadRequest(bufio.NewReader(tls.Server(raw, cfg)))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				s.n.Add(1)
				_, _ = raw.Write(garbageRecord)
			})
		}
	})
	return s
}

// garbageRecord is a record header whose version is no TLS version, and a few bytes.
var garbageRecord = []byte{0x17, 0x03, 0x09, 0x00, 0x04, 'o', 'o', 'p', 's'}

// neverTwiceCalls are the calls that must never run twice.
var neverTwiceCalls = []struct {
	name string
	call func(c *sms.Client, d *sms.DashboardClient) error
}{
	{"OTP.Send", func(c *sms.Client, _ *sms.DashboardClient) error {
		_, err := c.OTP.Send(context.Background(), &sms.SendOTPParams{To: "08025671695", From: "MOCKSMS", Message: "< 1234 >"})
		return err
	}},
	{"OTP.Verify", func(c *sms.Client, _ *sms.DashboardClient) error {
		_, err := c.OTP.Verify(context.Background(), &sms.VerifyOTPParams{PinID: "p1", Pin: "123456"})
		return err
	}},
	{"SenderIDs.Request", func(c *sms.Client, _ *sms.DashboardClient) error {
		_, err := c.SenderIDs.Request(context.Background(), &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "alerts", Company: "Acme"})
		return err
	}},
	{"Keys.Create", func(_ *sms.Client, d *sms.DashboardClient) error {
		_, err := d.Keys.Create(context.Background(), &sms.CreateKeyParams{Name: "ci", Scopes: sms.Scopes{sms.ScopeSMS}})
		return err
	}},
}

// clients returns a Client and a DashboardClient of s, with short retry waits.
func (s *badRecordServer) clients(t *testing.T) (*sms.Client, *sms.DashboardClient) {
	t.Helper()
	return newClientsFor(t, s.client.Transport, sms.WithBaseURL(s.url), sms.WithRetryWait(time.Millisecond, 2*time.Millisecond))
}

// A malformed TLS record after the request was written leaves the outcome unknown: the calls
// that must not run twice are sent once and fail with ErrOutcomeUnknown.
func TestNoRetryAfterBadTLSRecord(t *testing.T) {
	t.Parallel()
	for _, tt := range neverTwiceCalls {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newBadRecordServer(t, false)
			err := tt.call(s.clients(t))
			require.Error(t, err)
			var record tls.RecordHeaderError
			require.True(t, errors.As(err, &record), "the failure is the malformed record: %v", err)
			assert.ErrorIs(t, err, sms.ErrOutcomeUnknown)
			assert.Equal(t, int32(1), s.n.Load(), "exactly one request reached the server")
		})
	}
}

// A malformed TLS record during the handshake proves that no byte of the request was
// written: the same calls are retried, and the final error is not ErrOutcomeUnknown.
func TestBadTLSRecordInHandshakeIsRetried(t *testing.T) {
	t.Parallel()
	for _, tt := range neverTwiceCalls {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newBadRecordServer(t, true)
			err := tt.call(s.clients(t))
			require.Error(t, err)
			var record tls.RecordHeaderError
			require.True(t, errors.As(err, &record), "the failure is the malformed record: %v", err)
			assert.NotErrorIs(t, err, sms.ErrOutcomeUnknown)
			assert.Equal(t, int32(1+sms.DefaultMaxRetries), s.n.Load(), "every attempt was retried")
		})
	}
}

// bigBody is an error body of size bytes that counts how much of it was read.
type bigBody struct {
	size, read int64
	closed     atomic.Bool
}

func (b *bigBody) Read(p []byte) (int, error) {
	if b.read >= b.size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), b.size-b.read)
	for i := range n {
		p[i] = 'x'
	}
	b.read += n
	return int(n), nil
}

func (b *bigBody) Close() error { b.closed.Store(true); return nil }

func TestErrorBodyIsReadUpTo1MiB(t *testing.T) {
	t.Parallel()
	body := &bigBody{size: 8 << 20}
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 500, Header: http.Header{}, Body: body, Request: req}, nil
	})
	_, err := newClientFor(t, rt, sms.WithMaxRetries(0)).Balance.Get(context.Background(), nil)
	var e *sms.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 500, e.StatusCode)
	assert.Equal(t, "server_error", e.Code)
	assert.LessOrEqual(t, body.read, int64(sms.MaxErrorBody+1))
	assert.True(t, body.closed.Load())
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	var leaked atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Secret") != "" {
			leaked.Add(1)
		}
	}))
	t.Cleanup(elsewhere.Close)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirect.Close)

	c := newClientFor(t, redirect.Client().Transport, sms.WithBaseURL(redirect.URL))
	_, err := c.Balance.Get(context.Background(), nil)
	e := asAPIError(t, err)
	assert.Equal(t, http.StatusTemporaryRedirect, e.StatusCode)
	assert.Equal(t, int32(0), leaked.Load(), "the secret never reached the other host")
}

func TestLoggerNeverLogsSecrets(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	var logs syncBuffer
	client := newClient(t, srv, sms.WithLogger(debugLogger(&logs)), sms.WithReferenceDeduplication())
	srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/send", Status: 503, Times: 1})
	_, err := client.SMS.Send(context.Background(), &sms.SendParams{To: []string{"2348025671695"}, From: "MOCKSMS", Message: "secret text"})
	require.NoError(t, err)
	_, err = newDashboardClient(t, srv, sms.WithLogger(debugLogger(&logs))).Keys.List(context.Background(), nil)
	require.NoError(t, err)

	out := logs.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, "one line per attempt")
	assert.Contains(t, lines[0], `"status":503`)
	assert.Contains(t, lines[0], `"retry":true`)
	assert.Contains(t, lines[1], `"status":202`)
	assert.Contains(t, lines[1], `"retry":false`)
	for _, s := range []string{srv.Default().TestSecret, srv.Default().DashboardToken, "secret text", "2348025671695"} {
		assert.NotContains(t, out, s)
	}
}
