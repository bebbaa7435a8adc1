package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

	m.cancel()
	select {
	case err := <-m.done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its context was cancelled")
	}
	assert.Empty(t, <-m.rest, "more than one line on stdout")
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

	start := time.Now()
	m.cancel()
	select {
	case err := <-m.done:
		require.NoError(t, err)
	case <-time.After(8 * time.Second):
		t.Fatal("run did not stop with an event stream open")
	}
	assert.Less(t, time.Since(start), 5*time.Second)
	for range polls {
		assert.Equal(t, http.StatusOK, <-polled, "a long poll is answered, empty, when the server stops")
	}
	_, err = io.ReadAll(stream.Body)
	assert.NoError(t, err, "the stream ends cleanly")
}

// running is the binary's run function started by startRun.
type running struct {
	line   string        // the startup line
	rest   <-chan string // what run printed after it, once run returned
	cancel func()        // stops run, as SIGINT does
	done   <-chan error  // run's result
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
