package mockserver_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/seedsms/sms-go/mockserver"
)

// TestUnknownKeyAndWrongSecretLookAlike: no key enumeration.
func TestUnknownKeyAndWrongSecretLookAlike(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	unknown := e.do(http.MethodGet, "/v1/balance", nil, withKey("pk_live_"+strings.Repeat("Z", 24), e.ws.LiveSecret)).wantError(401, "unauthorized")
	wrong := e.do(http.MethodGet, "/v1/balance", nil, withKey(e.ws.LiveKey, "sk_live_"+strings.Repeat("Z", 40))).wantError(401, "unauthorized")
	otherMode := e.do(http.MethodGet, "/v1/balance", nil, withKey(e.ws.TestKey, e.ws.LiveSecret)).wantError(401, "unauthorized")
	assert.Equal(t, unknown.get("error"), wrong.get("error"))
	assert.Equal(t, unknown.get("error"), otherMode.get("error"))
	assert.Equal(t, len(unknown.Raw), len(wrong.Raw))
}

// TestRateLimitHeaders: with WithRateLimit every API-key response carries the X-RateLimit-*
// headers; the window is per key and restarts on the minute of the mock's clock.
func TestRateLimitHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithRateLimit(2))
	reset := strconv.FormatInt(fixedNow.Truncate(time.Minute).Add(time.Minute).Unix(), 10)

	r := e.do(http.MethodGet, "/v1/balance", nil).wantStatus(200)
	assert.Equal(t, "2", r.Header.Get("X-RateLimit-Limit"))
	assert.Equal(t, "1", r.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, reset, r.Header.Get("X-RateLimit-Reset"))
	assert.Empty(t, r.Header.Get("Retry-After"))

	r = e.do(http.MethodPost, "/v1/sms/send", sms("bad")).wantStatus(400) // counted too
	assert.Equal(t, "0", r.Header.Get("X-RateLimit-Remaining"))

	r = e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantError(429, "rate_limited")
	assert.Equal(t, "55", r.Header.Get("Retry-After"))
	assert.Equal(t, "0", r.Header.Get("X-RateLimit-Remaining"))

	// Another key has its own window; the dashboard routes are not limited.
	e.do(http.MethodGet, "/v1/balance", nil, e.test()).wantStatus(200)
	for range 3 {
		r = e.do(http.MethodGet, "/v1/keys", nil).wantStatus(200)
		assert.Empty(t, r.Header.Get("X-RateLimit-Limit"))
	}

	e.srv.Advance(54 * time.Second)
	r = e.do(http.MethodGet, "/v1/balance", nil).wantError(429, "rate_limited")
	assert.Equal(t, "1", r.Header.Get("Retry-After"))
	e.srv.Advance(time.Second) // the next window
	r = e.do(http.MethodGet, "/v1/balance", nil).wantStatus(200)
	assert.Equal(t, "1", r.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, strconv.FormatInt(fixedNow.Truncate(time.Minute).Add(2*time.Minute).Unix(), 10), r.Header.Get("X-RateLimit-Reset"))
}
