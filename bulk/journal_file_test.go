package bulk_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

// journalIntent returns the intent record of batch index of job, of n numbers.
func journalIntent(job string, index, n int) bulk.JournalRecord {
	nums := make([]string, n)
	to := make([]sms.Recipient, n)
	for i := range nums {
		nums[i] = bulkPhone(index*1000 + i)
		to[i] = sms.Recipient{Phone: nums[i]}
	}
	return bulk.JournalRecord{
		Kind: bulk.JournalKindIntent, JobID: job, Index: index, Reference: job + ":" + strconv.Itoa(index), Attempt: 1,
		Digest: bulk.BatchDigest("MOCKSMS", "", "Hi", to), Recipients: n, Numbers: nums,
		Time: time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC),
	}
}

// journalAccepted returns the outcome record of an intent: accepted at kobo.
func journalAccepted(in bulk.JournalRecord, kobo int64) bulk.JournalRecord {
	return bulk.JournalRecord{
		Kind: bulk.JournalKindOutcome, JobID: in.JobID, Index: in.Index, Reference: in.Reference, Attempt: in.Attempt,
		Recipients: in.Recipients, State: bulk.JournalStateAccepted, CampaignID: "cmp_" + strconv.Itoa(in.Index),
		Status: sms.CampaignStatusSent, Amount: sms.AmountFromKobo(kobo), Time: in.Time,
	}
}

// writeJournal appends recs to a new journal file in a temp dir and returns its path.
func writeJournal(t *testing.T, recs ...bulk.JournalRecord) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "job.journal")
	j, err := bulk.OpenFileJournal(path)
	require.NoError(t, err)
	for _, r := range recs {
		require.NoError(t, j.Append(context.Background(), r))
	}
	require.NoError(t, j.Close())
	return path
}

func TestFileJournalRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := journalIntent("job-a", 0, 3), journalIntent("job-b", 0, 2)
	unknown := journalAccepted(b, 0)
	unknown.State, unknown.CampaignID, unknown.Status, unknown.Amount, unknown.Reason = bulk.JournalStateUnknown, "", "", sms.Amount{}, "connection dropped"
	noAmount := journalAccepted(a, 0)
	noAmount.AmountUnknown = true
	path := writeJournal(t, a, b, journalAccepted(a, 960), unknown, noAmount)

	j, err := bulk.OpenFileJournal(path)
	require.NoError(t, err)
	defer j.Close()
	got, err := j.Load(ctx, "job-a")
	require.NoError(t, err)
	assert.Equal(t, []bulk.JournalRecord{a, journalAccepted(a, 960), noAmount}, got)
	got, err = j.Load(ctx, "job-b")
	require.NoError(t, err)
	assert.Equal(t, []bulk.JournalRecord{b, unknown}, got)
	got, err = j.Load(ctx, "job-c")
	require.NoError(t, err)
	assert.Empty(t, got)
}

// A crash may tear the last record (no line feed at the end of the file): it is ignored and
// written over. A record that cannot be read anywhere else, the last one included when its
// line is whole, is an error, and so is a file whose first line is no record (an ssh key, a
// configuration file): the file is left as it was.
func TestFileJournalTornAndCorrupt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	in := journalIntent("job", 0, 2)
	path := writeJournal(t, in, journalAccepted(in, 640))
	whole, err := os.ReadFile(path)
	require.NoError(t, err)
	first := len(whole) - len(mustLineOf(t, journalAccepted(in, 640)))

	tests := []struct {
		name    string
		data    []byte
		want    int // records of "job" read
		corrupt int // the line reported corrupt; 0: none
	}{
		{"whole", whole, 2, 0},
		{"last line cut short", whole[:len(whole)-7], 1, 0},
		{"last line without its line feed", whole[:len(whole)-1], 1, 0},
		{"last line garbled, with its line feed", append(append([]byte{}, whole[:len(whole)-3]...), 'x', '}', '\n'), 0, 2},
		{"last line garbled, torn", append(append([]byte{}, whole[:len(whole)-3]...), 'x', '}'), 1, 0},
		{"first record torn", whole[:30], 0, 0},
		{"first record torn after its checksum", whole[:9], 0, 0},
		{"only zeros", make([]byte, 4096), 0, 0},
		{"an ssh key", []byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKq user@host\n"), 0, 1},
		{"an ssh key without its line feed", []byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKq user@host"), 0, 1},
		{"a configuration, then records", append([]byte("[core]\n"), whole...), 0, 1},
		{"JSON without a checksum", []byte(`{"kind":"intent"}`), 0, 1},
		{"zeros after the last line", append(append([]byte{}, whole...), make([]byte, 100)...), 2, 0},
		{"first line garbled", append(append([]byte{}, whole[:5]...), append([]byte{'x'}, whole[6:]...)...), 0, 1},
		{"a blank line between", append(append(append([]byte{}, whole[:first]...), '\n'), whole[first:]...), 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "j")
			require.NoError(t, os.WriteFile(p, tt.data, 0o600))
			j, err := bulk.OpenFileJournal(p)
			if tt.corrupt > 0 {
				var ce *bulk.JournalCorruptError
				require.ErrorAs(t, err, &ce)
				assert.ErrorIs(t, err, bulk.ErrJournalCorrupt)
				assert.Equal(t, tt.corrupt, ce.Line)
				after, err := os.ReadFile(p)
				require.NoError(t, err)
				assert.Equal(t, tt.data, after, "a corrupt file is left as it was")
				return
			}
			require.NoError(t, err)
			defer j.Close()
			got, err := j.Load(ctx, "job")
			require.NoError(t, err)
			require.Len(t, got, tt.want)
			// The next record goes where the torn one was.
			next := journalIntent("job", 1, 1)
			require.NoError(t, j.Append(ctx, next))
			got, err = j.Load(ctx, "job")
			require.NoError(t, err)
			require.Len(t, got, tt.want+1)
			assert.Equal(t, next, got[tt.want])
			require.NoError(t, j.Close())
			j2, err := bulk.OpenFileJournal(p)
			require.NoError(t, err, "the file reads whole after the append")
			require.NoError(t, j2.Close())
		})
	}
}

