package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneMockPerTestFile: the recipe docs/api.md gives every language for tests that need a
// mock of their own (the clock is server-wide): spawn the binary with -addr 127.0.0.1:0, read
// the first line of its stdout as JSON, use its url and keys. Two such mocks run side by
// side on their own ports, and moving one's clock leaves the other's.
func TestOneMockPerTestFile(t *testing.T) {
	t.Parallel()
	bin := mockBinary(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	type startup struct{ URL, LiveKey, LiveSecret string }
	start := func() startup {
		cmd := exec.CommandContext(ctx, bin, "-addr", "127.0.0.1:0")
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		require.NoError(t, err)
		var s startup
		require.NoError(t, json.Unmarshal([]byte(line), &s), line)
		require.True(t, strings.HasPrefix(s.URL, "http://127.0.0.1:"), s.URL)
		return s
	}
	a, b := start(), start()
	require.NotEqual(t, a.URL, b.URL, "each on its own free port")

	clock := func(s startup, advance string) time.Time {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/_mock/clock", strings.NewReader(`{"advance":"`+advance+`"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		require.Equal(t, http.StatusOK, res.StatusCode, string(body))
		var r struct{ Now time.Time }
		require.NoError(t, json.Unmarshal(body, &r))
		return r.Now
	}
	before := clock(b, "0s")
	moved := clock(a, "240h")
	after := clock(b, "0s")
	assert.Less(t, after.Sub(before), time.Hour, "the other mock's clock did not move")
	assert.Greater(t, moved.Sub(after), 239*time.Hour, "the clock moved in the mock that was told")

	for _, s := range []startup{a, b} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/v1/balance", nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", s.LiveKey)
		req.Header.Set("X-API-Secret", s.LiveSecret)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, "each mock's own keys")
	}
}
