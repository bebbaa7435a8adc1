package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunProfile: -profile documented answers an OTP send as the live docs' sample (no
// requestId, no amount); the default is full; an unknown profile is refused.
func TestRunProfile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args      []string
		requestID bool
	}{
		{nil, true},
		{[]string{"-profile", "full"}, true},
		{[]string{"-profile", "documented"}, false},
	} {
		m := startRun(t, tt.args...)
		var ws struct{ URL, TestKey, TestSecret, SenderID string }
		require.NoError(t, json.Unmarshal([]byte(m.line), &ws))
		req, err := http.NewRequest(http.MethodPost, ws.URL+"/v1/otp/send",
			strings.NewReader(`{"to":"08025671695","from":"`+ws.SenderID+`"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", ws.TestKey)
		req.Header.Set("X-API-Secret", ws.TestSecret)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var body struct {
			Data      map[string]any
			RequestID *string
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, tt.requestID, body.RequestID != nil, "%v", tt.args)
		_, amount := body.Data["amount"]
		assert.Equal(t, tt.requestID, amount, "%v", tt.args)
		m.cancel()
		require.NoError(t, <-m.done)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	assert.ErrorContains(t, run(ctx, []string{"-addr", "127.0.0.1:0", "-profile", "live"}, io.Discard, io.Discard), "-profile")
}
