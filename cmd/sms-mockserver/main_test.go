package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

func TestRunPrintsStartupLineAndServes(t *testing.T) {
	t.Parallel()
	m := startRun(t, "-live-balance", "12.50", "-jwt-secret", "s3cret")
	var ws struct {
		URL, WorkspaceID, DashboardToken, LiveKey, LiveSecret, TestKey, TestSecret, SenderID, Inbox string
	}
	require.NoError(t, json.Unmarshal([]byte(m.line), &ws))
	assert.True(t, strings.HasPrefix(ws.URL, "http://127.0.0.1:"), ws.URL)
	assert.True(t, strings.HasPrefix(ws.LiveKey, "pk_live_"))
	assert.True(t, strings.HasPrefix(ws.LiveSecret, "sk_live_"))
	assert.True(t, strings.HasPrefix(ws.TestKey, "pk_test_"))
	assert.True(t, strings.HasPrefix(ws.TestSecret, "sk_test_"))
	assert.Equal(t, "MOCKSMS", ws.SenderID)
	assert.Len(t, ws.WorkspaceID, 24)
	assert.Equal(t, 2, strings.Count(ws.DashboardToken, "."))
	assert.Equal(t, ws.URL+"/", ws.Inbox)
	assert.Contains(t, m.line, `"senderId":"MOCKSMS","inbox":"`+ws.URL+`/"}`, "inbox comes last")

	// The server accepts connections as soon as the line is out, with the flags applied.
	req, err := http.NewRequest(http.MethodGet, ws.URL+"/v1/balance", nil)
	require.NoError(t, err)
	req.Header.Set("X-API-Key", ws.LiveKey)
	req.Header.Set("X-API-Secret", ws.LiveSecret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), `"balance":12.50`)

	// Stdout ends with the line while the mock serves on, so that $(sms-mockserver &) returns.
	assert.Empty(t, m.stdoutRest(t), "more than one line on stdout")
	m.cancel()
	select {
	case err := <-m.done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its context was cancelled")
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-generic-price", "3.201"},
		{"-live-balance", "-5"},
		{"-rate-limit", "-1"},
		{"extra"},
		{"-addr", "256.0.0.1:99999"},
		{"-read-timeout", "-1s"},
		{"-read-timeout", "soon"},
		{"-generic-price", "10000.01"},            // over mockserver.MaxPrice
		{"-dnd-price", "92233720368547758.07"},    // x parts wrapped to a credit
		{"-test-balance", "40000000000000000.01"}, // over mockserver.MaxBalance
		{"-allow-host", "http://mock.test/"},
		{"-allow-host", "mock.test:4010"},
		{"-allow-host", ","},
		{"-message-limit", "0"},
		{"-workspace-limit", "-1"},
		{"-dnd-limit", "0"},
		{"-dnd-limit", "many"},
		{"-delivery-delay", "-1s"},
		{"-delivery-delay", "soon"},
		{"-delivery-delay", "2100000h"},             // a send's due time would wrap to 1681
		{"-delivery-delay", "87600h0m0.000000001s"}, // mockserver.MaxDeliveryDelay and a nanosecond
	} {
		// A flag wrongly accepted serves on a free port until the timeout, then fails here.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), io.Discard, io.Discard)
		cancel()
		assert.Error(t, err, "%v", args)
	}
}

func TestHardening_FlagsReadTimeoutAndAllowHost(t *testing.T) {
	t.Parallel()
	m := startRun(t, "-read-timeout", "150ms", "-allow-host", "mock.test,[fd00::1]", "-allow-host", "sms-mock")
	var ws struct{ URL string }
	require.NoError(t, json.Unmarshal([]byte(m.line), &ws))

	for host, want := range map[string]int{"mock.test": 200, "sms-mock:4010": 200, "[fd00::1]:4010": 200, "other.test": 403} {
		req, err := http.NewRequest(http.MethodGet, ws.URL+"/_mock/faults", nil)
		require.NoError(t, err)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, host)
	}

	// A body that never arrives is cut after -read-timeout.
	conn, err := net.Dial("tcp", strings.TrimPrefix(ws.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(3*time.Second)))
	_, err = io.WriteString(conn, "POST /_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "answered before the client's own deadline")
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)

	m.cancel()
	require.NoError(t, <-m.done)
}

