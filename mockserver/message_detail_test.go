package mockserver_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMessageDetail: GET /_mock/messages/{id} gives the message, its campaign as the
// workspace's campaign list shows it (text unfilled), the request that sent it, and its
// history: the status at the send, then the one it moved to.
func TestMessageDetail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	require.NoError(t, e.srv.AddDND(num(2)))
	sent := e.campaign(sms([]any{M{"phone": num(1), "name": "Ada"}, num(2)}, "message", "Hi {{name}}", "reference", "detail-1"))
	id := sent.str("campaign.id")

	r := e.do(http.MethodGet, "/_mock/messages/"+id+"-0", nil).wantStatus(http.StatusOK)
	assert.Equal(t, id+"-0", r.str("data.id"))
	assert.Equal(t, "Hi Ada", r.str("data.text"))
	assert.Equal(t, id, r.str("data.campaign._id"))
	assert.Equal(t, "Hi {{name}}", r.str("data.campaign.text"))
	assert.Equal(t, "detail-1", r.str("data.campaign.reference"))
	assert.Equal(t, sent.str("requestId"), r.str("data.request.requestId"))
	assert.Equal(t, "/v1/sms/campaigns", r.str("data.request.path"))
	assert.Equal(t, http.StatusAccepted, r.int("data.request.status"))
	assert.Equal(t, "detail-1", r.str("data.request.body.reference"))
	assert.Equal(t, []any{M{"status": "sent", "at": fixedNow.Format(time.RFC3339)}}, normalizeAt(r.list("data.history")))

	require.NoError(t, e.srv.Advance(time.Minute))
	require.NoError(t, e.srv.Deliver(id, nil))
	r = e.do(http.MethodGet, "/_mock/messages/"+id+"-0", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []any{
		M{"status": "sent", "at": fixedNow.Format(time.RFC3339)},
		M{"status": "delivered", "at": fixedNow.Add(time.Minute).Format(time.RFC3339)},
	}, normalizeAt(r.list("data.history")))
	r = e.do(http.MethodGet, "/_mock/messages/"+id+"-1", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []any{M{"status": "dnd", "at": fixedNow.Format(time.RFC3339)}}, normalizeAt(r.list("data.history")), "dnd at the send: one status")

	items := e.do(http.MethodGet, "/_mock/workspaces/"+e.ws.WorkspaceID+"/campaigns", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "Hi {{name}}", items.str("data.0.text"))

	for _, bad := range []string{id + "-2", id + "-01", id + "--1", id, "zz-0", "000000000000000000000000-0"} {
		e.do(http.MethodGet, "/_mock/messages/"+bad, nil).wantError(http.StatusNotFound, "not_found")
	}
	e.do(http.MethodDelete, "/_mock/messages", nil).wantStatus(http.StatusOK)
	e.do(http.MethodGet, "/_mock/messages/"+id+"-0", nil).wantError(http.StatusNotFound, "not_found")
}

// TestMessageDetailOTP: an OTP message has no campaign, no linked request, one status, and
// its pin's state.
func TestMessageDetailOTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.otp(otpBody(num(1)))
	id := e.do(http.MethodGet, "/_mock/messages?kind=otp", nil).wantStatus(http.StatusOK).str("data.0.id")
	r := e.do(http.MethodGet, "/_mock/messages/"+id, nil).wantStatus(http.StatusOK)
	assert.Nil(t, r.get("data.campaign"))
	assert.Nil(t, r.get("data.request"))
	assert.Equal(t, "pending", r.str("data.pinStatus"))
	assert.Len(t, r.list("data.history"), 1)
}

