package mockserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// exchange sends a request and returns the status and the decoded body, checked against
// api/openapi.yaml (without the requestId rule of env.check: the documented profile leaves it
// out where the live docs' samples do).
func (e *env) exchange(method, path string, body any, opts ...reqOpt) (int, map[string]any) {
	e.t.Helper()
	return e.exchangeChecked(true, method, path, body, opts...)
}

func (e *env) exchangeChecked(validate bool, method, path string, body any, opts ...reqOpt) (int, map[string]any) {
	e.t.Helper()
	res, err := e.hc.Do(e.newRequest(method, path, body, opts...))
	require.NoError(e.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(e.t, err)
	if validate { // against a fresh request: the first one's body was consumed
		assert.NoError(e.t, e.v.Response(e.newRequest(method, path, body, opts...), res.StatusCode, res.Header, raw), "%s %s -> %d %s", method, path, res.StatusCode, raw)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	require.NoError(e.t, dec.Decode(&m), "%s", raw)
	return res.StatusCode, m
}

// membersOf is the members of an object.
func membersOf(v any) []string {
	m, _ := v.(map[string]any)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestDocumentedProfile: with ProfileDocumented every documented endpoint answers exactly the
// members of the live docs' sample, statuses come from the docs' table, and errors carry
// neither field nor scope; every answer still matches api/openapi.yaml.
func TestDocumentedProfile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithProfile(mockserver.ProfileDocumented))
	to := "2348025671695"

	status, send := e.exchange(http.MethodPost, "/v1/sms/send", sms(to))
	require.Equal(t, http.StatusAccepted, status, "%v", send)
	assert.ElementsMatch(t, []string{"message", "campaign", "requestId"}, membersOf(send))
	assert.ElementsMatch(t, []string{"id", "status", "message_id", "recipients", "amount", "currency", "sms_parts"}, membersOf(send["campaign"]))

	status, otp := e.exchange(http.MethodPost, "/v1/otp/send", otpBody(to))
	require.Equal(t, http.StatusOK, status, "%v", otp)
	assert.ElementsMatch(t, []string{"data"}, membersOf(otp), "no requestId")
	assert.ElementsMatch(t, []string{"smsStatus", "phone_number", "pinId", "status"}, membersOf(otp["data"]))
	pinID := otp["data"].(map[string]any)["pinId"].(string)
	_, pin, err := e.srv.LatestOTP(to)
	require.NoError(t, err)

	status, wrong := e.exchange(http.MethodPost, "/v1/otp/verify", M{"pin_id": pinID, "pin": "000"})
	require.Equal(t, http.StatusOK, status, "%v", wrong)
	assert.ElementsMatch(t, []string{"data"}, membersOf(wrong))
	assert.ElementsMatch(t, []string{"pinId", "verified", "msisdn"}, membersOf(wrong["data"]), "no attemptsRemaining")
	status, right := e.exchange(http.MethodPost, "/v1/otp/verify", M{"pin_id": pinID, "pin": pin})
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, true, right["data"].(map[string]any)["verified"])

	status, senders := e.exchange(http.MethodGet, "/v1/sender-ids?status=active", nil)
	require.Equal(t, http.StatusOK, status)
	assert.ElementsMatch(t, []string{"data", "count"}, membersOf(senders))
	require.NotEmpty(t, senders["data"])
	assert.ElementsMatch(t, []string{"title", "status", "country"}, membersOf(senders["data"].([]any)[0]))

	status, balance := e.exchange(http.MethodGet, "/v1/balance", nil)
	require.Equal(t, http.StatusOK, status)
	assert.ElementsMatch(t, []string{"data", "requestId"}, membersOf(balance))
	assert.ElementsMatch(t, []string{"balance", "cashback", "currency"}, membersOf(balance["data"]))

	// The live pages show no campaign list: the public spec's members, no requestId.
	status, list := e.exchange(http.MethodGet, "/v1/sms/campaigns", nil)
	require.Equal(t, http.StatusOK, status)
	assert.ElementsMatch(t, []string{"data", "pagination"}, membersOf(list))
	assert.ElementsMatch(t, []string{"page", "limit", "total"}, membersOf(list["pagination"]))
	require.NotEmpty(t, list["data"])
	item := list["data"].([]any)[0].(map[string]any)
	assert.ElementsMatch(t, []string{"_id", "senderId", "recipientCount", "amount", "status"}, membersOf(item))
	assert.Equal(t, send["campaign"].(map[string]any)["id"], item["_id"])
	assert.Equal(t, send["campaign"].(map[string]any)["amount"], item["amount"])

	status, created := e.exchange(http.MethodPost, "/v1/sender-ids", M{"sender_id": "Acme", "usecase": "Alerts", "company": "Acme"})
	assert.Equal(t, http.StatusAccepted, status, "the docs' table has no 201; the request waits for an approval: %v", created)
	status, key := e.exchange(http.MethodPost, "/v1/keys", M{"name": "k", "scopes": M{"sms": true}})
	assert.Equal(t, http.StatusOK, status, "the docs' table has no 201; the key works at once: %v", key)
	status, dup := e.exchange(http.MethodPost, "/v1/sender-ids", M{"sender_id": "Acme", "usecase": "Alerts", "company": "Acme"})
	assert.Equal(t, http.StatusBadRequest, status, "409 is not in the docs' table")
	assert.Equal(t, "bad_request", dup["error"].(map[string]any)["code"])

	errorCases := []struct {
		name   string
		method string
		path   string
		body   any
		opts   []reqOpt
		status int
		code   string
	}{
		{"field", http.MethodPost, "/v1/sms/send", sms("123"), nil, http.StatusBadRequest, "bad_request"},
		{"scope", http.MethodGet, "/v1/balance", nil, []reqOpt{e.keyWithout("balance", "pk_test")}, http.StatusForbidden, "insufficient_scope"},
		{"method", http.MethodDelete, "/v1/balance", nil, nil, http.StatusNotFound, "not_found"},
		{"media type", http.MethodPost, "/v1/sms/send", sms(to), []reqOpt{withHeader("Content-Type", "text/plain")}, http.StatusBadRequest, "bad_request"},
		{"credentials", http.MethodGet, "/v1/balance", nil, []reqOpt{withKey("pk_test_x", "sk_test_y")}, http.StatusUnauthorized, "unauthorized"},
	}
	for _, tc := range errorCases {
		// The document has no DELETE /v1/balance to check the answer against.
		status, body := e.exchangeChecked(tc.method != http.MethodDelete, tc.method, tc.path, tc.body, tc.opts...)
		assert.Equal(t, tc.status, status, tc.name)
		assert.ElementsMatch(t, []string{"error", "requestId"}, membersOf(body), tc.name)
		assert.ElementsMatch(t, []string{"code", "message"}, membersOf(body["error"]), tc.name)
		assert.Equal(t, tc.code, body["error"].(map[string]any)["code"], tc.name)
	}

	// The controls keep their shapes.
	status, ws := e.exchange(http.MethodPost, "/_mock/workspaces", M{})
	assert.Equal(t, http.StatusCreated, status)
	assert.Contains(t, ws, "requestId")
}

// TestProfileOption: the names of the profiles, and an unknown one is refused.
func TestProfileOption(t *testing.T) {
	t.Parallel()
	for _, p := range []mockserver.Profile{mockserver.ProfileFull, mockserver.ProfileDocumented} {
		back, err := mockserver.ParseProfile(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, back)
	}
	_, err := mockserver.ParseProfile("live")
	assert.Error(t, err)
	srv := mockserver.New(mockserver.WithProfile(7))
	assert.ErrorContains(t, srv.Start(), "WithProfile")
}
