package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// The built binary, end to end: a 25,000-row CSV with bad rows and duplicates, stopped
// midway by SIGTERM (a drain) while requests take 700 ms, against a server that neither
// deduplicates nor lists references, leaves nothing in doubt, and resumed with the command it
// prints, charges each recipient exactly once.
func TestBinaryInterruptedAndResumed(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const (
		distinct = 24_695
		dups     = 300
		bad      = 5
		price    = mockserver.DefaultGenericPrice
		wallet   = 100_000_00 // kobo
	)
	bin := filepath.Join(t.TempDir(), "sms")
	// Built without -race, whatever the tests run with (the race detector watches the same
	// code in the in-process tests), and without symbols, which links faster.
	start := time.Now()
	out, err := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	t.Logf("go build: %v", time.Since(start))

	srv := mockserver.NewTest(t, mockserver.WithBalances(wallet, wallet), mockserver.WithProfile(mockserver.ProfileDocumented))
	ws := srv.Default()
	csv := peopleCSV(t, distinct, dups, bad)
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), // the journal goes under $HOME/.local/state
		envBaseURL + "=" + srv.URL(), envAPIKey + "=" + ws.TestKey, envAPISecret + "=" + ws.TestSecret,
	}
	// Each campaign request takes 700 ms, so that the signal lands with batches in flight.
	srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Latency: 700 * time.Millisecond})

	first := exec.Command(bin, "bulk", "--csv", csv, "--from", ws.SenderID, "--message", "Hi {{name}}",
		"--job-id", "promo-2026-11", "--skip-invalid", "--batch-size", "1000", "--concurrency", "2", "--json")
	first.Env = env
	var stdout bytes.Buffer
	first.Stdout = &stdout
	stderrPipe, err := first.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, first.Start())
	var stderr strings.Builder
	sc := bufio.NewScanner(stderrPipe)
	signalled := false
	for sc.Scan() {
		line := sc.Text()
		stderr.WriteString(line + "\n")
		if !signalled && strings.HasPrefix(line, "batch 3/25:") {
			require.NoError(t, first.Process.Signal(syscall.SIGTERM))
			signalled = true
		}
	}
	err = first.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "exit status: %v\n%s", err, stderr.String())
	require.Equal(t, exitInterrupted, exit.ExitCode(), stderr.String())
	require.True(t, signalled, stderr.String())
	assert.Contains(t, stderr.String(), "line 3: invalid phone number")
	assert.Contains(t, stderr.String(), `people.csv: a header row; numbers from column 1 ("phone"), names from column 2 ("name"); 25000 rows, 5 that cannot be sent`+"\n")
	assert.Contains(t, stderr.String(), "job promo-2026-11: 25 batches, 24695 recipients, 24695 SMS parts; 300 duplicate numbers sent once\n")

	// The printed command resumes the job.
	_, after, ok := strings.Cut(stderr.String(), "not those in doubt):\n  ")
	require.True(t, ok, stderr.String())
	resume, _, _ := strings.Cut(after, "\n")
	require.True(t, strings.HasPrefix(resume, "sms bulk "), resume)
	var interrupted bulkJSON
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &interrupted), stdout.String())
	charged := wallet - balanceOf(t, srv, ws)
	assert.Less(t, charged, int64(distinct*price), "the interrupt landed before the end")
	assert.Positive(t, charged)
	assert.Equal(t, charged, interrupted.Amount.Kobo(), "the batches in flight finished and are in the report")
	assert.Equal(t, int(charged/price), interrupted.Sent)
	assert.Zero(t, interrupted.InDoubtBatches, "the batches in flight finished and were recorded")

	t.Logf("first run: %v", time.Since(start))
	srv.ClearFaults()
	second := exec.Command("sh", "-c", shellQuote(bin)+strings.TrimPrefix(resume, "sms"))
	second.Env = env
	out, err = second.Output()
	require.NoError(t, err)
	t.Logf("second run: %v", time.Since(start))
	var rep bulkJSON
	require.NoError(t, json.Unmarshal(out, &rep))
	assert.True(t, rep.Complete)
	assert.Equal(t, distinct, rep.Sent+rep.Replayed+rep.FromJournal)
	assert.Equal(t, interrupted.Sent, rep.Replayed+rep.FromJournal, "batches of the first run are not sent again")
	assert.Equal(t, dups, rep.Duplicates)
	assert.Equal(t, bad, rep.BadRows)

	// Each recipient was charged exactly once, and is in exactly one campaign.
	assert.Equal(t, int64(wallet-distinct*price), balanceOf(t, srv, ws))
	f := &fixture{srv: srv, ws: ws}
	_, recipients := f.campaignRecipients(t)
	assert.Equal(t, distinct, recipients)
}

func balanceOf(t *testing.T, srv *mockserver.Server, ws mockserver.Workspace) int64 {
	t.Helper()
	b, err := srv.Balance(ws.WorkspaceID, mockserver.ModeTest)
	require.NoError(t, err)
	return b
}