// TestRunAppliesTheStoreLimits: -workspace-limit and -dnd-limit reach the server.
func TestRunAppliesTheStoreLimits(t *testing.T) {
	t.Parallel()
	m := startRun(t, "-workspace-limit", "1", "-dnd-limit", "1", "-message-limit", "5")
	var ws struct{ URL string }
	require.NoError(t, json.Unmarshal([]byte(m.line), &ws))

	for _, tt := range []struct {
		path, body string
		want       int
	}{
		{"/_mock/workspaces", "", http.StatusConflict}, // the default one is the one allowed
		{"/_mock/dnd", `{"numbers":["2348000000001"]}`, http.StatusOK},
		{"/_mock/dnd", `{"numbers":["2348000000002"]}`, http.StatusBadRequest},
	} {
		req, err := http.NewRequest(http.MethodPost, ws.URL+tt.path, strings.NewReader(tt.body))
		require.NoError(t, err)
		if tt.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, tt.want, resp.StatusCode, tt.path+" "+tt.body)
	}
	m.cancel()
	require.NoError(t, <-m.done)
}

// TestRunStopsWithAnEventStreamOpen: an open /_mock/events stream and waiting long polls do
// not hold up a graceful stop; every poll is answered.
func TestRunStopsWithAnEventStreamOpen(t *testing.T) {
	t.Parallel()
	m := startRun(t)
	var ws struct{ Inbox string }
	require.NoError(t, json.Unmarshal([]byte(m.line), &ws))

	stream, err := http.Get(ws.Inbox + "_mock/events")
	require.NoError(t, err)
	defer stream.Body.Close()
	require.Equal(t, http.StatusOK, stream.StatusCode)
	// Long polls, as many as the mock lets wait (256): a poll the mock refuses (429) tries
	// again, so that all of them end up waiting, which the mock shows by refusing one more.
	const polls = 256
	get := func(wait string) int {
		res, err := http.Get(ws.Inbox + "_mock/messages?wait=" + wait)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	polled := make(chan int, polls)
	for range polls {
		go func() {
			status := get("60s")
			for status == http.StatusTooManyRequests {
				status = get("60s")
			}
			polled <- status
		}()
	}
	for get("1ms") != http.StatusTooManyRequests { // a probe that got a slot held it for 1 ms
	}

	m.cancel()
	select {
	case err := <-m.done:
		require.NoError(t, err)
	case <-time.After(45 * time.Second): // below the polls' 60 s: only waiting for them reaches it
		t.Fatal("run did not stop with an event stream and long polls open")
	}
	for range polls {
		assert.Equal(t, http.StatusOK, <-polled, "a long poll is answered, empty, when the server stops")
	}
	_, err = io.ReadAll(stream.Body)
	assert.NoError(t, err, "the stream ends cleanly")
}

// running is the binary's run function started by startRun.
type running struct {
	line   string        // the startup line
	rest   <-chan string // what run printed after it, once stdout was closed
	cancel func()        // stops run, as SIGINT does
	done   <-chan error  // run's result
}

// stdoutRest returns what run printed after the startup line, once run closed stdout, which
// it does right after the line while it serves on.
func (m running) stdoutRest(t *testing.T) string {
	t.Helper()
	select {
	case rest := <-m.rest:
		return rest
	case <-time.After(10 * time.Second):
		t.Fatal("stdout still open after the startup line")
		return ""
	}
}

// startRun starts run with args on a free loopback port and waits for its startup line.
func startRun(t *testing.T, args ...string) running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), pw, io.Discard)
		pw.Close()
	}()
	lines := bufio.NewReader(pr)
	line, err := lines.ReadString('\n')
	require.NoError(t, err, "no startup line")
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(lines)
		rest <- string(b)
	}()
	return running{line: strings.TrimSuffix(line, "\n"), rest: rest, cancel: cancel, done: done}
}

