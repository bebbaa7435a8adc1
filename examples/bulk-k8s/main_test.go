package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// shardEnv is the environment of shard index of a job over srv's test key, its journal in
// the database dsn.
func shardEnv(srv *mockserver.Server, dsn, file string, index, shards int) func(string) string {
	ws := srv.Default()
	env := map[string]string{
		"SMS_BASE_URL": srv.URL(), "SMS_API_KEY": ws.TestKey, "SMS_API_SECRET": ws.TestSecret, "BULK_JOURNAL_DSN": dsn,
		"BULK_JOB_ID": "k8s-test", "BULK_FROM": ws.SenderID, "BULK_MESSAGE": "Hi {{name}}",
		"BULK_RECIPIENTS": file, "BULK_SHARDS": strconv.Itoa(shards), "JOB_COMPLETION_INDEX": strconv.Itoa(index),
	}
	return func(k string) string { return env[k] }
}

// recipientsFile writes n recipients (and a duplicate and an invalid row) as CSV.
func recipientsFile(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("phone,name\n")
	for i := range n {
		fmt.Fprintf(&b, "0803%07d,Customer %d\n", i, i)
	}
	b.WriteString("08030000000,Again\nnot-a-number,Nobody\n")
	file := filepath.Join(t.TempDir(), "recipients.csv")
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o600))
	return file
}

func runShard(t *testing.T, srv *mockserver.Server, dsn, file string, index, shards int) (int, summary) {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(context.Background(), nil, shardEnv(srv, dsn, file, index, shards), &out, &errs)
	if code != exitOK {
		t.Logf("shard %d/%d exited %d: %s", index, shards, code, errs.String())
	}
	var s summary
	if out.Len() > 0 {
		require.NoError(t, json.Unmarshal(out.Bytes(), &s), "stdout: %s", out.String())
	}
	return code, s
}

// Four pods at once, then one of them again (a pod replaced): every recipient once, in both
// profiles of the mock (the documented one answers only what the live service's pages show),
// with and without reference deduplication: the journal in PostgreSQL outlives the pod. With
// a new, empty database (the database lost), a server that does not deduplicate references
// gets the retried pod's batches again: what the README says the journal cannot survive.
func TestShardsSendEveryRecipientOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		opts  []mockserver.Option
		dedup bool
	}{
		{"full", nil, true},
		{"documented with deduplication", []mockserver.Option{mockserver.WithProfile(mockserver.ProfileDocumented), mockserver.WithReferenceDeduplication(true)}, true},
		{"documented", []mockserver.Option{mockserver.WithProfile(mockserver.ProfileDocumented)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testShards(t, mockserver.NewTest(t, tc.opts...), tc.dedup, postgresDSN(t))
		})
	}
}

func testShards(t *testing.T, srv *mockserver.Server, dedup bool, dsn string) {
	file := recipientsFile(t, 25_000)                                                              // three batches of 10,000 at most: shard 3 has none
	require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.ModeTest, 20_000_000)) // room for a batch sent twice
	var wg sync.WaitGroup
	sums := make([]summary, 4)
	for i := range 4 {
		wg.Go(func() {
			code, s := runShard(t, srv, dsn, file, i, 4)
			assert.Equal(t, exitOK, code, "shard %d", i)
			sums[i] = s
		})
	}
	wg.Wait()
	total := 0
	for i, s := range sums {
		assert.True(t, s.Complete, "shard %d", i)
		assert.Equal(t, 1, s.Duplicates)
		assert.Equal(t, 1, s.Invalid)
		total += s.Sent
	}
	assert.Equal(t, 25_000, total)
	assert.Equal(t, 0, sums[3].Batches)
	require.Positive(t, sums[1].Sent)

	code, again := runShard(t, srv, dsn, file, 1, 4) // the pod of index 1 is replaced
	assert.Equal(t, exitOK, code)
	assert.Equal(t, 0, again.Sent)
	assert.Equal(t, sums[1].Sent, again.FromJournal, "the journal outlives the pod")
	campaigns, recipients := 3, 25_000 // one campaign per batch
	assertCampaigns(t, srv, campaigns, recipients)

	// The database lost: a new one has no record of the job.
	code, again = runShard(t, srv, postgresDSN(t), file, 1, 4)
	assert.Equal(t, exitOK, code)
	if dedup {
		assert.Equal(t, 0, again.Sent)
		assert.Equal(t, sums[1].Sent, again.Replayed, "the server's deduplication is left")
	} else {
		assert.Equal(t, sums[1].Sent, again.Sent, "sent a second time")
		campaigns, recipients = 4, 25_000+sums[1].Sent
	}
	assertCampaigns(t, srv, campaigns, recipients)
}

