//go:build unix

package safefile_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/internal/safefile"
)

func TestOpenWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir, path string) // makes what is at path
		want    error                                // nil: opened
		created bool
		perm    fs.FileMode // of the file opened
	}{
		{"missing: created private", func(*testing.T, string, string) {}, nil, true, 0o600},
		{"private file", func(t *testing.T, _, p string) { require.NoError(t, os.WriteFile(p, []byte("x"), 0o600)) }, nil, false, 0o600},
		{"readable by all: tightened", func(t *testing.T, _, p string) {
			require.NoError(t, os.WriteFile(p, []byte("x"), 0o600))
			require.NoError(t, os.Chmod(p, 0o666))
		}, nil, false, 0o600},
		{"link to a file", func(t *testing.T, dir, p string) {
			target := filepath.Join(dir, "authorized_keys")
			require.NoError(t, os.WriteFile(target, []byte("ssh-ed25519 AAAA\n"), 0o644))
			require.NoError(t, os.Symlink(target, p))
		}, safefile.ErrSymlink, false, 0},
		{"dangling link", func(t *testing.T, dir, p string) {
			require.NoError(t, os.Symlink(filepath.Join(dir, "elsewhere"), p))
		}, safefile.ErrSymlink, false, 0},
		{"directory", func(t *testing.T, _, p string) { require.NoError(t, os.Mkdir(p, 0o700)) }, safefile.ErrNotRegular, false, 0},
		{"named pipe", func(t *testing.T, _, p string) { require.NoError(t, syscall.Mkfifo(p, 0o600)) }, safefile.ErrNotRegular, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := filepath.Join(dir, "f")
			tt.setup(t, dir, p)
			f, created, err := safefile.OpenWrite(p)
			if tt.want != nil {
				require.ErrorIs(t, err, tt.want)
				var pe *fs.PathError
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, p, pe.Path)
				if _, err := os.Stat(filepath.Join(dir, "elsewhere")); tt.name == "dangling link" {
					assert.ErrorIs(t, err, fs.ErrNotExist, "nothing is created through a link")
				}
				if b, err := os.ReadFile(filepath.Join(dir, "authorized_keys")); err == nil {
					assert.Equal(t, "ssh-ed25519 AAAA\n", string(b), "a link's target is left as it was")
				}
				return
			}
			require.NoError(t, err)
			defer f.Close()
			assert.Equal(t, tt.created, created)
			require.NoError(t, safefile.MakePrivate(f, p))
			fi, err := os.Stat(p)
			require.NoError(t, err)
			assert.Equal(t, tt.perm, fi.Mode().Perm())
		})
	}
}

func TestOpenRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := safefile.OpenRead(filepath.Join(dir, "missing"))
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = os.Stat(filepath.Join(dir, "missing"))
	require.ErrorIs(t, err, fs.ErrNotExist, "a read never creates")

	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, []byte("x"), 0o600))
	require.NoError(t, os.Chmod(p, 0o644))
	f, err := safefile.OpenRead(p)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o644), fi.Mode().Perm(), "a read changes nothing")

	require.NoError(t, os.Symlink(p, filepath.Join(dir, "link")))
	_, err = safefile.OpenRead(filepath.Join(dir, "link"))
	require.ErrorIs(t, err, safefile.ErrSymlink)
}

// A file of another user is refused, even to root, which could open it.
func TestOtherOwnerRefused(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(p, []byte("x"), 0o600))
	require.NoError(t, os.Chown(p, 65534, 65534))
	_, _, err := safefile.OpenWrite(p)
	require.ErrorIs(t, err, safefile.ErrOtherOwner)
	_, err = safefile.OpenRead(p)
	require.ErrorIs(t, err, safefile.ErrOtherOwner)
	require.ErrorIs(t, safefile.WriteFile(p, []byte("y")), safefile.ErrOtherOwner)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "x", string(b))
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, safefile.WriteFile(p, []byte("a longer first text")))
	require.NoError(t, safefile.WriteFile(p, []byte("short")))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "short", string(b))
}
