package mockserver_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/internal/apitest"
	"github.com/seedsms/sms-go/mockserver"
)

// The tests talk to a real server over HTTP, as any client would, and check every response
// against api/openapi.yaml.

// fixedNow is where the mock's clock starts in these tests: five seconds into a minute, so that
// rate-limit windows and Retry-After values are exact. Time only moves through Advance.
var fixedNow = time.Date(2026, 3, 4, 5, 6, 5, 0, time.UTC)

// jwtSecret signs the dashboard JWTs of every test server, so tests can forge tokens.
var jwtSecret = []byte("0123456789abcdef0123456789abcdef")

const (
	gp = mockserver.DefaultGenericPrice // kobo per part, generic channel
	dp = mockserver.DefaultDNDPrice     // kobo per part, dnd channel
)

var (
	requestIDRe = regexp.MustCompile(`^req-[0-9a-f]{24}$`)
	oidRe       = regexp.MustCompile(`^[0-9a-f]{24}$`)
	uuidRe      = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	moneyRe     = regexp.MustCompile(`^(0|[1-9][0-9]*)\.[0-9]{2}$`)
)

// M is a JSON object.
type M = map[string]any

// rawBody is sent as is.
type rawBody string

// env is one test server and a client for it.
type env struct {
	t    testing.TB
	srv  *mockserver.Server
	ws   mockserver.Workspace
	hc   *http.Client
	v    *apitest.Validator
	base string // where requests go: the server's URL, or a name for in-process requests
}

// newEnv starts a server on a free loopback port, on the fixed clock with the test JWT
// secret, and a client for it; opts come after those defaults and may replace them. It is
// the one way the tests make a client: newInProcessEnv is the same without a listener.
func newEnv(t testing.TB, opts ...mockserver.Option) *env {
	t.Helper()
	srv := mockserver.NewTest(t, testOptions(opts)...)
	tr := &http.Transport{MaxIdleConns: 128, MaxIdleConnsPerHost: 128, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections) // runs before the server closes
	e := &env{
		t: t, srv: srv, ws: srv.Default(), base: srv.URL(),
		hc: &http.Client{Transport: tr, Timeout: 30 * time.Second},
		v:  apitest.NewValidator(t),
	}
	// Serving for sure before the test may end (see TestCloseRightAfterStart).
	e.do(http.MethodGet, "/_mock/faults", nil).wantStatus(http.StatusOK)
	return e
}

// newInProcessEnv is newEnv with no listener: the client calls the server's handler through
// Transport, so that requests reach the store closer together, and so that a
// testing/synctest bubble runs every timer on virtual time.
func newInProcessEnv(t testing.TB, opts ...mockserver.Option) *env {
	t.Helper()
	srv := newServer(t, testOptions(opts)...)
	return &env{
		t: t, srv: srv, ws: srv.Default(), base: "http://mock.invalid",
		hc: &http.Client{Transport: srv.Transport(), Timeout: 30 * time.Second},
		v:  apitest.NewValidator(t),
	}
}

// testOptions are the tests' defaults, then opts.
func testOptions(opts []mockserver.Option) []mockserver.Option {
	return append([]mockserver.Option{
		mockserver.WithJWTSecret(jwtSecret),
		mockserver.WithClock(func() time.Time { return fixedNow }),
	}, opts...)
}

// reqOpt changes a request before it is sent.
type reqOpt func(*http.Request)

func withKey(public, secret string) reqOpt {
	return func(r *http.Request) {
		setOrDelete(r.Header, "X-API-Key", public)
		setOrDelete(r.Header, "X-API-Secret", secret)
	}
}

func withBearer(token string) reqOpt {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
}

// withHeader sets a header; an empty value removes it.
func withHeader(name, value string) reqOpt {
	return func(r *http.Request) { setOrDelete(r.Header, name, value) }
}

// chunked sends the body without a Content-Length.
func chunked() reqOpt {
	return func(r *http.Request) {
		if r.Body != nil {
			r.Body = io.NopCloser(struct{ io.Reader }{r.Body})
			r.GetBody = nil
			r.ContentLength = -1
		}
	}
}

func setOrDelete(h http.Header, name, value string) {
	if value == "" {
		h.Del(name)
		return
	}
	h.Set(name, value)
}

func (e *env) live() reqOpt { return withKey(e.ws.LiveKey, e.ws.LiveSecret) }

