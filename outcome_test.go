package sms_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

// shape is an answer the service's pages do not show, served by an httptest server.
type shape struct {
	name   string
	status int
	header http.Header
	body   func(valid string) string // from the call's valid body
	cut    bool                      // declare a longer body than is sent: the read fails
	amount bool                      // only for calls whose answer has an amount
}

// The answers, other than the documented ones, that a server may give to any call.
var shapes = []shape{
	{name: "202 empty body", status: 202, body: func(string) string { return "" }},
	{name: "204", status: 204, body: func(string) string { return "" }},
	{name: "campaign and data null", status: 202, body: func(string) string { return `{"campaign":null,"data":null,"requestId":"req-body"}` }},
	{name: "HTML page", status: 200, header: http.Header{"Content-Type": {"text/html"}},
		body: func(string) string { return "<html><body>\x1b[31mAccepted\n</body></html>" }},
	{name: "JSON cut mid-way", status: 202, body: func(v string) string { return v[:len(v)/2] }},
	{name: "body cut mid-way", status: 202, cut: true, body: func(v string) string { return v[:len(v)/2] }},
	{name: "BOM and garbage", status: 202, body: func(string) string { return "\xef\xbb\xbfOK queued" }},
	{name: "required id missing", status: 202, body: func(v string) string { return requiredID.ReplaceAllString(v, "") }},
	{name: "negative amount", status: 202, amount: true, body: func(v string) string { return strings.Replace(v, `"amount":3.20`, `"amount":-3.20`, 1) }},
	{name: "303 with Location", status: 303, header: http.Header{"Location": {"/v1/elsewhere"}}, body: func(string) string { return "" }},
	{name: "200 of unknown shape", status: 200, body: func(string) string { return `{"ok":true,"result":{"queued":1},"requestId":"req-body"}` }},
}

// requiredID matches the member that each valid body below cannot be read without.
var requiredID = regexp.MustCompile(`"(?:id|_id|pinId|balance)":(?:"[^"]*"|[0-9.]+),|"status":"pending",`)

// shapeServer serves sh to every request but /v1/elsewhere, which it counts, with the request
// ID req-header unless the shape's body carries one.
func shapeServer(t *testing.T, sh shape, valid string) (url string, redirected *atomic.Int32) {
	t.Helper()
	redirected = new(atomic.Int32)
	body := sh.body(valid)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/elsewhere" {
			redirected.Add(1)
			return
		}
		for k, v := range sh.header {
			w.Header()[k] = v
		}
		if !strings.Contains(body, "req-body") {
			w.Header().Set("X-Request-Id", "req-header")
		}
		if sh.cut {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)+100))
		}
		w.WriteHeader(sh.status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, redirected
}

// writeCall is a call that changes something, with the body the server answers it with when
// all goes well.
type writeCall struct {
	name   string
	valid  string
	ref    string // the reference the error names; "" for calls without one
	amount bool   // the answer has an amount
	call   func(ctx context.Context, c *sms.Client, d *sms.DashboardClient) error
}

var writeCalls = []writeCall{
	{"SMS.Send", `{"message":"SMS request accepted.","campaign":{"id":"c1","status":"sent","message_id":"m1","recipients":1,"amount":3.20,"currency":"NGN","sms_parts":1}}`,
		"ref-send", true, func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "hi", Reference: "ref-send"})
			return err
		}},
	{"Campaigns.Create", `{"message":"SMS request accepted.","campaign":{"id":"c1","status":"sent","message_id":"m1","recipients":1,"amount":3.20,"currency":"NGN","sms_parts":1}}`,
		"ref-campaign", true, func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "08025671695"}}, From: "ACME", Message: "hi", Reference: "ref-campaign"})
			return err
		}},
	{"bulk.Send", `{"message":"SMS request accepted.","campaign":{"id":"c1","status":"sent","message_id":"m1","recipients":1,"amount":3.20,"currency":"NGN","sms_parts":1}}`,
		"job:0", true, func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) error {
			r, err := bulk.Send(ctx, c, &bulk.Params{JobID: "job", From: "ACME", Message: "hi",
				Recipients: bulk.RecipientsFrom([]sms.Recipient{{Phone: "08025671695"}})})
			if err == nil {
				return nil
			}
			if len(r.Failed()) != 0 || r.UnconfirmedBatches != 1 || r.Unconfirmed != 1 || !r.Batches[0].Unconfirmed || !r.Complete {
				return fmt.Errorf("the batch is not reported accepted at an unknown cost: %+v", r)
			}
			if strings.Contains(err.Error(), "run the job again to") {
				return fmt.Errorf("a rerun is advised without reference deduplication: %w", err)
			}
			return r.Batches[0].Err
		}},
	{"OTP.Send", `{"data":{"smsStatus":"Message Sent","phone_number":"2348025671695","pinId":"p1","amount":3.20,"currency":"NGN"}}`,
		"", true, func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: "ACME"})
			return err
		}},
	{"SenderIDs.Request", `{"message":"ok","data":{"_id":"s1","title":"ACME","status":"pending","country":"Nigeria"}}`,
		"", false, func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "alerts", Company: "Acme"})
			return err
		}},
	{"Keys.Create", `{"data":{"_id":"k1","name":"ci","publicKey":"pk_test_abc","scopes":{"sms":true},"secret":"sk_test_s3cr3t"}}`,
		"", false, func(ctx context.Context, _ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.Create(ctx, &sms.CreateKeyParams{Name: "ci", Scopes: sms.Scopes{sms.ScopeSMS}})
			return err
		}},
	{"Keys.Revoke", `{"data":{"_id":"k1","publicKey":"pk_test_abc","revokedAt":"2026-01-02T00:00:00Z"}}`,
		"", false, func(ctx context.Context, _ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.Revoke(ctx, "k1", nil)
			return err
		}},
}

