package bulk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/seedsms/sms-go"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/seedsms/sms-go/internal/safefile"
)

// FileJournal is a Journal kept in one append-only file, one record per line: the
// CRC-32C of the record, in 8 hex digits, a space, the record in JSON, a line feed. Append
// returns once its line is written and the file synced (fsync); the Appends of concurrent
// goroutines share one write and one sync (group commit), so that a job's workers wait for
// the disk together rather than in turn.
//
// A crash may leave the last line torn: a line without its line feed at the end of the file.
// OpenFileJournal cuts it off (it was never acknowledged) and the next Append writes where it
// began; as the file's only line, it must look like the start of a record (hex digits, a
// space, JSON) or be zeros, or the file is not taken for a journal. Any other line that cannot be read, the last one included when it ends with its line
// feed (a checksum that does not match, a record that makes no sense), is a hand edit or a
// corruption: an error matching ErrJournalCorrupt, at OpenFileJournal and at Load; nothing in
// the file is then trusted or changed, and the job does not run.
//
// One FileJournal holds the file, and so every job in it, at a time: OpenFileJournal takes an
// exclusive lock on it (flock, on Linux, macOS and the BSDs), and another OpenFileJournal (or
// OpenFileJournalReadOnly), of this process or another one, is refused with ErrJournalLocked
// until Close or the end of the process.
//
// The file holds the normalized numbers of each batch (for SkipSentBy), no names, no message
// text and no credentials. It is opened without following a symbolic link, only when it is a
// regular file of the process's user (on Linux, macOS and the BSDs); it is created readable by
// its owner only, and an existing file readable by others is made so when opened for appending.
type FileJournal struct {
	f        *os.File
	w        journalWriter // f, but for tests
	path     string
	readOnly bool

	mu     sync.Mutex
	size   int64 // of the whole records: where the next group is written
	closed bool
	broken error // a failed sync or a write that could not be undone: every later Append fails
	group  groupCommit[[]byte]
}

// journalWriter is what a FileJournal's group commit does to its file.
type journalWriter interface {
	WriteAt(b []byte, off int64) (int, error)
	Sync() error
	Truncate(size int64) error
}

// OpenFileJournal opens the journal file at path for appending, creating it (and not its
// directory) when missing. It refuses:
//   - a file that another FileJournal, of this process or another one, holds open
//     (ErrJournalLocked; on Linux, macOS and the BSDs, through flock);
//   - a record that cannot be read (ErrJournalCorrupt);
//   - a file that is not empty and whose first line is not a journal record (an error
//     matching ErrJournalCorrupt that says so): it is left as it was;
//   - a symbolic link, anything but a regular file, and (on Linux, macOS and the BSDs) a file
//     of another user.
//
// A torn last record is cut off.
func OpenFileJournal(path string) (*FileJournal, error) {
	f, created, err := safefile.OpenWrite(path)
	if err != nil {
		return nil, fmt.Errorf("bulk: opening the journal: %w", err)
	}
	j, err := openedJournal(f, path, false)
	if err != nil {
		return nil, err
	}
	if err := safefile.MakePrivate(f, path); err != nil { // a journal: its numbers are the owner's only
		j.Close()
		return nil, fmt.Errorf("bulk: opening the journal: %w", err)
	}
	if created {
		syncDir(filepath.Dir(path)) // the new file's name survives a crash too
	}
	return j, nil
}

// OpenFileJournalReadOnly opens the existing journal file at path to read its jobs (such as
// an earlier job's, for SkipSentBy) without writing to it: Append returns an error. It takes
// a shared lock, so that it is refused with ErrJournalLocked while a FileJournal holds the
// file for appending (and such a FileJournal is refused while it is open). A missing file is
// an error matching fs.ErrNotExist; a torn last record is ignored and left in the file; it
// refuses what OpenFileJournal refuses.
func OpenFileJournalReadOnly(path string) (*FileJournal, error) {
	f, err := safefile.OpenRead(path)
	if err != nil {
		return nil, fmt.Errorf("bulk: opening the journal: %w", err)
	}
	return openedJournal(f, path, true)
}

