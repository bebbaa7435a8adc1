//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
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

// The journal's proof: a bulk job run by the built binary, SIGKILLed at random points
// (after a random number of batches, and a random short delay) against a mock that does not
// deduplicate references, then finished by a run that is let be.
//
// Against the full profile, which lists each campaign's reference, every number gets the
// message exactly once and the wallet moves once per number: the batches the kills left in
// doubt are settled by the campaign list. Against the documented profile, which lists no
// reference, no number gets it twice; what the kills left in doubt (at most the batches in
// flight at each kill) is neither sent again nor lost: the final run names it and fails, and
// every other number got the message once.
func TestBinaryKilledJournal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const (
		numbers     = 3000
		batchSize   = 10
		concurrency = 4
		kills       = 12 // per profile
		price       = mockserver.DefaultGenericPrice
		wallet      = 100_000_00 // kobo
	)
	bin := filepath.Join(t.TempDir(), "sms")
	out, err := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	rows := make([]string, numbers)
	for i := range rows {
		rows[i] = fmt.Sprintf("0803%07d,P%d", i, i)
	}
	csv := filepath.Join(t.TempDir(), "people.csv")
	require.NoError(t, os.WriteFile(csv, []byte("phone,name\n"+strings.Join(rows, "\n")+"\n"), 0o600))

	for i, profile := range []mockserver.Profile{mockserver.ProfileFull, mockserver.ProfileDocumented} {
		t.Run(profile.String(), func(t *testing.T) {
			t.Parallel()
			seed := uint64(34 + i)
			rng := rand.New(rand.NewPCG(seed, seed))
			t.Logf("seed %d", seed)
			// The mock's clock is an hour behind, so that its campaign list shows campaigns older
			// than every batch's intent: it covers their time (see bulk.Params.SettleAfter).
			srv := mockserver.NewTest(t, mockserver.WithProfile(profile), mockserver.WithReferenceDeduplication(false),
				mockserver.WithBalances(wallet, wallet), mockserver.WithClock(func() time.Time { return time.Now().Add(-time.Hour) }))
			ws := srv.Default()
			// Each request takes a few milliseconds, so that batches are in flight at the kills.
			require.NoError(t, srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Latency: 5 * time.Millisecond}))
			env := []string{
				"PATH=" + os.Getenv("PATH"), envJournalDir + "=" + t.TempDir(),
				envBaseURL + "=" + srv.URL(), envAPIKey + "=" + ws.TestKey, envAPISecret + "=" + ws.TestSecret,
			}
			args := []string{"bulk", "--csv", csv, "--from", ws.SenderID, "--message", "Hi {{name}}", "--job-id", "killed",
				"--batch-size", fmt.Sprint(batchSize), "--concurrency", fmt.Sprint(concurrency), "--json"}

			killed := 0
			for range kills {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				cmd := exec.CommandContext(ctx, bin, args...)
				cmd.Env = env
				stderr, err := cmd.StderrPipe()
				require.NoError(t, err)
				require.NoError(t, cmd.Start())
				// Kill after 0 to 5 batches have finished, and 0 to 15 ms more.
				after := rng.IntN(6)
				delay := time.Duration(rng.IntN(16)) * time.Millisecond
				sc := bufio.NewScanner(stderr)
				signalled := false
				for n := 0; sc.Scan(); {
					if strings.HasPrefix(sc.Text(), "batch ") {
						n++
					}
					if !signalled && (n > after || after == 0 && strings.HasPrefix(sc.Text(), "journal: ")) {
						time.Sleep(delay)
						_ = cmd.Process.Signal(syscall.SIGKILL)
						signalled = true
					}
				}
				err = cmd.Wait()
				cancel()
				var ee *exec.ExitError
				if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL {
					killed++
					continue
				}
				t.Logf("the run ended before its kill: %v", err)
				break
			}
			require.GreaterOrEqual(t, killed, kills/2, "the job was killed midway")

			srv.ClearFaults()
			// No request of the killed runs can still be processed: the list may settle a
			// batch it does not show.
			cmd := exec.Command(bin, append(args, "--settle-after", "1ns")...)
			cmd.Env = env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, runErr := cmd.Output()
			var rep bulkJSON
			require.NoError(t, json.Unmarshal(stdout, &rep), "%s\n%s", stdout, stderr.String())

			// Which numbers got the message, and how many times.
			got := map[string]int{}
			for _, m := range srv.Messages(mockserver.Filter{WorkspaceID: ws.WorkspaceID}) {
				got[m.To]++
			}
			for to, n := range got {
				require.Equal(t, 1, n, "%s got the message %d times", to, n)
			}
			balance, err := srv.Balance(ws.WorkspaceID, mockserver.ModeTest)
			require.NoError(t, err)
			assert.Equal(t, int64(len(got)*price), wallet-balance, "the wallet moved once per number that got the message")
			t.Logf("%d kills; final run: %d sent, %d from the journal, %d batches (%d recipients) in doubt",
				killed, rep.Sent, rep.FromJournal, rep.InDoubtBatches, rep.InDoubt)

			if profile == mockserver.ProfileFull {
				require.NoError(t, runErr, stderr.String())
				assert.True(t, rep.Complete)
				assert.Zero(t, rep.InDoubtBatches)
				assert.Len(t, got, numbers, "every number got the message exactly once")
				return
			}

			// The documented profile: what is in doubt is reported, and at most the batches in
			// flight at the kills.
			require.Positive(t, rep.InDoubtBatches, "some kills landed with batches in flight")
			var ee *exec.ExitError
			require.ErrorAs(t, runErr, &ee)
			assert.Equal(t, exitInDoubt, ee.ExitCode())
			assert.False(t, rep.Complete)
			assert.LessOrEqual(t, rep.InDoubtBatches, killed*concurrency)
			assert.Len(t, rep.InDoubtList, rep.InDoubtBatches)
			assert.True(t, strings.Contains(stderr.String(), "in doubt: their requests may have reached the server"))
			doubt := map[string]bool{}
			for i, b := range rep.InDoubtList {
				if name := fmt.Sprintf("batch %d (reference killed:%d, %d recipients)", b.Index, b.Index, batchSize); i < inDoubtShown {
					assert.True(t, strings.Contains(stderr.String(), name), "%s is named on stderr", name)
				}
				for k := b.Index * batchSize; k < (b.Index+1)*batchSize; k++ {
					doubt[fmt.Sprintf("234803%07d", k)] = true
				}
			}
			received := 0
			for k := range numbers {
				to := fmt.Sprintf("234803%07d", k)
				switch {
				case got[to] == 1:
					received++
				case !doubt[to]:
					t.Errorf("%s got nothing, and its batch is not in doubt", to)
				}
			}
			assert.Equal(t, len(got), received, "only the job's numbers got the message")
			assert.Equal(t, numbers-rep.InDoubt, rep.Sent+rep.FromJournal+rep.Replayed, "every batch not in doubt is done")
		})
	}
}
