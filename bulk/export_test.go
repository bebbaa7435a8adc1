package bulk

import "bytes"

// NumberSetBytes returns the memory a bulk job's de-duplication set holds for n distinct
// numbers: its one slice of slots.
func NumberSetBytes(n int) uint64 {
	var s numberSet
	for i := range n {
		s.add(2348000000000 + uint64(i))
	}
	return uint64(len(s.slots)) * 8
}

// Limits that go doc states in words.
const (
	MaxJobIDLen    = maxJobIDLen
	MaxCSVRowBytes = maxCSVRowBytes
)

// JournalLocks says whether OpenFileJournal locks its file on this system.
const JournalLocks = journalLocks

// ReadJournal reads the records of every job in a journal file's bytes, as OpenFileJournal
// and FileJournal.Load do, and returns the size of the whole records.
func ReadJournal(data []byte) ([]JournalRecord, int64, error) {
	var out []JournalRecord
	n, err := scanJournal(bytes.NewReader(data), "fuzz", "", func(r JournalRecord) { out = append(out, r) })
	return out, n, err
}
