package bulk_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
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

// TestMain checks that no test leaves a goroutine behind. The PostgreSQL server of the SQL
// journal's tests, if one started, is stopped at the end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("net/http.(*conn).closeWriteAndWait"), goleak.Cleanup(func(int) { postgres.Stop() }))
}

// Test clients. Every test makes its clients with these, as package sms's tests do:
// newClient (the test key of the default workspace), newClientOf (any key pair) and mockOpts
// (the options under both), against the mock; newClientFor, against a transport of the
// test's own.

// mockOpts are the options of a client of srv. An unstarted srv (mockserver.New) is reached
// through its in-process transport: no socket, so the test may run in a synctest bubble, where
// the SDK's default retry waits (1 s to 30 s) take no wall time. A started one
// (mockserver.NewTest) is reached over loopback with retry waits of a few milliseconds, as a
// socket cannot be in a bubble. Either way every request and response is checked against
// api/openapi.yaml. opts come last, and so win: WithHTTPClient replaces the route, the base
// URL staying.
func mockOpts(t *testing.T, srv *mockserver.Server, opts ...sms.Option) []sms.Option {
	t.Helper()
	var route []sms.Option
	if url := srv.URL(); url != "" {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		t.Cleanup(tr.CloseIdleConnections)
		route = []sms.Option{
			sms.WithBaseURL(url),
			sms.WithHTTPClient(&http.Client{Transport: apitest.Transport(t, tr, true)}),
			sms.WithRetryWait(time.Millisecond, 5*time.Millisecond),
		}
	} else {
		route = []sms.Option{
			sms.WithBaseURL(inProcessBase),
			sms.WithHTTPClient(&http.Client{Transport: apitest.Transport(t, srv.Transport(), true)}),
		}
	}
	return append(route, opts...)
}

// newClient returns a client of srv's default workspace's test key (see mockOpts).
func newClient(t *testing.T, srv *mockserver.Server, opts ...sms.Option) *sms.Client {
	t.Helper()
	ws := srv.Default()
	return newClientOf(t, srv, ws.TestKey, ws.TestSecret, opts...)
}

// newClientOf returns a client of srv with the given key pair (see mockOpts).
func newClientOf(t *testing.T, srv *mockserver.Server, key, secret string, opts ...sms.Option) *sms.Client {
	t.Helper()
	c, err := sms.NewClient(key, secret, mockOpts(t, srv, opts...)...)
	require.NoError(t, err)
	return c
}

// inProcessBase is the base URL of requests that go through an in-process transport.
const inProcessBase = "http://127.0.0.1"

// Credentials of the clients over a fake transport.
const (
	fakeKey    = "pk_test_abc"
	fakeSecret = "sk_test_def"
	fakeJWT    = "aGVhZA.Ym9keQ.c2ln"
)

// newClientFor returns a client whose every request goes to rt, at the base URL
// http://127.0.0.1, with the SDK's default retries (a test that retries runs in a synctest
// bubble, or passes sms.WithRetryWait or sms.WithMaxRetries). opts come last and win.
func newClientFor(t *testing.T, rt http.RoundTripper, opts ...sms.Option) *sms.Client {
	t.Helper()
	c, _ := newClientsFor(t, rt, opts...)
	return c
}

// newClientsFor returns a Client and a DashboardClient whose requests all go to rt (see
// newClientFor).
func newClientsFor(t *testing.T, rt http.RoundTripper, opts ...sms.Option) (*sms.Client, *sms.DashboardClient) {
	t.Helper()
	opts = append([]sms.Option{sms.WithBaseURL(inProcessBase), sms.WithHTTPClient(&http.Client{Transport: rt})}, opts...)
	c, err := sms.NewClient(fakeKey, fakeSecret, opts...)
	require.NoError(t, err)
	d, err := sms.NewDashboardClient(fakeJWT, opts...)
	require.NoError(t, err)
	return c, d
}

// offlineClients returns a Client and a DashboardClient whose requests all go to one
// countingTransport, without retries.
func offlineClients(t *testing.T) (*sms.Client, *sms.DashboardClient, *countingTransport) {
	t.Helper()
	ct := &countingTransport{}
	c, d := newClientsFor(t, ct, sms.WithMaxRetries(0))
	return c, d, ct
}

// Fake transports.

// countingTransport counts the requests it is given and refuses them all as if nothing
// listened: a test that expects no request asserts its count is 0.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	c.n.Add(1)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
}

// roundTripFunc is a RoundTripper of one function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// the body fails with this error after its text

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

// Calls, for tables of calls.

// The mock.

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
	k, err := srv.Balance(srv.Default().WorkspaceID, mockserver.ModeTest)
	require.NoError(t, err)
	return k
}

// fund sets the test wallet of the default workspace, in kobo.
func fund(t *testing.T, srv *mockserver.Server, kobo int64) {
	t.Helper()
	require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.ModeTest, kobo))
}

// campaignTotal returns the number of campaigns c's key sees.
func campaignTotal(t *testing.T, c *sms.Client) int {
	t.Helper()
	page, err := c.Campaigns.List(context.Background(), &sms.ListCampaignsParams{Limit: 1})
	require.NoError(t, err)
	return page.Total
}

// numbers returns n distinct Nigerian numbers.
func numbers(n int) []sms.Recipient {
	out := make([]sms.Recipient, n)
	for i := range out {
		out[i] = sms.Recipient{Phone: fmt.Sprintf("0803%07d", i)}
	}
	return out
}

// Errors and logs.

// asAPIError returns err's *sms.Error, failing the test when there is none.
func asAPIError(t *testing.T, err error) *sms.Error {
	t.Helper()
	var e *sms.Error
	require.True(t, errors.As(err, &e), "want an *sms.Error, got %T: %v", err, err)
	return e
}

// newServer returns a mock with opts, failing the test if New refuses them.
func newServer(t testing.TB, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	srv, err := mockserver.New(opts...)
	require.NoError(t, err)
	return srv
}
