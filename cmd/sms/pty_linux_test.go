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

// On a terminal, sms bulk shows a progress bar: recipients, rate, amount charged and ETA.
func TestBulkProgressBarOnATerminal(t *testing.T) {
	t.Parallel()
	master, tty := openPTY(t)
	var (
		mu     sync.Mutex
		screen bytes.Buffer
		copied = make(chan struct{})
	)
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()

	f := newFixture(t)
	csv := peopleCSV(t, 227, 0, 0)
	var out bytes.Buffer
	code := run(context.Background(), []string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", "bar", "--batch-size", "50"},
		strings.NewReader(""), &out, tty, func(k string) string { return f.env[k] })
	require.Equal(t, 0, code)
	require.NoError(t, tty.Close())
	<-copied

	mu.Lock()
	got := screen.String()
	mu.Unlock()
	assert.Contains(t, got, "charged 726.40 NGN 100%", "the amount charged and the share done")
	assert.Contains(t, got, "(227/227, ", "the recipients done and in all")
	assert.Regexp(t, `\d+ recipients/s\)`, got, "the rate")
	assert.Regexp(t, `\[\d+s:\d+s\]`, got, "elapsed and ETA")
	assert.NotContains(t, got, "batch 1/5:", "no plain lines on a terminal")
	assert.Equal(t, int64(mockserver.DefaultBalance-227*mockserver.DefaultGenericPrice), f.balance(t))
}
