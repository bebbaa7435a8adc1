package mockserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCrossSiteReadsRefused: every request to the controls and the page that a browser marks
// as sent by a page of another origin is refused, reads included (a page could time a long
// poll to learn message text and pins), while the page's own requests, the address bar and
// clients that are not browsers pass. The /v1 API's reads need credentials a page cannot send
// across origins, and are not the guard's.
func TestCrossSiteReadsRefused(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	ws := srv.Default()
	self := hs.URL // http://127.0.0.1:port, the origin of the inbox page

	send, err := http.NewRequest(http.MethodPost, hs.URL+"/v1/sms/send",
		strings.NewReader(`{"to":"2348025671695","from":"MOCKSMS","message":"Your code is 482913"}`))
	require.NoError(t, err)
	send.Header.Set("Content-Type", "application/json")
	send.Header.Set("X-API-Key", ws.LiveKey)
	send.Header.Set("X-API-Secret", ws.LiveSecret)
	res, err := http.DefaultClient.Do(send)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusAccepted, res.StatusCode)

	targets := []struct {
		method, path string
		allowed      int // the status when the request passes
	}{
		{http.MethodGet, "/", http.StatusOK},
		{http.MethodGet, "/_mock/messages?wait=10s&contains=482913", http.StatusOK},
		{http.MethodGet, "/_mock/messages?wait=10s&to=2348000000001", 0}, // waits: not sent when it passes
		{http.MethodGet, "/_mock/conversations", http.StatusOK},
		{http.MethodGet, "/_mock/otps/latest?to=2348025671695", http.StatusNotFound},
		{http.MethodGet, "/_mock/requests", http.StatusOK},
		{http.MethodGet, "/_mock/events", http.StatusOK},
		{http.MethodGet, "/_mock/nothing-here", http.StatusNotFound},
		{http.MethodDelete, "/_mock/faults", http.StatusOK},
	}
	headers := []struct {
		name    string
		header  map[string]string
		refused bool
	}{
		{"not a browser", nil, false},
		{"the page: same-origin", map[string]string{"Sec-Fetch-Site": "same-origin"}, false},
		{"the page: same-origin with its Origin", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": self}, false},
		{"the address bar: none", map[string]string{"Sec-Fetch-Site": "none"}, false},
		{"an older browser: its own Origin", map[string]string{"Origin": self}, false},
		{"cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{"cross-site with an Origin", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://attacker.example"}, true},
		{"same-site: another port of localhost", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://localhost:3000"}, true},
		{"a value browsers do not send", map[string]string{"Sec-Fetch-Site": "elsewhere"}, true},
		{"an older browser: another site's Origin", map[string]string{"Origin": "http://attacker.example"}, true},
		{"an older browser: another port's Origin", map[string]string{"Origin": "http://127.0.0.1:3000"}, true},
		{"an older browser: a null Origin", map[string]string{"Origin": "null"}, true},
		{"an older browser: a malformed Origin", map[string]string{"Origin": "http://%zz"}, true},
	}
	for _, tg := range targets {
		for _, h := range headers {
			if tg.allowed == 0 && !h.refused {
				continue
			}
			t.Run(tg.method+" "+tg.path+", "+h.name, func(t *testing.T) {
				t.Parallel()
				req, err := http.NewRequestWithContext(t.Context(), tg.method, hs.URL+tg.path, nil)
				require.NoError(t, err)
				for k, v := range h.header {
					req.Header.Set(k, v)
				}
				res, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				defer res.Body.Close()
				if !h.refused {
					assert.Equal(t, tg.allowed, res.StatusCode)
					return
				}
				require.Equal(t, http.StatusForbidden, res.StatusCode)
				body, err := io.ReadAll(res.Body)
				require.NoError(t, err)
				var e struct {
					Error struct{ Code, Message string }
				}
				require.NoError(t, json.Unmarshal(body, &e), "%s", body)
				assert.Equal(t, "forbidden", e.Error.Code)
				assert.NotContains(t, string(body), "482913")
			})
		}
	}

	// A link to the page clicked on another site (a chat, a ticket) opens it: a top-level
	// navigation, which the page's reads then follow from its own origin. Framed, fetched,
	// or to another route, it is refused.
	for _, tt := range []struct {
		path, mode, dest string
		want             int
	}{
		{"/?to=2348025671695", "navigate", "document", http.StatusOK},
		{"/", "navigate", "document", http.StatusOK},
		{"/", "navigate", "iframe", http.StatusForbidden},
		{"/", "no-cors", "empty", http.StatusForbidden},
		{"/", "cors", "document", http.StatusForbidden},
		{"/_mock/messages?contains=482913", "navigate", "document", http.StatusForbidden},
		{"/_mock/inbox/app.js", "navigate", "document", http.StatusForbidden},
	} {
		t.Run("a cross-site "+tt.mode+" to "+tt.path+" as "+tt.dest, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, hs.URL+tt.path, nil)
			require.NoError(t, err)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
			req.Header.Set("Sec-Fetch-Mode", tt.mode)
			req.Header.Set("Sec-Fetch-Dest", tt.dest)
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			res.Body.Close()
			assert.Equal(t, tt.want, res.StatusCode)
		})
	}

	t.Run("the /v1 API reads with credentials", func(t *testing.T) {
		t.Parallel()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, hs.URL+"/v1/balance", nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", ws.LiveKey)
		req.Header.Set("X-API-Secret", ws.LiveSecret)
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, "a page cannot send these headers without a preflight")
	})
}
