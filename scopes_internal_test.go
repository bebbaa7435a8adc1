package sms

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// scopeOf, the SDK's fallback when a 403 names no scope, agrees with the scope the mock
// names for every developer endpoint: the two tables cannot drift apart.
func TestScopeOfAgreesWithTheMock(t *testing.T) {
	t.Parallel()
	srv, err := mockserver.New()
	require.NoError(t, err)
	ws := srv.Default()
	key, err := srv.NewKey(ws.WorkspaceID, mockserver.KeyOptions{Name: "none", Scopes: []mockserver.Scope{}})
	require.NoError(t, err)
	routes := []struct{ method, path string }{
		{http.MethodPost, "/v1/sms/send"},
		{http.MethodPost, "/v1/sms/campaigns"},
		{http.MethodGet, "/v1/sms/campaigns"},
		{http.MethodGet, "/v1/sms/campaigns/0123456789abcdef01234567/status"},
		{http.MethodPost, "/v1/otp/send"},
		{http.MethodPost, "/v1/otp/verify"},
		{http.MethodGet, "/v1/balance"},
		{http.MethodPost, "/v1/sender-ids"},
		{http.MethodGet, "/v1/sender-ids"},
	}
	for _, r := range routes {
		req := httptest.NewRequest(r.method, "http://127.0.0.1"+r.path, strings.NewReader("{}"))
		req.Header.Set("X-API-Key", key.PublicKey)
		req.Header.Set("X-API-Secret", key.Secret)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		require.Equal(t, http.StatusForbidden, rec.Code, "%s %s: %s", r.method, r.path, rec.Body)
		_, scope, _, ok := apiErrorOf(rec.Body.Bytes())
		require.True(t, ok, "the API's error")
		assert.NotEmpty(t, scope, "%s %s", r.method, r.path)
		assert.Equal(t, Scope(scope), scopeOf(r.path), "%s %s", r.method, r.path)
	}
	assert.Empty(t, scopeOf("/v1/keys"), "the dashboard's endpoints need no scope")
	assert.Empty(t, scopeOf("/v1/keys/0123456789abcdef01234567"))
}
