//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sms

import (
	"errors"
	"os"
	"syscall"
)

// journalLocks says that OpenFileJournal refuses a file another journal holds.
const journalLocks = true

// lockFile takes a flock on f without waiting, exclusive or shared: ErrJournalLocked when
// another open file holds one that excludes it. Closing f releases it, as does the end of
// the process.
func lockFile(f *os.File, shared bool) error {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrJournalLocked
		}
		return err
	}
}
