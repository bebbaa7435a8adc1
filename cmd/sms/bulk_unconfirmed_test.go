package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// A batch the server accepted but whose answer cannot be read is reported as such, not as a
// failed batch, and without reference deduplication the command never advises running the
// job again, which would send it again.
func TestBulkUnconfirmedBatch(t *testing.T) {
	t.Parallel()
	for _, dedup := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "reference-dedup"}[dedup], func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			// In front of the mock, a proxy that lets the second campaign request through, then
			// replaces its answer with one that names no campaign.
			env := frontRewritingCampaigns(t, f, func(n int, body []byte) ([]byte, error) {
				if n == 2 {
					return []byte(`{"campaign":null}`), nil
				}
				return body, nil
			})

			csv := peopleCSV(t, 50, 0, 0)
			args := []string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", "unconfirmed",
				"--batch-size", "10", "--concurrency", "1", "--json"}
			if dedup {
				args = append(args, "--reference-dedup")
			}
			r := runCLI(t, env, "", args...)
			assert.NotZero(t, r.code, r.stderr)
			m := decodeJSON(t, r.stdout)
			assert.Equal(t, 0.0, m["failedBatches"], "an accepted batch did not fail")
			assert.Equal(t, 10.0, m["unconfirmed"])
			assert.Equal(t, 40.0, m["sent"])
			assert.Equal(t, true, m["complete"])
			assert.Contains(t, r.stderr, "1 batch (10 recipients) was accepted by the server, but the answers could not be read")
			assert.Contains(t, r.stderr, "the journal records them as sent, and a rerun does not send them again")
			assert.Contains(t, r.stderr, "unconfirmed:1")
			assert.Equal(t, int64(mockserver.DefaultBalance-50*mockserver.DefaultGenericPrice), f.balance(t), "all five batches were charged")
			assert.Contains(t, r.stderr, "batch 5/5: 50/50 recipients (100%), charged 128.00 NGN, 10 accepted at an unknown cost\n", "not a failure")
			assert.Contains(t, r.stderr, "running the same command again sends nothing")

			// Run again, the journal sends nothing, whatever the server.
			r = runCLI(t, env, "", args...)
			require.Equal(t, 0, r.code, r.stderr)
			m = decodeJSON(t, r.stdout)
			assert.Equal(t, 0.0, m["sent"])
			assert.Equal(t, 50.0, m["fromJournal"])
			assert.Equal(t, int64(mockserver.DefaultBalance-50*mockserver.DefaultGenericPrice), f.balance(t), "nothing sent twice")
		})
	}
}

// A batch whose connection dropped after it was written may have been sent: without
// --reference-dedup, against a server that lists no references (the documented profile), it
// stays in doubt, is named, is not sent by a rerun, and fails the command until
// --resend-in-doubt; with --reference-dedup, a rerun is the way to finish.
func TestBulkUnknownOutcomeBatch(t *testing.T) {
	t.Parallel()
	for _, dedup := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "reference-dedup"}[dedup], func(t *testing.T) {
			t.Parallel()
			var opts []mockserver.Option
			if !dedup {
				opts = append(opts, mockserver.WithProfile(mockserver.ProfileDocumented))
			}
			f := newFixture(t, opts...)
			require.NoError(t, f.srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Drop: true, Times: 100}))
			csv := peopleCSV(t, 10, 0, 0)
			args := []string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", "dropped",
				"--batch-size", "10", "--concurrency", "1"}
			if dedup {
				args = append(args, "--reference-dedup")
			}
			r := runCLI(t, f.env, "", args...)
			assert.NotZero(t, r.code, r.stderr)
			if dedup {
				assert.Contains(t, r.stderr, "run the same command again")
				assert.Contains(t, r.stderr, "\n  sms bulk --csv ", "the command that resends it")
				return
			}
			assert.Contains(t, r.stderr, "1 batch (10 recipients) is in doubt: their requests may have reached the server, and nothing tells whether they were sent: batch 0 (reference dropped:0, 10 recipients)\n")
			assert.Contains(t, r.stderr, "\n  sms bulk settle dropped BATCH --sent CAMPAIGN_ID")
			assert.NotContains(t, r.stderr, "\n  sms bulk --csv ", "no rerun is advised")
			assert.Equal(t, exitInDoubt, r.code)

			// The mock took the batch, and does not list references: a rerun does not send it,
			// and still fails naming it.
			f.srv.ClearFaults()
			balance := f.balance(t)
			r = runCLI(t, f.env, "", append(args, "--json")...)
			assert.Equal(t, exitInDoubt, r.code, r.stderr)
			m := decodeJSON(t, r.stdout)
			assert.Equal(t, 1.0, m["inDoubtBatches"])
			assert.Equal(t, 10.0, m["inDoubt"])
			assert.Equal(t, []any{map[string]any{"index": 0.0, "reference": "dropped:0", "recipients": 10.0}}, m["inDoubtBatchList"])
			assert.Equal(t, false, m["complete"])
			assert.Equal(t, balance, f.balance(t), "nothing sent")

			// --resend-in-doubt sends it.
			r = runCLI(t, f.env, "", append(args, "--json", "--resend-in-doubt")...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, 10.0, decodeJSON(t, r.stdout)["sent"])
			assert.Equal(t, balance-10*mockserver.DefaultGenericPrice, f.balance(t), "sent twice, as the flag says it may")
		})
	}
}

