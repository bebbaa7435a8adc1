package mockserver_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

func TestTransportServesInProcess(t *testing.T) {
	t.Parallel()
	srv := mockserver.New()
	ws := srv.Default()
	c := &http.Client{Transport: srv.Transport()}
	send := func() (*http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, "http://mock.invalid/v1/sms/send",
			strings.NewReader(`{"to":"08025671695","from":"MOCKSMS","message":"hi","reference":"t-1"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", ws.LiveKey)
		req.Header.Set("X-API-Secret", ws.LiveSecret)
		return c.Do(req)
	}

	srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Drop: true, Times: 1})
	_, err := send()
	require.Error(t, err)
	assert.True(t, errors.Is(err, mockserver.ErrDropped), "%v", err)

	// The dropped request was committed: the retry replays it.
	resp, err := send()
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusAccepted, resp.StatusCode, string(body))
	assert.Equal(t, "true", resp.Header.Get("Idempotent-Replayed"))
	bal, err := srv.Balance(ws.WorkspaceID, mockserver.Live)
	require.NoError(t, err)
	assert.Equal(t, int64(mockserver.DefaultBalance-mockserver.DefaultGenericPrice), bal)
}

func TestTransportLatencyUsesVirtualTimeInSynctest(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := mockserver.New()
		ws := srv.Default()
		srv.AddFaults(mockserver.FaultRule{Path: "/v1/balance", Latency: 5 * time.Second})
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://mock.invalid/v1/balance", nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", ws.TestKey)
		req.Header.Set("X-API-Secret", ws.TestSecret)
		start := time.Now()
		resp, err := (&http.Client{Transport: srv.Transport()}).Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, 5*time.Second, time.Since(start))
	})
}
