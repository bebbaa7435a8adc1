package sms

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// FileJournal is a Journal kept in one append-only file, one record per line: the
// CRC-32C of the record, in 8 hex digits, a space, the record in JSON, a line feed. Each
// Append writes its line and syncs the file (fsync) before it returns.
//
// A crash may leave the last line torn: it is ignored, and the next Append writes over it.
// A line that cannot be read anywhere else (a checksum that does not match, a record that
// makes no sense) is an error matching ErrJournalCorrupt, at OpenFileJournal and at Load:
// nothing in the file is then trusted, and the job does not run.
//
// The file holds the normalized numbers of each batch (for SkipSentBy), no names, no
// message text and no credentials; it is created readable by its owner only.
type FileJournal struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	size   int64 // of the whole records: where the next one is written
	closed bool
}

// OpenFileJournal opens the journal file at path, creating it (and not its directory) when
// missing. It refuses a file that another FileJournal, of this process or another one,
// holds open (ErrJournalLocked; on Linux, macOS and the BSDs, through flock), and one with a
// corrupt record (ErrJournalCorrupt). A torn last record is cut off.
func OpenFileJournal(path string) (*FileJournal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sms: opening the journal: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, ErrJournalLocked) {
			return nil, fmt.Errorf("sms: journal %s: %w: another process (or another journal of this one) has it open", path, err)
		}
		return nil, fmt.Errorf("sms: locking the journal %s: %w", path, err)
	}
	j := &FileJournal{f: f, path: path}
	size, err := scanJournal(f, path, "", nil)
	if err != nil {
		f.Close()
		return nil, err
	}
	if st, err := f.Stat(); err != nil {
		f.Close()
		return nil, fmt.Errorf("sms: journal %s: %w", path, err)
	} else if st.Size() != size { // a torn last record: cut it off, durably
		if err := f.Truncate(size); err != nil {
			f.Close()
			return nil, fmt.Errorf("sms: journal %s: cutting off a torn last record: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, fmt.Errorf("sms: journal %s: %w", path, err)
		}
	}
	if size == 0 {
		syncDir(filepath.Dir(path)) // the new file's name survives a crash too
	}
	j.size = size
	return j, nil
}

// syncDir syncs a directory, so that a file created in it survives a crash; a system that
// cannot sync a directory is let be.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// Path returns the journal's file.
func (j *FileJournal) Path() string { return j.path }

// Load returns the records of the job jobID.
func (j *FileJournal) Load(ctx context.Context, jobID string) ([]JournalRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil, errJournalClosed
	}
	var out []JournalRecord
	_, err := scanJournal(io.NewSectionReader(j.f, 0, j.size), j.path, jobID, func(r JournalRecord) { out = append(out, r) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

var errJournalClosed = errors.New("sms: journal closed")

// Append writes rec as one line and syncs the file.
func (j *FileJournal) Append(ctx context.Context, rec JournalRecord) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkRecord(&rec); err != nil {
		return fmt.Errorf("sms: journal %s: refusing a record: %w", j.path, err)
	}
	line, err := encodeJournalLine(&rec)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return errJournalClosed
	}
	if _, err := j.f.WriteAt(line, j.size); err != nil {
		return fmt.Errorf("sms: journal %s: writing: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sms: journal %s: syncing: %w", j.path, err)
	}
	j.size += int64(len(line))
	return nil
}

// Close releases the file and its lock.
func (j *FileJournal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	return j.f.Close() // closing the file releases its lock
}

