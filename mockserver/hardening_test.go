package mockserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// Regressions of the mock's hardening: each test failed before the fix it names.

// rawExchange writes a request by hand on a fresh connection (feeding the rest of it, if any,
// from drip), and returns the status line of the answer and whether the server then closed
// the connection, both within limit, and how long the close took after the answer.
func rawExchange(t *testing.T, e *env, head string, drip func(net.Conn), limit time.Duration) (status string, closed bool, lag time.Duration) {
	t.Helper()
	u, err := url.Parse(e.srv.URL())
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	require.NoError(t, conn.SetDeadline(time.Now().Add(limit)))
	_, err = io.WriteString(conn, strings.ReplaceAll(head, "\n", "\r\n"))
	require.NoError(t, err)
	if drip != nil {
		go drip(conn)
	}
	br := bufio.NewReader(conn)
	status, err = br.ReadString('\n')
	if err != nil {
		return "", false, 0
	}
	resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader(status), br)), nil)
	if err != nil {
		return status, false, 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	answered := time.Now()
	_, err = br.ReadByte()
	return strings.TrimSpace(status), errors.Is(err, io.EOF), time.Since(answered)
}

func TestHardening_SlowBodiesAreTimedOut(t *testing.T) {
	t.Parallel()
	const readTimeout = 400 * time.Millisecond
	e := newEnv(t, mockserver.WithReadTimeout(readTimeout))
	auth := "X-API-Key: " + e.ws.LiveKey + "\nX-API-Secret: " + e.ws.LiveSecret + "\n"
	dripping := func(c net.Conn) { // one byte every 50 ms, for ever
		for {
			time.Sleep(50 * time.Millisecond)
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
		}
	}
	tests := []struct {
		name   string
		head   string
		drip   func(net.Conn)
		status string
		read   bool // the route reads the body: the connection closes with the answer
	}{
		{"stalled send", "POST /v1/sms/send HTTP/1.1\nHost: 127.0.0.1\n" + auth +
			"Content-Type: application/json\nContent-Length: 100\n\n{\"to\":", nil, "HTTP/1.1 400 Bad Request", true},
		{"dripping send", "POST /v1/sms/send HTTP/1.1\nHost: 127.0.0.1\n" + auth +
			"Content-Type: application/json\nContent-Length: 100000\n\n{", dripping, "HTTP/1.1 400 Bad Request", true},
		{"stalled chunked control", "POST /_mock/clock HTTP/1.1\nHost: 127.0.0.1\n" +
			"Content-Type: application/json\nTransfer-Encoding: chunked\n\n5\n{\"adv\n", nil, "HTTP/1.1 400 Bad Request", true},
		// Answered without reading the body: what net/http then discards is bounded too.
		{"stalled unauthenticated", "POST /v1/sms/send HTTP/1.1\nHost: 127.0.0.1\n" +
			"Content-Type: application/json\nContent-Length: 100\n\n{", nil, "HTTP/1.1 401 Unauthorized", false},
		{"dripping body on a GET", "GET /v1/balance HTTP/1.1\nHost: 127.0.0.1\n" + auth +
			"Content-Length: 100000\n\n", dripping, "HTTP/1.1 200 OK", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			status, closed, lag := rawExchange(t, e, tt.head, tt.drip, 3*time.Second)
			assert.Equal(t, tt.status, status)
			assert.True(t, closed, "the server must close the connection of a body it could not read")
			assert.Less(t, time.Since(start), 2*time.Second)
			if tt.read {
				assert.Less(t, lag, readTimeout/2, "closed with the answer, not after another read timeout")
			}
		})
	}

	t.Run("a slow handler is not cut by the body deadline", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, mockserver.WithReadTimeout(readTimeout))
		require.NoError(t, e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Latency: 3 * readTimeout, Times: 1}))
		e.send(sms(num(1)))
	})
}

