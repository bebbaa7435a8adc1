package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/seedsms/sms-go/bulk"
)

// envJournalDir names the directory of the bulk jobs' journals; --journal-dir overrides it.
const envJournalDir = "SMS_JOURNAL_DIR"

// maxJournalName bounds the escaped job ID in a journal's file name, below the 255 bytes
// that file systems allow a name.
const maxJournalName = 150

// journalDir returns the directory of the bulk jobs' journals: flag (--journal-dir), else
// $SMS_JOURNAL_DIR, else sms/journal under the user's state directory: $XDG_STATE_HOME, or
// ~/.local/state ($LOCALAPPDATA on Windows). It is not a cache directory: a journal must
// outlive a clean-up of caches, since it is what keeps a rerun from sending twice.
func (a *app) journalDir(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if d := strings.TrimSpace(a.getenv(envJournalDir)); d != "" {
		return d, nil
	}
	if d := a.getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "sms", "journal"), nil
	}
	if runtime.GOOS == "windows" {
		if d := a.getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "sms", "journal"), nil
		}
	} else if h := a.getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "sms", "journal"), nil
	}
	return "", usagef("no directory for the job's journal: set %s or $HOME, or give --journal-dir or --journal FILE", envJournalDir)
}

// escapeJobID turns a job ID (1 to 90 printable ASCII characters) into a file name: lower-case
// letters, digits, '-' and '_' are kept, every other byte is written %XX (so that IDs
// differing only in case get different files on case-insensitive file systems, and no ID
// names a path). An escaped ID longer than maxJournalName is cut, and ~ and 16 hex digits of
// the ID's SHA-256 are appended.
func escapeJobID(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	s := b.String()
	if len(s) <= maxJournalName {
		return s
	}
	cut := maxJournalName
	if i := strings.LastIndexByte(s[:cut], '%'); i >= cut-2 { // do not split a %XX
		cut = i
	}
	sum := sha256.Sum256([]byte(id))
	return s[:cut] + "~" + hex.EncodeToString(sum[:8])
}

// journalName is the file name of the journal of a job, or of one shard of it: each shard
// keeps its own, since two processes cannot share one file.
func journalName(jobID string, shard bulk.Shard) string {
	name := escapeJobID(jobID)
	if shard.Count > 1 {
		name += ".shard-" + strconv.Itoa(shard.Index) + "-of-" + strconv.Itoa(shard.Count)
	}
	return name + ".journal"
}

// journalFile is a journal file of a job in the journal directory.
type journalFile struct {
	path  string
	shard bulk.Shard // its layout: Count 0 for the whole job
}

// journalFiles returns the journal files of job jobID in dir, of every shard layout: the
// names journalName gives, found by reading the directory (the directory's own name is never
// taken as a pattern). A missing directory holds none.
func journalFiles(dir, jobID string) ([]journalFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the journal directory: %w", err)
	}
	base := escapeJobID(jobID)
	var out []journalFile
	for _, e := range entries {
		name := e.Name()
		if name == base+".journal" {
			out = append(out, journalFile{path: filepath.Join(dir, name)})
			continue
		}
		rest, ok := strings.CutPrefix(name, base+".shard-")
		if !ok {
			continue
		}
		rest, ok = strings.CutSuffix(rest, ".journal")
		i, n, found := strings.Cut(rest, "-of-")
		if !ok || !found {
			continue
		}
		shard := bulk.Shard{}
		if shard.Index, err = strconv.Atoi(i); err != nil {
			continue
		}
		if shard.Count, err = strconv.Atoi(n); err != nil || shard.Count < 2 || shard.Index < 0 || shard.Index >= shard.Count {
			continue
		}
		if journalName(jobID, shard) == name { // the canonical name, not a look-alike
			out = append(out, journalFile{path: filepath.Join(dir, name), shard: shard})
		}
	}
	return out, nil
}

// jobJournal is the journal of sms bulk: the job's own file, in which every record is
// appended; the job's files of other shard layouts, read (a whole-job rerun reads what every
// shard recorded); and, for the jobs of --skip-sent-by, their journals in the journal
// directory.
type jobJournal struct {
	bulk.Journal                   // the job's records: own first, then the others
	own          *bulk.FileJournal // nil in a dry run without a file of its own
	path         string            // own's path
	jobID        string
	dir          string // where the journals of other jobs are looked for; "" for none
}

