package sms_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// Every successful result carries the Response it was read from: its status, the request ID
// the server logged, and the rate-limit headers when the server sends them.
func TestEveryResultCarriesItsResponse(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithRateLimit(1000))
	client := newClient(t, srv)
	dash := newDashboardClient(t, srv)
	ctx := context.Background()
	ws := srv.Default()

	sent, err := client.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: ws.SenderID, Message: "hi"})
	require.NoError(t, err)
	camp, err := client.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "08025671695"}}, From: ws.SenderID, Message: "hi"})
	require.NoError(t, err)
	page, err := client.Campaigns.List(ctx, nil)
	require.NoError(t, err)
	st, err := client.Campaigns.Delivery(ctx, camp.Campaign.ID, nil)
	require.NoError(t, err)
	otp, err := client.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: ws.SenderID, Message: "< 1234 >"})
	require.NoError(t, err)
	v, err := client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: otp.PinID, Pin: "AB12"})
	require.NoError(t, err)
	bal, err := client.Balance.Get(ctx, nil)
	require.NoError(t, err)
	sid, err := client.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "alerts", Company: "Acme"})
	require.NoError(t, err)
	sids, err := client.SenderIDs.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, sids.Items, 2)
	assert.Nil(t, sids.Items[0].Response, "the page carries the Response, not its items")

	key, err := dash.Keys.Create(ctx, &sms.CreateKeyParams{Name: "ci", Scopes: sms.Scopes{sms.ScopeSMS}})
	require.NoError(t, err)
	keys, err := dash.Keys.List(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, keys.Items)
	assert.Nil(t, keys.Items[0].Response, "the page carries the Response, not its items")
	revoked, err := dash.Keys.Revoke(ctx, key.ID, nil)
	require.NoError(t, err)

	// The request log holds each request's ID, in order; map method and path to the last.
	logged := map[string]string{}
	for _, r := range srv.Requests() {
		logged[r.Method+" "+r.Path] = r.RequestID
	}
	tests := []struct {
		name   string
		resp   *sms.Response
		status int
		op     string
		key    bool // made with an API key: the rate limit applies
	}{
		{"SMS.Send", sent.Response, 202, "POST /v1/sms/send", true},
		{"Campaigns.Create", camp.Response, 202, "POST /v1/sms/campaigns", true},
		{"Campaigns.List", page.Response, 200, "GET /v1/sms/campaigns", true},
		{"Campaigns.Delivery", st.Response, 200, "GET /v1/sms/campaigns/" + camp.Campaign.ID + "/status", true},
		{"OTP.Send", otp.Response, 200, "POST /v1/otp/send", true},
		{"OTP.Verify", v.Response, 200, "POST /v1/otp/verify", true},
		{"Balance.Get", bal.Response, 200, "GET /v1/balance", true},
		{"SenderIDs.Request", sid.Response, 201, "POST /v1/sender-ids", true},
		{"SenderIDs.List", sids.Response, 200, "GET /v1/sender-ids", true},
		{"Keys.Create", key.Response, 201, "POST /v1/keys", false},
		{"Keys.List", keys.Response, 200, "GET /v1/keys", false},
		{"Keys.Revoke", revoked.Response, 200, "DELETE /v1/keys/" + key.ID, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NotNil(t, tt.resp)
			assert.Equal(t, tt.status, tt.resp.StatusCode)
			require.NotEmpty(t, logged[tt.op], "the mock logged %s", tt.op)
			assert.Equal(t, logged[tt.op], tt.resp.RequestID, "the ID of the request that answered")
			assert.Equal(t, tt.resp.RequestID, tt.resp.Header.Get("X-Request-Id"))
			if !tt.key {
				assert.Nil(t, tt.resp.RateLimit, "no rate limit on dashboard calls")
				return
			}
			require.NotNil(t, tt.resp.RateLimit)
			assert.Equal(t, 1000, tt.resp.RateLimit.Limit)
			assert.Less(t, tt.resp.RateLimit.Remaining, 1000)
			assert.False(t, tt.resp.RateLimit.Reset.IsZero())
			assert.Equal(t, time.UTC, tt.resp.RateLimit.Reset.Location())
		})
	}
	assert.Equal(t, sent.Response.RateLimit.Remaining-1, camp.Response.RateLimit.Remaining, "one request more in the window")
}