// A journal file is held by one journal at a time, until it is closed.
func TestFileJournalLocked(t *testing.T) {
	t.Parallel()
	if !bulk.JournalLocks {
		t.Skip("no file locks on this system")
	}
	path := filepath.Join(t.TempDir(), "j")
	j, err := bulk.OpenFileJournal(path)
	require.NoError(t, err)
	_, err = bulk.OpenFileJournal(path)
	require.ErrorIs(t, err, bulk.ErrJournalLocked)
	require.NoError(t, j.Close())
	j2, err := bulk.OpenFileJournal(path)
	require.NoError(t, err)
	require.NoError(t, j2.Close())
	assert.ErrorContains(t, j.Append(context.Background(), journalIntent("job", 0, 1)), "closed")
}

// A record that makes no sense is refused before it is written.
func TestFileJournalRefusesBadRecords(t *testing.T) {
	t.Parallel()
	good := journalIntent("job", 0, 2)
	tests := []struct {
		name string
		edit func(*bulk.JournalRecord)
	}{
		{"no job", func(r *bulk.JournalRecord) { r.JobID = "" }},
		{"reference of another batch", func(r *bulk.JournalRecord) { r.Reference = "job:1" }},
		{"no digest", func(r *bulk.JournalRecord) { r.Digest = "" }},
		{"numbers miscounted", func(r *bulk.JournalRecord) { r.Recipients = 3 }},
		{"a number not normalized", func(r *bulk.JournalRecord) { r.Numbers[0] = "+234" }},
		{"attempt 0", func(r *bulk.JournalRecord) { r.Attempt = 0 }},
		{"unknown kind", func(r *bulk.JournalRecord) { r.Kind = "other" }},
		{"an outcome without a state", func(r *bulk.JournalRecord) { r.Kind, r.Digest, r.Numbers = bulk.JournalKindOutcome, "", nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j, err := bulk.OpenFileJournal(filepath.Join(t.TempDir(), "j"))
			require.NoError(t, err)
			defer j.Close()
			r := good
			r.Numbers = append([]string(nil), good.Numbers...)
			tt.edit(&r)
			require.Error(t, j.Append(context.Background(), r))
			got, err := j.Load(context.Background(), "job")
			require.NoError(t, err)
			assert.Empty(t, got)
		})
	}
}

// Another process cannot open a journal file this one holds.
func TestFileJournalLockedAcrossProcesses(t *testing.T) {
	if path := os.Getenv("SMS_TEST_JOURNAL_CHILD"); path != "" {
		_, err := bulk.OpenFileJournal(path)
		if errors.Is(err, bulk.ErrJournalLocked) {
			os.Exit(3)
		}
		os.Exit(4)
	}
	t.Parallel()
	if !bulk.JournalLocks {
		t.Skip("no file locks on this system")
	}
	path := filepath.Join(t.TempDir(), "j")
	j, err := bulk.OpenFileJournal(path)
	require.NoError(t, err)
	defer j.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileJournalLockedAcrossProcesses$")
	cmd.Env = append(os.Environ(), "SMS_TEST_JOURNAL_CHILD="+path)
	err = cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 3, exit.ExitCode(), "the other process was refused with ErrJournalLocked")
}
