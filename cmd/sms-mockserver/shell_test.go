//go:build unix

package main

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

// TestEnvOneLiner: the documented one-liner starts the mock in the background and returns
// with the sms command's variables set; the SDK sends with them; kill stops the mock.
func TestEnvOneLiner(t *testing.T) {
	t.Parallel()
	bin := mockBinary(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	// The shell returns only once every writer of the substitution's pipe is gone: the
	// mock, serving on in the background, must have closed its stdout.
	script := `eval "$("$1" -env -addr 127.0.0.1:0 & echo "SMS_MOCK_PID=$!")" && printf '%s\n' "$SMS_MOCK_PID" "$SMS_BASE_URL" "$SMS_API_KEY" "$SMS_API_SECRET"`
	cmd := exec.CommandContext(ctx, "sh", "-c", script, "sh", bin)
	// The mock inherits stderr: a file, not a pipe the test would wait on.
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer stderr.Close()
	cmd.Stderr, cmd.WaitDelay = stderr, 5*time.Second
	out, err := cmd.Output()
	require.NoError(t, err, "the one-liner did not return")
	v := strings.Fields(string(out))
	require.Len(t, v, 4, "%q", out)
	pid, err := strconv.Atoi(v[0])
	require.NoError(t, err)
	require.Positive(t, pid)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	baseURL, key, secret := v[1], v[2], v[3]

	client, err := sms.NewClient(key, secret, sms.WithBaseURL(baseURL))
	require.NoError(t, err)
	res, err := client.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "MOCKSMS", Message: "Hello from a shell"})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Campaign.Recipients)

	// SIGTERM stops it gracefully: the port closes.
	require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
	hostport := strings.TrimPrefix(baseURL, "http://")
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", hostport, time.Second)
		if err == nil {
			_ = c.Close()
		}
		return errors.Is(err, syscall.ECONNREFUSED)
	}, 10*time.Second, 50*time.Millisecond, "the mock still listens after SIGTERM")
}
