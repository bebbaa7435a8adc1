//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package bulk

import "os"

// journalLocks says that OpenFileJournal refuses a file another journal holds.
const journalLocks = false

// lockFile does not lock on this system: OpenFileJournal cannot refuse a second process
// there, and running two processes of one job on one journal file is the caller's to avoid.
func lockFile(*os.File, bool) error { return nil }
