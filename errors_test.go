package sms_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// Server text reaches error strings printable and bounded; the fields keep it whole.
func TestErrorStringIsPrintable(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("A", 900<<10)
	tests := []struct {
		name    string
		status  int
		body    string
		message string // the field, as sent
		want    string // the error string
	}{
		{"newlines", 400, `{"error":{"code":"bad_request","message":"one\ntwo\r\nFAKE: ok","field":"to\n[0]"},"requestId":"req_1"}`,
			"one\ntwo\r\nFAKE: ok", `sms: 400 bad_request: one\ntwo\r\nFAKE: ok (field to\n[0]) [request req_1]`},
		{"terminal escapes", 402, `{"error":{"code":"insufficient_balance\u001b[2J","message":"\u001b[31mred\u001b[0m"},"requestId":"req_\u001b]0;x\u0007"}`,
			"\x1b[31mred\x1b[0m", `sms: 402 insufficient_balance\x1b[2J: \x1b[31mred\x1b[0m [request req_\x1b]0;x\a]`},
		{"bidi override", 404, `{"error":{"code":"not_found","message":"abc\u202edef"},"requestId":"req_2"}`,
			"abc\u202edef", `sms: 404 not_found: abc\u202edef [request req_2]`},
		{"900 KB", 500, `{"error":{"code":"server_error","message":"` + huge + `"},"requestId":"req_3"}`,
			huge, `sms: 500 server_error: ` + huge[:200] + `… [request req_3]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newClientFor(t, &answer{status: tt.status, body: []byte(tt.body)}, sms.WithMaxRetries(0))
			_, err := c.Balance.Get(context.Background(), nil)
			require.Error(t, err)
			e := asAPIError(t, err)
			assert.Equal(t, tt.message, e.Message, "the field keeps the text")
			assert.Equal(t, tt.want, err.Error())
			checkErrorString(t, err.Error())
		})
	}
}

// TestEveryMethodErrorForms checks, for every method, the Go form of every error status the
// API answers: the *Error with status, code, message and request ID, the sentinel, and the
// *ScopeError of a 403.
func TestEveryMethodErrorForms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type env struct {
		client *sms.Client
		dash   *sms.DashboardClient
	}
	methods := []struct {
		name, method, path string
		scope              sms.Scope // the *ScopeError's Scope when the 403 names none
		call               func(e env) error
	}{
		{"SMS.Send", "POST", "/v1/sms/send", sms.ScopeSMS, func(e env) error {
			_, err := e.client.SMS.Send(ctx, &sms.SendParams{To: []string{"2348025671695"}, From: "MOCKSMS", Message: "hi"})
			return err
		}},
		{"Campaigns.Create", "POST", "/v1/sms/campaigns", sms.ScopeCampaigns, func(e env) error {
			_, err := e.client.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "2348025671695"}}, From: "MOCKSMS", Message: "hi"})
			return err
		}},
		{"Campaigns.List", "GET", "/v1/sms/campaigns", sms.ScopeCampaigns, func(e env) error {
			_, err := e.client.Campaigns.List(ctx, nil)
			return err
		}},
		{"Campaigns.All", "GET", "/v1/sms/campaigns", sms.ScopeCampaigns, func(e env) error {
			for _, err := range e.client.Campaigns.All(ctx, nil) {
				return err
			}
			return errors.New("no error yielded")
		}},
		{"Campaigns.Delivery", "GET", "/v1/sms/campaigns/*", sms.ScopeCampaigns, func(e env) error {
			_, err := e.client.Campaigns.Delivery(ctx, "0123456789abcdef01234567", nil)
			return err
		}},
		{"Campaigns.AllRecipients", "GET", "/v1/sms/campaigns/*", sms.ScopeCampaigns, func(e env) error {
			for _, err := range e.client.Campaigns.AllRecipients(ctx, "0123456789abcdef01234567", nil) {
				return err
			}
			return errors.New("no error yielded")
		}},
		{"OTP.Send", "POST", "/v1/otp/send", sms.ScopeOTP, func(e env) error {
			_, err := e.client.OTP.Send(ctx, &sms.SendOTPParams{To: "2348025671695", From: "MOCKSMS", Message: "< 1234 >"})
			return err
		}},
		{"OTP.Verify", "POST", "/v1/otp/verify", sms.ScopeOTP, func(e env) error {
			_, err := e.client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "p", Pin: "1234"})
			return err
		}},
		{"Balance.Get", "GET", "/v1/balance", sms.ScopeBalance, func(e env) error {
			_, err := e.client.Balance.Get(ctx, nil)
			return err
		}},
		{"SenderIDs.Request", "POST", "/v1/sender-ids", sms.ScopeSenderIDs, func(e env) error {
			_, err := e.client.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "u", Company: "c"})
			return err
		}},
		{"SenderIDs.List", "GET", "/v1/sender-ids", sms.ScopeSenderIDs, func(e env) error {
			_, err := e.client.SenderIDs.List(ctx, nil)
			return err
		}},
		{"Keys.Create", "POST", "/v1/keys", "", func(e env) error {
			_, err := e.dash.Keys.Create(ctx, &sms.CreateKeyParams{Name: "k", Scopes: sms.Scopes{sms.ScopeSMS}})
			return err
		}},
		{"Keys.List", "GET", "/v1/keys", "", func(e env) error {
			_, err := e.dash.Keys.List(ctx, nil)
			return err
		}},
		{"Keys.Revoke", "DELETE", "/v1/keys/*", "", func(e env) error {
			_, err := e.dash.Keys.Revoke(ctx, "0123456789abcdef01234567", nil)
			return err
		}},
	}
	statuses := []struct {
		status int
		code   string
		target error
	}{
		{http.StatusBadRequest, "bad_request", sms.ErrBadRequest},
		{http.StatusUnauthorized, "unauthorized", sms.ErrUnauthorized},
		{http.StatusPaymentRequired, "insufficient_balance", sms.ErrInsufficientBalance},
		{http.StatusForbidden, "insufficient_scope", sms.ErrInsufficientScope},
		{http.StatusNotFound, "not_found", sms.ErrNotFound},
		{http.StatusConflict, "conflict", sms.ErrConflict},
		{http.StatusTooManyRequests, "rate_limited", sms.ErrRateLimited},
		{http.StatusInternalServerError, "server_error", sms.ErrServer},
		{http.StatusServiceUnavailable, "server_error", sms.ErrServer},
	}
	for _, m := range methods {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			srv := mockserver.NewTest(t)
			e := env{client: newClient(t, srv, sms.WithMaxRetries(0)), dash: newDashboardClient(t, srv, sms.WithMaxRetries(0))}
			for _, st := range statuses {
				srv.AddFaults(mockserver.FaultRule{Method: m.method, Path: m.path, Status: st.status, Times: 1})
				err := m.call(e)
				require.ErrorIs(t, err, st.target, "%d", st.status)
				apiErr := asAPIError(t, err)
				assert.Equal(t, st.status, apiErr.StatusCode)
				assert.Equal(t, st.code, apiErr.Code)
				assert.Equal(t, "Injected fault.", apiErr.Message)
				assert.NotEmpty(t, apiErr.RequestID)
				var se *sms.ScopeError
				assert.Equal(t, st.status == http.StatusForbidden, errors.As(err, &se), "%d", st.status)
				if se != nil {
					assert.Equal(t, m.scope, se.Scope, "the injected 403 names no scope: the endpoint's")
				}
				if st.status == http.StatusTooManyRequests {
					assert.Positive(t, apiErr.RetryAfter)
				}
			}
		})
	}
}

// The live error sample is a typed error with every member of the body.
func TestLiveErrorSample(t *testing.T) {
	t.Parallel()
	a := &answer{status: 402, body: fixture(t, "error-insufficient-balance.json")}
	_, err := newClientFor(t, a, sms.WithMaxRetries(0)).SMS.Send(context.Background(), &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "Hi"})
	require.ErrorIs(t, err, sms.ErrInsufficientBalance)
	var e *sms.Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, &sms.Error{StatusCode: 402, Code: "insufficient_balance", Message: "Insufficient wallet balance.", RequestID: "req-123"}, e)
	assert.NotErrorIs(t, err, sms.ErrOutcomeUnknown, "a 402 sent and charged nothing")
	assert.Equal(t, "sms: 402 insufficient_balance: Insufficient wallet balance. [request req-123]", err.Error())
}

// Headers over the mock's 64 KiB are refused by net/http itself, in plain text: the SDK still
// returns a typed error with the status, as docs/api.md says.
func TestHeadersTooLargeIsATypedError(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	ws := srv.Default()
	c, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()),
		sms.WithUserAgent(strings.Repeat("a", 70<<10)), sms.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Balance.Get(context.Background(), nil)
	var e *sms.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, e.StatusCode)
	assert.Equal(t, "bad_request", e.Code)
	assert.ErrorIs(t, err, sms.ErrBadRequest)
}
