package sms

// NumberSetBytes returns the memory a bulk job's de-duplication set holds for n distinct
// numbers: its one slice of slots.
func NumberSetBytes(n int) uint64 {
	var s numberSet
	for i := range n {
		s.add(2348000000000 + uint64(i))
	}
	return uint64(len(s.slots)) * 8
}

// MaxErrorBody is how much of an error response is read.
const MaxErrorBody = maxErrorBody

// JournalLocks says whether OpenFileJournal locks its file on this system.
const JournalLocks = journalLocks
