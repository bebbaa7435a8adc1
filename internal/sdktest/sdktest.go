// Package sdktest holds the test helpers that the tests of package sms and of package bulk
// share: clients of the mock server and of fake transports, the mock's test wallet, the
// examples' mock, and heap samples for benchmarks. Only tests import it.
package sdktest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/internal/apitest"
	"github.com/seedsms/sms-go/mockserver"
)

// InProcessBase is the base URL of requests that go through an in-process transport.
const InProcessBase = "http://127.0.0.1"

// Credentials of the clients over a fake transport.
const (
	FakeKey    = "pk_test_abc"
	FakeSecret = "sk_test_def"
	FakeJWT    = "aGVhZA.Ym9keQ.c2ln"
)

// MockOptions are the options of a client of srv. An unstarted srv (mockserver.New) is
// reached through its in-process transport: no socket, so the test may run in a synctest
// bubble, where the SDK's default retry waits (1 s to 30 s) take no wall time. A started one
// (mockserver.NewTest) is reached over loopback with retry waits of a few milliseconds, as a
// socket cannot be in a bubble. Either way every request and response is checked against
// api/openapi.yaml. opts come last, and so win: WithHTTPClient replaces the route, the base
// URL staying.
func MockOptions(t *testing.T, srv *mockserver.Server, opts ...sms.Option) []sms.Option {
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
			sms.WithBaseURL(InProcessBase),
			sms.WithHTTPClient(&http.Client{Transport: apitest.Transport(t, srv.Transport(), true)}),
		}
	}
	return append(route, opts...)
}

// Client returns a client of srv's default workspace's test key (see MockOptions).
func Client(t *testing.T, srv *mockserver.Server, opts ...sms.Option) *sms.Client {
	t.Helper()
	ws := srv.Default()
	return ClientOf(t, srv, ws.TestKey, ws.TestSecret, opts...)
}

// ClientOf returns a client of srv with the given key pair (see MockOptions).
func ClientOf(t *testing.T, srv *mockserver.Server, key, secret string, opts ...sms.Option) *sms.Client {
	t.Helper()
	c, err := sms.NewClient(key, secret, MockOptions(t, srv, opts...)...)
	require.NoError(t, err)
	return c
}

// ClientFor returns a client whose every request goes to rt, at InProcessBase, with the
// SDK's default retries (a test that retries runs in a synctest bubble, or passes
// sms.WithRetryWait or sms.WithMaxRetries). opts come last and win.
func ClientFor(t *testing.T, rt http.RoundTripper, opts ...sms.Option) *sms.Client {
	t.Helper()
	c, _ := ClientsFor(t, rt, opts...)
	return c
}

// ClientsFor returns a Client and a DashboardClient whose requests all go to rt (see
// ClientFor).
func ClientsFor(t *testing.T, rt http.RoundTripper, opts ...sms.Option) (*sms.Client, *sms.DashboardClient) {
	t.Helper()
	opts = append([]sms.Option{sms.WithBaseURL(InProcessBase), sms.WithHTTPClient(&http.Client{Transport: rt})}, opts...)
	c, err := sms.NewClient(FakeKey, FakeSecret, opts...)
	require.NoError(t, err)
	d, err := sms.NewDashboardClient(FakeJWT, opts...)
	require.NoError(t, err)
	return c, d
}

// OfflineClients returns a Client and a DashboardClient whose requests all go to one
// CountingTransport, without retries.
func OfflineClients(t *testing.T) (*sms.Client, *sms.DashboardClient, *CountingTransport) {
	t.Helper()
	ct := &CountingTransport{}
	c, d := ClientsFor(t, ct, sms.WithMaxRetries(0))
	return c, d, ct
}

// CountingTransport counts the requests it is given and refuses them all as if nothing
// listened: a test that expects no request asserts N is 0.
type CountingTransport struct{ N atomic.Int32 }

// RoundTrip counts req and refuses it.
func (c *CountingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	c.N.Add(1)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
}

// RoundTripFunc is a RoundTripper of one function.
type RoundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f RoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Recorder wraps the transport Base and keeps the body of every request it sends.
type Recorder struct {
	Base   http.RoundTripper
	mu     sync.Mutex
	bodies []string
}

// RoundTrip keeps req's body and sends req through Base.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
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
	return r.Base.RoundTrip(req)
}

// Sent returns the bodies of the requests sent so far.
func (r *Recorder) Sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bodies)
}

