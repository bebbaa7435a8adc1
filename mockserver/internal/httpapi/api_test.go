package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver/internal/faults"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// newTestAPI is an API with funded wallets, its Config changed by edit.
func newTestAPI(t *testing.T, edit func(*Config)) *API {
	t.Helper()
	cfg := Config{
		GenericPrice: 320, DNDPrice: 450, LiveBalance: 1 << 40, TestBalance: 1 << 40, Country: "Nigeria",
		RequestLogSize: 100, IdempotencyLimit: 1000, IdempotencyTotalLimit: 1000,
		MaxMessages: 1000, MaxWorkspaces: 10, MaxDND: 100, Now: time.Now, DeduplicateReferences: true,
	}
	if edit != nil {
		edit(&cfg)
	}
	return New(cfg)
}

// serve answers one in-process request: without credentials when secret is "", else with the
// default workspace's live key and that secret ("ok" for the real one).
func serve(t *testing.T, a *API, method, path, secret, contentType, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequestWithContext(context.Background(), method, "http://127.0.0.1"+path, strings.NewReader(body))
	if secret != "" {
		ws := a.Default()
		if secret == "ok" {
			secret = ws.LiveSecret
		}
		r.Header.Set("X-API-Key", ws.LiveKey)
		r.Header.Set("X-API-Secret", secret)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	a.ServeHTTP(w, r)
	return w
}

// errorOf decodes an error answer.
func errorOf(t *testing.T, w *httptest.ResponseRecorder) errorBody {
	t.Helper()
	var b errorBody
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &b), "%s", w.Body)
	return b
}

// apiErrorOf is the one switch from domain errors to HTTP: each kind, wrapped or not, becomes
// its status and code, with the field and Retry-After it carries; anything else is a 500 that
// does not show its text.
func TestAPIErrorOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		status     int
		code       string
		field      string
		retryAfter int
	}{
		{"field", &store.FieldError{Field: "to[2]", Message: "bad"}, 400, "bad_request", "to[2]", 0},
		{"wire", &wire.Error{Field: "message", Message: "not a string"}, 400, "bad_request", "message", 0},
		{"not found", &store.NotFoundError{What: "Campaign"}, 404, "not_found", "", 0},
		{"balance", store.ErrInsufficientBalance, 402, "insufficient_balance", "", 0},
		{"conflict", &store.ConflictError{Message: "taken"}, 409, "conflict", "", 0},
		{"rate limit", &store.RateLimitError{Message: "slow down", RetryAfter: 7}, 429, "rate_limited", "", 7},
		{"auth", &store.AuthError{Message: "who"}, 401, "unauthorized", "", 0},
		{"fault rules", &faults.LimitError{Active: 1000, Given: 1}, 400, "bad_request", "rules", 0},
		{"the API's own", conflict("reused"), 409, "conflict", "", 0},
		{"wrapped", fmt.Errorf("sending: %w", &store.FieldError{Field: "from", Message: "inactive"}), 400, "bad_request", "from", 0},
		{"anything else", errors.New("secret internal detail"), 500, "server_error", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := apiErrorOf(tt.err)
			require.NotNil(t, e)
			assert.Equal(t, tt.status, e.status)
			assert.Equal(t, tt.code, e.code)
			assert.Equal(t, tt.field, e.field)
			assert.Equal(t, tt.retryAfter, e.retryAfter)
			assert.NotEmpty(t, e.message)
			if tt.status == 500 {
				assert.NotContains(t, e.message, "secret internal detail")
			}
		})
	}
}

// Routing: a pattern's {id} matches one non-empty segment, nothing else is a wildcard, every
// route of the table is reached by its own path, and the methods a path has are its Allow.
func TestRouting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		param         string
		ok            bool
	}{
		{"/v1/balance", "/v1/balance", "", true},
		{"/v1/balance", "/v1/balance/", "", false},
		{"/v1/balance", "/v1/balancex", "", false},
		{"/v1/sms/campaigns/{id}/status", "/v1/sms/campaigns/abc/status", "abc", true},
		{"/v1/sms/campaigns/{id}/status", "/v1/sms/campaigns//status", "", false},
		{"/v1/sms/campaigns/{id}/status", "/v1/sms/campaigns/a/b/status", "", false},
		{"/", "/", "", true},
		{"/", "/x", "", false},
	}
	for _, tt := range tests {
		param, ok := matchPattern(tt.pattern, tt.path)
		assert.Equal(t, tt.ok, ok, "%s ~ %s", tt.pattern, tt.path)
		assert.Equal(t, tt.param, param, "%s ~ %s", tt.pattern, tt.path)
	}

	a := newTestAPI(t, nil)
	seen := map[string]bool{}
	for _, pr := range a.routes {
		assert.False(t, seen[pr.pattern], "%s is one path route, with all its methods", pr.pattern)
		seen[pr.pattern] = true
		path := strings.ReplaceAll(pr.pattern, "{id}", "x1")
		got, param := a.match(path)
		require.NotNil(t, got, path)
		assert.Equal(t, pr.pattern, got.pattern, "%s reaches its own route, not an earlier one", path)
		if strings.Contains(pr.pattern, "{id}") {
			assert.Equal(t, "x1", param)
		}
		var methods []string
		for _, rt := range pr.routes {
			methods = append(methods, rt.method)
		}
		assert.Equal(t, strings.Join(methods, ", "), pr.allow)
	}

	w := serve(t, a, http.MethodPut, "/v1/balance", "", "", "")
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	assert.Equal(t, "GET", w.Header().Get("Allow"))
	assert.Equal(t, http.StatusNotFound, serve(t, a, http.MethodGet, "/v1/nothing", "", "", "").Code)
}