// The rate-limit headers are read only when they hold numbers; the request ID comes from the
// header, else from the body.
func TestResponseHeaders(t *testing.T) {
	t.Parallel()
	const balanceBody = `{"data":{"balance":1,"cashback":0,"currency":"NGN"},"requestId":"req-body"}`
	tests := []struct {
		name      string
		header    http.Header
		requestID string
		limit     *sms.RateLimit
	}{
		{"nothing", http.Header{}, "req-body", nil},
		{"request ID header first", http.Header{"X-Request-Id": {"req-header"}}, "req-header", nil},
		{"a quota", quota(60, 59), "req-body", &sms.RateLimit{Limit: 60, Remaining: 59, Reset: time.Unix(1767225600, 0).UTC()}},
		{"a quota without reset", http.Header{"X-Ratelimit-Limit": {"60"}, "X-Ratelimit-Remaining": {"0"}}, "req-body", &sms.RateLimit{Limit: 60}},
		{"not numbers", http.Header{"X-Ratelimit-Limit": {"many"}, "X-Ratelimit-Remaining": {"0"}}, "req-body", nil},
		{"half a quota", http.Header{"X-Ratelimit-Limit": {"60"}}, "req-body", nil},
		{"a negative count", http.Header{"X-Ratelimit-Limit": {"60"}, "X-Ratelimit-Remaining": {"-1"}}, "req-body", nil},
		{"a reset in Unix milliseconds", http.Header{"X-Ratelimit-Limit": {"60"}, "X-Ratelimit-Remaining": {"1"}, "X-Ratelimit-Reset": {"1767225600000"}}, "req-body",
			&sms.RateLimit{Limit: 60, Remaining: 1, Reset: time.Unix(1767225600, 0).UTC()}},
		{"the IETF RateLimit field and its policy", http.Header{"Ratelimit": {`"default";r=50;t=1767225600`}, "Ratelimit-Policy": {`"default";q=100;w=60`}}, "req-body",
			&sms.RateLimit{Limit: 100, Remaining: 50, Reset: time.Unix(1767225600, 0).UTC()}},
		{"the IETF RateLimit-* fields", http.Header{"Ratelimit-Limit": {"100"}, "Ratelimit-Remaining": {"50"}}, "req-body", &sms.RateLimit{Limit: 100, Remaining: 50}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newClientFor(t, &answer{status: 200, header: tt.header, body: []byte(balanceBody)})
			b, err := c.Balance.Get(context.Background(), nil)
			require.NoError(t, err)
			assert.Equal(t, tt.requestID, b.Response.RequestID)
			assert.Equal(t, tt.limit, b.Response.RateLimit)
		})
	}
}

// A reset stated as a number of seconds is read from the answer's time, never as 1970; one in
// milliseconds never as a year past 50,000.
func TestRateLimitResetInSeconds(t *testing.T) {
	t.Parallel()
	const balanceBody = `{"data":{"balance":1,"cashback":0,"currency":"NGN"}}`
	h := http.Header{"X-Ratelimit-Limit": {"60"}, "X-Ratelimit-Remaining": {"59"}, "X-Ratelimit-Reset": {"30"}}
	c := newClientFor(t, &answer{status: 200, header: h, body: []byte(balanceBody)})
	before := time.Now()
	b, err := c.Balance.Get(context.Background(), nil)
	require.NoError(t, err)
	require.NotNil(t, b.Response.RateLimit)
	reset := b.Response.RateLimit.Reset
	assert.False(t, reset.Before(before.Add(30*time.Second)), "30 s from the answer, not 1970: %v", reset)
	assert.True(t, reset.Before(time.Now().Add(31*time.Second)), "%v", reset)
}
