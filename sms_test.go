package sms_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
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
	client := testClient(t, srv)
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
	assert.Equal(t, sms.StatusSent, c.Status)
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
	res, err := testClient(t, srv).SMS.Send(context.Background(), &sms.SendParams{
		To: []string{"2348025671695"}, From: srv.Default().SenderID, Message: "hi", Channel: sms.ChannelDND,
	})
	require.NoError(t, err)
	assert.Equal(t, sms.ChannelDND, res.Campaign.Channel)
	assert.Equal(t, sms.AmountFromKobo(450), res.Campaign.Amount)
}

func TestSMSSendReference(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := testClient(t, srv)
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

	res, err := testClient(t, srv).SMS.Send(context.Background(), &sms.SendParams{
		To: []string{"2348025671695"}, From: srv.Default().SenderID, Message: "hi",
	})
	require.NoError(t, err)
	assert.Equal(t, sms.StatusFailed, res.Campaign.Status)
	assert.Empty(t, res.Campaign.MessageID)
	assert.Equal(t, sms.Amount{}, res.Campaign.Amount)
	assert.Equal(t, before, balance(t, srv), "refunded")
}

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
		{"dropped after processing", mockserver.FaultRule{Drop: true, Times: 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// In a bubble: the 429's Retry-After of 1 s takes no wall time.
			synctest.Test(t, func(t *testing.T) {
				srv := mockserver.New()
				before := balance(t, srv)
				tt.fault.Method, tt.fault.Path = "POST", "/v1/sms/send"
				srv.AddFaults(tt.fault)
				rec := &recorder{base: apitest.Transport(t, srv.Transport(), true)}
				ws := srv.Default()
				c, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL("http://127.0.0.1"), sms.WithHTTPClient(&http.Client{Transport: rec}),
					sms.WithReferenceDeduplication()) // the mock deduplicates references
				require.NoError(t, err)
				res, err := c.SMS.Send(context.Background(), &sms.SendParams{
					To: []string{"2348025671695"}, From: srv.Default().SenderID, Message: "hi",
				})
				require.NoError(t, err)
				assert.Equal(t, tt.replayed, res.Replayed)
				assert.Equal(t, before-320, balance(t, srv), "sent and charged once")

				var refs []string
				for _, body := range rec.sent() {
					var b struct{ Reference string }
					require.NoError(t, json.Unmarshal([]byte(body), &b))
					refs = append(refs, b.Reference)
				}
				want := max(tt.fault.Times, 1) + 1
				require.Len(t, refs, want)
				for _, r := range refs {
					assert.Equal(t, res.Campaign.Reference, r, "every attempt carries the same reference")
				}
			})
		})
	}
}

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
			return send(testClient(t, srv), "NOTMINE")
		}, sms.ErrBadRequest, 400, "bad_request", false},
		{"401 wrong secret", func(t *testing.T, srv *mockserver.Server) error {
			c, err := sms.NewClient(srv.Default().TestKey, "sk_test_wrong", clientOpts(t, srv)...)
			require.NoError(t, err)
			return send(c, srv.Default().SenderID)
		}, sms.ErrUnauthorized, 401, "unauthorized", false},
		{"402 empty wallet", func(t *testing.T, srv *mockserver.Server) error {
			require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.Test, 319))
			return send(testClient(t, srv), srv.Default().SenderID)
		}, sms.ErrInsufficientBalance, 402, "insufficient_balance", false},
		{"403 scope", func(t *testing.T, srv *mockserver.Server) error {
			return send(scopedClient(t, srv, sms.ScopeOTP), srv.Default().SenderID)
		}, sms.ErrInsufficientScope, 403, "insufficient_scope", false},
		{"429 after retries", func(t *testing.T, srv *mockserver.Server) error {
			srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 429, RetryAfter: 7})
			return send(testClient(t, srv), srv.Default().SenderID)
		}, sms.ErrRateLimited, 429, "rate_limited", false},
		{"503 after retries", func(t *testing.T, srv *mockserver.Server) error {
			srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 503})
			return send(testClient(t, srv, sms.WithReferenceDeduplication()), srv.Default().SenderID)
		}, sms.ErrServer, 503, "server_error", true},
		{"503 not retried by default", func(t *testing.T, srv *mockserver.Server) error {
			srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 503})
			return send(testClient(t, srv), srv.Default().SenderID)
		}, sms.ErrServer, 503, "server_error", true},
		{"501 is not retried", func(t *testing.T, srv *mockserver.Server) error {
			srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 501})
			return send(testClient(t, srv), srv.Default().SenderID)
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
	_, err := testClient(t, srv).SMS.Send(context.Background(), &sms.SendParams{
		To: []string{"2348025671695"}, From: "NOTMINE", Message: "hi",
	})
	e := asAPIError(t, err)
	assert.Equal(t, "from", e.Field)
	assert.Contains(t, err.Error(), "400 bad_request")
	assert.Contains(t, err.Error(), e.RequestID)

	srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 429, RetryAfter: 7})
	_, err = testClient(t, srv, sms.WithMaxRetries(0)).SMS.Send(context.Background(), &sms.SendParams{
		To: []string{"2348025671695"}, From: srv.Default().SenderID, Message: "hi",
	})
	assert.Equal(t, 7*time.Second, asAPIError(t, err).RetryAfter)
	assert.Equal(t, 1, requestsTo(srv, "POST", "/v1/sms/send")-1, "WithMaxRetries(0): one attempt")
}
