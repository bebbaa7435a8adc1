//go:build linux

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

// TestContainerImage builds the image as README's recipe for a host-built binary does
// (Dockerfile.prebuilt, the Dockerfile's final stage with the binary taken from the build
// context), runs it, reads the startup line from docker logs, sends an SMS through it with the
// SDK, and stops it. Base images cannot be pulled everywhere CI runs, so the Dockerfile's
// build stage is not run; the test checks instead that its final stage and
// Dockerfile.prebuilt agree line for line. The container shares the host's network: it listens
// on all interfaces on a port of its own choosing, as -addr 0.0.0.0:0 after the image's
// -addr 0.0.0.0:4010.
//
// It needs docker and a running daemon; with CI set, their absence fails the test. The binary
// is built before any deadline starts: on a cold build cache that alone can take minutes.
func TestContainerImage(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	dockerfile, binName := finalStage(t, "../../Dockerfile")
	prebuilt, prebuiltBin := finalStage(t, "../../Dockerfile.prebuilt")
	require.Equal(t, dockerfile, prebuilt, "Dockerfile.prebuilt is the Dockerfile's final stage")
	require.Equal(t, binName, prebuiltBin)

	dir := t.TempDir()
	bin, err := os.ReadFile(mockBinary(t))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, binName), bin, 0o755))

	// Upper bounds that only a broken daemon reaches: docker on a loaded two-core machine
	// can take tens of seconds for a step that takes one alone.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	name := "sms-mockserver-test-" + strings.ToLower(rand.Text()[:12])
	image := name + ":latest"
	docker(ctx, t, "build", "-q", "-f", "../../Dockerfile.prebuilt", "-t", image, dir)
	t.Cleanup(func() { _, _ = exec.Command("docker", "rmi", "-f", image).CombinedOutput() })
	assert.Equal(t, "65532:65532", docker(ctx, t, "image", "inspect", "-f", "{{.Config.User}}", image), "runs as a non-root user")

	docker(ctx, t, "run", "-d", "--name", name, "--network", "host", image, "-addr", "0.0.0.0:0", "-allow-host", "sms-mock")
	t.Cleanup(func() { _, _ = exec.Command("docker", "rm", "-f", name).CombinedOutput() })

	var ws struct {
		URL, LiveKey, LiveSecret, SenderID, Inbox string
	}
	require.NoError(t, json.Unmarshal([]byte(startupLogLine(ctx, t, name)), &ws))
	require.True(t, strings.HasPrefix(ws.URL, "http://127.0.0.1:"), "the URL names loopback, not the unspecified address: %s", ws.URL)

	client, err := sms.NewClient(ws.LiveKey, ws.LiveSecret, sms.WithBaseURL(ws.URL))
	require.NoError(t, err)
	res, err := client.SMS.Send(ctx, &sms.SendParams{To: []string{"0803-123-4567"}, From: ws.SenderID, Message: "Hello from a container"})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Campaign.Recipients)

	var msgs struct {
		Data []struct{ To, From, Text, Status string }
	}
	getJSON(ctx, t, ws.URL+"/_mock/messages?to="+url.QueryEscape("08031234567"), "", &msgs)
	require.Len(t, msgs.Data, 1)
	assert.Equal(t, "2348031234567", msgs.Data[0].To)
	assert.Equal(t, "Hello from a container", msgs.Data[0].Text)

	// Hosts: loopback and -allow-host answer, any other name is refused.
	for host, want := range map[string]int{"localhost:4010": 200, "sms-mock:4010": 200, "evil.test": 403} {
		assert.Equal(t, want, getJSON(ctx, t, ws.Inbox+"_mock/faults", host, nil), host)
	}

	// docker stop sends SIGTERM: the mock stops gracefully, with status 0.
	docker(ctx, t, "stop", "-t", "10", name)
	assert.Equal(t, "0", docker(ctx, t, "inspect", "-f", "{{.State.ExitCode}}", name))
}

// requireDocker skips the test when docker or its daemon is missing, and fails it in CI.
func requireDocker(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("docker")
	if err == nil {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		var out []byte
		if out, err = exec.CommandContext(ctx, "docker", "info", "-f", "{{.ServerVersion}}").CombinedOutput(); err != nil {
			err = fmt.Errorf("%v: %s", err, bytes.TrimSpace(out))
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("docker is not usable; CI installs and starts it (.ci/run) for the container test: %v", err)
		}
		t.Skipf("docker is not usable (apt-get install docker.io, and start dockerd) to run the container test: %v", err)
	}
}

// finalStage returns the last stage of a Dockerfile, without comments, as a Dockerfile of its
// own whose COPY --from=... takes the file from the build context, and the name the file has
// there (a stage that copies from the context already is returned as it is).
func finalStage(t *testing.T, path string) (dockerfile, file string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var stage []string
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(strings.ToUpper(line), "FROM ") {
			stage = stage[:0]
		}
		if line != "" && !strings.HasPrefix(line, "#") {
			stage = append(stage, line)
		}
	}
	require.NotEmpty(t, stage, "no FROM in %s", path)
	require.Equal(t, "FROM scratch", stage[0], "the test builds the final stage without pulling a base image")
	for i, line := range stage {
		f := strings.Fields(line)
		switch {
		case strings.EqualFold(f[0], "COPY") && len(f) == 4 && strings.HasPrefix(f[1], "--from="):
			file = filepath.Base(f[2])
			stage[i] = "COPY " + file + " " + f[3]
		case strings.EqualFold(f[0], "COPY") && len(f) == 3:
			file = f[1]
		}
	}
	require.NotEmpty(t, file, "no COPY of the binary in the final stage of %s", path)
	return strings.Join(stage, "\n") + "\n", file
}

// docker runs a docker command and returns its trimmed standard output.
func docker(ctx context.Context, t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "docker %s: %s", strings.Join(args, " "), stderr.String())
	return strings.TrimSpace(stdout.String())
}

// startupLogLine waits for a container's first line on stdout.
func startupLogLine(ctx context.Context, t *testing.T, name string) string {
	t.Helper()
	for {
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, "docker", "logs", name)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if line, _, ok := strings.Cut(stdout.String(), "\n"); err == nil && ok {
			return line
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no startup line from the container: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