// TestRunOnAllInterfacesPrintsAURLItAnswers: listening on all interfaces, as in a container,
// the startup line names 127.0.0.1 (the mock refuses a Host naming 0.0.0.0 or ::), and the
// URL and inbox it prints answer.
func TestRunOnAllInterfacesPrintsAURLItAnswers(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		m := startRun(t, "-addr", addr)
		var ws struct{ URL, Inbox, LiveKey, LiveSecret string }
		require.NoError(t, json.Unmarshal([]byte(m.line), &ws))
		assert.True(t, strings.HasPrefix(ws.URL, "http://127.0.0.1:"), ws.URL)

		resp, err := http.Get(ws.Inbox)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, "inbox of %s", addr)
		assert.Equal(t, http.StatusOK, balanceStatus(t, ws.URL, ws.LiveKey, ws.LiveSecret), "API of %s", addr)
		m.cancel()
		require.NoError(t, <-m.done)
	}
}

func TestDialHost(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ listen, host, allow string }{
		{"0.0.0.0:4010", "127.0.0.1:4010", ""},
		{"[::]:4010", "127.0.0.1:4010", ""},
		{"127.0.0.1:4010", "127.0.0.1:4010", ""},
		{"127.0.0.2:4010", "127.0.0.2:4010", ""},
		{"[::1]:4010", "[::1]:4010", ""},
		{"192.0.2.7:4010", "192.0.2.7:4010", "192.0.2.7"},
		{"[2001:db8::7]:4010", "[2001:db8::7]:4010", "2001:db8::7"},
	} {
		a, err := net.ResolveTCPAddr("tcp", tt.listen)
		require.NoError(t, err)
		host, allow := dialHost(a)
		assert.Equal(t, tt.host, host, tt.listen)
		assert.Equal(t, tt.allow, allow, tt.listen)
	}
}

// TestRunAllowsTheAddressItListensOn: listening on one non-loopback address, the URL printed
// names it and the mock answers requests naming it.
func TestRunAllowsTheAddressItListensOn(t *testing.T) {
	t.Parallel()
	ip := nonLoopbackIP(t)
	m := startRun(t, "-addr", net.JoinHostPort(ip.String(), "0"))
	var ws struct{ URL, LiveKey, LiveSecret string }
	require.NoError(t, json.Unmarshal([]byte(m.line), &ws))
	assert.True(t, strings.HasPrefix(ws.URL, "http://"+net.JoinHostPort(ip.String(), "")), ws.URL)
	assert.Equal(t, http.StatusOK, balanceStatus(t, ws.URL, ws.LiveKey, ws.LiveSecret))
	m.cancel()
	require.NoError(t, <-m.done)
}

// nonLoopbackIP returns an IPv4 address of this machine that is not loopback.
func nonLoopbackIP(t *testing.T) netip.Addr {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Is4() && !p.Addr().IsLoopback() {
			return p.Addr()
		}
	}
	t.Skip("no non-loopback IPv4 address on this machine")
	return netip.Addr{}
}