func (e *env) test() reqOpt { return withKey(e.ws.TestKey, e.ws.TestSecret) }

func (e *env) newRequest(method, path string, body any, opts ...reqOpt) *http.Request {
	e.t.Helper()
	var data []byte
	switch b := body.(type) {
	case nil:
	case rawBody:
		data = []byte(b)
	case []byte:
		data = b
	default:
		var err error
		data, err = json.Marshal(b)
		require.NoError(e.t, err)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.base+path, rd)
	require.NoError(e.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case strings.HasPrefix(path, "/v1/keys"):
		req.Header.Set("Authorization", "Bearer "+e.ws.DashboardToken)
	case strings.HasPrefix(path, "/v1/"):
		req.Header.Set("X-API-Key", e.ws.LiveKey)
		req.Header.Set("X-API-Secret", e.ws.LiveSecret)
	}
	for _, o := range opts {
		o(req)
	}
	return req
}

// resp is a response read whole and decoded.
type resp struct {
	t      testing.TB
	Method string
	Path   string
	Status int
	Header http.Header
	Raw    []byte
	Body   M
}

// do sends a request, checks the response against the contract's invariants and the OpenAPI
// document, and returns it. It must run on the test's goroutine.
func (e *env) do(method, path string, body any, opts ...reqOpt) *resp {
	e.t.Helper()
	r, err := e.try(method, path, body, opts...)
	require.NoError(e.t, err, "%s %s", method, path)
	return r
}

// try is do for any goroutine: a transport error is returned, other problems are reported
// with assert.
func (e *env) try(method, path string, body any, opts ...reqOpt) (*resp, error) {
	req := e.newRequest(method, path, body, opts...)
	res, err := e.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	r := &resp{t: e.t, Method: method, Path: path, Status: res.StatusCode, Header: res.Header, Raw: raw}
	e.check(req, r)
	return r, nil
}

// check asserts what holds for every response: a JSON object with requestId equal to the
// X-Request-Id header, and a match with api/openapi.yaml.
func (e *env) check(req *http.Request, r *resp) {
	t := e.t
	label := fmt.Sprintf("%s %s -> %d %s", r.Method, r.Path, r.Status, r.Raw)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"), label)
	dec := json.NewDecoder(bytes.NewReader(r.Raw))
	dec.UseNumber()
	if !assert.NoError(t, dec.Decode(&r.Body), label) {
		return
	}
	assert.False(t, dec.More(), "trailing data: %s", label)
	id, _ := r.Body["requestId"].(string)
	assert.Regexp(t, requestIDRe, id, label)
	assert.Equal(t, r.Header.Get("X-Request-Id"), id, label)
	assert.NoError(t, e.v.Response(req, r.Status, r.Header, r.Raw), label)
}

// get reads a member by a dotted path; array elements by index ("data.0._id").
func (r *resp) get(path string) any {
	var v any = r.Body
	for _, seg := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				return nil
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func (r *resp) has(path string) bool {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		m, ok := r.get(path[:i]).(map[string]any)
		if !ok {
			return false
		}
		_, ok = m[path[i+1:]]
		return ok
	}
	_, ok := r.Body[path]
	return ok
}

