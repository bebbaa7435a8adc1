package bulk

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go"
)

// acceptCampaigns answers every campaign request with a 202 for its recipients.
type acceptCampaigns struct{}

func (acceptCampaigns) RoundTrip(req *http.Request) (*http.Response, error) {
	var body struct {
		To        []json.RawMessage
		Reference string
	}
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
		return nil, err
	}
	_ = req.Body.Close()
	n := len(body.To)
	id, err := json.Marshal("c-" + body.Reference)
	if err != nil {
		return nil, err
	}
	answer := fmt.Sprintf(`{"message":"SMS request accepted.","campaign":{"id":%s,"status":"processing","recipients":%d,"amount":%d.%02d,"currency":"NGN","sms_parts":1}}`,
		id, n, 320*n/100, 320*n%100)
	return &http.Response{
		StatusCode: http.StatusAccepted, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(answer)), Request: req,
	}, nil
}

// Progress runs without the lock that guards the report, so that a slow or blocking Progress
// never holds it; its calls still come one at a time, in the order of the records, each
// with the totals so far.
func TestBulkProgressRunsOutsideTheLock(t *testing.T) {
	t.Parallel()
	// With one worker, nothing else can hold the report's lock while Progress runs, so a
	// failed TryLock means the caller holds it. With eight, another worker may hold it,
	// waiting for Progress to return: only the order and one-at-a-time are checked.
	for _, workers := range []int{1, 8} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			t.Parallel()
			c, err := sms.NewClient("pk_test_abc123", "sk_test_def456", sms.WithBaseURL("http://127.0.0.1"), sms.WithHTTPClient(&http.Client{Transport: acceptCampaigns{}}))
			require.NoError(t, err)
			people := make([]sms.Recipient, 1000)
			for i := range people {
				people[i].Phone = fmt.Sprintf("0803%07d", i)
			}
			var j *bulkJob
			var calls []Progress
			inside := 0 // calls running at once, with the one that checks
			p := &Params{JobID: "progress", From: "MOCKSMS", Message: "hi", Recipients: RecipientsFrom(people), BatchSize: 50, Concurrency: workers,
				Progress: func(pg Progress) {
					inside++
					defer func() { inside-- }()
					assert.Equal(t, 1, inside, "one call at a time")
					if workers == 1 && assert.True(t, j.mu.TryLock(), "Progress runs without the report's lock") {
						j.mu.Unlock()
					}
					calls = append(calls, pg)
				}}
			require.NoError(t, checkBulk(p))
			j = newBulkJob(over(c), p)
			r, err := j.run(context.Background())
			require.NoError(t, err)
			require.Len(t, calls, 20)
			for i, pg := range calls {
				assert.Equal(t, i+1, pg.Batches, "in the order of the records")
				assert.Equal(t, 50*(i+1), pg.Sent)
			}
			assert.Equal(t, r.Amount, calls[19].Amount)
		})
	}
}
