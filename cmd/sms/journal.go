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
	"strconv"
	"strings"

	sms "github.com/seedsms/sms-go"
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
func journalName(jobID string, shard sms.Shard) string {
	name := escapeJobID(jobID)
	if shard.Count > 1 {
		name += ".shard-" + strconv.Itoa(shard.Index) + "-of-" + strconv.Itoa(shard.Count)
	}
	return name + ".journal"
}

// jobJournal is the journal of sms bulk: the job's own file, in which every record is
// appended, and, for the jobs of --skip-sent-by, their journals in the journal directory.
type jobJournal struct {
	*sms.FileJournal
	jobID string
	dir   string // where the journals of other jobs are looked for; "" for none
}

// Load returns the records of jobID: from the job's own file; for another job, from that
// file when it holds the job's records (one file may hold several jobs, with --journal),
// else from the journals of that job (and of each of its shards) in the journal directory.
// A job with no journal has no records, and SendBulk asks the server about it.
func (j *jobJournal) Load(ctx context.Context, jobID string) ([]sms.JournalRecord, error) {
	recs, err := j.FileJournal.Load(ctx, jobID)
	if err != nil || len(recs) > 0 || jobID == j.jobID || j.dir == "" {
		return recs, err
	}
	base := escapeJobID(jobID)
	paths, err := filepath.Glob(filepath.Join(j.dir, base+".shard-*-of-*.journal"))
	if err != nil {
		return nil, err
	}
	paths = append([]string{filepath.Join(j.dir, base+".journal")}, paths...)
	for _, p := range paths {
		if p == j.Path() {
			continue
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		other, err := sms.OpenFileJournal(p)
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

// otherLayout returns the path of a journal of job jobID in dir kept under another shard
// layout than shard's (the whole job against shards, or another shard count), or "": each
// layout keeps its own files, so a rerun in another one would read none of them. Empty files
// (a run that recorded nothing) do not count.
func otherLayout(dir, jobID string, shard sms.Shard) (string, error) {
	base := escapeJobID(jobID)
	paths, err := filepath.Glob(filepath.Join(dir, base+".shard-*-of-*.journal"))
	if err != nil {
		return "", err
	}
	want := max(shard.Count, 1)
	for _, p := range append([]string{filepath.Join(dir, base+".journal")}, paths...) {
		count := 1
		if rest, ok := strings.CutPrefix(filepath.Base(p), base+".shard-"); ok {
			_, n, _ := strings.Cut(strings.TrimSuffix(rest, ".journal"), "-of-")
			if count, err = strconv.Atoi(n); err != nil {
				continue // not a shard's journal name
			}
		}
		if count == want {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Size() > 0 {
			return p, nil
		}
	}
	return "", nil
}

// openJournal opens the journal of the job: --journal FILE, or its file in the journal
// directory, creating the directory. A dry run creates nothing: it reads the journal when
// there is one, and returns nil when there is none.
func (a *app) openJournal(o *bulkOptions, shard sms.Shard) (*jobJournal, error) {
	path := o.journal
	dir, err := a.journalDir(o.journalDir)
	switch {
	case err != nil && path == "":
		return nil, err
	case err != nil: // --journal FILE: the journals of other jobs are not looked for
		dir = ""
	}
	if path == "" {
		if other, err := otherLayout(dir, o.jobID, shard); err != nil {
			return nil, &failure{err}
		} else if other != "" {
			return nil, &failure{fmt.Errorf("job %s has a journal of another shard layout (%s): run with the --shard count the job had, or it would send again what that journal records as sent; to send this input in another layout, give it a new --job-id with --skip-sent-by %s", o.jobID, other, o.jobID)}
		}
		path = filepath.Join(dir, journalName(o.jobID, shard))
		if !o.dryRun {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, &failure{fmt.Errorf("creating the journal directory: %w", err)}
			}
		}
	}
	if o.dryRun {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	fj, err := sms.OpenFileJournal(path)
	if err != nil {
		return nil, &failure{err}
	}
	return &jobJournal{FileJournal: fj, jobID: o.jobID, dir: dir}, nil
}