// TestOTPPinStatus: an OTP message says where its pin stands, and when it expires.
func TestOTPPinStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	status := func(to string) (string, string) {
		r := e.do(http.MethodGet, "/_mock/messages?kind=otp&to="+to, nil).wantStatus(http.StatusOK)
		return r.str("data.0.pinStatus"), r.str("data.0.expiresAt")
	}
	pinID, pin := e.otp(otpBody(num(1)))
	st, exp := status(num(1))
	assert.Equal(t, "pending", st)
	assert.Equal(t, fixedNow.Add(10*time.Minute).Format(time.RFC3339), exp)
	e.verify(pinID, pin).wantStatus(http.StatusOK)
	st, _ = status(num(1))
	assert.Equal(t, "verified", st)

	e.otp(otpBody(num(2)))
	e.otp(otpBody(num(2)))
	r := e.do(http.MethodGet, "/_mock/messages?kind=otp&to="+num(2), nil).wantStatus(http.StatusOK)
	assert.Equal(t, "pending", r.str("data.0.pinStatus"))
	assert.Equal(t, "replaced", r.str("data.1.pinStatus"))

	pinID, _ = e.otp(otpBody(num(3)))
	for range 5 {
		e.verify(pinID, "000000")
	}
	st, _ = status(num(3))
	assert.Equal(t, "locked", st)

	e.otp(otpBody(num(4)))
	require.NoError(t, e.srv.Advance(10*time.Minute))
	st, _ = status(num(4))
	assert.Equal(t, "expired", st)

	e.send(sms(num(5)))
	r = e.do(http.MethodGet, "/_mock/messages?kind=sms", nil).wantStatus(http.StatusOK)
	assert.False(t, r.has("data.0.pinStatus"), "an SMS has none")
	assert.False(t, r.has("data.0.expiresAt"))
}

// normalizeAt writes each history entry's time in RFC 3339 without fractions.
func normalizeAt(h []any) []any {
	out := make([]any, len(h))
	for i, v := range h {
		m := v.(map[string]any)
		at, _ := time.Parse(time.RFC3339Nano, m["at"].(string))
		out[i] = M{"status": m["status"], "at": at.UTC().Format(time.RFC3339)}
	}
	return out
}

// TestRequestBodyCredentialsRedacted: credentials a client puts in a JSON body (Termii-style
// api_key and api_secret members, which the mock refuses, or the request's own secret in the
// message text, whole or without its prefix) are kept by neither /_mock/requests nor a
// message's request.body; the text around them is.
func TestRequestBodyCredentialsRedacted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bare := e.ws.LiveSecret[len("sk_live_"):]
	// The redactor reads letters and digits across spaces (a secret cut in pieces): the word
	// after the secret's first 12 characters must not go on as the secret does, or it would be
	// taken for the secret's 13th character and hidden too.
	end := "end"
	if bare[12] == end[0] {
		end = "fin"
	}
	sent := e.campaign(sms([]any{num(1)}, "message", "Hi, key "+e.ws.LiveSecret+" and "+bare[:12]+" "+end, "reference", "creds-1"))
	id := sent.str("campaign.id")
	e.do(http.MethodPost, "/v1/sms/campaigns", sms([]any{num(2)}, "api_key", e.ws.LiveKey, "api_secret", e.ws.LiveSecret, "otp_code", "123456")).
		wantStatus(http.StatusBadRequest)

	detail := e.do(http.MethodGet, "/_mock/messages/"+id+"-0", nil).wantStatus(http.StatusOK)
	log := e.do(http.MethodGet, "/_mock/requests", nil).wantStatus(http.StatusOK)
	request, err := json.Marshal(detail.get("data.request")) // the message's own text is what was sent
	require.NoError(t, err)
	for _, shown := range []string{string(request), string(log.Raw)} {
		for i := 0; i+8 <= len(bare); i += 4 {
			assert.NotContains(t, shown, bare[i:i+8], "a piece of the secret was shown")
		}
	}
	assert.Equal(t, "Hi, key [REDACTED] and [REDACTED] "+end, detail.str("data.request.body.message"))
	assert.Equal(t, "creds-1", detail.str("data.request.body.reference"))
	assert.Equal(t, "Hi, key [REDACTED] and [REDACTED] "+end, log.str("data.0.body.message"))
	assert.Equal(t, "[REDACTED]", log.str("data.1.body.api_secret"))
	assert.Equal(t, "[REDACTED]", log.str("data.1.body.api_key"))
	assert.Equal(t, "[REDACTED]", log.str("data.1.body.otp_code"))
}
