package sms_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

var soakScale = flag.Int("soak", 1, "size multiplier of TestSoakExactlyOnce (1: 2,000 sends)")

// faultCounter counts what the client's attempts met.
type faultCounter struct {
	base     http.RoundTripper
	attempts atomic.Int64
	errors   atomic.Int64 // no response: dropped connections
	replays  atomic.Int64 // answers with Idempotent-Replayed: true
	status   sync.Map     // int -> *atomic.Int64
}

func (f *faultCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	f.attempts.Add(1)
	resp, err := f.base.RoundTrip(req)
	if err != nil {
		f.errors.Add(1)
		return nil, err
	}
	if resp.Header.Get("Idempotent-Replayed") == "true" {
		f.replays.Add(1)
	}
	n, _ := f.status.LoadOrStore(resp.StatusCode, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	return resp, nil
}

func (f *faultCounter) count(status int) int64 {
	n, ok := f.status.Load(status)
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}

// TestSoakExactlyOnce has 64 goroutines share one client and send thousands of messages
// while the mock injects random 5xx, 429s, dropped connections and latency. Afterwards every
// message exists exactly once, with the ID its caller was given, and the wallet moved by
// exactly the sum of the amounts returned. A caller whose call still failed after the SDK's
// retries tries again with the same reference, as an application would.
func TestSoakExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test")
	}
	n := 2000 * *soakScale
	const workers = 64

	srv := mockserver.NewTest(t, mockserver.WithBalances(1<<40, 1<<40))
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = workers
	t.Cleanup(tr.CloseIdleConnections)
	counter := &faultCounter{base: tr}
	ws := srv.Default()
	c := newClientOf(t, srv, ws.LiveKey, ws.LiveSecret,
		sms.WithHTTPClient(&http.Client{Transport: counter, Timeout: 10 * time.Second}),
		sms.WithMaxRetries(4),
		sms.WithRetryWait(time.Millisecond, 10*time.Millisecond),
	)
	before, err := srv.Balance(ws.WorkspaceID, mockserver.Live)
	require.NoError(t, err)

	const path = "/v1/sms/send"
	srv.AddFaults(
		mockserver.FaultRule{Method: "POST", Path: path, Status: 503, Probability: 0.08},
		mockserver.FaultRule{Method: "POST", Path: path, Status: 500, Probability: 0.02},
		mockserver.FaultRule{Method: "POST", Path: path, Status: 429, RetryAfter: 1, Probability: 0.02},
		mockserver.FaultRule{Method: "POST", Path: path, Drop: true, Probability: 0.05},
		mockserver.FaultRule{Method: "POST", Path: path, Latency: 2 * time.Millisecond, Probability: 0.05},
	)

	type result struct {
		id     string
		amount int64
	}
	results := make([]result, n)
	var callerRetries atomic.Int64
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				p := &sms.SendParams{
					To:        soakNumbers(i),
					From:      "MOCKSMS",
					Message:   strings.Repeat("soak ", 1+i%70), // 1 to 3 parts
					Reference: fmt.Sprintf("soak-%d", i),
				}
				for try := 0; ; try++ {
					res, err := c.SMS.Send(context.Background(), p)
					if err == nil {
						results[i] = result{res.Campaign.ID, res.Campaign.Amount.Kobo()}
						break
					}
					if try == 20 {
						t.Errorf("send %d still failing after %d calls: %v", i, try+1, err)
						return
					}
					callerRetries.Add(1)
				}
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	srv.ClearFaults()
	require.False(t, t.Failed())

	// Every reference exists exactly once, with the campaign ID its caller saw.
	byRef := make(map[string]sms.Campaign, n)
	duplicates := 0
	for camp, err := range c.Campaigns.All(context.Background(), nil) {
		require.NoError(t, err)
		if _, dup := byRef[camp.Reference]; dup {
			duplicates++
		}
		byRef[camp.Reference] = camp
	}
	var sum int64
	lost := 0
	for i, r := range results {
		camp, ok := byRef[fmt.Sprintf("soak-%d", i)]
		if !ok {
			lost++
			continue
		}
		assert.Equal(t, r.id, camp.ID, "send %d", i)
		assert.Equal(t, r.amount, camp.Amount.Kobo(), "send %d", i)
		sum += r.amount
	}
	after, err := srv.Balance(ws.WorkspaceID, mockserver.Live)
	require.NoError(t, err)

	assert.Equal(t, 0, duplicates, "duplicates")
	assert.Equal(t, 0, lost, "lost")
	assert.Len(t, byRef, n, "campaigns == distinct successful calls")
	assert.Equal(t, before-sum, after, "the wallet moved by exactly the sum of the returned amounts")
	t.Logf("soak: %d sends by %d goroutines, %d attempts; injected: %d x 503, %d x 500, %d x 429, %d dropped; "+
		"%d replays, %d caller retries; duplicates %d, lost %d; wallet moved %s NGN",
		n, workers, counter.attempts.Load(), counter.count(503), counter.count(500), counter.count(429),
		counter.errors.Load(), counter.replays.Load(), callerRetries.Load(), duplicates, lost, sms.AmountFromKobo(before-after))
}

// soakNumbers gives send i one to three distinct recipients.
func soakNumbers(i int) []string {
	out := make([]string, 1+i%3)
	for k := range out {
		out[k] = fmt.Sprintf("23480%08d", (i*3+k)%100_000_000)
	}
	return out
}
