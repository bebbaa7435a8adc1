package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

func TestEscapeJobID(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("A", 90) // the longest JobID (bulk.Params.JobID); 3 bytes each once escaped
	tests := []struct {
		id, want string
	}{
		{"promo-2026_11", "promo-2026_11"},
		{"Promo", "%50romo"},
		{"a/../b", "a%2F%2E%2E%2Fb"},
		{"job 1:x", "job%201%3Ax"},
		{"%", "%25"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, escapeJobID(tt.id), tt.id)
	}
	got := escapeJobID(long)
	assert.LessOrEqual(t, len(got), maxJournalName+17)
	assert.Regexp(t, `^(%41)+~[0-9a-f]{16}$`, got, "cut between escapes, with a hash")
	assert.NotEqual(t, got, escapeJobID(long[1:]), "IDs cut to the same prefix get different names")
	assert.NotEqual(t, escapeJobID("a"), escapeJobID("A"), "case-insensitive file systems keep them apart")

	assert.Equal(t, "j%2Ek.journal", journalName("j.k", bulk.Shard{}))
	assert.Equal(t, "j.shard-1-of-4.journal", journalName("j", bulk.Shard{Index: 1, Count: 4}))
}

func TestJournalDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		flag string
		env  map[string]string
		want string
	}{
		{"flag first", "/x", map[string]string{envJournalDir: "/y", "HOME": "/h"}, "/x"},
		{"then SMS_JOURNAL_DIR", "", map[string]string{envJournalDir: "/y", "XDG_STATE_HOME": "/s", "HOME": "/h"}, "/y"},
		{"then XDG_STATE_HOME", "", map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/sms/journal"},
		{"a relative XDG_STATE_HOME is ignored", "", map[string]string{"XDG_STATE_HOME": "s", "HOME": "/h"}, "/h/.local/state/sms/journal"},
		{"then HOME", "", map[string]string{"HOME": "/h"}, "/h/.local/state/sms/journal"},
		{"none", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := &app{getenv: func(k string) string { return tt.env[k] }}
			got, err := a.journalDir(tt.flag)
			if tt.want == "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "no directory for the job's journal")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// The journal of sms bulk reads the records of another job (--skip-sent-by) from that job's
// journals in the directory, each shard's included, and appends only to its own file.
func TestJobJournalLoadsOtherJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	rec := func(job string, index int) bulk.JournalRecord {
		return bulk.JournalRecord{Kind: bulk.JournalKindIntent, JobID: job, Index: index, Reference: job + ":" + itoa(index), Attempt: 1,
			Digest: strings.Repeat("ab", 32), Recipients: 1, Numbers: []string{"2348025671695"}, Time: time.Unix(0, 0).UTC()}
	}
	write := func(name string, recs ...bulk.JournalRecord) {
		j, err := bulk.OpenFileJournal(filepath.Join(dir, name))
		require.NoError(t, err)
		for _, r := range recs {
			require.NoError(t, j.Append(ctx, r))
		}
		require.NoError(t, j.Close())
	}
	write(journalName("Old.1", bulk.Shard{}), rec("Old.1", 0))
	write(journalName("Old.1", bulk.Shard{Index: 1, Count: 2}), rec("Old.1", 1))
	write(journalName("Old.10", bulk.Shard{}), rec("Old.10", 0)) // a job whose ID only starts alike

	a := &app{getenv: func(k string) string { return map[string]string{envJournalDir: dir}[k] }}
	j, err := a.openJournal(&bulkOptions{jobID: "new"}, bulk.Shard{})
	require.NoError(t, err)
	defer j.Close()
	assert.Equal(t, filepath.Join(dir, "new.journal"), j.Path())

	got, err := j.Load(ctx, "Old.1")
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, []int{0, 1}, []int{got[0].Index, got[1].Index})
	assert.Equal(t, "Old.1", got[1].JobID)

	got, err = j.Load(ctx, "never-run")
	require.NoError(t, err)
	assert.Empty(t, got, "a job without a journal is asked of the server")
	got, err = j.Load(ctx, "new")
	require.NoError(t, err)
	assert.Empty(t, got)

	require.NoError(t, j.Append(ctx, rec("new", 0)))
	got, err = j.Load(ctx, "new")
	require.NoError(t, err)
	assert.Len(t, got, 1)

	// A dry run creates no journal; a second journal of the same job is refused.
	dry, err := a.openJournal(&bulkOptions{jobID: "other", dryRun: true}, bulk.Shard{})
	require.NoError(t, err)
	assert.Nil(t, dry)
	_, err = os.Stat(filepath.Join(dir, "other.journal"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = a.openJournal(&bulkOptions{jobID: "new"}, bulk.Shard{})
	assert.ErrorIs(t, err, bulk.ErrJournalLocked)
}

// The shard layout is held whatever the flags: a job sent in two shards, then run whole,
// reads both shards' journals in the journal directory (whatever its name: no pattern is
// made of it) and sends nothing again; with --journal naming one shard's file alone it is
// refused before anything is sent, and with both files named it sends nothing again.
func TestBulkShardLayoutHeld(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	csv := peopleCSV(t, 40, 0, 0)
	dir := filepath.Join(t.TempDir(), "jobs [2026] *?")
	send := func(more ...string) result {
		args := append([]string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", "promo",
			"--batch-size", "10", "--json"}, more...)
		return runCLI(t, f.env, "", args...)
	}
	for i := range 2 {
		r := send("--journal-dir", dir, "--shard", fmt.Sprintf("%d/2", i))
		require.Equal(t, 0, r.code, r.stderr)
	}
	wallet := f.balance(t)
	r := send("--journal-dir", dir)
	require.Equal(t, 0, r.code, r.stderr)
	m := decodeJSON(t, r.stdout)
	assert.Equal(t, 40.0, m["fromJournal"])
	assert.Equal(t, 0.0, m["sent"])
	r = send("--journal-dir", dir, "--shard", "1/3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 0.0, decodeJSON(t, r.stdout)["sent"])

	s0, s1 := filepath.Join(dir, journalName("promo", bulk.Shard{Index: 0, Count: 2})), filepath.Join(dir, journalName("promo", bulk.Shard{Index: 1, Count: 2}))
	r = send("--journal", s0)
	assert.Equal(t, exitFailure, r.code, r.stderr)
	assert.Contains(t, r.stderr, "not those of shard 1")
	r = send("--journal", s0, "--journal", s1)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 0.0, decodeJSON(t, r.stdout)["sent"])
	assert.Equal(t, wallet, f.balance(t), "nothing sent twice")
}

// Against a server that lists no references (the documented profile), --skip-sent-by finds
// the earlier job's numbers in its journal: the corrected file is finished without asking
// the server, and without the journal it cannot be.
func TestBulkSkipSentByReadsTheJournal(t *testing.T) {
	t.Parallel()
	f := newFixture(t, mockserver.WithProfile(mockserver.ProfileDocumented))
	first := writeFile(t, "people.csv", "phone,name\n08030000001,Ada\n0803000000X,Bola\n08030000003,Chi\n")
	fixed := writeFile(t, "fixed.csv", "phone,name\n08030000001,Ada\n08030000002,Bola\n08030000003,Chi\n08030000004,Dayo\n")
	send := func(env map[string]string, csv, job string, more ...string) result {
		args := append([]string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", job, "--json"}, more...)
		return runCLI(t, env, "", args...)
	}
	r := send(f.env, first, "promo", "--skip-invalid")
	require.Equal(t, 0, r.code, r.stderr)
	wallet := f.balance(t)

	elsewhere := maps.Clone(f.env)
	elsewhere[envJournalDir] = t.TempDir() // another machine: no journal of promo
	r = send(elsewhere, fixed, "promo-fixed", "--skip-sent-by", "promo")
	assert.NotEqual(t, 0, r.code, "the server cannot tell what promo sent")
	assert.Contains(t, r.stderr, `no campaign with the reference "promo:k" found`)
	assert.Equal(t, wallet, f.balance(t))

	r = send(f.env, fixed, "promo-fixed", "--skip-sent-by", "promo")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "2 numbers skipped: sent by job promo\n")
	assert.Equal(t, 2.0, decodeJSON(t, r.stdout)["sent"])
	assert.Equal(t, wallet-2*mockserver.DefaultGenericPrice, f.balance(t), "only the numbers promo did not reach")
	got := map[string]int{}
	for _, m := range f.srv.Messages(mockserver.Filter{}) {
		got[m.To]++
	}
	assert.Equal(t, map[string]int{"2348030000001": 1, "2348030000002": 1, "2348030000003": 1, "2348030000004": 1}, got)
}

// --journal naming a file that holds no journal (an ssh key), or a link to one, is refused and
// left as it was, by a dry run and by a run alike: the command writes no file it did not make.
func TestBulkJournalNeverWritesAForeignFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	csv := peopleCSV(t, 5, 0, 0)
	dir := t.TempDir()
	key := filepath.Join(dir, "authorized_keys")
	const content = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO9 someone@example\n"
	require.NoError(t, os.WriteFile(key, []byte(content), 0o644))
	link := filepath.Join(dir, "job.journal")
	require.NoError(t, os.Symlink(key, link))
	for _, path := range []string{key, link} {
		for _, dry := range []bool{true, false} {
			args := []string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi", "--job-id", "promo", "--journal", path}
			if dry {
				args = append(args, "--dry-run")
			}
			r := runCLI(t, f.env, "", args...)
			assert.NotEqual(t, 0, r.code, "%s dry %v: %s", path, dry, r.stderr)
			got, err := os.ReadFile(key)
			require.NoError(t, err)
			assert.Equal(t, content, string(got), "%s dry %v", path, dry)
			fi, err := os.Stat(key)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
		}
	}
	assert.Zero(t, f.requests("/v1/sms/campaigns"), "nothing sent")
}
