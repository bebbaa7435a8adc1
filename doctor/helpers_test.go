package doctor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/doctor"
	"github.com/seedsms/sms-go/mockserver"
)

// TestMain fails the package if a run leaves a goroutine behind, such as the connections of
// a client of its own.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// order is the names of a report's checks, in their order.
var order = []string{
	doctor.CheckCredentials,
	"scope.sms", "scope.otp", "scope.campaigns", "scope.sender_ids", "scope.balance",
	doctor.CheckBalance, doctor.CheckSenderIDs, doctor.CheckCampaigns, doctor.CheckCampaignStatus,
	doctor.CheckKeys,
}

// levels returns each check's level by name, after checking the report's order.
func levels(t *testing.T, r *doctor.Report) map[string]doctor.Level {
	t.Helper()
	names := make([]string, len(r.Checks))
	out := make(map[string]doctor.Level, len(r.Checks))
	for i, c := range r.Checks {
		names[i] = c.Name
		out[c.Name] = c.Level
	}
	require.Equal(t, order, names, "the checks and their order")
	return out
}

// find returns the check named name.
func find(t *testing.T, r *doctor.Report, name string) doctor.Check {
	t.Helper()
	c, ok := r.Find(name)
	require.True(t, ok, "no check %q", name)
	return c
}

// all returns a map of every check to level, overridden by except.
func all(level doctor.Level, except map[string]doctor.Level) map[string]doctor.Level {
	out := make(map[string]doctor.Level, len(order))
	for _, n := range order {
		out[n] = level
	}
	for n, l := range except {
		out[n] = l
	}
	return out
}

// sendOne sends one SMS with the workspace's test key, so that the campaign list has an item.
func sendOne(t *testing.T, baseURL string, ws mockserver.Workspace, opts ...sms.Option) string {
	t.Helper()
	c, err := sms.NewClient(ws.TestKey, ws.TestSecret, append([]sms.Option{sms.WithBaseURL(baseURL)}, opts...)...)
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	res, err := c.SMS.Send(context.Background(), &sms.SendParams{To: []string{"08025671695"}, From: ws.SenderID, Message: "Hello"})
	require.NoError(t, err)
	return res.Campaign.ID
}

// state is what a run must not change in the mock.
type state struct {
	live, test int64 // kobo
	messages   int
	requests   int
}

func snapshot(t *testing.T, srv *mockserver.Server, ws mockserver.Workspace) state {
	t.Helper()
	live, err := srv.Balance(ws.WorkspaceID, mockserver.ModeLive)
	require.NoError(t, err)
	test, err := srv.Balance(ws.WorkspaceID, mockserver.ModeTest)
	require.NoError(t, err)
	return state{live: live, test: test, messages: len(srv.Messages(mockserver.Filter{})), requests: len(srv.Requests())}
}

// assertNothingChanged checks that the run changed no wallet and sent no message, and that
// every request it made was a GET, or, when probes are allowed, an empty POST that the mock
// refused.
func assertNothingChanged(t *testing.T, srv *mockserver.Server, ws mockserver.Workspace, before state, probes bool) {
	t.Helper()
	after := snapshot(t, srv, ws)
	assert.Equal(t, before.live, after.live, "the live wallet")
	assert.Equal(t, before.test, after.test, "the test wallet")
	assert.Equal(t, before.messages, after.messages, "the messages")
	reqs := srv.Requests()[before.requests:]
	require.NotEmpty(t, reqs)
	for _, r := range reqs {
		switch r.Method {
		case http.MethodGet:
		case http.MethodPost:
			assert.True(t, probes, "%s %s: only GETs are sent without ProbeWrites", r.Method, r.Path)
			if len(r.Body) > 0 { // the mock records a body when it reads it: after the scope
				assert.JSONEq(t, `{}`, string(r.Body), "%s %s", r.Method, r.Path)
			}
			assert.GreaterOrEqual(t, r.Status, 400, "%s %s was refused", r.Method, r.Path)
		default:
			t.Errorf("%s %s: only GETs and empty POSTs are sent", r.Method, r.Path)
		}
	}
}

// assertNoSecret checks that no secret appears in the report, whichever way it is printed.
func assertNoSecret(t *testing.T, cfg doctor.Config, r *doctor.Report, secrets ...string) {
	t.Helper()
	b, err := json.Marshal(r)
	require.NoError(t, err)
	for _, out := range []string{string(b), cfg.String(), fmtAll(cfg), fmtAll(r), fmtAll(*r)} {
		for _, s := range secrets {
			if s != "" {
				assert.NotContains(t, out, s, "a secret was printed")
			}
		}
	}
}

// fakeAPI is a server that answers each "METHOD /path" with its handler after checking the key
// pair (or, under /v1/keys, a bearer token), and every other request with 404 in the
// documented error shape, before authentication, as the mock does.
type fakeAPI struct {
	key, secret, token string
	routes             map[string]http.HandlerFunc

	mu       sync.Mutex
	requests []string // "METHOD /path body"
}

func newFakeAPI(t *testing.T, routes map[string]http.HandlerFunc) (*fakeAPI, *httptest.Server) {
	t.Helper()
	f := &fakeAPI{
		key: "pk_live_" + strings.Repeat("k", 24), secret: "sk_live_" + strings.Repeat("s", 40),
		token: "aGVhZGVy.cGF5bG9hZA.c2lnbmF0dXJl", routes: routes,
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// config is the Config of a run against the fake.
func (f *fakeAPI) config(url string) doctor.Config {
	return doctor.Config{BaseURL: url, APIKey: f.key, APISecret: f.secret, DashboardToken: f.token}
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<10))
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path+" "+string(body))
	f.mu.Unlock()
	h := f.routes[r.Method+" "+r.URL.Path]
	if h == nil {
		writeBody(w, http.StatusNotFound, `{"error":{"code":"not_found","message":"Not found."},"requestId":"req-123"}`)
		return
	}
	ok := r.Header.Get("X-API-Key") == f.key && r.Header.Get("X-API-Secret") == f.secret
	if strings.HasPrefix(r.URL.Path, "/v1/keys") {
		ok = r.Header.Get("Authorization") == "Bearer "+f.token
	}
	if !ok {
		writeBody(w, http.StatusUnauthorized, `{"error":{"code":"unauthorized","message":"Invalid API key or secret."},"requestId":"req-123"}`)
		return
	}
	h(w, r)
}

func (f *fakeAPI) received() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// fmtAll prints v with every verb that could show a secret.
func fmtAll(v any) string { return fmt.Sprintf("%v|%+v|%#v|%s", v, v, v, v) }

func writeBody(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// answer is a handler that writes status and body.
func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { writeBody(w, status, body) }
}