// assertCampaigns checks the campaigns of srv's test key, and their recipients.
func assertCampaigns(t *testing.T, srv *mockserver.Server, campaigns, recipients int) {
	t.Helper()

	client, err := sms.NewClient(srv.Default().TestKey, srv.Default().TestSecret, sms.WithBaseURL(srv.URL()))
	require.NoError(t, err)
	page, err := client.Campaigns.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, campaigns, page.Total)
	n := 0
	for _, c := range page.Items {
		n += c.Recipients
	}
	assert.Equal(t, recipients, n)
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	file := recipientsFile(t, 200)
	dsn := postgresDSN(t)

	require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.ModeTest, 0))
	code, s := runShard(t, srv, dsn, file, 0, 1)
	assert.Equal(t, exitFix, code, "an empty wallet is not retried")
	assert.False(t, s.Complete)
	assert.Contains(t, s.Error, "402 insufficient_balance")

	require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.ModeTest, mockserver.DefaultBalance))
	code, s = runShard(t, srv, dsn, file, 0, 1)
	assert.Equal(t, exitOK, code, "after a top-up the same job completes")
	assert.Equal(t, 200, s.Sent)

	code, _ = runShard(t, srv, dsn, file, 0, 0)
	assert.Equal(t, exitFix, code, "no shards")

	broken := filepath.Join(t.TempDir(), "broken.csv")
	require.NoError(t, os.WriteFile(broken, []byte("08030000001,\"unterminated\n"), 0o600))
	code, s = runShard(t, srv, dsn, broken, 0, 1)
	assert.Equal(t, exitRetry, code, "a file that cannot be read is not a complete shard")
	assert.False(t, s.Complete)

	changed := recipientsFile(t, 201)
	code, s = runShard(t, srv, dsn, changed, 0, 1)
	assert.Equal(t, exitFix, code, "a changed file is refused by the journal")
	assert.Contains(t, s.Error, "differs from its journal")
	assert.Zero(t, s.Sent)

	code, _ = runShard(t, srv, "", file, 0, 1)
	assert.Equal(t, exitFix, code, "no journal")
}

// A pod whose batch's connection dropped after the request was written, against a server
// that neither deduplicates nor lists references: the batch is in doubt, the index is not
// retried (exit 3), and a retry would not send it again; BULK_RESEND_IN_DOUBT=1 does.
func TestBatchInDoubt(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithProfile(mockserver.ProfileDocumented))
	file := recipientsFile(t, 50)
	dsn := postgresDSN(t)
	require.NoError(t, srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Drop: true, Times: 1}))
	code, s := runShard(t, srv, dsn, file, 0, 1)
	assert.Equal(t, exitInDoubt, code)
	assert.Equal(t, 1, s.InDoubtBatches)
	assert.Equal(t, 50, s.InDoubt)

	code, s = runShard(t, srv, dsn, file, 0, 1)
	assert.Equal(t, exitInDoubt, code, "still in doubt")
	assert.Zero(t, s.Sent)
	assertCampaigns(t, srv, 1, 50) // the mock took the first request

	var out, errs bytes.Buffer
	env := shardEnv(srv, dsn, file, 0, 1)
	code = run(context.Background(), nil, func(k string) string {
		if k == "BULK_RESEND_IN_DOUBT" {
			return "1"
		}
		return env(k)
	}, &out, &errs)
	assert.Equal(t, exitOK, code, errs.String())
	assertCampaigns(t, srv, 2, 100) // sent twice, as the setting says it may
}