func TestHardening_DeliverHugeCountsChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.send(sms([]string{num(1), num(2), num(3)})).str("campaign.id")
	status := func() [4]int {
		r := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
		return [4]int{r.int("data.counts.sent"), r.int("data.counts.delivered"), r.int("data.counts.failed"), r.int("data.counts.dnd")}
	}
	tests := []struct {
		body  string
		field string
	}{
		// The three sum to 0 in int64: before, that passed the check and panicked half-way.
		{fmt.Sprintf(`{"delivered":%d,"failed":%d,"dnd":2}`, math.MaxInt64, math.MaxInt64), "delivered"},
		{fmt.Sprintf(`{"delivered":1,"failed":%d}`, math.MaxInt64), "failed"},
		{fmt.Sprintf(`{"dnd":%d}`, math.MinInt64), "dnd"},
		{`{"delivered":1e30}`, "delivered"},
	}
	for _, tt := range tests {
		r := e.do(http.MethodPost, "/_mock/campaigns/"+id+"/deliver", rawBody(tt.body)).wantError(http.StatusBadRequest, "bad_request")
		assert.Equal(t, tt.field, r.str("error.field"), tt.body)
		assert.Equal(t, [4]int{3, 0, 0, 0}, status(), "nothing moved: %s", tt.body)
	}
	err := e.srv.Deliver(id, &mockserver.DeliverCounts{Delivered: math.MaxInt, Failed: math.MaxInt, DND: 2})
	require.Error(t, err)
	assert.Equal(t, [4]int{3, 0, 0, 0}, status())
}

func TestHardening_ClockNeverWrapsBackwards(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pinID, pin := e.otp(otpBody(num(7)))
	require.NoError(t, e.srv.Advance(11*time.Minute))
	e.verify(pinID, pin).wantError(http.StatusBadRequest, "bad_request")

	before := e.srv.Now()
	for _, advance := range []string{"2562047h47m16s", "2000000h", "1600000h"} { // 292, 228, 183 years
		r := e.do(http.MethodPost, "/_mock/clock", M{"advance": advance}).wantError(http.StatusBadRequest, "bad_request")
		assert.Equal(t, "advance", r.str("error.field"))
		assert.Equal(t, before, e.srv.Now(), "the clock did not move")
	}
	e.do(http.MethodPost, "/_mock/clock", M{"advance": "876000h"}).wantStatus(http.StatusOK) // 100 years
	assert.Error(t, e.srv.Advance(876000*time.Hour), "200 years from 2026 is past 2200")
	assert.Error(t, e.srv.Advance(math.MaxInt64))
	assert.Error(t, e.srv.Advance(-time.Second))
	assert.False(t, e.srv.Now().After(time.Date(2200, time.January, 1, 0, 0, 0, 0, time.UTC)))
	e.verify(pinID, pin).wantError(http.StatusBadRequest, "bad_request") // still expired
}

func TestHardening_MoneyHasBounds(t *testing.T) {
	t.Parallel()
	t.Run("options out of range are refused", func(t *testing.T) {
		t.Parallel()
		for _, opt := range []mockserver.Option{
			mockserver.WithPrices(math.MaxInt64, mockserver.DefaultDNDPrice), // x 2 parts wrapped to a credit
			mockserver.WithPrices(mockserver.DefaultGenericPrice, mockserver.MaxPrice+1),
			mockserver.WithPrices(-1, mockserver.DefaultDNDPrice),
			mockserver.WithBalances(mockserver.MaxBalance+1, 0),
			mockserver.WithBalances(0, -1),
		} {
			srv := mockserver.New(opt)
			require.Error(t, srv.Start())
			// Served anyway (Handler): every request is a 500 and nothing is charged.
			hc := &http.Client{Transport: srv.Transport()}
			ws := srv.Default()
			req, err := http.NewRequest(http.MethodPost, "http://mock/v1/sms/send",
				strings.NewReader(`{"to":"2348000000001","from":"MOCKSMS","message":"`+strings.Repeat("x", 200)+`"}`))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-API-Key", ws.LiveKey)
			req.Header.Set("X-API-Secret", ws.LiveSecret)
			resp, err := hc.Do(req)
			require.NoError(t, err)
			_ = resp.Body.Close()
			assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
		}
		srv := mockserver.New(mockserver.WithPrices(mockserver.MaxPrice, mockserver.MaxPrice), mockserver.WithBalances(mockserver.MaxBalance, 0))
		require.NoError(t, srv.Start())
		require.NoError(t, srv.Close())
	})

	t.Run("controls name the bad money field", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		balancePath := "/_mock/workspaces/" + e.ws.WorkspaceID + "/balance"
		tests := []struct {
			path, body, field string
		}{
			{balancePath, `{"mode":"live","balance":"12.00"}`, "balance"},
			{balancePath, `{"mode":"live","balance":1.234}`, "balance"},
			{balancePath, `{"mode":"live","balance":-1}`, "balance"},
			{balancePath, `{"mode":"live","balance":1e20}`, "balance"}, // over MaxBalance
			{balancePath, `{"mode":"live","balance":99999999999999999999}`, "balance"},
			{"/_mock/workspaces", `{"liveBalance":true}`, "liveBalance"},
			{"/_mock/workspaces", `{"testBalance":40000000000000000.01}`, "testBalance"}, // MaxBalance + 1 kobo
		}
		before := e.balance(mockserver.Live)
		for _, tt := range tests {
			r := e.do(http.MethodPost, tt.path, rawBody(tt.body)).wantError(http.StatusBadRequest, "bad_request")
			assert.Equal(t, tt.field, r.str("error.field"), tt.body)
		}
		assert.Equal(t, before, e.balance(mockserver.Live))
		assert.Error(t, e.srv.SetBalance(e.ws.WorkspaceID, mockserver.Live, mockserver.MaxBalance+1))
		e.do(http.MethodPost, balancePath, rawBody(`{"mode":"live","balance":40000000000000000.00}`)).wantStatus(http.StatusOK)
		assert.Equal(t, int64(mockserver.MaxBalance), e.balance(mockserver.Live))
	})
}