// str is a string or number member as text; "" when absent or of another type.
func (r *resp) str(path string) string {
	switch v := r.get(path).(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

func (r *resp) int(path string) int {
	r.t.Helper()
	n, ok := r.get(path).(json.Number)
	require.True(r.t, ok, "%s is not a number in %s", path, r.Raw)
	i, err := n.Int64()
	require.NoError(r.t, err)
	return int(i)
}

func (r *resp) bool(path string) bool {
	r.t.Helper()
	b, ok := r.get(path).(bool)
	require.True(r.t, ok, "%s is not a boolean in %s", path, r.Raw)
	return b
}

func (r *resp) list(path string) []any {
	r.t.Helper()
	l, ok := r.get(path).([]any)
	require.True(r.t, ok, "%s is not an array in %s", path, r.Raw)
	return l
}

// kobo reads a money member, which must be written with exactly two decimals.
func (r *resp) kobo(path string) int64 {
	r.t.Helper()
	n, ok := r.get(path).(json.Number)
	require.True(r.t, ok, "%s is not a number in %s", path, r.Raw)
	return parseMoney(r.t, n.String())
}

func parseMoney(t testing.TB, s string) int64 {
	t.Helper()
	require.Regexp(t, moneyRe, s, "money must have exactly two decimals")
	whole, frac, _ := strings.Cut(s, ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	require.NoError(t, err)
	f, err := strconv.ParseInt(frac, 10, 64)
	require.NoError(t, err)
	return w*100 + f
}

func (r *resp) time(path string) time.Time {
	r.t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, r.str(path))
	require.NoError(r.t, err, "%s in %s", path, r.Raw)
	assert.Equal(r.t, time.UTC, tm.Location(), "%s must be UTC", path)
	return tm
}

// wantStatus fails the test at once unless the status is the one expected.
func (r *resp) wantStatus(status int) *resp {
	r.t.Helper()
	require.Equal(r.t, status, r.Status, "%s %s: %s", r.Method, r.Path, r.Raw)
	return r
}

// wantError checks the status and the error body's code and message.
func (r *resp) wantError(status int, code string) *resp {
	r.t.Helper()
	r.wantStatus(status)
	assert.Equal(r.t, code, r.str("error.code"), "%s", r.Raw)
	assert.NotEmpty(r.t, r.str("error.message"), "%s", r.Raw)
	return r
}

// num is a distinct, valid Nigerian number in normalized form.
func num(i int) string { return fmt.Sprintf("23480%08d", i) }

// nums returns n distinct numbers starting at from.
func nums(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = num(from + i)
	}
	return out
}

// sms is a valid POST /v1/sms/send body; kv pairs replace or add members ("-" as a value
// removes the member).
func sms(to any, kv ...any) M {
	return with(M{"to": to, "from": mockserver.DefaultSenderID, "message": "Hello"}, kv...)
}

func with(m M, kv ...any) M {
	out := make(M, len(m)+len(kv)/2)
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		if kv[i+1] == "-" {
			delete(out, k)
			continue
		}
		out[k] = kv[i+1]
	}
	return out
}

func otpBody(to string, kv ...any) M {
	return with(M{"to": to, "from": mockserver.DefaultSenderID, "message_text": "Your code is < 1234 >"}, kv...)
}

// send posts a valid send and requires a 202.
func (e *env) send(body M, opts ...reqOpt) *resp {
	e.t.Helper()
	return e.do(http.MethodPost, "/v1/sms/send", body, opts...).wantStatus(http.StatusAccepted)
}

func (e *env) campaign(body M, opts ...reqOpt) *resp {
	e.t.Helper()
	return e.do(http.MethodPost, "/v1/sms/campaigns", body, opts...).wantStatus(http.StatusAccepted)
}

// balance is a wallet of the default workspace, in kobo.
func (e *env) balance(mode mockserver.Mode) int64 {
	e.t.Helper()
	b, err := e.srv.Balance(e.ws.WorkspaceID, mode)
	require.NoError(e.t, err)
	return b
}

func (e *env) setBalance(mode mockserver.Mode, kobo int64) {
	e.t.Helper()
	require.NoError(e.t, e.srv.SetBalance(e.ws.WorkspaceID, mode, kobo))
}

// campaignTotal is pagination.total of the campaign list, with the default key of opts.
func (e *env) campaignTotal(opts ...reqOpt) int {
	e.t.Helper()
	r := e.do(http.MethodGet, "/v1/sms/campaigns?limit=1", nil, opts...).wantStatus(http.StatusOK)
	return r.int("pagination.total")
}

// state is what a rejected request must leave alone.
type state struct {
	Live, Test                   int64
	LiveCampaigns, TestCampaigns int
	Messages                     int
}

func (e *env) state() state {
	e.t.Helper()
	return state{
		Live: e.balance(mockserver.ModeLive), Test: e.balance(mockserver.ModeTest),
		LiveCampaigns: e.campaignTotal(e.live()), TestCampaigns: e.campaignTotal(e.test()),
		Messages: len(e.srv.Messages(mockserver.Filter{})),
	}
}

// createKey creates a key through the dashboard API and returns its public key, secret and id.
func (e *env) createKey(body M) (public, secret, id string) {
	e.t.Helper()
	r := e.do(http.MethodPost, "/v1/keys", body)
	require.Contains(e.t, []int{http.StatusCreated, http.StatusOK}, r.Status, "201, or 200 in the documented profile: %s", r.Raw)
	return r.str("data.publicKey"), r.str("data.secret"), r.str("data._id")
}

