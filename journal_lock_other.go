//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package sms

import "os"

// lockFile does not lock on this system: OpenFileJournal cannot refuse a second process
// there, and running two processes of one job on one journal file is the caller's to avoid.
// journalLocks says that OpenFileJournal refuses a file another journal holds.
const journalLocks = false

func lockFile(*os.File) error { return nil }