// openedJournal locks f and reads it whole; a torn last record of a journal opened for
// appending is cut off. f is closed on error.
func openedJournal(f *os.File, path string, readOnly bool) (j *FileJournal, err error) {
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	if err := lockFile(f, readOnly); err != nil {
		if errors.Is(err, ErrJournalLocked) {
			return nil, fmt.Errorf("bulk: journal %s: %w: another process (or another journal of this one) has it open", path, err)
		}
		return nil, fmt.Errorf("bulk: locking the journal %s: %w", path, err)
	}
	size, err := scanJournal(f, path, "", nil)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("bulk: journal %s: %w", path, err)
	}
	if st.Size() != size && !readOnly { // a torn last record: cut it off, durably
		if err := f.Truncate(size); err != nil {
			return nil, fmt.Errorf("bulk: journal %s: cutting off a torn last record: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			return nil, fmt.Errorf("bulk: journal %s: %w", path, err)
		}
	}
	j = &FileJournal{f: f, w: f, path: path, readOnly: readOnly, size: size}
	j.group.init(&j.mu)
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

// Load returns the records of the job jobID, in the order they were appended.
func (j *FileJournal) Load(ctx context.Context, jobID string) ([]JournalRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	j.mu.Lock()
	closed, size := j.closed, j.size
	j.mu.Unlock()
	if closed {
		return nil, errJournalClosed
	}
	// The first size bytes are whole records that no later Append changes.
	var out []JournalRecord
	_, err := scanJournal(io.NewSectionReader(j.f, 0, size), j.path, jobID, func(r JournalRecord) { out = append(out, r) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

var errJournalClosed = errors.New("bulk: journal closed")

// Append writes rec as one line and syncs the file, with the records of the Appends running
// at the same time: when it returns nil, rec is durable.
func (j *FileJournal) Append(ctx context.Context, rec JournalRecord) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if j.readOnly {
		return fmt.Errorf("bulk: journal %s: opened read-only", j.path)
	}
	if err := checkRecord(&rec); err != nil {
		return fmt.Errorf("bulk: journal %s: refusing a record: %w", j.path, err)
	}
	line, err := encodeJournalLine(&rec)
	if err != nil {
		return err
	}
	return j.commit(line)
}

// commit commits line in the next group (see groupCommit): every line queued by then, in one
// WriteAt and one Sync.
func (j *FileJournal) commit(line []byte) error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return errJournalClosed
	}
	return j.group.do(newPending(line), func(group []*pending[[]byte]) {
		err := j.writeGroup(group) // releases j.mu while it writes
		for _, q := range group {
			q.err = err
		}
	})
}

// writeGroup writes the lines of group at the end of the whole records and syncs the file.
// It is called with j.mu held, releases it while it writes, and holds it again on return. On
// error nothing of the group is kept: the file is cut back to the whole records, or, when it
// cannot be (or when a sync failed, after which what the file holds is not known), the
// journal refuses every later Append.
func (j *FileJournal) writeGroup(group []*pending[[]byte]) error {
	switch {
	case j.closed:
		return errJournalClosed
	case j.broken != nil:
		return fmt.Errorf("bulk: journal %s: an earlier write failed: %w", j.path, j.broken)
	}
	off := j.size
	var buf []byte
	if len(group) == 1 {
		buf = group[0].v
	} else {
		n := 0
		for _, q := range group {
			n += len(q.v)
		}
		buf = make([]byte, 0, n)
		for _, q := range group {
			buf = append(buf, q.v...)
		}
	}
	j.mu.Unlock()
	_, err := j.w.WriteAt(buf, off)
	if err != nil {
		err = fmt.Errorf("bulk: journal %s: writing: %w", j.path, err)
		if terr := j.w.Truncate(off); terr != nil {
			err = errors.Join(err, fmt.Errorf("cutting off the part written: %w", terr))
			j.mu.Lock()
			j.broken = err
			return err
		}
	} else if serr := j.w.Sync(); serr != nil {
		err = fmt.Errorf("bulk: journal %s: syncing: %w", j.path, serr)
		_ = j.w.Truncate(off)
		j.mu.Lock()
		j.broken = err
		return err
	}
	j.mu.Lock()
	if err == nil {
		j.size = off + int64(len(buf))
	}
	return err
}

// Close waits for the group being written, if any, and releases the file and its lock.
// Appends after it return an error.
func (j *FileJournal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	j.group.wait()
	return j.f.Close() // closing the file releases its lock
}

// journalLine is a record as a line of a journal file holds it.
type journalLine struct {
	Kind       JournalKind        `json:"kind"`
	JobID      string             `json:"job"`
	Index      int                `json:"index"`
	Reference  string             `json:"ref"`
	Attempt    int                `json:"attempt"`
	Digest     string             `json:"digest,omitempty"`
	Recipients int                `json:"recipients"`
	Numbers    []string           `json:"numbers,omitempty"`
	State      JournalState       `json:"state,omitempty"`
	CampaignID string             `json:"campaign,omitempty"`
	Status     sms.CampaignStatus `json:"status,omitempty"`
	Kobo       *int64             `json:"kobo,omitempty"` // nil: unknown, or not accepted
	Resolved   string             `json:"resolved,omitempty"`
	Reason     string             `json:"reason,omitempty"`
	Time       time.Time          `json:"time"`
	Shards     int                `json:"shards,omitempty"`
	Server     string             `json:"server,omitempty"`
	Mode       string             `json:"mode,omitempty"`
	Key        string             `json:"key,omitempty"`
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
	if rec.State == JournalStateAccepted && !rec.AmountUnknown {
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
		return nil, fmt.Errorf("bulk: journal: encoding a record: %w", err)
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
	case l.Kobo != nil && r.State != JournalStateAccepted:
		return JournalRecord{}, errors.New("an amount on a batch not accepted")
	case l.Kobo != nil:
		r.Amount = sms.AmountFromKobo(*l.Kobo)
	case r.State == JournalStateAccepted:
		r.AmountUnknown = true
	}
	if err := checkRecord(&r); err != nil {
		return JournalRecord{}, err
	}
	return r, nil
}

// maxJournalLine bounds a line: an intent of MaxBatchSize numbers of 15 digits and its
// other members.
const maxJournalLine = 1 << 20

// scanJournal reads the records of a journal file from r, calling fn with those of the job
// jobID (every job's when jobID is empty; fn may be nil). It returns the size of the whole
// records: a last line without its line feed is torn (by a crash mid-write), ends them and is
// left out. Any other line that cannot be read is a *JournalCorruptError, and so is input
// whose first line is not a record, unless it is a torn one.
func scanJournal(r io.Reader, path, jobID string, fn func(JournalRecord)) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	for line := 1; ; line++ {
		b, err := readJournalLine(br)
		if err == io.EOF {
			return off, nil
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			return 0, fmt.Errorf("bulk: reading the journal %s: %w", path, err)
		}
		complete := len(b) > 0 && b[len(b)-1] == '\n'
		if err == nil && !complete && (line > 1 || mayBeTornRecord(b)) {
			return off, nil // the last line, torn by a crash
		}
		var rec JournalRecord
		if err == nil && complete {
			rec, err = decodeJournalLine(b[:len(b)-1])
		}
		if err != nil || !complete {
			if line == 1 {
				return 0, &JournalCorruptError{Path: path, Line: 1, Reason: "the file holds no journal record: its first line is not one (is it a journal?); it is left as it is"}
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

// mayBeTornRecord reports whether b, the only line of a file and without its line feed, may
// be the beginning of a record torn by a crash: zeros (a block allocated but not written), or
// the start of a checksum, a space and JSON.
func mayBeTornRecord(b []byte) bool {
	if len(bytes.Trim(b, "\x00")) == 0 {
		return true
	}
	for i, c := range b[:min(len(b), 10)] {
		switch {
		case i < 8 && ('0' <= c && c <= '9' || 'a' <= c && c <= 'f'):
		case i == 8 && c == ' ':
		case i == 9 && c == '{':
		default:
			return false
		}
	}
	return true
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
