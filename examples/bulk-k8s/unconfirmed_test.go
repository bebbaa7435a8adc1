package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A shard whose batch the server accepted without a readable answer exits 1, as the Job may
// run it again: the journal records the batch as accepted, and the retry does not send it.
func TestUnconfirmedBatchIsNotSentAgain(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusAccepted) // the batch was accepted; its answer is empty
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{
		"SMS_BASE_URL": srv.URL, "SMS_API_KEY": "pk_test_abc", "SMS_API_SECRET": "sk_test_def",
		"BULK_JOB_ID": "k8s-unconfirmed", "BULK_FROM": "ACME", "BULK_MESSAGE": "Hi {{name}}",
		"BULK_RECIPIENTS": recipientsFile(t, 10), "BULK_SHARDS": "1", "JOB_COMPLETION_INDEX": "0",
		"BULK_JOURNAL_DSN": postgresDSN(t),
	}
	var out, errs bytes.Buffer
	code := run(context.Background(), nil, func(k string) string { return env[k] }, &out, &errs)
	assert.Equal(t, exitRetry, code, errs.String())
	var s summary
	require.NoError(t, json.Unmarshal(out.Bytes(), &s), out.String())
	assert.Equal(t, 10, s.Unconfirmed)
	assert.Zero(t, s.Failed)
	sent := requests.Load()
	require.Positive(t, sent)

	out.Reset()
	code = run(context.Background(), nil, func(k string) string { return env[k] }, &out, &errs)
	assert.Equal(t, exitOK, code, errs.String())
	require.NoError(t, json.Unmarshal(out.Bytes(), &s), out.String())
	assert.Equal(t, 10, s.FromJournal)
	assert.Equal(t, sent, requests.Load(), "nothing sent again")
}
