package sms_test

import (
	"context"
	"errors"
	"net/http"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

// recordAttempts returns a context whose trace appends every attempt to the slice returned.
func recordAttempts(ctx context.Context) (context.Context, *[]sms.Attempt) {
	var got []sms.Attempt
	return sms.ContextWithTrace(ctx, &sms.Trace{Attempt: func(a sms.Attempt) { got = append(got, a) }}), &got
}

// A trace sees every attempt of a call, answered or not, with the typed error the call would
// return for it, and whether the server may have processed it: what a tool over the client
// (package bulk's 429 pause, its replay rule) decides on.
func TestTraceSeesEveryAttempt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: []step{{err: dropped}, apiErrorStep(503, "server_error", nil), apiErrorStep(429, "rate_limited", retryAfter("2")), sentOK}}
		c := newClientFor(t, s, sms.WithReferenceDeduplication())
		ctx, got := recordAttempts(context.Background())
		res, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "08025671695"}}, From: "ACME", Message: "hi"})
		require.NoError(t, err)
		assert.False(t, res.Replayed)
		require.Len(t, *got, 4, "one report per attempt")
		for i, a := range *got {
			assert.Equal(t, i+1, a.Number)
			assert.Equal(t, "POST /v1/sms/campaigns", a.Op)
		}
		a := (*got)[0]
		assert.Zero(t, a.StatusCode, "no answer")
		assert.ErrorIs(t, a.Err, syscall.ECONNRESET)
		assert.True(t, a.MaybeProcessed, "a dropped connection may have been processed")

		a = (*got)[1]
		assert.Equal(t, 503, a.StatusCode)
		assert.ErrorIs(t, a.Err, sms.ErrServer)
		assert.True(t, a.MaybeProcessed, "a 503 may have been processed")

		a = (*got)[2]
		assert.Equal(t, 429, a.StatusCode)
		var e *sms.Error
		require.ErrorAs(t, a.Err, &e)
		assert.Equal(t, 2*time.Second, e.RetryAfter, "the wait the answer asked for")
		assert.False(t, a.MaybeProcessed, "a 429 was refused")

		a = (*got)[3]
		assert.Equal(t, 202, a.StatusCode)
		assert.NoError(t, a.Err)
		assert.False(t, a.MaybeProcessed)
	})
}

// A read is never reported as maybe processed; a context without a trace, a trace without
// its function, and a trace removed again report nothing.
func TestTraceOfReadsAndOfNoTrace(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: []step{{err: dropped}, apiErrorStep(503, "server_error", nil), balanceOK}}
		c := newClientFor(t, s)
		ctx, got := recordAttempts(context.Background())
		_, err := c.Balance.Get(ctx, nil)
		require.NoError(t, err)
		require.Len(t, *got, 3)
		for _, a := range *got {
			assert.Equal(t, "GET /v1/balance", a.Op)
			assert.False(t, a.MaybeProcessed, "a GET changes nothing")
		}

		for _, ctx := range []context.Context{
			context.Background(),
			sms.ContextWithTrace(context.Background(), &sms.Trace{}),
			sms.ContextWithTrace(ctx, nil),
		} {
			n := len(*got)
			_, err := c.Balance.Get(ctx, nil)
			require.NoError(t, err)
			assert.Len(t, *got, n, "nothing reported")
		}
	})
}

// The error a trace is given is redacted as the call's: an answer that repeats the client's
// secret does not hand it to the trace.
func TestTraceErrorRedacted(t *testing.T) {
	t.Parallel()
	body := `{"error":{"code":"unauthorized","message":"bad secret ` + fakeSecret + `"}}`
	c := newClientFor(t, &answer{status: http.StatusUnauthorized, body: []byte(body)})
	ctx, got := recordAttempts(context.Background())
	_, err := c.Balance.Get(ctx, nil)
	require.Error(t, err)
	require.Len(t, *got, 1)
	require.ErrorIs(t, (*got)[0].Err, sms.ErrUnauthorized)
	assert.NotContains(t, (*got)[0].Err.Error(), fakeSecret)
	var e *sms.Error
	require.True(t, errors.As((*got)[0].Err, &e))
	assert.NotContains(t, e.Message, fakeSecret)
}

// What a tool over the client reads of its retries: whether references are deduplicated, and
// the longest a call may take, every attempt at the HTTP client's timeout and every wait.
func TestClientRetrySettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    []sms.Option
		dedup   bool
		longest time.Duration
	}{
		{"defaults", nil, false, 4*30*time.Second + 3*30*time.Second},
		{"deduplicating", []sms.Option{sms.WithReferenceDeduplication()}, true, 4*30*time.Second + 3*30*time.Second},
		{"no retries", []sms.Option{sms.WithMaxRetries(0)}, false, sms.DefaultTimeout},
		{"one retry, short waits", []sms.Option{sms.WithMaxRetries(1), sms.WithHTTPClient(&http.Client{Timeout: 10 * time.Second}), sms.WithRetryWait(time.Millisecond, 2*time.Second)}, false, 2*10*time.Second + 2*time.Second},
		{"an HTTP client without a timeout", []sms.Option{sms.WithHTTPClient(&http.Client{}), sms.WithMaxRetries(0)}, false, 10 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := sms.NewClient(fakeKey, fakeSecret, append([]sms.Option{sms.WithBaseURL(inProcessBase)}, tt.opts...)...)
			require.NoError(t, err)
			assert.Equal(t, tt.dedup, c.ReferenceDeduplication())
			assert.Equal(t, tt.longest, c.MaxCallDuration())
		})
	}
}
