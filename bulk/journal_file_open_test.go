package bulk_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/bulk"
)

// A journal's path that is a link, or no regular file, is refused whatever it points to, and
// the file it points to is left as it was; a new journal is private, an existing one readable
// by others is made private.
func TestFileJournalOpensSafely(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("unix links and permissions")
	}
	const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKq user@host\n"
	tests := []struct {
		name  string
		setup func(t *testing.T, dir, path string)
		ok    bool
		perm  fs.FileMode
	}{
		{"missing", func(*testing.T, string, string) {}, true, 0o600},
		{"readable by others", func(t *testing.T, _, p string) {
			require.NoError(t, os.WriteFile(p, nil, 0o600))
			require.NoError(t, os.Chmod(p, 0o644))
		}, true, 0o600},
		{"a link to an ssh key", func(t *testing.T, dir, p string) {
			require.NoError(t, os.Symlink(filepath.Join(dir, "authorized_keys"), p))
		}, false, 0},
		{"a link to a journal", func(t *testing.T, dir, p string) {
			require.NoError(t, os.Symlink(writeJournal(t, journalIntent("job", 0, 1)), p))
		}, false, 0},
		{"a dangling link", func(t *testing.T, dir, p string) {
			require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), p))
		}, false, 0},
		{"a directory", func(t *testing.T, _, p string) { require.NoError(t, os.Mkdir(p, 0o700)) }, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			keys := filepath.Join(dir, "authorized_keys")
			require.NoError(t, os.WriteFile(keys, []byte(key), 0o600))
			p := filepath.Join(dir, "job.journal")
			tt.setup(t, dir, p)
			for _, open := range []func(string) (*bulk.FileJournal, error){bulk.OpenFileJournal, bulk.OpenFileJournalReadOnly} {
				j, err := open(p)
				if !tt.ok {
					require.Error(t, err)
					continue
				}
				if err != nil && tt.name == "missing" { // the read-only open never creates
					require.ErrorIs(t, err, fs.ErrNotExist)
					continue
				}
				require.NoError(t, err)
				require.NoError(t, j.Close())
				fi, err := os.Stat(p)
				require.NoError(t, err)
				assert.Equal(t, tt.perm, fi.Mode().Perm())
			}
			b, err := os.ReadFile(keys)
			require.NoError(t, err)
			assert.Equal(t, key, string(b), "what a link points to is left as it was")
			_, err = os.Stat(filepath.Join(dir, "nowhere"))
			assert.ErrorIs(t, err, fs.ErrNotExist, "nothing is created through a link")
		})
	}
}

// OpenFileJournalReadOnly reads a journal without changing it: a torn last record is
// ignored and kept, Append fails, and it is refused while a writer holds the file (and the
// writer while it is open).
func TestFileJournalReadOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	in := journalIntent("job", 0, 2)
	path := writeJournal(t, in, journalAccepted(in, 640))
	torn := mustLineOf(t, journalIntent("job", 1, 1))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(torn[:len(torn)/2])
	require.NoError(t, err)
	require.NoError(t, f.Close())
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	r, err := bulk.OpenFileJournalReadOnly(path)
	require.NoError(t, err)
	got, err := r.Load(ctx, "job")
	require.NoError(t, err)
	assert.Equal(t, []bulk.JournalRecord{in, journalAccepted(in, 640)}, got)
	assert.ErrorContains(t, r.Append(ctx, journalIntent("job", 2, 1)), "read-only")
	r2, err := bulk.OpenFileJournalReadOnly(path)
	require.NoError(t, err, "readers share the file")
	if bulk.JournalLocks {
		_, err = bulk.OpenFileJournal(path)
		require.ErrorIs(t, err, bulk.ErrJournalLocked, "no writer while it is read")
	}
	require.NoError(t, r.Close())
	require.NoError(t, r2.Close())
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the file is left as it was")

	w, err := bulk.OpenFileJournal(path)
	require.NoError(t, err)
	if bulk.JournalLocks {
		_, err = bulk.OpenFileJournalReadOnly(path)
		require.ErrorIs(t, err, bulk.ErrJournalLocked, "no reader while it is written")
	}
	require.NoError(t, w.Close())

	_, err = bulk.OpenFileJournalReadOnly(filepath.Join(t.TempDir(), "missing"))
	require.ErrorIs(t, err, fs.ErrNotExist)
}