// A server whose answers give no amount: the batches are sent, and the command says that its
// AMOUNT leaves them out rather than printing 0.00 as their cost.
func TestBulkAnswersWithoutAmount(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	env := frontRewritingCampaigns(t, f, func(_ int, b []byte) ([]byte, error) {
		var body map[string]any
		if err := json.Unmarshal(b, &body); err != nil {
			return nil, err
		}
		if c, ok := body["campaign"].(map[string]any); ok {
			delete(c, "amount")
		}
		return json.Marshal(body)
	})
	csv := peopleCSV(t, 20, 0, 0)
	r := runCLI(t, env, "", "bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", "no-amount",
		"--batch-size", "10", "--concurrency", "1", "--json")
	require.Zero(t, r.code, r.stderr)
	m := decodeJSON(t, r.stdout)
	assert.Equal(t, 2.0, m["amountUnknownBatches"])
	assert.Equal(t, 20.0, m["sent"])
	assert.Contains(t, r.stderr, "2 batches were sent without an amount in the answer")
}

// frontRewritingCampaigns starts, in front of f's mock, a proxy that passes each answer to
// POST /v1/sms/campaigns through rewrite (n counts those answers from 1), and returns the
// command's environment pointing at the proxy.
func frontRewritingCampaigns(t *testing.T, f *fixture, rewrite func(n int, body []byte) ([]byte, error)) map[string]string {
	t.Helper()
	target, err := url.Parse(f.srv.URL())
	require.NoError(t, err)
	var campaigns atomic.Int32
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodPost || resp.Request.URL.Path != "/v1/sms/campaigns" {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return err
		}
		if b, err = rewrite(int(campaigns.Add(1)), b); err != nil {
			return err
		}
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		resp.Header.Del("Content-Length")
		return nil
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	return map[string]string{envBaseURL: front.URL, envAPIKey: f.ws.TestKey, envAPISecret: f.ws.TestSecret}
}

// A batch left in doubt (a connection dropped after the mock took it, on a server that neither
// deduplicates nor lists references) is settled by hand: sms bulk settle refuses a batch not
// in doubt, records the campaign found as sent, and the rerun completes without sending it
// again; a batch settled as not sent is sent by the rerun.
func TestBulkSettleByHand(t *testing.T) {
	t.Parallel()
	for _, sent := range []bool{true, false} {
		t.Run(fmt.Sprintf("sent %v", sent), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, mockserver.WithProfile(mockserver.ProfileDocumented))
			fault := mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Drop: true, Times: 1}
			if !sent { // the request never reached the mock: an error before it was processed
				fault = mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Status: 500, Times: 1}
			}
			require.NoError(t, f.srv.AddFaults(fault))
			csv := peopleCSV(t, 20, 0, 0)
			args := []string{"bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hi {{name}}", "--job-id", "promo",
				"--batch-size", "10", "--concurrency", "1", "--json"}
			r := runCLI(t, f.env, "", args...)
			require.Equal(t, exitInDoubt, r.code, r.stderr)
			assert.Equal(t, []any{map[string]any{"index": 0.0, "reference": "promo:0", "recipients": 10.0}}, decodeJSON(t, r.stdout)["inDoubtBatchList"])

			r = runCLI(t, f.env, "", "bulk", "settle", "promo", "1", "--not-sent")
			assert.Equal(t, exitUsage, r.code, "batch 1 is not in doubt: %s", r.stderr)
			assert.Contains(t, r.stderr, "not in doubt")
			r = runCLI(t, f.env, "", "bulk", "settle", "promo", "0")
			assert.Equal(t, exitUsage, r.code, "--sent or --not-sent: %s", r.stderr)

			settle := []string{"bulk", "settle", "promo", "0", "--not-sent", "--json"}
			if sent {
				var id string
				for _, m := range f.srv.Messages(mockserver.Filter{}) {
					if m.Reference == "promo:0" {
						id = m.CampaignID
					}
				}
				require.NotEmpty(t, id)
				settle = []string{"bulk", "settle", "promo", "0", "--sent", id, "--json"}
			}
			r = runCLI(t, f.env, "", settle...)
			require.Equal(t, 0, r.code, r.stderr)
			m := decodeJSON(t, r.stdout)
			assert.Equal(t, sent, m["sent"])
			assert.Equal(t, "promo:0", m["reference"])

			balance := f.balance(t)
			r = runCLI(t, f.env, "", args...)
			require.Equal(t, 0, r.code, r.stderr)
			m = decodeJSON(t, r.stdout)
			assert.Equal(t, true, m["complete"])
			want := int64(0)
			if !sent {
				want = 10 * mockserver.DefaultGenericPrice
				assert.Equal(t, 10.0, m["sent"])
			}
			assert.Equal(t, balance-want, f.balance(t))
			got := map[string]int{}
			for _, msg := range f.srv.Messages(mockserver.Filter{}) {
				got[msg.To]++
			}
			assert.Len(t, got, 20)
			for to, n := range got {
				assert.Equal(t, 1, n, to)
			}
		})
	}
}
