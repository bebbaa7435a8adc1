//go:build unix

package safefile

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openNoFollow opens path without following a symbolic link in its last component, and
// without blocking on a pipe (check refuses it then).
func openNoFollow(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
}

// ownedByMe reports whether the file belongs to the process's effective user.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
