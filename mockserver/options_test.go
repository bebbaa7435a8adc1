package mockserver_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestOptionsOutOfRange: every option checks its value with the one policy: out of its range,
// Start fails naming the option, requests are answered 500 with the same words, and the
// server still has its default workspace. A negative limit is never taken for the default.
func TestOptionsOutOfRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		opt  mockserver.Option
		name string
	}{
		{mockserver.WithAddr(""), "WithAddr"},
		{mockserver.WithPrices(-1, 450), "WithPrices"},
		{mockserver.WithPrices(320, mockserver.MaxPrice+1), "WithPrices"},
		{mockserver.WithBalances(-1, 0), "WithBalances"},
		{mockserver.WithBalances(0, mockserver.MaxBalance+1), "WithBalances"},
		{mockserver.WithCountry(""), "WithCountry"},
		{mockserver.WithRateLimit(-1), "WithRateLimit"},
		{mockserver.WithClock(nil), "WithClock"},
		{mockserver.WithReadTimeout(-time.Second), "WithReadTimeout"},
		{mockserver.WithWriteTimeout(-time.Second), "WithWriteTimeout"},
		{mockserver.WithAllowedHosts("a b"), "WithAllowedHosts"},
		{mockserver.WithMessageLimit(-1), "WithMessageLimit"},
		{mockserver.WithWorkspaceLimit(-1), "WithWorkspaceLimit"},
		{mockserver.WithDNDLimit(-1), "WithDNDLimit"},
		{mockserver.WithIdempotencyLimit(-1), "WithIdempotencyLimit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := mockserver.New(tt.opt)
			err := srv.Start()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.name)
			require.NoError(t, srv.Close())
			assert.NotEmpty(t, srv.Default().LiveKey, "the default workspace is there all the same")

			rec := httptest.NewRecorder()
			srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/_mock/faults", nil))
			assert.Equal(t, http.StatusInternalServerError, rec.Code)
			assert.Contains(t, rec.Body.String(), tt.name)
		})
	}
}

// TestZeroLimitsMeanTheDefaults: a zero limit is the documented default, not a store that
// holds nothing.
func TestZeroLimitsMeanTheDefaults(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithMessageLimit(0), mockserver.WithWorkspaceLimit(0),
		mockserver.WithDNDLimit(0), mockserver.WithIdempotencyLimit(0))
	_, err := srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.NoError(t, err)
	require.NoError(t, srv.AddDND("08025671695"))
	hc := &http.Client{Transport: srv.Transport()}
	ws := srv.Default()
	req, err := http.NewRequest(http.MethodPost, ws.URL+"/v1/sms/send",
		strings.NewReader(`{"to":"08025671695","from":"MOCKSMS","message":"hi","reference":"r-1"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", ws.LiveKey)
	req.Header.Set("X-API-Secret", ws.LiveSecret)
	resp, err := hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	assert.Len(t, srv.Messages(mockserver.Filter{}), 1, "the message is kept")
}
