//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = master.Close() })
	require.NoError(t, unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	require.NoError(t, err)
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tty.Close() })
	require.True(t, term.IsTerminal(int(tty.Fd())))
	return master, tty
}

// screen records what a program writes to a pseudo-terminal.
type screen struct {
	tty    *os.File
	mu     sync.Mutex
	buf    bytes.Buffer
	copied chan struct{}
}

func newScreen(t *testing.T) *screen {
	t.Helper()
	master, tty := openPTY(t)
	s := &screen{tty: tty, copied: make(chan struct{})}
	go func() {
		defer close(s.copied)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			s.mu.Lock()
			s.buf.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

// close closes the terminal and returns all that was written to it.
func (s *screen) close(t *testing.T) string {
	t.Helper()
	require.NoError(t, s.tty.Close())
	<-s.copied
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// run runs the command with the terminal as stderr.
func (s *screen) run(f *fixture, args ...string) (int, string) {
	var out bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, s.tty, func(k string) string { return f.env[k] })
	return code, out.String()
}

// On a terminal, sms bulk shows a progress bar: recipients, rate, amount charged and ETA.
func TestBulkProgressBarOnATerminal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := newScreen(t)
	csv := peopleCSV(t, 227, 0, 0)
	code, _ := s.run(f, "bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", "bar", "--batch-size", "50")
	require.Equal(t, 0, code)
	got := s.close(t)
	assert.Contains(t, got, "charged 726.40 NGN 100%", "the amount charged and the share done")
	assert.Contains(t, got, "(227/227, ", "the recipients done and in all")
	assert.Regexp(t, `\d+ recipients/s\)`, got, "the rate")
	assert.Regexp(t, `\[\d+s:\d+s\]`, got, "elapsed and ETA")
	assert.NotContains(t, got, "batch 1/5:", "no plain lines on a terminal")
	assert.NotContains(t, got, "replayed")
	assert.Equal(t, int64(mockserver.DefaultBalance-227*mockserver.DefaultGenericPrice), f.balance(t))
}

// Run again, the bar says how many recipients the journal records as sent by the earlier
// run; with another journal, how many the server replayed.
func TestBulkProgressBarShowsReplays(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	csv := peopleCSV(t, 227, 0, 0)
	args := []string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", "again", "--batch-size", "50"}
	r := runCLI(t, f.env, "", args...)
	require.Equal(t, 0, r.code, r.stderr)

	s := newScreen(t)
	code, _ := s.run(f, args...)
	require.Equal(t, 0, code)
	got := s.close(t)
	assert.Contains(t, got, "charged 0.00 NGN, 227 sent before 100%")
	assert.Contains(t, got, "(227/227, ")

	s = newScreen(t)
	code, _ = s.run(f, append(args, "--journal-dir", t.TempDir())...)
	require.Equal(t, 0, code)
	got = s.close(t)
	assert.Contains(t, got, "charged 0.00 NGN, 227 replayed 100%", "the mock deduplicates references")
	assert.Contains(t, got, "(227/227, ")
	assert.Equal(t, int64(mockserver.DefaultBalance-227*mockserver.DefaultGenericPrice), f.balance(t), "charged once")
}

// On a terminal, --wait redraws one delivery line in place, and ends it.
func TestBulkWaitLineOnATerminal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	csv := peopleCSV(t, 20, 0, 0)
	args := []string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi", "--job-id", "w", "--batch-size", "10"}
	r := runCLI(t, f.env, "", append(args, "--json")...)
	require.Equal(t, 0, r.code, r.stderr)
	for camp, err := range newClient(t, f).Campaigns.All(context.Background(), nil) {
		require.NoError(t, err)
		require.NoError(t, f.srv.Deliver(camp.ID, nil))
	}

	s := newScreen(t)
	code, _ := s.run(f, append(args, "--wait", "--poll-interval", "100ms")...)
	require.Equal(t, 0, code)
	got := s.close(t)
	assert.Contains(t, got, "\rdelivery: 2 of 2 campaigns final; 20 of 20 recipients delivered, 0 failed, 0 dnd, 0 awaiting a report\x1b[K\r\n",
		"redrawn in place, then ended")
}

// newClient is an SDK client of the fixture's test key.
func newClient(t *testing.T, f *fixture) *sms.Client {
	t.Helper()
	c, err := sms.NewClient(f.ws.TestKey, f.ws.TestSecret, sms.WithBaseURL(f.srv.URL()))
	require.NoError(t, err)
	return c
}
