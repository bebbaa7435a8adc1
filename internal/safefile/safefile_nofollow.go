//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package safefile

import (
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens path without following a symbolic link in its last component, and
// without blocking on a pipe (check refuses it then).
func openNoFollow(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
}

// ownedByMe reports whether the file belongs to the process's effective user.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