// keyWithout creates a key of the given prefix with every scope but the one named.
func (e *env) keyWithout(scope, prefix string) reqOpt {
	e.t.Helper()
	scopes := M{}
	for _, s := range []string{"sms", "otp", "campaigns", "sender_ids", "balance"} {
		scopes[s] = s != scope
	}
	pub, sec, _ := e.createKey(M{"name": "no " + scope, "scopes": scopes, "prefix": prefix})
	return withKey(pub, sec)
}

// requestSender requests a sender ID and returns its id.
func (e *env) requestSender(title string, opts ...reqOpt) string {
	e.t.Helper()
	r := e.do(http.MethodPost, "/v1/sender-ids", M{"sender_id": title, "usecase": "Alerts", "company": "Acme"}, opts...)
	r.wantStatus(http.StatusCreated)
	return r.str("data._id")
}

// otp sends an OTP and returns its pinId and the pin the phone received.
func (e *env) otp(body M, opts ...reqOpt) (pinID, pin string) {
	e.t.Helper()
	r := e.do(http.MethodPost, "/v1/otp/send", body, opts...).wantStatus(http.StatusOK)
	pinID = r.str("data.pinId")
	latestID, pin, err := e.srv.LatestOTP(body["to"].(string))
	require.NoError(e.t, err)
	require.Equal(e.t, pinID, latestID)
	return pinID, pin
}

func (e *env) verify(pinID, pin string, opts ...reqOpt) *resp {
	e.t.Helper()
	return e.do(http.MethodPost, "/v1/otp/verify", M{"pin_id": pinID, "pin": pin}, opts...)
}

// newWorkspace makes a second workspace with default balances.
func (e *env) newWorkspace() mockserver.Workspace {
	e.t.Helper()
	ws, err := e.srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.NoError(e.t, err)
	return ws
}

// checkRequest validates a request (not sending it) against api/openapi.yaml.
func (e *env) checkRequest(c call) error {
	e.t.Helper()
	req := e.newRequest(c.method, c.path, c.body, c.opts...)
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		require.NoError(e.t, err)
	}
	return e.v.Request(req, body)
}

func claims(wid string, exp time.Time) jwt.MapClaims {
	return jwt.MapClaims{"sub": "user_1", "wid": wid, "exp": exp.Unix()}
}

func signJWT(t testing.TB, method jwt.SigningMethod, key any, c jwt.Claims) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(method, c).SignedString(key)
	require.NoError(t, err)
	return tok
}

// foreignAlgJWT is a token whose header names alg with an arbitrary signature: the server must
// not accept an algorithm other than HS256, whatever it is.
func foreignAlgJWT(alg string, c jwt.MapClaims) string {
	enc := base64.RawURLEncoding
	head, _ := json.Marshal(M{"alg": alg, "typ": "JWT"})
	body, _ := json.Marshal(c)
	return enc.EncodeToString(head) + "." + enc.EncodeToString(body) + "." + enc.EncodeToString(bytes.Repeat([]byte{7}, 256))
}

// assertTime checks a timestamp member against the mock's clock.
func assertTime(t *testing.T, want time.Time, r *resp, path string) {
	t.Helper()
	assert.WithinDuration(t, want, r.time(path), 0, "%s", path)
}

func assertNull(t *testing.T, r *resp, path string) {
	t.Helper()
	assert.True(t, r.has(path), "%s must be present", path)
	assert.Nil(t, r.get(path), "%s must be null", path)
}

// ids lists the given member of every element of an array.
func ids(r *resp, list, member string) []string {
	var out []string
	for i := range r.list(list) {
		out = append(out, r.str(list+"."+itoa(i)+"."+member))
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

func keysOf(m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// parallel runs n requests at once (released together) and returns their responses in order.
func (e *env) parallel(n int, req func(i int) call) []*resp {
	e.t.Helper()
	calls := make([]call, n)
	for i := range calls {
		calls[i] = req(i)
	}
	out := make([]*resp, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			<-start
			c := calls[i]
			out[i], errs[i] = e.try(c.method, c.path, c.body, c.opts...)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		require.NoError(e.t, err, "request %d", i)
	}
	return out
}

// newServer returns a mock with opts, failing the test if New refuses them.
func newServer(t testing.TB, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	srv, err := mockserver.New(opts...)
	require.NoError(t, err)
	return srv
}