// journalLine is a record as a line of a journal file holds it.
type journalLine struct {
	Kind       JournalKind    `json:"kind"`
	JobID      string         `json:"job"`
	Index      int            `json:"index"`
	Reference  string         `json:"ref"`
	Attempt    int            `json:"attempt"`
	Digest     string         `json:"digest,omitempty"`
	Recipients int            `json:"recipients"`
	Numbers    []string       `json:"numbers,omitempty"`
	State      JournalState   `json:"state,omitempty"`
	CampaignID string         `json:"campaign,omitempty"`
	Status     CampaignStatus `json:"status,omitempty"`
	Kobo       *int64         `json:"kobo,omitempty"` // nil: unknown, or not accepted
	Resolved   string         `json:"resolved,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Time       time.Time      `json:"time"`
	Shards     int            `json:"shards,omitempty"`
	Server     string         `json:"server,omitempty"`
	Mode       string         `json:"mode,omitempty"`
	Key        string         `json:"key,omitempty"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// lineOf returns rec as a journal file's line holds it.
func lineOf(rec *JournalRecord) journalLine {
	l := journalLine{
		Kind: rec.Kind, JobID: rec.JobID, Index: rec.Index, Reference: rec.Reference, Attempt: rec.Attempt,
		Digest: rec.Digest, Recipients: rec.Recipients, Numbers: rec.Numbers, State: rec.State,
		CampaignID: rec.CampaignID, Status: rec.Status, Resolved: rec.Resolved, Reason: rec.Reason, Time: rec.Time.UTC(),
		Shards: rec.Shards, Server: rec.Server, Mode: rec.Mode, Key: rec.Key,
	}
	if rec.State == JournalAccepted && !rec.AmountUnknown {
		k := rec.Amount.Kobo()
		l.Kobo = &k
	}
	return l
}

// encodeJournalLine returns rec's line: checksum, space, JSON, line feed.
func encodeJournalLine(rec *JournalRecord) ([]byte, error) {
	l := lineOf(rec)
	body, err := json.Marshal(&l)
	if err != nil {
		return nil, fmt.Errorf("sms: journal: encoding a record: %w", err)
	}
	out := make([]byte, 0, 9+len(body)+1)
	out = hex.AppendEncode(out, binary.BigEndian.AppendUint32(nil, crc32.Checksum(body, castagnoli)))
	out = append(out, ' ')
	out = append(out, body...)
	return append(out, '\n'), nil
}

// decodeJournalLine reads one line, without its line feed.
func decodeJournalLine(line []byte) (JournalRecord, error) {
	if len(line) < 10 || line[8] != ' ' {
		return JournalRecord{}, errors.New("not a checksum and a record")
	}
	var sum [4]byte
	if _, err := hex.Decode(sum[:], line[:8]); err != nil || bytes.ContainsAny(line[:8], "ABCDEF") {
		return JournalRecord{}, errors.New("the checksum is not lower-case hex")
	}
	body := line[9:]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(sum[:]) {
		return JournalRecord{}, errors.New("the checksum does not match the record")
	}
	return decodeJournalRecord(body)
}

// decodeJournalRecord reads a record's JSON and checks it.
func decodeJournalRecord(body []byte) (JournalRecord, error) {
	var l journalLine
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return JournalRecord{}, fmt.Errorf("the record is not readable: %v", err)
	}
	if dec.More() {
		return JournalRecord{}, errors.New("more than one record on the line")
	}
	r := JournalRecord{
		Kind: l.Kind, JobID: l.JobID, Index: l.Index, Reference: l.Reference, Attempt: l.Attempt,
		Digest: l.Digest, Recipients: l.Recipients, Numbers: l.Numbers, State: l.State,
		CampaignID: l.CampaignID, Status: l.Status, Resolved: l.Resolved, Reason: l.Reason, Time: l.Time,
		Shards: l.Shards, Server: l.Server, Mode: l.Mode, Key: l.Key,
	}
	switch {
	case l.Kobo != nil && r.State != JournalAccepted:
		return JournalRecord{}, errors.New("an amount on a batch not accepted")
	case l.Kobo != nil:
		r.Amount = AmountFromKobo(*l.Kobo)
	case r.State == JournalAccepted:
		r.AmountUnknown = true
	}
	if err := checkRecord(&r); err != nil {
		return JournalRecord{}, err
	}
	return r, nil
}

// maxJournalLine bounds a line: an intent of MaxBulkBatchSize numbers of 15 digits and its
// other members.
const maxJournalLine = 1 << 20

// scanJournal reads the records of a journal file from r, calling fn with those of the job
// jobID (every job's when jobID is empty; fn may be nil). It returns the size of the whole
// records: a last line that is torn (no line feed, or a line feed after a record that cannot
// be read) ends them and is left out; a bad line followed by another is a
// *JournalCorruptError.
func scanJournal(r io.Reader, path, jobID string, fn func(JournalRecord)) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	for line := 1; ; line++ {
		b, err := readJournalLine(br)
		if err == io.EOF {
			return off, nil
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			return 0, fmt.Errorf("sms: reading the journal %s: %w", path, err)
		}
		complete := len(b) > 0 && b[len(b)-1] == '\n'
		var rec JournalRecord
		if err == nil && complete {
			rec, err = decodeJournalLine(b[:len(b)-1])
		}
		if err != nil || !complete {
			if last, _ := atEOF(br); last && (err == nil || !errors.Is(err, errLineTooLong)) {
				return off, nil // the last line, torn by a crash
			}
			reason := "a line without a line feed"
			if err != nil {
				reason = err.Error()
			}
			return 0, &JournalCorruptError{Path: path, Line: line, Offset: off, Reason: reason}
		}
		if fn != nil && (jobID == "" || rec.JobID == jobID) {
			fn(rec)
		}
		off += int64(len(b))
	}
}

var errLineTooLong = errors.New("a line longer than 1 MiB")

// readJournalLine reads a line, its line feed included (absent at the end of the input), of
// at most maxJournalLine bytes; a longer one is errLineTooLong, its rest skipped.
func readJournalLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > maxJournalLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			return out[:0], errLineTooLong
		}
		switch {
		case err == nil:
			return out, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(out) > 0:
			return out, nil
		default:
			return nil, err
		}
	}
}

// atEOF reports whether br has nothing more to read.
func atEOF(br *bufio.Reader) (bool, error) {
	_, err := br.Peek(1)
	if err == io.EOF {
		return true, nil
	}
	return false, err
}
