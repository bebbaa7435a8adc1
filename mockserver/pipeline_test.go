package mockserver_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestCheckOrder: route -> credentials -> scope -> rate limit -> Content-Type -> body size ->
// idempotency -> validation -> operation, as docs/api.md lists them. Each request is wrong in
// two ways; the earlier check answers.
func TestCheckOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		req    func(e *env) call
		status int
	}{
		{"404 before 401", static(post("/v1/sms/sendd", sms(num(1)), withKey("", ""))), 404},
		{"405 before 401", static(call{http.MethodPut, "/v1/balance", nil, []reqOpt{withKey("", "")}}), 405},
		{"401 before 403", func(e *env) call {
			return post("/v1/sms/send", sms(num(1)), withKey(e.ws.LiveKey, "wrong"))
		}, 401},
		{"401 before 404 of an id", static(get("/v1/sms/campaigns/0123456789abcdef01234567/status", withKey("", ""))), 401},
		{"401 before 415", static(post("/v1/sms/send", sms(num(1)), withKey("", ""), withHeader("Content-Type", "text/plain"))), 401},
		{"403 before 415", func(e *env) call {
			return post("/v1/sms/send", rawBody("x"), e.keyWithout("sms", "pk_live"), withHeader("Content-Type", ""))
		}, 403},
		{"403 before 404 of an id", func(e *env) call {
			return get("/v1/sms/campaigns/0123456789abcdef01234567/status", e.keyWithout("campaigns", "pk_live"))
		}, 403},
		{"415 before 413", static(post("/v1/sms/send", bigJSON, withHeader("Content-Type", "text/plain"))), 415},
		{"413 before 400", static(post("/v1/sms/send", bigJSON)), 413},
		{"409 before 400", func(e *env) call {
			e.send(sms(num(1), "reference", "r-1"))
			return post("/v1/sms/send", sms("not a number", "reference", "r-1"))
		}, 409},
		{"400 before 402", func(e *env) call {
			e.setBalance(mockserver.ModeLive, 0)
			return post("/v1/sms/send", sms(num(1), "channel", "fast"))
		}, 400},
		{"inactive sender before 402", func(e *env) call {
			e.setBalance(mockserver.ModeLive, 0)
			return post("/v1/sms/send", sms(num(1), "from", "NOSUCH"))
		}, 400},
		{"OTP per-number limit before 402", func(e *env) call {
			for range 5 {
				e.otp(otpBody(num(1)))
			}
			e.setBalance(mockserver.ModeLive, 0)
			return post("/v1/otp/send", otpBody(num(1)))
		}, 429},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.run(tc.req(e)).wantStatus(tc.status)
		})
	}

	t.Run("429 before 415", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, mockserver.WithRateLimit(1))
		e.do(http.MethodGet, "/v1/balance", nil).wantStatus(200)
		e.do(http.MethodPost, "/v1/sms/send", rawBody("x"), withHeader("Content-Type", "")).wantError(429, "rate_limited")
	})
}

// TestBodyLimitIsOneMiB: a body of exactly 1 MiB is read (and rejected for what it says, not for
// its size); one byte more is 413.
func TestBodyLimitIsOneMiB(t *testing.T) {
	t.Parallel()
	build := func(size int) rawBody {
		head, tail := `{"to":"2348025671695","from":"MOCKSMS","message":"`, `"}`
		return rawBody(head + strings.Repeat("a", size-len(head)-len(tail)) + tail)
	}
	for _, tc := range []struct {
		name   string
		size   int
		opts   []reqOpt
		status int
	}{
		{"exactly 1 MiB", 1 << 20, nil, 400},
		{"exactly 1 MiB chunked", 1 << 20, []reqOpt{chunked()}, 400},
		{"1 MiB + 1", 1<<20 + 1, nil, 413},
		{"1 MiB + 1 chunked", 1<<20 + 1, []reqOpt{chunked()}, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			body := build(tc.size)
			require.Len(t, body, tc.size)
			r := e.do(http.MethodPost, "/v1/sms/send", body, tc.opts...).wantStatus(tc.status)
			if tc.status == 400 {
				assert.Equal(t, "message", r.str("error.field"), "too many parts, not too large")
			}
		})
	}
}

func TestSlowBodiesAreTimedOut(t *testing.T) {
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
		read   bool // the route reads the body: the answer announces the close
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
			// Without the read timeout, the stalled and dripping bodies would hold the
			// connection open for ever: the limit is an upper bound only that reaches.
			status, closed, announced := rawExchange(t, e, tt.head, tt.drip, 30*time.Second)
			assert.Equal(t, tt.status, status)
			assert.True(t, closed, "the server must close the connection of a body it could not read")
			if tt.read {
				assert.True(t, announced, "the answer says Connection: close: the server closes with it, not after another read timeout")
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

func TestEncodedSlashIsNotASeparator(t *testing.T) {
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

// TestUnknownRoutes: a path no route has is 404, a method a route lacks 405 with Allow.
func TestUnknownRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.do(http.MethodPost, "/_mock/nothing", nil).wantError(404, "not_found")
	r := e.do(http.MethodPut, "/_mock/faults", nil).wantError(405, "method_not_allowed")
	assert.Equal(t, "POST, GET, DELETE", r.Header.Get("Allow"))
}

// rawExchange writes a request by hand on a fresh connection (feeding the rest of it, if any,
// from drip), and returns the status line of the answer and whether the server then closed
// the connection, both within limit, and whether the answer announced the close
// (Connection: close).
func rawExchange(t *testing.T, e *env, head string, drip func(net.Conn), limit time.Duration) (status string, closed, announced bool) {
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
		return "", false, false
	}
	resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader(status), br)), nil)
	if err != nil {
		return status, false, false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	_, err = br.ReadByte()
	// Closed: a FIN (EOF), or a reset when the server closed a connection whose unread bytes
	// (a body still dripping in) were pending: both end the connection; a timeout does not.
	closed = errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
	return strings.TrimSpace(status), closed, resp.Close
}