// Server returns a mock with opts, failing the test if New refuses them.
func Server(t testing.TB, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	srv, err := mockserver.New(opts...)
	require.NoError(t, err)
	return srv
}

// RequestsTo counts the requests the mock received for method and path.
func RequestsTo(srv *mockserver.Server, method, path string) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Method == method && r.Path == path {
			n++
		}
	}
	return n
}

// Balance returns the test wallet of the default workspace, in kobo.
func Balance(t *testing.T, srv *mockserver.Server) int64 {
	t.Helper()
	k, err := srv.Balance(srv.Default().WorkspaceID, mockserver.ModeTest)
	require.NoError(t, err)
	return k
}

// Fund sets the test wallet of the default workspace, in kobo.
func Fund(t *testing.T, srv *mockserver.Server, kobo int64) {
	t.Helper()
	require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.ModeTest, kobo))
}

// CampaignTotal returns the number of campaigns c's key sees.
func CampaignTotal(t *testing.T, c *sms.Client) int {
	t.Helper()
	page, err := c.Campaigns.List(context.Background(), &sms.ListCampaignsParams{Limit: 1})
	require.NoError(t, err)
	return page.Total
}

// Numbers returns n distinct Nigerian numbers.
func Numbers(n int) []sms.Recipient {
	out := make([]sms.Recipient, n)
	for i := range out {
		out[i] = sms.Recipient{Phone: fmt.Sprintf("0803%07d", i)}
	}
	return out
}

// AsAPIError returns err's *sms.Error, failing the test when there is none.
func AsAPIError(t *testing.T, err error) *sms.Error {
	t.Helper()
	var e *sms.Error
	require.True(t, errors.As(err, &e), "want an *sms.Error, got %T: %v", err, err)
	return e
}

// LiveHeap returns the live heap. It collects twice: objects parked in sync.Pools (such as
// the buffers encoding/json keeps between calls) survive one collection, and they belong to
// whoever used the pool last (in a test of the mock, mostly the mock's handler), not to what
// holds them now.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// HeapPeak is the high-water mark of the live heap, over a baseline.
type HeapPeak struct{ Base, Peak uint64 }

// Sample raises Peak to the live heap when it is higher.
func (h *HeapPeak) Sample() { h.Peak = max(h.Peak, LiveHeap()) }

// exampleProfile is the profile of the examples' mock server. RunExamplesUnderTheDocumentedProfile
// runs the examples again with -mock-profile=documented, so that they hold against answers
// shaped like the live service's.
var exampleProfile = flag.String("mock-profile", "full", "the profile of the examples' mock server: full or documented")

// ExampleMock returns the in-memory mock server of the examples, with the profile asked for
// (-mock-profile) and opts.
func ExampleMock(opts ...mockserver.Option) *mockserver.Server {
	p, err := mockserver.ParseProfile(*exampleProfile)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := mockserver.New(append([]mockserver.Option{mockserver.WithProfile(p)}, opts...)...)
	if err != nil {
		log.Fatal(err)
	}
	return srv
}

// StartExampleMock starts ExampleMock's server, with opts, on a free loopback port.
func StartExampleMock(opts ...mockserver.Option) *mockserver.Server {
	srv := ExampleMock(opts...)
	if err := srv.Start(); err != nil {
		log.Fatal(err)
	}
	return srv
}

// RunExamplesUnderTheDocumentedProfile runs every Example of the test's package again, in a
// child process of its test binary, against a mock that answers only what the live service's
// pages show: an example leaning on a member the service may not send fails there. At least
// want examples must run.
func RunExamplesUnderTheDocumentedProfile(t *testing.T, want int) {
	t.Helper()
	if *exampleProfile != "full" {
		t.Skip("already under the", *exampleProfile, "profile")
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^Example", "-test.count=1", "-test.v", "-mock-profile=documented")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the examples under the documented profile:\n%s", out)
	require.GreaterOrEqual(t, strings.Count(string(out), "--- PASS: Example"), want, "every example ran:\n%s", out)
}

// BenchClient returns a client of the default workspace's test key of srv, at base, over hc,
// as an application makes one: without the checks of every request that the tests' clients
// make.
func BenchClient(b *testing.B, srv *mockserver.Server, base string, hc *http.Client) *sms.Client {
	b.Helper()
	ws := srv.Default()
	c, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(base), sms.WithHTTPClient(hc))
	if err != nil {
		b.Fatal(err)
	}
	return c
}
