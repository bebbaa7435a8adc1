package sms_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/internal/sdktest"
	"github.com/seedsms/sms-go/mockserver"
)

// TestMain checks that no test leaves a goroutine behind. net/http lingers for 500 ms on a
// connection it refused before the handler (a 431 in TestHeadersTooLargeIsATypedError), so
// that the client reads the answer rather than a reset; that goroutine ends by itself.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("net/http.(*conn).closeWriteAndWait"))
}

// The helpers package sms's tests share with package bulk's, from internal/sdktest: the
// clients below ("Test clients"), the fake transports they use, and the mock's test wallet.
var (
	mockOpts       = sdktest.MockOptions
	newClient      = sdktest.Client
	newClientOf    = sdktest.ClientOf
	newClientFor   = sdktest.ClientFor
	newClientsFor  = sdktest.ClientsFor
	offlineClients = sdktest.OfflineClients
	newServer      = sdktest.Server
	requestsTo     = sdktest.RequestsTo
	balance        = sdktest.Balance
	fund           = sdktest.Fund
	campaignTotal  = sdktest.CampaignTotal
	numbers        = sdktest.Numbers
	asAPIError     = sdktest.AsAPIError
)

const (
	inProcessBase = sdktest.InProcessBase
	fakeKey       = sdktest.FakeKey
	fakeSecret    = sdktest.FakeSecret
	fakeJWT       = sdktest.FakeJWT
)

type (
	roundTripFunc = sdktest.RoundTripFunc
	recorder      = sdktest.Recorder
)

// Test clients. Every test makes its clients with these; only the tests about making a client
// (credentials, base URLs, options, the SDK's own transport) call sms.NewClient themselves,
// and so do the examples and benchmarks, which show and measure it as an application calls
// it, and the tests inside package sms.
//
// Against the mock:
//   - newClient: the test key of the default workspace;
//   - newClientOf: any key pair;
//   - newDashboardClient: the default workspace's dashboard token;
//   - newScopedClient: a new test key holding only some scopes;
//   - mockOver: a mock and a client of it, in process or over loopback;
//   - mockOpts: the options under all of them, for a client of other credentials.
//
// Against a fake transport (a RoundTripper of the test's own): newClientFor, and
// newClientsFor for a Client and a DashboardClient sharing it; offlineClients is the pair
// over a transport that refuses every request and counts them.

// newDashboardClient returns a dashboard client of srv's default workspace (see mockOpts).
func newDashboardClient(t *testing.T, srv *mockserver.Server, opts ...sms.Option) *sms.DashboardClient {
	t.Helper()
	c, err := sms.NewDashboardClient(srv.Default().DashboardToken, mockOpts(t, srv, opts...)...)
	require.NoError(t, err)
	return c
}

// newScopedClient creates a test key holding only scopes and returns a client of it.
func newScopedClient(t *testing.T, srv *mockserver.Server, scopes ...sms.Scope) *sms.Client {
	t.Helper()
	key, err := newDashboardClient(t, srv).Keys.Create(context.Background(), &sms.CreateKeyParams{
		Name: "restricted", Scopes: scopes, Prefix: sms.KeyPrefixTest,
	})
	require.NoError(t, err)
	return newClientOf(t, srv, key.PublicKey, key.Secret)
}

// transports are the two ways the tests of dropped connections reach the mock: real loopback
// sockets, where a drop closes a TCP connection, and the in-process transport.
var transports = []string{"in-process", "loopback"}

// mockOver starts a mock and returns it with a client of its test key over transport, with
// retry waits of a few milliseconds either way.
func mockOver(t *testing.T, transport string, opts ...sms.Option) (*mockserver.Server, *sms.Client) {
	t.Helper()
	if transport == "loopback" {
		srv := mockserver.NewTest(t)
		return srv, newClient(t, srv, opts...)
	}
	srv := newServer(t)
	return srv, newClient(t, srv, append([]sms.Option{sms.WithRetryWait(time.Millisecond, 5*time.Millisecond)}, opts...)...)
}

// Fake transports.

// answer answers every request with one status, header and body (Content-Type:
// application/json when no header is given; no X-Request-Id, no rate-limit headers, as the
// live service's pages show), and keeps the last request it was given.
type answer struct {
	status int
	header http.Header
	body   []byte

	mu     sync.Mutex
	method string
	path   string
	sent   string
}

func (a *answer) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		_ = req.Body.Close()
	}
	a.mu.Lock()
	a.method, a.path, a.sent = req.Method, req.URL.RequestURI(), string(body)
	a.mu.Unlock()
	h := a.header.Clone()
	if h == nil {
		h = http.Header{"Content-Type": {"application/json"}}
	}
	return &http.Response{StatusCode: a.status, Header: h, Body: io.NopCloser(bytes.NewReader(a.body)), Request: req}, nil
}

// request returns the method, the request URI and the body of the last request.
func (a *answer) request() (method, path, body string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.method, a.path, a.sent
}

// step is what a scripted attempt answers: a response, or a transport error.
type step struct {
	status int
	header http.Header
	body   string
	err    error
	cut    error // the body fails with this error after its text
}