// The pipeline runs each concern once, in the order the contract states: a request wrong in
// two ways gets the answer of the earlier check; faults come before the route and the
// credentials; a handler's panic is a 500 in the contract's shape, with its request ID,
// recorded once in the request log.
func TestPipeline(t *testing.T) {
	t.Parallel()
	big := `{"message":"` + strings.Repeat("x", 1<<20) + `"}`
	tests := []struct {
		name                        string
		method, path, secret, ctype string
		body                        string
		status                      int
	}{
		{"route before credentials", http.MethodGet, "/v1/nothing", "", "", "", 404},
		{"credentials before Content-Type", http.MethodPost, "/v1/sms/send", "wrong", "text/plain", "{}", 401},
		{"Content-Type before body size", http.MethodPost, "/v1/sms/send", "ok", "text/plain", big, 415},
		{"body size before validation", http.MethodPost, "/v1/sms/send", "ok", "application/json", big, 413},
		{"validation", http.MethodPost, "/v1/sms/send", "ok", "application/json", `{"to":"x"}`, 400},
	}
	a := newTestAPI(t, nil)
	for _, tt := range tests {
		w := serve(t, a, tt.method, tt.path, tt.secret, tt.ctype, tt.body)
		assert.Equal(t, tt.status, w.Code, "%s: %s", tt.name, w.Body)
	}

	t.Run("faults before route and credentials", func(t *testing.T) {
		t.Parallel()
		a := newTestAPI(t, nil)
		require.NoError(t, a.AddFaults(faults.Rule{Path: "/v1/balance", Status: 503, Times: 1}))
		w := serve(t, a, http.MethodGet, "/v1/balance", "", "", "")
		assert.Equal(t, 503, w.Code)
		assert.Equal(t, 401, serve(t, a, http.MethodGet, "/v1/balance", "", "", "").Code, "the rule applied once")
	})

	t.Run("rate limit before Content-Type", func(t *testing.T) {
		t.Parallel()
		a := newTestAPI(t, func(c *Config) { c.RateLimit = 1; c.Now = func() time.Time { return time.Unix(1e9, 0) } })
		require.Equal(t, 200, serve(t, a, http.MethodGet, "/v1/balance", "ok", "", "").Code)
		w := serve(t, a, http.MethodPost, "/v1/sms/send", "ok", "text/plain", "x")
		assert.Equal(t, 429, w.Code)
		assert.NotEmpty(t, w.Header().Get("Retry-After"))
	})

	t.Run("a panic is a 500 with the request ID, logged once", func(t *testing.T) {
		t.Parallel()
		a := newTestAPI(t, nil)
		a.routes = append([]*pathRoute{{pattern: "/v1/boom", allow: "GET", routes: []*route{{
			method: http.MethodGet, auth: authNone,
			handle: func(*API, *request) (int, any, error) { panic("boom") },
		}}}}, a.routes...)
		w := serve(t, a, http.MethodGet, "/v1/boom", "", "", "")
		assert.Equal(t, 500, w.Code)
		b := errorOf(t, w)
		assert.Equal(t, "server_error", b.Error.Code)
		assert.NotContains(t, w.Body.String(), "boom")
		id := w.Header().Get("X-Request-Id")
		require.NotEmpty(t, id)
		assert.Contains(t, w.Body.String(), id)
		var logged int
		for _, rec := range a.Requests() {
			if rec.Path == "/v1/boom" {
				logged++
				assert.Equal(t, 500, rec.Status)
				assert.Equal(t, id, rec.RequestID)
			}
		}
		assert.Equal(t, 1, logged)
	})
}

// TestNoBodyRouteWaits: the routes that wait (long polls, event streams) read no body. readBody
// leaves its read deadline in place after the body, which net/http would hold a waiting route
// to: its context would end when the deadline passed.
func TestNoBodyRouteWaits(t *testing.T) {
	t.Parallel()
	for _, pr := range buildRoutes() {
		for _, rt := range pr.routes {
			if rt.stream != nil && rt.body {
				t.Errorf("%s %s writes its own answer and reads a body", rt.method, pr.pattern)
			}
		}
	}
}