// Path returns the job's own journal file.
func (j *jobJournal) Path() string { return j.path }

// Load returns the records of jobID: for the job itself, from every file of it; for another
// job, from the job's own file when it holds the job's records (one file may hold several
// jobs, with --journal), else from the journals of that job (and of each of its shards) in
// the journal directory. A job with no journal has no records, and bulk.Send asks the server
// about it.
func (j *jobJournal) Load(ctx context.Context, jobID string) ([]bulk.JournalRecord, error) {
	if jobID == j.jobID {
		return j.Journal.Load(ctx, jobID)
	}
	var recs []bulk.JournalRecord
	if j.own != nil {
		var err error
		if recs, err = j.own.Load(ctx, jobID); err != nil || len(recs) > 0 {
			return recs, err
		}
	}
	if j.dir == "" {
		return nil, nil
	}
	files, err := journalFiles(j.dir, jobID)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		other, err := openReadOnly(f.path)
		if err != nil {
			return nil, fmt.Errorf("reading the journal of job %s: %w", jobID, err)
		}
		r, err := other.Load(ctx, jobID)
		other.Close()
		if err != nil {
			return nil, fmt.Errorf("reading the journal of job %s: %w", jobID, err)
		}
		recs = append(recs, r...)
	}
	return recs, nil
}

// openReadOnly opens a journal file to read it: it writes nothing, not even a torn last
// line's cut, and shares the file with other readers (a writer holding it is waited for by
// no one: ErrJournalLocked).
func openReadOnly(path string) (*bulk.FileJournal, error) {
	return bulk.OpenFileJournalReadOnly(path)
}

// noJournal is the journal of a dry run of a job that has no file of its own yet: it holds
// nothing, and is never appended to (a dry run writes nothing).
type noJournal struct{}

func (noJournal) Load(context.Context, string) ([]bulk.JournalRecord, error) { return nil, nil }
func (noJournal) Append(context.Context, bulk.JournalRecord) error {
	return errors.New("a dry run writes no journal")
}
func (noJournal) Close() error { return nil }

// openJournal opens the journal of the job: the files of --journal (the first the job's
// own, the others read), or the job's file in the journal directory, creating the directory,
// with the job's files of other shard layouts there. A dry run creates nothing and writes
// nothing: it reads the journals there are, and returns nil when there is none.
func (a *app) openJournal(o *bulkOptions, shard bulk.Shard) (*jobJournal, error) {
	paths := slices.Clone(o.journal)
	dir, err := a.journalDir(o.journalDir)
	switch {
	case err != nil && len(paths) == 0:
		return nil, err
	case err != nil: // --journal FILE: the journals of other jobs are not looked for
		dir = ""
	}
	if len(paths) == 0 {
		files, err := journalFiles(dir, o.jobID)
		if err != nil {
			return nil, &failure{err}
		}
		paths = append(paths, filepath.Join(dir, journalName(o.jobID, shard)))
		for _, f := range files {
			// Another layout's files; this layout's other shards hold none of this shard's
			// batches (and their processes may be running).
			if max(f.shard.Count, 1) != max(shard.Count, 1) {
				paths = append(paths, f.path)
			}
		}
		if !o.dryRun {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, &failure{fmt.Errorf("creating the journal directory: %w", err)}
			}
		}
	}
	jj := &jobJournal{path: paths[0], jobID: o.jobID, dir: dir}
	var all []bulk.Journal
	fail := func(err error) (*jobJournal, error) {
		for _, j := range all {
			j.Close()
		}
		return nil, &failure{err}
	}
	for i, p := range paths {
		if i == 0 && o.dryRun {
			if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
				all = append(all, noJournal{})
				continue
			}
		}
		var fj *bulk.FileJournal
		if i == 0 && !o.dryRun {
			fj, err = bulk.OpenFileJournal(p)
		} else {
			fj, err = openReadOnly(p)
		}
		if err != nil {
			return fail(err)
		}
		if i == 0 {
			jj.own = fj
		}
		all = append(all, fj)
	}
	if o.dryRun && jj.own == nil && len(all) == 1 {
		return nil, nil
	}
	jj.Journal = bulk.MultiJournal(all[0], all[1:]...)
	return jj, nil
}
