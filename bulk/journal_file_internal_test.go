package bulk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingFile is a journal's file whose next write stops before its last byte, or whose next sync fails.
type failingFile struct {
	*os.File
	mu                  sync.Mutex
	failWrite, failSync bool
}

var errDisk = errors.New("disk failure")

func (f *failingFile) WriteAt(b []byte, off int64) (int, error) {
	f.mu.Lock()
	fail := f.failWrite
	f.failWrite = false
	f.mu.Unlock()
	if fail {
		n, _ := f.File.WriteAt(b[:len(b)-1], off) // all but the line feed
		return n, errDisk
	}
	return f.File.WriteAt(b, off)
}

func (f *failingFile) Sync() error {
	f.mu.Lock()
	fail := f.failSync
	f.failSync = false
	f.mu.Unlock()
	if fail {
		return errDisk
	}
	return f.File.Sync()
}

func testIntent(index int) JournalRecord {
	return JournalRecord{Kind: JournalKindIntent, JobID: "job", Index: index, Reference: "job:" + strconv.Itoa(index), Attempt: 1,
		Digest: BatchDigest("MOCKSMS", "", "Hi", nil), Time: time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)}
}

// A group whose write fails fails every one of its Appends and leaves nothing of itself in
// the file: the next group is written where it would have been, and the file reads whole.
func TestFileJournalFailedWriteLeavesNoHalfGroup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j")
	j, err := OpenFileJournal(path)
	require.NoError(t, err)
	ff := &failingFile{File: j.f}
	j.w = ff
	require.NoError(t, j.Append(ctx, testIntent(0)))
	ff.failWrite = true
	long := testIntent(1)
	long.Reason = strings.Repeat("x", 200) // longer than the next record
	require.ErrorIs(t, j.Append(ctx, long), errDisk)
	require.NoError(t, j.Append(ctx, testIntent(2)))
	st, err := os.Stat(path)
	require.NoError(t, err)
	l0, err := encodeJournalLine(ptr(testIntent(0)))
	require.NoError(t, err)
	l2, err := encodeJournalLine(ptr(testIntent(2)))
	require.NoError(t, err)
	assert.Equal(t, int64(len(l0)+len(l2)), st.Size(), "nothing of the failed group is left after the next one")
	require.NoError(t, j.Close())

	j, err = OpenFileJournal(path)
	require.NoError(t, err, "the file reads whole")
	defer j.Close()
	got, err := j.Load(ctx, "job")
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, []int{0, 2}, []int{got[0].Index, got[1].Index})
}

// After a failed sync nothing says what the file holds: every later Append fails.
func TestFileJournalFailedSyncStopsAppends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	j, err := OpenFileJournal(filepath.Join(t.TempDir(), "j"))
	require.NoError(t, err)
	defer j.Close()
	ff := &failingFile{File: j.f, failSync: true}
	j.w = ff
	require.ErrorIs(t, j.Append(ctx, testIntent(0)), errDisk)
	require.ErrorIs(t, j.Append(ctx, testIntent(1)), errDisk)
}

func ptr[T any](v T) *T { return &v }