// A pod stopped by SIGTERM mid-job (a drain, an eviction), against the documented profile (no
// deduplication, no references listed): the batches in flight finish and are recorded, none
// is left in doubt, the shard exits to be retried, and the retry completes the job, each
// number once.
func TestSIGTERMLeavesNothingInDoubt(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithProfile(mockserver.ProfileDocumented))
	require.NoError(t, srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Latency: 300 * time.Millisecond}))
	file := recipientsFile(t, 60_000) // six batches of 10,000
	dsn := postgresDSN(t)
	require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.ModeTest, 20_000_000))

	stop := make(chan struct{})
	var out, errs bytes.Buffer
	done := make(chan int)
	go func() { done <- run(context.Background(), stop, shardEnv(srv, dsn, file, 0, 1), &out, &errs) }()
	// The SIGTERM comes once the first campaign request has reached the server: batches are
	// in flight.
	var code int
	for code = -1; code < 0 && !posted(srv); {
		select {
		case code = <-done: // finished before any request: the assertions below say so
		case <-time.After(10 * time.Millisecond):
		}
	}
	close(stop)
	if code < 0 {
		code = <-done
	}
	require.Equal(t, exitRetry, code, errs.String())
	var s summary
	require.NoError(t, json.Unmarshal(out.Bytes(), &s), out.String())
	assert.Zero(t, s.InDoubtBatches, "nothing in doubt")
	assert.Less(t, s.Sent, 60_000, "stopped before the end")
	assert.Contains(t, s.Error, "stopped before its end")

	code, again := runShard(t, srv, dsn, file, 0, 1)
	require.Equal(t, exitOK, code)
	assert.Equal(t, 60_000-s.Sent, again.Sent)
	assert.Equal(t, s.Sent, again.FromJournal)
	assertCampaigns(t, srv, 6, 60_000) // each number once
}

// posted reports whether srv has received a campaign request.
func posted(srv *mockserver.Server) bool {
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Path == "/v1/sms/campaigns" {
			return true
		}
	}
	return false
}

// A batch in doubt is settled by hand with "bulk-k8s settle": refused while the batch is not
// in doubt or the input is wrong, recorded as sent with the campaign a person found, and the
// retry of the index then completes without sending it again.
func TestSettleByHand(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithProfile(mockserver.ProfileDocumented))
	file := recipientsFile(t, 50)
	dsn := postgresDSN(t)
	require.NoError(t, srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Drop: true, Times: 1}))
	code, _ := runShard(t, srv, dsn, file, 0, 1)
	require.Equal(t, exitInDoubt, code)

	var campaign string
	for _, m := range srv.Messages(mockserver.Filter{}) {
		campaign = m.CampaignID // the mock took the batch: the person finds its campaign
	}
	require.NotEmpty(t, campaign)
	env := shardEnv(srv, dsn, file, 0, 1)
	settleWith := func(args ...string) (int, string, string) {
		var out, errs bytes.Buffer
		code := settle(context.Background(), args, env, &out, &errs)
		return code, out.String(), errs.String()
	}
	for _, bad := range [][]string{{}, {"x", "--not-sent"}, {"0"}, {"0", "--sent", campaign, "--not-sent"}, {"1", "--not-sent"}} {
		code, _, errs := settleWith(bad...)
		assert.Equal(t, exitFix, code, "%q: %s", bad, errs)
	}
	code, out, errs := settleWith("0", "--sent", campaign)
	require.Equal(t, exitOK, code, errs)
	assert.JSONEq(t, `{"jobId": "k8s-test", "batch": 0, "reference": "k8s-test:0", "sent": true, "campaignId": "`+campaign+`"}`, out)

	code, s := runShard(t, srv, dsn, file, 0, 1)
	require.Equal(t, exitOK, code)
	assert.True(t, s.Complete)
	assert.Zero(t, s.Sent)
	assert.Equal(t, 50, s.FromJournal)
	assertCampaigns(t, srv, 1, 50) // each number once
}
