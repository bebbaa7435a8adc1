package mockserver_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestCloseRightAfterStart: a server closed before it served anything (a test that fails
// early) closes cleanly.
func TestCloseRightAfterStart(t *testing.T) {
	t.Parallel()
	for range 200 {
		s := newServer(t)
		require.NoError(t, s.Start())
		require.NoError(t, s.Close())
	}
}

func TestStartTwiceAndURL(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	assert.Empty(t, s.URL())
	assert.Empty(t, s.Default().URL)
	require.NoError(t, s.Start())
	t.Cleanup(func() { _ = s.Close() })
	assert.Regexp(t, `^http://127\.0\.0\.1:[0-9]+$`, s.URL())
	assert.Equal(t, s.URL(), s.Default().URL)
	assert.Error(t, s.Start(), "already started")
	assert.NotContains(t, s.Default().String(), s.Default().LiveSecret)
	assert.NotContains(t, fmt.Sprintf("%#v %v %+v", s.Default(), s.Default(), s.Default()), s.Default().TestSecret)
	assert.NotContains(t, fmt.Sprintf("%#v %v", s.Default(), s.Default()), s.Default().DashboardToken)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Get(s.URL() + "/v1/nope")
	require.NoError(t, err)
	_ = res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
}

// TestShutdownWithStalledBodies: a server full of stalled requests still stops.
func TestShutdownWithStalledBodies(t *testing.T) {
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

// TestAnswersDeclareTheirLength: an answer over net/http's 2 KiB buffer (a page of campaigns)
// goes out with its Content-Length, not in chunks, as a small one does.
func TestAnswersDeclareTheirLength(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := range 20 {
		e.do(http.MethodPost, "/v1/sms/send", sms(num(i)), e.live()).wantStatus(http.StatusAccepted)
	}
	for _, path := range []string{"/v1/sms/campaigns?limit=20", "/v1/balance"} {
		res, err := e.hc.Do(e.newRequest(http.MethodGet, path, nil, e.live()))
		require.NoError(t, err)
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		require.NoError(t, res.Body.Close())
		require.Equal(t, http.StatusOK, res.StatusCode, "%s", body)
		assert.Empty(t, res.TransferEncoding, path)
		assert.Equal(t, int64(len(body)), res.ContentLength, path)
		if path != "/v1/balance" {
			assert.Greater(t, len(body), 2048, "the page is past net/http's buffer")
		}
	}
}