// withHost sends the request with this Host header.
func withHost(host string) reqOpt { return func(r *http.Request) { r.Host = host } }

func TestHardening_BrowserAttacksOnControls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithAllowedHosts("mock.test"))
	u, err := url.Parse(e.srv.URL())
	require.NoError(t, err)
	port := u.Port()

	t.Run("Host must be loopback or allowed", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			host string
			want int
		}{
			{"127.0.0.1:" + port, http.StatusOK},
			{"localhost:" + port, http.StatusOK},
			{"LOCALHOST.", http.StatusOK},
			{"127.9.8.7", http.StatusOK},
			{"[::1]:" + port, http.StatusOK},
			{"mock.test:" + port, http.StatusOK},
			{"attacker.example:" + port, http.StatusForbidden}, // DNS rebinding
			{"attacker.example", http.StatusForbidden},
			{"10.0.0.1:" + port, http.StatusForbidden},
			{"localhost.attacker.example", http.StatusForbidden},
		}
		for _, tt := range tests {
			for _, path := range []string{"/_mock/faults", "/v1/balance"} {
				r := e.do(http.MethodGet, path, nil, withHost(tt.host))
				assert.Equal(t, tt.want, r.Status, "%s %s: %s", tt.host, path, r.Raw)
				if tt.want == http.StatusForbidden {
					assert.Equal(t, "forbidden", r.str("error.code"))
				}
			}
		}
	})

	t.Run("cross-site state changes are refused", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		before := e.state()
		tests := []struct {
			name, method, path string
			body               any
			header, value      string
			want               int
		}{
			{"reset from another site", http.MethodPost, "/_mock/reset", nil, "Origin", "http://attacker.example", http.StatusForbidden},
			{"reset, Sec-Fetch-Site", http.MethodPost, "/_mock/reset", nil, "Sec-Fetch-Site", "cross-site", http.StatusForbidden},
			{"reset from a null origin", http.MethodPost, "/_mock/reset", nil, "Origin", "null", http.StatusForbidden},
			{"balance from another port", http.MethodPost, "/_mock/workspaces/" + e.ws.WorkspaceID + "/balance",
				M{"mode": "live", "balance": 1}, "Origin", "http://127.0.0.1:1", http.StatusForbidden},
			{"faults cleared from another site", http.MethodDelete, "/_mock/faults", nil, "Origin", "https://attacker.example", http.StatusForbidden},
			{"send from another site", http.MethodPost, "/v1/sms/send", sms(num(1)), "Origin", "http://attacker.example", http.StatusForbidden},
			{"reading is not a state change", http.MethodGet, "/_mock/faults", nil, "Origin", "http://attacker.example", http.StatusOK},
			{"same origin (the inbox page)", http.MethodGet, "/_mock/faults", nil, "Sec-Fetch-Site", "same-origin", http.StatusOK},
		}
		for _, tt := range tests {
			r := e.do(tt.method, tt.path, tt.body, withHeader(tt.header, tt.value))
			assert.Equal(t, tt.want, r.Status, "%s: %s", tt.name, r.Raw)
		}
		assert.Equal(t, before, e.state(), "nothing changed")
		e.do(http.MethodPost, "/_mock/dnd", M{"numbers": []string{num(9)}},
			withHeader("Origin", e.srv.URL()), withHeader("Sec-Fetch-Site", "same-origin")).wantStatus(http.StatusOK)
		e.do(http.MethodPost, "/_mock/dnd", M{"numbers": []string{num(9)}}, withHeader("Origin", e.srv.URL())).wantStatus(http.StatusOK)
	})

	t.Run("control POSTs with a body need application/json", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		tests := []struct {
			contentType, body string
			want              int
		}{
			{"text/plain", `{"rules":[{"status":503}]}`, http.StatusUnsupportedMediaType},
			{"application/x-www-form-urlencoded", `a=b`, http.StatusUnsupportedMediaType},
			{"multipart/form-data; boundary=x", `--x--`, http.StatusUnsupportedMediaType},
			{"", `{"rules":[{"status":503}]}`, http.StatusUnsupportedMediaType},
			{"application/json; charset=utf-8", `{"rules":[{"status":503,"path":"/v1/balance","times":1}]}`, http.StatusOK},
		}
		for _, tt := range tests {
			r := e.do(http.MethodPost, "/_mock/faults", rawBody(tt.body), withHeader("Content-Type", tt.contentType))
			assert.Equal(t, tt.want, r.Status, "%q: %s", tt.contentType, r.Raw)
		}
		assert.Len(t, e.srv.Faults(), 1, "only the JSON request added a rule")
		e.do(http.MethodPost, "/_mock/reset", nil).wantStatus(http.StatusOK) // curl -X POST: no body, no type
	})
}

func TestHardening_RequestLogRedactsSecretShapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	jwtLike := e.ws.DashboardToken
	secrets := []string{e.ws.LiveSecret, "sk_test_swappedIntoAnotherHeader", jwtLike, "opaque-bearer-value", "dXNlcjpwYXNz"}
	e.do(http.MethodGet, "/v1/balance?api_secret="+url.QueryEscape(e.ws.LiveSecret)+"&page=1", nil,
		withKey(e.ws.LiveSecret, e.ws.LiveKey), // swapped: the secret in X-API-Key
		withHeader("X-Forwarded-Secret", "prefix sk_test_swappedIntoAnotherHeader"),
		withHeader("X-Session", jwtLike),
		withHeader("X-Upstream-Auth", "Bearer opaque-bearer-value"),
		withHeader("Proxy-Authorization", "Basic dXNlcjpwYXNz"),
		withHeader("X-Trace", "kept-as-is"),
	).wantStatus(http.StatusUnauthorized)

	got := e.srv.Requests()
	require.Len(t, got, 1)
	rec := got[0]
	for _, name := range []string{"X-Api-Key", "X-Api-Secret", "X-Forwarded-Secret", "X-Session", "X-Upstream-Auth", "Proxy-Authorization"} {
		assert.Equal(t, []string{"[REDACTED]"}, rec.Headers[name], name)
	}
	assert.Equal(t, []string{"kept-as-is"}, rec.Headers["X-Trace"])
	assert.Contains(t, rec.Query, "page=1")
	overHTTP := e.do(http.MethodGet, "/_mock/requests", nil).wantStatus(http.StatusOK)
	for _, s := range secrets {
		assert.NotContains(t, string(overHTTP.Raw), s)
		assert.NotContains(t, fmt.Sprintf("%+v", got), s)
		assert.NotContains(t, rec.Query, url.QueryEscape(s))
	}
	assert.Equal(t, "kept-as-is", overHTTP.str("data.0.headers.X-Trace.0"))
}

func TestHardening_RequestLogCapsHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	opts := []reqOpt{e.live()}
	for i := range 40 { // 40 KiB of headers, under the server's 64 KiB limit
		opts = append(opts, withHeader(fmt.Sprintf("X-Big-%02d", i), strings.Repeat("v", 1024)))
	}
	e.do(http.MethodGet, "/v1/balance", nil, opts...).wantStatus(http.StatusOK)
	e.do(http.MethodGet, "/v1/balance", nil).wantStatus(http.StatusOK)

	got := e.srv.Requests()
	require.Len(t, got, 2)
	size := 0
	for k, vs := range got[0].Headers {
		for _, v := range vs {
			size += len(k) + len(v)
		}
	}
	assert.LessOrEqual(t, size, 8<<10)
	assert.Greater(t, size, 6<<10, "as many whole headers as fit")
	assert.True(t, got[0].HeadersTruncated)
	assert.False(t, got[1].HeadersTruncated)
	assert.Equal(t, []string{"[REDACTED]"}, got[1].Headers["X-Api-Secret"])
	r := e.do(http.MethodGet, "/_mock/requests", nil).wantStatus(http.StatusOK)
	assert.True(t, r.bool("data.0.headersTruncated"))
	assert.False(t, r.has("data.1.headersTruncated"))
}

