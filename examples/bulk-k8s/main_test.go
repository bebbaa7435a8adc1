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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// shardEnv is the environment of shard index of a job over srv's test key.
func shardEnv(srv *mockserver.Server, file string, index, shards int) func(string) string {
	ws := srv.Default()
	env := map[string]string{
		"SMS_BASE_URL": srv.URL(), "SMS_API_KEY": ws.TestKey, "SMS_API_SECRET": ws.TestSecret,
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

func runShard(t *testing.T, srv *mockserver.Server, file string, index, shards int) (int, summary) {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(context.Background(), shardEnv(srv, file, index, shards), &out, &errs)
	var s summary
	if out.Len() > 0 {
		require.NoError(t, json.Unmarshal(out.Bytes(), &s), "stdout: %s", out.String())
	}
	return code, s
}

// Four pods at once, then one of them again: every recipient once against a server that
// deduplicates references, in both profiles of the mock (the documented one answers only what
// the live service's pages show). Against one that does not (the documented profile's
// default), the retried pod sends its batches again: the hazard the example's doc names.
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
			testShards(t, mockserver.NewTest(t, tc.opts...), tc.dedup)
		})
	}
}

func testShards(t *testing.T, srv *mockserver.Server, dedup bool) {
	file := recipientsFile(t, 25_000)                                                          // three batches of 10,000 at most: shard 3 has none
	require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.Test, 20_000_000)) // room for a batch sent twice
	var wg sync.WaitGroup
	sums := make([]summary, 4)
	for i := range 4 {
		wg.Go(func() {
			code, s := runShard(t, srv, file, i, 4)
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

	code, again := runShard(t, srv, file, 1, 4) // the pod of index 1 is retried
	assert.Equal(t, exitOK, code)
	campaigns, recipients := 3, 25_000 // one campaign per batch
	if dedup {
		assert.Equal(t, 0, again.Sent)
		assert.Equal(t, sums[1].Sent, again.Replayed)
	} else {
		assert.Equal(t, sums[1].Sent, again.Sent, "sent a second time")
		assert.Equal(t, 0, again.Replayed)
		campaigns, recipients = 4, 25_000+sums[1].Sent
	}

	client, err := sms.NewClient(srv.Default().TestKey, srv.Default().TestSecret, sms.WithBaseURL(srv.URL()))
	require.NoError(t, err)
	page, err := client.Campaigns.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, campaigns, page.Total)
	n := 0
	for _, c := range page.Campaigns {
		n += c.Recipients
	}
	assert.Equal(t, recipients, n)
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	file := recipientsFile(t, 200)

	require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.Test, 0))
	code, s := runShard(t, srv, file, 0, 1)
	assert.Equal(t, exitFix, code, "an empty wallet is not retried")
	assert.False(t, s.Complete)
	assert.Contains(t, s.Error, "402 insufficient_balance")

	require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.Test, mockserver.DefaultBalance))
	code, s = runShard(t, srv, file, 0, 1)
	assert.Equal(t, exitOK, code, "after a top-up the same job completes")
	assert.Equal(t, 200, s.Sent)

	code, _ = runShard(t, srv, file, 0, 0)
	assert.Equal(t, exitFix, code, "no shards")

	broken := filepath.Join(t.TempDir(), "broken.csv")
	require.NoError(t, os.WriteFile(broken, []byte("08030000001,\"unterminated\n"), 0o600))
	code, s = runShard(t, srv, broken, 0, 1)
	assert.Equal(t, exitRetry, code, "a file that cannot be read is not a complete shard")
	assert.False(t, s.Complete)
}
