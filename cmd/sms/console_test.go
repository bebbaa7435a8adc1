package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// refused is a transport whose every connection is refused, as with no server listening.
type refused struct{}

func (refused) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080},
		Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

// timedWriter records when each line was written, on the bubble's clock.
type timedWriter struct {
	mu    sync.Mutex
	start time.Time
	buf   bytes.Buffer
	at    []time.Duration
}

func (w *timedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for range bytes.Count(p, []byte("\n")) {
		w.at = append(w.at, time.Since(w.start))
	}
	return w.buf.Write(p)
}

// Each retry prints a line on stderr as soon as the attempt failed, before the wait: a
// refused connection or a 503 is not seconds of silence.
func TestRetriesAreVisible(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		transport func(srv *mockserver.Server) http.RoundTripper
		args      []string
		code      int
		retries   bool
		want      []string // the lines of stderr, as regular expressions
	}{
		{
			name:      "a refused connection",
			transport: func(*mockserver.Server) http.RoundTripper { return refused{} },
			args:      []string{"balance", "--max-retries", "2"},
			code:      1,
			retries:   true,
			want: []string{
				`^sms: GET /v1/balance: dial tcp 127\.0\.0\.1:8080: connect: connection refused; retry 1 of 2$`,
				`^sms: GET /v1/balance: dial tcp 127\.0\.0\.1:8080: connect: connection refused; retry 2 of 2$`,
				`^sms: GET /v1/balance: .*connection refused$`,
				`^nothing answers at http://127\.0\.0\.1:8080: is the server running, and is the base URL right\?$`,
			},
		},
		{
			name: "503 twice, then the answer",
			transport: func(srv *mockserver.Server) http.RoundTripper {
				_ = srv.AddFaults(mockserver.FaultRule{Path: "/v1/balance", Status: http.StatusServiceUnavailable, Times: 2})
				return srv.Transport()
			},
			args:    []string{"balance"},
			retries: true,
			want: []string{
				`^sms: GET /v1/balance: 503 Service Unavailable \[request \S+\]; retry 1 of 3$`,
				`^sms: GET /v1/balance: 503 Service Unavailable \[request \S+\]; retry 2 of 3$`,
			},
		},
		{
			name:      "no retries, no retry lines",
			transport: func(*mockserver.Server) http.RoundTripper { return refused{} },
			args:      []string{"balance", "--max-retries", "0"},
			code:      1,
			want: []string{
				`^sms: GET /v1/balance: .*connection refused$`,
				`^nothing answers at`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t)
				ws := srv.Default()
				env := map[string]string{envBaseURL: "http://127.0.0.1:8080", envAPIKey: ws.TestKey, envAPISecret: ws.TestSecret}
				errw := &timedWriter{start: time.Now()}
				var out bytes.Buffer
				a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: errw, getenv: func(k string) string { return env[k] },
					args: tt.args, transport: tt.transport(srv)}
				code := a.execute(context.Background())
				elapsed := time.Since(errw.start)
				require.Equal(t, tt.code, code, errw.buf.String())
				lines := strings.Split(strings.TrimSuffix(errw.buf.String(), "\n"), "\n")
				require.Len(t, lines, len(tt.want), errw.buf.String())
				for i, re := range tt.want {
					assert.Regexp(t, re, lines[i])
				}
				if tt.retries {
					assert.Zero(t, errw.at[0], "the first retry line comes before the first wait")
					assert.Less(t, errw.at[0], errw.at[1], "a line per retry, as it happens")
					assert.Greater(t, elapsed, time.Second, "the retries waited")
				}
			})
		})
	}
}

// A line written while a bar or a redrawn line is on screen erases it first, so that the two
// do not mix; lines written from several goroutines come out whole.
func TestConsoleClearsBeforeALine(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	con := &console{w: &buf}
	con.locked(func() {
		buf.WriteString("[bar 50%]")
		con.clear = func() { buf.WriteString("\r\x1b[K") }
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { _, _ = con.Write([]byte("sms: retry\n")) })
	}
	wg.Wait()
	assert.Equal(t, "[bar 50%]"+strings.Repeat("\r\x1b[Ksms: retry\n", 8), buf.String())
}