func TestHardening_FaultRules(t *testing.T) {
	t.Parallel()
	t.Run("at most MaxFaultRules", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		rules := make([]M, mockserver.MaxFaultRules+1)
		for i := range rules {
			rules[i] = M{"path": "/v1/balance", "status": 503, "times": 1}
		}
		r := e.do(http.MethodPost, "/_mock/faults", M{"rules": rules}).wantError(http.StatusBadRequest, "bad_request")
		assert.Equal(t, "rules", r.str("error.field"))
		assert.Empty(t, e.srv.Faults())

		e.do(http.MethodPost, "/_mock/faults", M{"rules": rules[:mockserver.MaxFaultRules-1]}).wantStatus(http.StatusOK)
		e.do(http.MethodPost, "/_mock/faults", M{"rules": rules[:2]}).wantError(http.StatusBadRequest, "bad_request")
		require.NoError(t, e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/balance", Status: 503}))
		assert.Error(t, e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/balance", Status: 503}))
		assert.Len(t, e.srv.Faults(), mockserver.MaxFaultRules)
	})

	t.Run("every rule is listed, whatever its probability", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		rules := make([]M, 50)
		for i := range rules {
			rules[i] = M{"path": "/v1/balance", "status": 503, "probability": 0.01}
		}
		r := e.do(http.MethodPost, "/_mock/faults", M{"rules": rules}).wantStatus(http.StatusOK)
		assert.Len(t, r.list("rules"), 50)
		assert.Len(t, e.do(http.MethodGet, "/_mock/faults", nil).list("rules"), 50)
		assert.Len(t, e.srv.Faults(), 50)
	})

	t.Run("a path must match a /v1 route", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		tests := []struct {
			path string
			ok   bool
		}{
			{"/v1/balance", true},
			{"/v1/sms/campaigns/65a1b2c3d4e5f60718293a4b/status", true},
			{"/v1/sms/campaigns/*", true},
			{"/v1/sms/campaigns/65a1*", true},
			{"/v1/sm*", true},
			{"/v1/*", true},
			{"*", true},
			{"/v2/balance", false},
			{"/v1/balanc", false},
			{"/v1/balance/", false},
			{"/v1/keys/x/y", false},
			{"/v1/sms/campaigns/x/statuses", false},
			{"/_mock/reset", false}, // faults never apply to controls
			{"/_mock/*", false},
			{"balance", false},
		}
		for _, tt := range tests {
			body := M{"rules": []M{{"path": "/v1/balance", "status": 503}, {"status": 500}, {"path": tt.path, "status": 503}}}
			r := e.do(http.MethodPost, "/_mock/faults", body)
			if tt.ok {
				r.wantStatus(http.StatusOK)
				e.srv.ClearFaults()
				continue
			}
			r.wantError(http.StatusBadRequest, "bad_request")
			assert.Equal(t, "rules[2].path", r.str("error.field"), tt.path)
			assert.Empty(t, e.srv.Faults(), "all or none: %s", tt.path)
		}
	})
}

func TestHardening_EncodedSlashIsNotASeparator(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.send(sms(num(1))).str("campaign.id")
	tests := []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/v1/sms/campaigns/" + id + "/status", http.StatusOK},
		{http.MethodGet, "/v1/sms/campaigns/" + id + "%2Fstatus", http.StatusNotFound},
		{http.MethodGet, "/v1/sms/campaigns/" + id + "%2fstatus", http.StatusNotFound},
		{http.MethodGet, "/v1/sms%2Fcampaigns", http.StatusNotFound},
		{http.MethodPost, "/_mock/campaigns/" + id + "%2Fdeliver", http.StatusNotFound},
		{http.MethodGet, "/v1/sms/campaigns/" + id[:23] + "%" + fmt.Sprintf("%02X", id[23]) + "/status", http.StatusOK},
	}
	for _, tt := range tests {
		r := e.do(tt.method, tt.path, nil)
		assert.Equal(t, tt.want, r.Status, "%s %s: %s", tt.method, tt.path, r.Raw)
	}
	assert.Equal(t, 1, e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).int("data.counts.sent"), "nothing delivered")
}

