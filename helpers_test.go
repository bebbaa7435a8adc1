package sms_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/internal/apitest"
	"github.com/seedsms/sms-go/mockserver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// validatingHTTP returns an *http.Client that checks every request and response against
// api/openapi.yaml, with its own connection pool closed when the test ends.
func validatingHTTP(t *testing.T) *http.Client {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: apitest.Transport(t, tr, true)}
}

// inProcessOpts are the options of a client that reaches srv through its in-process
// transport, with OpenAPI validation: it works inside a synctest bubble, where retry waits
// (1 s to 30 s by default) take no wall time.
func inProcessOpts(t *testing.T, srv *mockserver.Server, extra ...sms.Option) []sms.Option {
	t.Helper()
	return append([]sms.Option{
		sms.WithBaseURL("http://127.0.0.1"),
		sms.WithHTTPClient(&http.Client{Transport: apitest.Transport(t, srv.Transport(), true)}),
	}, extra...)
}

// clientOpts are the options of the clients tests make against a mock: its URL, OpenAPI
// validation, and short retry waits.
func clientOpts(t *testing.T, srv *mockserver.Server, extra ...sms.Option) []sms.Option {
	t.Helper()
	return append([]sms.Option{
		sms.WithBaseURL(srv.URL()),
		sms.WithHTTPClient(validatingHTTP(t)),
		sms.WithRetryWait(time.Millisecond, 5*time.Millisecond),
	}, extra...)
}

// testClient returns a client of the default workspace's test key.
func testClient(t *testing.T, srv *mockserver.Server, opts ...sms.Option) *sms.Client {
	t.Helper()
	ws := srv.Default()
	c, err := sms.NewClient(ws.TestKey, ws.TestSecret, clientOpts(t, srv, opts...)...)
	require.NoError(t, err)
	return c
}

// dashboardClient returns a dashboard client of the default workspace.
func dashboardClient(t *testing.T, srv *mockserver.Server, opts ...sms.Option) *sms.DashboardClient {
	t.Helper()
	c, err := sms.NewDashboardClient(srv.Default().DashboardToken, clientOpts(t, srv, opts...)...)
	require.NoError(t, err)
	return c
}

// scopedClient creates a test key holding only scopes and returns a client of it.
func scopedClient(t *testing.T, srv *mockserver.Server, scopes ...sms.Scope) *sms.Client {
	t.Helper()
	key, err := dashboardClient(t, srv).Keys.Create(context.Background(), &sms.CreateKeyParams{
		Name: "restricted", Scopes: scopes, Prefix: sms.KeyPrefixTest,
	})
	require.NoError(t, err)
	c, err := sms.NewClient(key.PublicKey, key.Secret, clientOpts(t, srv)...)
	require.NoError(t, err)
	return c
}

// requestsTo counts the requests the mock received for method and path.
func requestsTo(srv *mockserver.Server, method, path string) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Method == method && r.Path == path {
			n++
		}
	}
	return n
}

// balance returns a test wallet of the default workspace, in kobo.
func balance(t *testing.T, srv *mockserver.Server) int64 {
	t.Helper()
	k, err := srv.Balance(srv.Default().WorkspaceID, mockserver.Test)
	require.NoError(t, err)
	return k
}

// recorder wraps a transport and keeps the body of every request it sends.
type recorder struct {
	base   http.RoundTripper
	mu     sync.Mutex
	bodies []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.bodies = append(r.bodies, string(b))
		r.mu.Unlock()
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	return r.base.RoundTrip(req)
}

func (r *recorder) sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bodies)
}

// countingTransport counts the requests it is given and refuses them all as if nothing
// listened: a test that expects no request asserts its count is 0.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	c.n.Add(1)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
}

// offlineClients returns a Client and a DashboardClient whose requests all go to one
// countingTransport.
func offlineClients(t *testing.T) (*sms.Client, *sms.DashboardClient, *countingTransport) {
	t.Helper()
	ct := &countingTransport{}
	opts := []sms.Option{
		sms.WithBaseURL("http://127.0.0.1:1"), sms.WithHTTPClient(&http.Client{Transport: ct}), sms.WithMaxRetries(0),
	}
	c, err := sms.NewClient("pk_test_abc123", "sk_test_def456", opts...)
	require.NoError(t, err)
	d, err := sms.NewDashboardClient("aGVhZA.Ym9keQ.c2ln", opts...)
	require.NoError(t, err)
	return c, d, ct
}

// asAPIError returns err's *sms.Error, failing the test when there is none.
func asAPIError(t *testing.T, err error) *sms.Error {
	t.Helper()
	var e *sms.Error
	require.True(t, errors.As(err, &e), "want an *sms.Error, got %T: %v", err, err)
	return e
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// debugLogger logs JSON lines of every level to w.
func debugLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// ptr returns a pointer to v, for comparing members the server may not send.
func ptr[T any](v T) *T { return &v }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
