package mockserver_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRequestsAreRecordedWithSecretsRedacted: GET /_mock/requests and Requests.
func TestRequestsAreRecordedWithSecretsRedacted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bal := e.do(http.MethodGet, "/v1/balance", nil)
	list := e.do(http.MethodGet, "/v1/sms/campaigns?page=2&limit=5", nil, e.test())
	key := e.do(http.MethodPost, "/v1/keys", M{"name": "k", "scopes": M{"sms": true}}).wantStatus(201)
	id, pin := e.otp(otpBody(num(1), "pin_type", "alphanumeric", "pin_length", 8))
	verify := e.verify(id, pin).wantStatus(200)
	e.do(http.MethodGet, "/_mock/faults", nil) // controls are not recorded

	r := e.do(http.MethodGet, "/_mock/requests", nil).wantStatus(http.StatusOK)
	for _, s := range []string{e.ws.LiveSecret, e.ws.TestSecret, e.ws.DashboardToken, pin, key.str("data.secret")} {
		assert.NotContains(t, string(r.Raw), s, "a secret was recorded")
	}
	all := r.list("data")
	require.Len(t, all, 5)
	assert.Equal(t, []string{"/v1/balance", "/v1/sms/campaigns", "/v1/keys", "/v1/otp/send", "/v1/otp/verify"}, ids(r, "data", "path"))
	assert.Equal(t, []string{"GET", "GET", "POST", "POST", "POST"}, ids(r, "data", "method"))
	assert.Equal(t, bal.str("requestId"), r.str("data.0.requestId"))
	assert.Equal(t, list.str("requestId"), r.str("data.1.requestId"))
	assert.Equal(t, key.str("requestId"), r.str("data.2.requestId"))
	assert.Equal(t, verify.str("requestId"), r.str("data.4.requestId"))
	assert.Equal(t, "page=2&limit=5", r.str("data.1.query"))
	assert.Equal(t, 200, r.int("data.0.status"))
	assert.Equal(t, 201, r.int("data.2.status"))
	assertTime(t, fixedNow, r, "data.0.time")

	assert.Equal(t, []any{"[REDACTED]"}, r.get("data.0.headers.X-Api-Secret"))
	assert.Equal(t, []any{e.ws.LiveKey}, r.get("data.0.headers.X-Api-Key"))
	assert.Equal(t, []any{"[REDACTED]"}, r.get("data.1.headers.X-Api-Secret"))
	assert.Equal(t, []any{"[REDACTED]"}, r.get("data.2.headers.Authorization"))
	assert.Equal(t, "k", r.str("data.2.body.name"))
	assert.Equal(t, "[REDACTED]", r.str("data.4.body.pin"))
	assert.Equal(t, id, r.str("data.4.body.pin_id"))

	got := e.srv.Requests()
	require.Len(t, got, 5)
	assert.Equal(t, "[REDACTED]", got[4].Headers["X-Api-Secret"][0])
	assert.NotContains(t, string(got[4].Body), pin)
}