func TestHardening_ContractGaps(t *testing.T) {
	t.Parallel()

	t.Run("null and invalid UTF-8 bodies", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		tests := []struct {
			name, path, body, field string
		}{
			{"null send", "/v1/sms/send", `null`, ""},
			{"null with space", "/v1/otp/send", " null\n", ""},
			{"null control", "/_mock/clock", `null`, ""},
			{"bad byte in message", "/v1/sms/send", `{"to":"` + num(1) + `","from":"MOCKSMS","message":"Hi ` + "\xff" + `"}`, "message"},
			{"bad byte in a list", "/v1/sms/send", `{"to":["` + num(1) + `","23480` + "\xc0" + `"],"from":"MOCKSMS","message":"Hi"}`, "to[1]"},
			{"bad byte nested", "/v1/sms/campaigns", `{"to":[{"phone":"` + num(1) + `"},{"phone":"` + num(2) + `","name":"A` + "\xed\xa0\x80" + `"}],"from":"MOCKSMS","message":"Hi {{name}}"}`, "to[1].name"},
			{"bad byte in a name", "/v1/sms/send", `{"to":"` + num(1) + `","from":"MOCKSMS","mess` + "\xff" + `age":"Hi"}`, "mess\ufffdage"},
			{"bad byte in a control", "/_mock/dnd", `{"numbers":["` + "\xfe" + `"]}`, "numbers[0]"},
			{"bad byte outside a string", "/v1/sms/send", "{\xff}", ""},
			{"a malformed escape", "/v1/sms/send", `{"to":"` + num(1) + `","from":"MOCKSMS","message":"Hi \xff"}`, ""},
		}
		before := e.state()
		for _, tt := range tests {
			r := e.do(http.MethodPost, tt.path, rawBody(tt.body)).wantError(http.StatusBadRequest, "bad_request")
			assert.Equal(t, tt.field, r.str("error.field"), "%s: %s", tt.name, r.Raw)
		}
		assert.Equal(t, before, e.state(), "nothing was sent")
	})

	t.Run("JWT exp must be a number", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		future := fixedNow.Add(time.Hour).Unix()
		tests := []struct {
			exp  any
			want int
		}{
			{future, http.StatusOK},
			{fmt.Sprint(future), http.StatusUnauthorized},
			{fmt.Sprint(future) + ".5", http.StatusUnauthorized},
			{nil, http.StatusUnauthorized},
		}
		for _, tt := range tests {
			c := jwt.MapClaims{"sub": "user", "wid": e.ws.WorkspaceID, "exp": tt.exp}
			if tt.exp == nil {
				delete(c, "exp")
			}
			r := e.do(http.MethodGet, "/v1/keys", nil, withBearer(signJWT(t, jwt.SigningMethodHS256, jwtSecret, c)))
			assert.Equal(t, tt.want, r.Status, "exp %#v: %s", tt.exp, r.Raw)
		}
	})

	t.Run("otps/latest", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t) // it sends an OTP: apart from the subtest that checks nothing moved
		pinID, pin := e.otp(otpBody(num(42)))
		for _, query := range []string{"to=" + num(42), "to=%2B" + num(42), "to=+" + num(42)} {
			r := e.do(http.MethodGet, "/_mock/otps/latest?"+query, nil).wantStatus(http.StatusOK)
			assert.Equal(t, pinID, r.str("pinId"), query)
			assert.Equal(t, pin, r.str("pin"), query)
		}
		for _, query := range []string{"", "to=", "from=" + num(42)} {
			r := e.do(http.MethodGet, "/_mock/otps/latest?"+query, nil).wantError(http.StatusBadRequest, "bad_request")
			assert.Equal(t, "to", r.str("error.field"))
			assert.Contains(t, r.str("error.message"), "required")
		}
		_, _, err := e.srv.LatestOTP("")
		assert.ErrorContains(t, err, "required")
	})
}

// TestHardening_ShutdownWithStalledBodies: a server full of stalled requests still stops.
func TestHardening_ShutdownWithStalledBodies(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithReadTimeout(100*time.Millisecond))
	u, err := url.Parse(srv.URL())
	require.NoError(t, err)
	for range 20 {
		conn, err := net.Dial("tcp", u.Host)
		require.NoError(t, err)
		t.Cleanup(func() { _ = conn.Close() })
		_, err = io.WriteString(conn, "POST /_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{")
		require.NoError(t, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	require.NoError(t, srv.Shutdown(ctx), "stalled bodies time out, so in-flight requests end")
}
