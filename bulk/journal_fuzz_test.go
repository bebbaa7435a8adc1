package bulk_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

// FuzzJournalRead damages a journal file (cut short, a byte changed, bytes added) and opens
// it: a clear error or the whole records, never a panic, never a batch taken as accepted but
// by a whole record whose checksum matches. A change inside any line but the last one is
// always an error matching ErrJournalCorrupt.
func FuzzJournalRead(f *testing.F) {
	in0, in1, in2 := journalIntent("job", 0, 2), journalIntent("job", 1, 2), journalIntent("job", 2, 1)
	unknown := journalAccepted(in1, 0)
	unknown.State, unknown.CampaignID, unknown.Status, unknown.Amount, unknown.Reason = bulk.JournalStateUnknown, "", "", sms.Amount{}, "dropped"
	base := []bulk.JournalRecord{in0, journalAccepted(in0, 640), in1, unknown, in2}
	var file []byte
	var ends []int // where each line ends, after its line feed
	for _, r := range base {
		file = append(file, mustLineOf(f, r)...)
		ends = append(ends, len(file))
	}
	accepted := base[1]

	f.Add([]byte(nil), uint16(0xffff), uint16(0), byte(0))
	f.Add([]byte(nil), uint16(len(file)-3), uint16(0), byte(0))
	f.Add([]byte(nil), uint16(0xffff), uint16(ends[1]+20), byte('x'))
	f.Add([]byte(nil), uint16(0xffff), uint16(ends[0]-1), byte('\n'^' '))
	f.Add(mustLineOf(f, journalAccepted(in2, 320)), uint16(0xffff), uint16(0), byte(0))
	f.Add([]byte("00000000 {}\n"), uint16(0xffff), uint16(0), byte(0))
	f.Fuzz(func(t *testing.T, extra []byte, cut, flip uint16, x byte) {
		data := append([]byte(nil), file...)
		if int(flip) < len(data) {
			data[flip] ^= x
		}
		if int(cut) < len(data) {
			data = data[:cut]
		}
		data = append(data, extra...)
		recs, whole, err := bulk.ReadJournal(data)
		// A byte changed inside a line that is not the last one, nothing cut, nothing added.
		inner := x != 0 && len(extra) == 0 && int(cut) >= len(file) && int(flip) < ends[len(ends)-2]
		if err != nil {
			if !bytesErrIsCorrupt(err) {
				t.Fatalf("not a corrupt journal: %v", err)
			}
			return
		}
		if inner {
			t.Fatalf("byte %d of the file changed, and the journal reads", flip)
		}
		if whole < 0 || whole > int64(len(data)) || (whole > 0 && data[whole-1] != '\n') {
			t.Fatalf("the whole records end at %d of %d bytes", whole, len(data))
		}
		for _, r := range recs {
			if r.Kind != bulk.JournalKindOutcome || r.State != bulk.JournalStateAccepted {
				continue
			}
			if r.Index == accepted.Index && r.Attempt == accepted.Attempt && r.Amount == accepted.Amount && r.CampaignID == accepted.CampaignID {
				if !bytes.HasPrefix(data, file[:ends[1]]) && !bytes.Contains(data, file[ends[0]:ends[1]]) {
					t.Fatalf("batch %d taken as accepted, but its record is not whole in the file", r.Index)
				}
				continue
			}
			if !bytes.Contains(data[:whole], mustLineOf(t, r)) {
				t.Fatalf("batch %d taken as accepted (%+v) without a whole record saying so", r.Index, r)
			}
		}
	})
}

func bytesErrIsCorrupt(err error) bool {
	var ce *bulk.JournalCorruptError
	return errors.As(err, &ce)
}

// mustLineOf returns the line a file journal writes for r.
func mustLineOf(tb testing.TB, r bulk.JournalRecord) []byte {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "line")
	j, err := bulk.OpenFileJournal(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := j.Append(context.Background(), r); err != nil {
		tb.Fatal(err)
	}
	if err := j.Close(); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