// TestRunEnv: -env prints one line of shell export statements instead of the JSON line; a
// shell that evaluates it has credentials that work.
func TestRunEnv(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	require.NoError(t, err, "a POSIX shell")
	m := startRun(t, "-env")
	assert.Empty(t, m.stdoutRest(t), "more than one line on stdout")
	require.True(t, strings.HasPrefix(m.line, "export SMS_BASE_URL='http://127.0.0.1:"), m.line)

	out, err := exec.Command(sh, "-c", `eval "$1" && printf '%s\n' "$SMS_BASE_URL" "$SMS_API_KEY" "$SMS_API_SECRET" "$SMS_DASHBOARD_TOKEN" && env | grep -c '^SMS_[A-Z_]*='`, "sh", m.line).Output()
	require.NoError(t, err)
	v := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	require.Len(t, v, 5, "%q", out)
	url, key, secret, token, exported := v[0], v[1], v[2], v[3], v[4]
	assert.True(t, strings.HasPrefix(key, "pk_live_"), key)
	assert.True(t, strings.HasPrefix(secret, "sk_live_"))
	assert.Equal(t, "4", exported, "the four variables of the sms command, and nothing else")
	assert.Equal(t, http.StatusOK, balanceStatus(t, url, key, secret))

	req, err := http.NewRequest(http.MethodGet, url+"/v1/keys", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the dashboard token")

	m.cancel()
	require.NoError(t, <-m.done)
}

// TestShellQuote: whatever a value holds, the shell reads it back unchanged.
func TestShellQuote(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	require.NoError(t, err, "a POSIX shell")
	for _, v := range []string{"", "pk_live_abc", "it's", "''", `\'`, "$HOME `id` $(id)", "a b\tc", "x\ny", "; rm -rf /", `"q"`} {
		out, err := exec.Command(sh, "-c", "v="+shellQuote(v)+"; printf '%s' \"$v\"").Output()
		require.NoError(t, err, "%q", v)
		assert.Equal(t, v, string(out), "%q quoted as %s", v, shellQuote(v))
	}
}

// balanceStatus is the status of GET /v1/balance at url with a key and secret.
func balanceStatus(t *testing.T, url, key, secret string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+"/v1/balance", nil)
	require.NoError(t, err)
	req.Header.Set("X-API-Key", key)
	req.Header.Set("X-API-Secret", secret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// TestRunAcceptsPhonesAsPeopleWriteThem: the mock's API and filters, and the SDK, take numbers
// with separators and a local number that lost its 0, and agree on their normalized form.
func TestRunAcceptsPhonesAsPeopleWriteThem(t *testing.T) {
	t.Parallel()
	m := startRun(t)
	var ws struct{ URL, LiveKey, LiveSecret, SenderID string }
	require.NoError(t, json.Unmarshal([]byte(m.line), &ws))

	// The wire, as any language sends it.
	body := `{"to":["0803-123-4561","(0803) 1234562","+234 (0)803 123 4563","8031234564"],"from":"MOCKSMS","message":"raw"}`
	req, err := http.NewRequest(http.MethodPost, ws.URL+"/v1/sms/send", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", ws.LiveKey)
	req.Header.Set("X-API-Secret", ws.LiveSecret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	raw, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%s", raw)
	assert.Contains(t, string(raw), `"recipients":4`)

	// The SDK.
	client, err := sms.NewClient(ws.LiveKey, ws.LiveSecret, sms.WithBaseURL(ws.URL))
	require.NoError(t, err)
	_, err = client.SMS.Send(t.Context(), &sms.SendParams{To: []string{"0803.123.4565", "803 123 4566"}, From: ws.SenderID, Message: "sdk"})
	require.NoError(t, err)

	for to, text := range map[string]string{
		"0803 123 4561": "raw", "+234-803-123-4562": "raw", "2348031234563": "raw", "8031234564": "raw",
		"(0803) 123-4565": "sdk", "08031234566": "sdk",
	} {
		var msgs struct{ Data []struct{ To, Text string } }
		require.Equal(t, http.StatusOK, getJSON(t.Context(), t, ws.URL+"/_mock/messages?to="+url.QueryEscape(to), "", &msgs))
		require.Len(t, msgs.Data, 1, to)
		assert.Equal(t, text, msgs.Data[0].Text, to)
	}
	m.cancel()
	require.NoError(t, <-m.done)
}

// getJSON sends a GET with an optional Host header, decodes a 200's body into v if not nil,
// and returns the status.
func getJSON(ctx context.Context, t *testing.T, u, host string, v any) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if v != nil && resp.StatusCode == http.StatusOK {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
	}
	return resp.StatusCode
}

// TestRunRefusesADeliveryDelayThatOverflows: a -delivery-delay past MaxDeliveryDelay would put
// a send's due time past what the mock can write (2100000h wrapped to 1681 and delivered at
// once); it is refused, saying the largest value.
func TestRunRefusesADeliveryDelayThatOverflows(t *testing.T) {
	t.Parallel()
	for _, d := range []string{"2100000h", "2562047h", "87601h"} {
		var stderr strings.Builder
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := run(ctx, []string{"-addr", "127.0.0.1:0", "-delivery-delay", d}, io.Discard, &stderr)
		cancel()
		require.Error(t, err, d)
		assert.Contains(t, err.Error(), "-delivery-delay: at most 87600h0m0s (3,650 days)", d)
	}
	// The largest is taken.
	m := startRun(t, "-delivery-delay", "87600h")
	assert.NotEmpty(t, m.line)
}