// TestRequestLogKeepsTheNewest1000: the log is a ring of the newest 1,000 requests.
func TestRequestLogKeepsTheNewest1000(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	h := e.srv.Handler()
	for i := range 1003 { // in process: the log is the point here, not the responses
		req, err := http.NewRequest(http.MethodGet, "/v1/sms/campaigns?page="+itoa(i+1), nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", e.ws.LiveKey)
		req.Header.Set("X-API-Secret", e.ws.LiveSecret)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	got := e.srv.Requests()
	require.Len(t, got, 1000)
	assert.Equal(t, "page=4", got[0].Query, "oldest first")
	assert.Equal(t, "page=1003", got[999].Query)
	r := e.do(http.MethodGet, "/_mock/requests", nil).wantStatus(http.StatusOK)
	assert.Len(t, r.list("data"), 1000)
	assert.Equal(t, "page=4", r.str("data.0.query"))
}

func TestRequestLogRedactsSecretShapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	jwtLike := e.ws.DashboardToken
	secrets := []string{e.ws.LiveSecret, "sk_test_swappedIntoAnotherHeader", jwtLike, "opaque-bearer-value", "dXNlcjpwYXNz"}
	e.do(http.MethodGet, "/v1/balance?api_secret="+url.QueryEscape(e.ws.LiveSecret)+"&page=1", nil,
		withKey(e.ws.LiveSecret, e.ws.LiveKey), // swapped: the secret in X-API-Key
		withHeader("X-Forwarded-Secret", "prefix sk_test_swappedIntoAnotherHeader"),
		withHeader("X-Session", jwtLike),
		withHeader("X-Upstream-Auth", "Bearer opaque-bearer-value"),
		withHeader("Proxy-Authorization", "Basic dXNlcjpwYXNz"),
		withHeader("X-Trace", "kept-as-is"),
	).wantStatus(http.StatusUnauthorized)

	got := e.srv.Requests()
	require.Len(t, got, 1)
	rec := got[0]
	for _, name := range []string{"X-Api-Key", "X-Api-Secret", "X-Forwarded-Secret", "X-Session", "X-Upstream-Auth", "Proxy-Authorization"} {
		assert.Equal(t, []string{"[REDACTED]"}, rec.Headers[name], name)
	}
	assert.Equal(t, []string{"kept-as-is"}, rec.Headers["X-Trace"])
	assert.Contains(t, rec.Query, "page=1")
	overHTTP := e.do(http.MethodGet, "/_mock/requests", nil).wantStatus(http.StatusOK)
	for _, s := range secrets {
		assert.NotContains(t, string(overHTTP.Raw), s)
		assert.NotContains(t, fmt.Sprintf("%+v", got), s)
		assert.NotContains(t, rec.Query, url.QueryEscape(s))
	}
	assert.Equal(t, "kept-as-is", overHTTP.str("data.0.headers.X-Trace.0"))
}

// TestRequestLogRedactsSecretsInPathsAndQueries: a secret in a request's path, or as a query
// parameter's name, is no more kept than one in a header or a query value; the request's own
// secret is found there whatever its shape.
func TestRequestLogRedactsSecretsInPathsAndQueries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	own := "sk_live_" + strings.Repeat("q", 20) + "/tail" // what a client may send: / after the prefix
	tests := []struct {
		name, path string
		opts       []reqOpt
		secrets    []string
		wantPath   string
		wantQuery  string
	}{
		{
			name: "the secret as a path segment", path: "/v1/sms/campaigns/" + e.ws.LiveSecret + "/status",
			secrets: []string{e.ws.LiveSecret}, wantPath: "/v1/sms/campaigns/[REDACTED]/status",
		},
		{
			name: "the secret as a query parameter's name", path: "/v1/balance?" + url.QueryEscape(e.ws.LiveSecret) + "=&page=1",
			secrets: []string{e.ws.LiveSecret}, wantPath: "/v1/balance", wantQuery: "%5BREDACTED%5D=&page=1",
		},
		{
			name: "the dashboard token in the path", path: "/v1/keys/" + e.ws.DashboardToken,
			secrets: []string{e.ws.DashboardToken}, wantPath: "/v1/keys/[REDACTED]",
		},
		{
			name: "the request's own secret across segments", path: "/v1/x/" + own + "?" + url.QueryEscape(own) + "=1",
			opts:    []reqOpt{withKey(e.ws.LiveKey, own)},
			secrets: []string{own}, wantPath: "/v1/x/[REDACTED]", wantQuery: "%5BREDACTED%5D=1",
		},
	}
	for _, tt := range tests {
		e.do(http.MethodGet, tt.path, nil, tt.opts...)
	}
	got := e.srv.Requests()
	require.Len(t, got, len(tests))
	overHTTP := e.do(http.MethodGet, "/_mock/requests", nil).wantStatus(http.StatusOK)
	for i, tt := range tests {
		assert.Equal(t, tt.wantPath, got[i].Path, tt.name)
		assert.Equal(t, tt.wantQuery, got[i].Query, tt.name)
		assert.Equal(t, tt.wantPath, overHTTP.str("data."+itoa(i)+".path"), tt.name)
		for _, s := range tt.secrets {
			for _, shown := range []string{string(overHTTP.Raw), fmt.Sprintf("%+v", got)} {
				assert.NotContains(t, shown, s, tt.name)
				assert.NotContains(t, shown, url.QueryEscape(s), tt.name)
			}
		}
	}
}

func TestRequestLogCapsHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	opts := []reqOpt{e.live()}
	for i := range 40 { // 40 KiB of headers, under the server's 64 KiB limit
		opts = append(opts, withHeader(fmt.Sprintf("X-Big-%02d", i), strings.Repeat("v", 1024)))
	}
	e.do(http.MethodGet, "/v1/balance", nil, opts...).wantStatus(http.StatusOK)
	e.do(http.MethodGet, "/v1/balance", nil).wantStatus(http.StatusOK)

	got := e.srv.Requests()
	require.Len(t, got, 2)
	size := 0
	for k, vs := range got[0].Headers {
		for _, v := range vs {
			size += len(k) + len(v)
		}
	}
	assert.LessOrEqual(t, size, 8<<10)
	assert.Greater(t, size, 6<<10, "as many whole headers as fit")
	assert.True(t, got[0].HeadersTruncated)
	assert.False(t, got[1].HeadersTruncated)
	assert.Equal(t, []string{"[REDACTED]"}, got[1].Headers["X-Api-Secret"])
	r := e.do(http.MethodGet, "/_mock/requests", nil).wantStatus(http.StatusOK)
	assert.True(t, r.bool("data.0.headersTruncated"))
	assert.False(t, r.has("data.1.headersTruncated"))
}