// script is an in-memory RoundTripper that answers attempts from its steps (the last one
// repeats) and records when each attempt came and what it carried. It opens no socket, so it
// works inside a synctest bubble.
type script struct {
	mu     sync.Mutex
	steps  []step
	times  []time.Time
	bodies []string
}

func (s *script) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		_ = req.Body.Close()
	}
	s.mu.Lock()
	n := len(s.times)
	s.times = append(s.times, time.Now())
	s.bodies = append(s.bodies, string(body))
	st := s.steps[min(n, len(s.steps)-1)]
	s.mu.Unlock()
	if st.err != nil {
		return nil, st.err
	}
	h := st.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if h.Get("X-Request-Id") == "" {
		h.Set("X-Request-Id", fmt.Sprintf("req_%d", n+1))
	}
	var rc io.Reader = strings.NewReader(st.body)
	if st.cut != nil {
		rc = io.MultiReader(rc, errReader{st.cut})
	}
	return &http.Response{StatusCode: st.status, Header: h, Body: io.NopCloser(rc), Request: req}, nil
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// attempts returns the number of attempts and the waits between them.
func (s *script) attempts() (int, []time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var waits []time.Duration
	for i := 1; i < len(s.times); i++ {
		waits = append(waits, s.times[i].Sub(s.times[i-1]))
	}
	return len(s.times), waits
}

// apiErrorStep answers with the API's error body of code.
func apiErrorStep(status int, code string, header http.Header) step {
	return step{status: status, header: header, body: `{"error":{"code":"` + code + `","message":"m"},"requestId":"req_body"}`}
}

// errorStep answers with the API's error body of code, message and field ("" for none).
func errorStep(status int, code, message, field string, header http.Header) step {
	e := map[string]any{"code": code, "message": message}
	if field != "" {
		e["field"] = field
	}
	b, _ := json.Marshal(map[string]any{"error": e, "requestId": "r"})
	return step{status: status, header: header, body: string(b)}
}

var (
	balanceOK = step{status: 200, body: `{"data":{"balance":10000.00,"cashback":0.00,"currency":"NGN"},"requestId":"req_ok"}`}
	sentOK    = step{status: 202, body: `{"message":"SMS request accepted.","campaign":{"id":"c1","status":"sent","message_id":"msg_1","recipients":1,"amount":3.20,"currency":"NGN","sms_parts":1},"requestId":"req_ok"}`}
	otpOK     = step{status: 200, body: `{"data":{"smsStatus":"Message Sent","phone_number":"2348025671695","pinId":"p1","status":"200","amount":3.20,"currency":"NGN"},"requestId":"req_ok"}`}
	refused   = &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	dropped   = &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
)

// retryAfter returns a header of one Retry-After.
func retryAfter(v string) http.Header { return http.Header{"Retry-After": {v}} }

// quota returns the rate-limit headers of a key with limit requests a minute and left to go.
func quota(limit, left int) http.Header {
	h := http.Header{}
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(left))
	h.Set("X-RateLimit-Reset", "1767225600")
	return h
}

// timeoutErr is a network timeout.
type timeoutErr struct{}

func (timeoutErr) Error() string { return "i/o timeout" }

func (timeoutErr) Timeout() bool { return true }

func (timeoutErr) Temporary() bool { return true }

// Calls, for tables of calls.

func getBalance(c *sms.Client) error {
	_, err := c.Balance.Get(context.Background(), nil)
	return err
}

// sendSMS sends with a client that, by default, does not assume reference deduplication.
func sendSMS(c *sms.Client) error {
	_, err := c.SMS.Send(context.Background(), &sms.SendParams{To: []string{"2348025671695"}, From: "ACME", Message: "hi"})
	return err
}

func sendOTPOffline(c *sms.Client) error {
	_, err := c.OTP.Send(context.Background(), &sms.SendOTPParams{To: "2348025671695", From: "ACME", Message: "< 1234 >"})
	return err
}

// The mock.

// sendOTP sends an OTP to to and returns it.
func sendOTP(t *testing.T, srv *mockserver.Server, client *sms.Client, to string) *sms.OTP {
	t.Helper()
	otp, err := client.OTP.Send(context.Background(), &sms.SendOTPParams{
		To: to, From: srv.Default().SenderID, Message: "Your code is < 1234 >",
	})
	require.NoError(t, err)
	return otp
}

// fixture reads a sample of testdata/live.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "live", name))
	require.NoError(t, err)
	return b
}

// Errors and logs.

// maxErrorString bounds the length of an *Error's string: four members of at most 200 bytes
// and an ellipsis each, and the fixed text around them.
const maxErrorString = 4*(200+len("…")) + 100

// checkErrorString fails the test when s, the string of an error built from server text, is
// not one printable line of valid UTF-8 of bounded length.
func checkErrorString(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("invalid UTF-8: %q", s)
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }); i >= 0 {
		t.Fatalf("a non-printable character at byte %d: %q", i, s)
	}
	if len(s) > maxErrorString {
		t.Fatalf("%d bytes, more than %d", len(s), maxErrorString)
	}
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

// drain runs seq to its end and returns how many items it yielded and its last error.
func drain[T any](seq iter.Seq2[T, error]) (n int, last error) {
	for _, err := range seq {
		if err != nil {
			last = err
			continue
		}
		n++
	}
	return n, last
}
