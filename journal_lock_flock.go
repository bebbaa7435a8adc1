//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sms

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f without waiting: ErrJournalLocked when another open
// file holds it. Closing f releases it, as does the end of the process.
// journalLocks says that OpenFileJournal refuses a file another journal holds.
const journalLocks = true

func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
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
