package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A shard whose batch the server accepted without a readable answer exits 2, so that the Job
// does not run it again, which would send that batch again.
func TestUnconfirmedBatchIsNotRetried(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted) // the batch was accepted; its answer is empty
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{
		"SMS_BASE_URL": srv.URL, "SMS_API_KEY": "pk_test_abc", "SMS_API_SECRET": "sk_test_def",
		"BULK_JOB_ID": "k8s-unconfirmed", "BULK_FROM": "ACME", "BULK_MESSAGE": "Hi {{name}}",
		"BULK_RECIPIENTS": recipientsFile(t, 10), "BULK_SHARDS": "1", "JOB_COMPLETION_INDEX": "0",
	}
	var out, errs bytes.Buffer
	code := run(context.Background(), func(k string) string { return env[k] }, &out, &errs)
	assert.Equal(t, exitFix, code, errs.String())
	var s summary
	require.NoError(t, json.Unmarshal(out.Bytes(), &s), out.String())
	assert.Equal(t, 10, s.Unconfirmed)
	assert.Zero(t, s.Failed)
	assert.Contains(t, errs.String(), "do not run the job again")
}