// shapeClients returns a Client and a DashboardClient of the server at url, without retries.
func shapeClients(t *testing.T, url string) (*sms.Client, *sms.DashboardClient) {
	t.Helper()
	c, err := sms.NewClient(fakeKey, fakeSecret, sms.WithBaseURL(url), sms.WithMaxRetries(0))
	require.NoError(t, err)
	d, err := sms.NewDashboardClient(fakeJWT, sms.WithBaseURL(url), sms.WithMaxRetries(0))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	t.Cleanup(d.CloseIdleConnections)
	return c, d
}

// A write whose answer's status line was a 2xx (or a redirect, never followed) is never a
// plain error: whatever the body, the error matches ErrOutcomeUnknown and is an
// *OutcomeError naming the status, the request ID, the reference, and the start of the body,
// escaped and without secrets.
func TestAcceptedWriteIsNeverAPlainError(t *testing.T) {
	t.Parallel()
	for _, wc := range writeCalls {
		for _, sh := range shapes {
			if sh.amount && !wc.amount {
				continue
			}
			t.Run(wc.name+"/"+sh.name, func(t *testing.T) {
				t.Parallel()
				url, redirected := shapeServer(t, sh, wc.valid)
				c, d := shapeClients(t, url)
				err := wc.call(context.Background(), c, d)
				require.ErrorIs(t, err, sms.ErrOutcomeUnknown)
				var oe *sms.OutcomeError
				require.ErrorAs(t, err, &oe)
				msg := err.Error()
				assert.Equal(t, sh.status, oe.StatusCode)
				assert.Contains(t, msg, strconv.Itoa(sh.status))
				wantID := "req-header"
				if strings.Contains(sh.body(wc.valid), "req-body") {
					wantID = "req-body"
				}
				assert.Equal(t, wantID, oe.RequestID)
				assert.Contains(t, msg, "[request "+wantID+"]")
				assert.Equal(t, wc.ref, oe.Reference)
				if wc.ref != "" {
					assert.Contains(t, msg, strconv.Quote(wc.ref), "names the reference to repeat with")
				}
				if body := sh.body(wc.valid); body != "" {
					assert.NotEmpty(t, oe.Body)
					assert.LessOrEqual(t, len(oe.Body), 210)
					assert.Contains(t, msg, "body: ")
				}
				assert.NotContains(t, msg, "\n")
				assert.NotContains(t, msg, "\x1b")
				assert.NotContains(t, msg, "s3cr3t", "a secret in the body is redacted")
				assert.Zero(t, redirected.Load(), "a redirect of a write is not followed")
			})
		}
	}
}

// A GET answered in the same shapes is a plain error: nothing was changed.
func TestReadWithUnreadableAnswerIsAPlainError(t *testing.T) {
	t.Parallel()
	reads := []struct {
		name, valid string
		call        func(context.Context, *sms.Client) error
	}{
		{"Balance.Get", `{"data":{"balance":10000.00,"currency":"NGN"}}`, func(ctx context.Context, c *sms.Client) error {
			_, err := c.Balance.Get(ctx, nil)
			return err
		}},
		{"Campaigns.List", `{"data":[{"_id":"c1","status":"sent","amount":3.20}],"pagination":{"page":1,"limit":20,"total":1}}`,
			func(ctx context.Context, c *sms.Client) error {
				_, err := c.Campaigns.List(ctx, nil)
				return err
			}},
	}
	for _, rd := range reads {
		for _, sh := range shapes {
			if sh.amount {
				continue
			}
			t.Run(rd.name+"/"+sh.name, func(t *testing.T) {
				t.Parallel()
				url, redirected := shapeServer(t, sh, rd.valid)
				c, _ := shapeClients(t, url)
				err := rd.call(context.Background(), c)
				require.Error(t, err)
				assert.NotErrorIs(t, err, sms.ErrOutcomeUnknown)
				assert.False(t, errors.As(err, new(*sms.OutcomeError)))
				switch {
				case sh.status == 303:
					var e *sms.Error
					require.ErrorAs(t, err, &e)
					assert.Equal(t, 303, e.StatusCode)
				case sh.cut:
					assert.Contains(t, err.Error(), "reading the 202 response")
				default:
					assert.Contains(t, err.Error(), "decoding the "+strconv.Itoa(sh.status)+" response")
				}
				assert.Zero(t, redirected.Load(), "a redirect is not followed")
			})
		}
	}
}
