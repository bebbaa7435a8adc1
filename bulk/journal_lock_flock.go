//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bulk

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// journalLocks says that OpenFileJournal refuses a file another journal holds.
const journalLocks = true

// lockFile takes a flock on f, exclusive or shared: ErrJournalLocked when another open file
// holds one that excludes it. Closing f releases it, as does the end of the process.
//
// A lock can outlive its Close for a moment: a child process forked by another goroutine
// holds a copy of every descriptor until it runs its program (the descriptor is close-on-exec,
// but the lock is on the open file, which the copy shares). So a lock held elsewhere is tried
// again for up to lockPatience before the file is taken as another journal's, which holds it
// for as long as its job runs.
func lockFile(f *os.File, shared bool) error {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	deadline := time.Now().Add(lockPatience)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK) && time.Now().Before(deadline):
			time.Sleep(lockPatience / 20)
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrJournalLocked
		}
		return err
	}
}

// lockPatience is how long lockFile tries a lock held elsewhere.
const lockPatience = 200 * time.Millisecond
