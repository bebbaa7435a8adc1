package mockserver_test

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestTransportServesInProcess: the transport serves without sockets; a dropped request
// is ErrDropped, and was committed.
func TestTransportServesInProcess(t *testing.T) {
	t.Parallel()
	e := newInProcessEnv(t)
	require.NoError(t, e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Drop: true, Times: 1}))
	body := sms("08025671695", "reference", "t-1")
	_, err := e.try(http.MethodPost, "/v1/sms/send", body)
	require.Error(t, err)
	assert.ErrorIs(t, err, mockserver.ErrDropped)

	// The dropped request was committed: the retry replays it.
	r := e.send(body)
	assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, int64(mockserver.DefaultBalance-mockserver.DefaultGenericPrice), e.balance(mockserver.ModeLive))
}

// TestTransportLatencyUsesVirtualTimeInSynctest: in a synctest bubble, a latency fault
// waits on virtual time.
func TestTransportLatencyUsesVirtualTimeInSynctest(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := newInProcessEnv(t)
		require.NoError(t, e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/balance", Latency: 5 * time.Second}))
		start := time.Now()
		e.do(http.MethodGet, "/v1/balance", nil, e.test()).wantStatus(http.StatusOK)
		assert.Equal(t, 5*time.Second, time.Since(start))
	})
}
