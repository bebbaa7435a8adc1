package sms_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// pageIgnorer answers GET /v1/sms/campaigns with the same two campaigns whatever the page, a
// total of a million, and the page asked for echoed back. After 50 requests it fails, so that
// a walk that never stops ends.
type pageIgnorer struct{ n atomic.Int32 }

func (p *pageIgnorer) RoundTrip(req *http.Request) (*http.Response, error) {
	if p.n.Add(1) > 50 {
		return nil, errors.New("fetched forever")
	}
	body := `{"data":[` +
		`{"_id":"c2","senderId":"ACME","recipientCount":1,"amount":3.20,"status":"sent","currency":"NGN","channel":"generic","smsParts":1,"messageId":"m2","reference":null,"createdAt":"2026-01-02T00:00:00Z"},` +
		`{"_id":"c1","senderId":"ACME","recipientCount":1,"amount":3.20,"status":"sent","currency":"NGN","channel":"generic","smsParts":1,"messageId":"m1","reference":null,"createdAt":"2026-01-01T00:00:00Z"}` +
		`],"pagination":{"page":` + req.URL.Query().Get("page") + `,"limit":2,"total":1000000},"requestId":"req_1"}`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

func TestHardening_AllStopsWhenServerIgnoresPage(t *testing.T) {
	t.Parallel()
	p := &pageIgnorer{}
	c := newClientFor(t, p)
	var ids []string
	var walkErr error
	for camp, err := range c.Campaigns.All(context.Background(), &sms.ListCampaignsParams{Limit: 2}) {
		if err != nil {
			walkErr = err
			break
		}
		ids = append(ids, camp.ID)
	}
	require.Error(t, walkErr)
	assert.Contains(t, walkErr.Error(), "added no new item")
	assert.Equal(t, []string{"c2", "c1"}, ids, "each campaign once")
	assert.Equal(t, int32(4), p.n.Load(), "the first page and three that added nothing")
}

// The pin of VerifyOTPParams stays out of JSON, nested or not, as slog's JSON handler writes
// it; the request body still carries it, and the mock verifies it.
func TestHardening_VerifyPinNotInJSON(t *testing.T) {
	t.Parallel()
	srv := mockserver.New()
	rec := &recorder{base: srv.Transport()}
	ws := srv.Default()
	c := newClient(t, srv, sms.WithHTTPClient(&http.Client{Transport: rec}))
	otp, err := c.OTP.Send(context.Background(), &sms.SendOTPParams{To: "08025671695", From: ws.SenderID, MessageText: "< 1234 >"})
	require.NoError(t, err)
	_, pin, err := srv.LatestOTP("08025671695")
	require.NoError(t, err)
	p := sms.VerifyOTPParams{PinID: otp.PinID, Pin: pin}

	type request struct {
		User   string
		Params sms.VerifyOTPParams
		Ptr    *sms.VerifyOTPParams
		Any    any
	}
	nested := request{User: "ada", Params: p, Ptr: &p, Any: p}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("verifying", "request", nested, "params", p)
	encoded, err := json.Marshal(nested)
	require.NoError(t, err)
	for name, text := range map[string]string{"json.Marshal": string(encoded), "slog JSON": logs.String()} {
		assert.NotContains(t, text, pin, "%s shows the pin", name)
		assert.Contains(t, text, otp.PinID, "%s shows the pin ID", name)
		assert.Contains(t, text, `"Pin":"[REDACTED]"`, name)
	}

	v, err := c.OTP.Verify(context.Background(), &p)
	require.NoError(t, err)
	assert.True(t, v.Verified, "the real pin went on the wire")
	sent := rec.sent()
	require.NotEmpty(t, sent)
	assert.JSONEq(t, `{"pin_id":"`+otp.PinID+`","pin":"`+pin+`"}`, sent[len(sent)-1])
}

// without returns the JSON document body without the member at path ("data.pinId",
// "data[0]._id", "pagination"); an empty path returns {}.
func without(t *testing.T, body, path string) []byte {
	t.Helper()
	if path == "" {
		return []byte(`{}`)
	}
	var doc any
	require.NoError(t, json.Unmarshal([]byte(body), &doc))
	parts := strings.Split(strings.ReplaceAll(path, "[0]", ".0"), ".")
	node := doc
	for _, p := range parts[:len(parts)-1] {
		if p == "0" {
			node = node.([]any)[0]
		} else {
			node = node.(map[string]any)[p]
		}
	}
	obj := node.(map[string]any)
	_, ok := obj[parts[len(parts)-1]]
	require.True(t, ok, "%s is in the body", path)
	delete(obj, parts[len(parts)-1])
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

// A success body missing a member the result is built from is a decoding error naming it,
// for every method, never a result with empty ids; a body missing any other member decodes
// (the tolerant reader).
func TestHardening_SuccessBodyMissingMembers(t *testing.T) {
	t.Parallel()
	const (
		campaign  = `{"_id":"c1","senderId":"ACME","recipientCount":1,"amount":3.20,"status":"sent","currency":"NGN","channel":"generic","smsParts":1,"messageId":"m1","reference":null,"createdAt":"2026-01-01T00:00:00Z"}`
		sent      = `{"message":"SMS request accepted.","campaign":{"id":"c1","status":"sent","message_id":"m1","recipients":1,"amount":3.20,"currency":"NGN","sms_parts":1},"requestId":"r"}`
		page      = `"pagination":{"page":1,"limit":20,"total":1},"requestId":"r"`
		senderID  = `{"_id":"s1","title":"ACME","status":"pending","country":"Nigeria","usecase":"alerts","company":"Acme","createdAt":"2026-01-01T00:00:00Z"}`
		keyFields = `"_id":"k1","name":"ci","prefix":"pk_test","publicKey":"pk_test_abc","scopes":{"sms":true},"createdAt":"2026-01-01T00:00:00Z","expiresAt":null,"lastUsedAt":null`
	)
	ctx := context.Background()
	first := func(seq func(func(sms.Campaign, error) bool)) error {
		for _, err := range seq {
			return err
		}
		return nil
	}
	type callFunc func(*sms.Client, *sms.DashboardClient) error
	tests := []struct {
		name     string
		status   int
		body     string
		call     callFunc
		members  []string // each removed in turn; "" stands for the body {}
		optional []string // each removed in turn, the body still decodes
	}{
		{"SMS.Send", 202, sent, func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "hi"})
			return err
		}, []string{"", "campaign.id", "campaign.status"}, []string{"message", "campaign.message_id", "campaign.recipients", "campaign.amount", "campaign.currency", "campaign.sms_parts", "requestId"}},
		{"Campaigns.Create", 202, sent, func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "08025671695"}}, From: "ACME", Message: "hi"})
			return err
		}, []string{"", "campaign.id", "campaign.status"}, nil},
		{"Campaigns.List", 200, `{"data":[` + campaign + `],` + page + `}`, func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.List(ctx, nil)
			return err
		}, []string{"", "data", "pagination", "data[0]._id", "data[0].status"}, []string{"data[0].smsParts", "data[0].createdAt", "data[0].currency", "requestId"}},
		{"Campaigns.All", 200, `{"data":[` + campaign + `],` + page + `}`, func(c *sms.Client, _ *sms.DashboardClient) error {
			return first(c.Campaigns.All(ctx, nil))
		}, []string{"", "data", "pagination", "data[0]._id", "data[0].status"}, nil},
		{"Campaigns.Status", 200, `{"data":{"campaignId":"c1","messageId":"m1","status":"sent","counts":{"sent":1,"delivered":0,"failed":0,"dnd":0},"recipients":[{"to":"2348025671695","status":"sent","updatedAt":"2026-01-01T00:00:00Z"}]},` + page + `}`,
			func(c *sms.Client, _ *sms.DashboardClient) error {
				_, err := c.Campaigns.Status(ctx, "c1", nil)
				return err
			}, []string{"", "data.status", "data.recipients[0].to", "data.recipients[0].status"}, []string{"data.campaignId", "data.messageId", "data.counts", "data.recipients[0].updatedAt", "pagination"}},
		{"OTP.Send", 200, `{"data":{"smsStatus":"Message Sent","phone_number":"2348025671695","pinId":"p1","status":"200","amount":3.20,"currency":"NGN"},"requestId":"r"}`,
			func(c *sms.Client, _ *sms.DashboardClient) error {
				_, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: "ACME", MessageText: "< 1234 >"})
				return err
			}, []string{"", "data.pinId"}, []string{"data.amount", "data.currency", "data.phone_number", "data.smsStatus", "requestId"}},
		{"OTP.Verify", 200, `{"data":{"pinId":"p1","verified":false,"msisdn":"2348025671695","attemptsRemaining":4},"requestId":"r"}`,
			func(c *sms.Client, _ *sms.DashboardClient) error {
				_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "p1", Pin: "123456"})
				return err
			}, []string{"", "data.verified"}, []string{"data.pinId", "data.msisdn", "data.attemptsRemaining", "requestId"}},
		{"Balance.Get", 200, `{"data":{"balance":10000.00,"cashback":0.00,"currency":"NGN"},"requestId":"r"}`,
			func(c *sms.Client, _ *sms.DashboardClient) error {
				_, err := c.Balance.Get(ctx)
				return err
			}, []string{"", "data.balance"}, []string{"data.currency", "data.cashback", "requestId"}},
		{"SenderIDs.Request", 201, `{"message":"ok","data":` + senderID + `,"requestId":"r"}`, func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", Usecase: "alerts", Company: "Acme"})
			return err
		}, []string{"", "data.title", "data.status"}, []string{"data._id", "data.createdAt", "data.country", "message"}},
		{"SenderIDs.List", 200, `{"data":[` + senderID + `],"count":1,"requestId":"r"}`, func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.List(ctx, nil)
			return err
		}, []string{"", "data", "data[0].title", "data[0].status"}, []string{"data[0]._id", "data[0].createdAt", "count", "requestId"}},
		{"Keys.Create", 201, `{"data":{` + keyFields + `,"revokedAt":null,"secret":"sk_test_def"},"requestId":"r"}`, func(_ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.Create(ctx, &sms.CreateKeyParams{Name: "ci", Scopes: sms.Scopes{sms.ScopeSMS}})
			return err
		}, []string{"", "data._id", "data.publicKey", "data.secret"}, []string{"data.createdAt", "data.expiresAt", "data.name", "requestId"}},
		{"Keys.List", 200, `{"data":[{` + keyFields + `,"revokedAt":null}],"count":1,"requestId":"r"}`, func(_ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.List(ctx)
			return err
		}, []string{"", "data", "data[0]._id", "data[0].publicKey"}, []string{"data[0].createdAt", "data[0].lastUsedAt", "count"}},
		{"Keys.Revoke", 200, `{"data":{` + keyFields + `,"revokedAt":"2026-01-02T00:00:00Z"},"requestId":"r"}`, func(_ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.Revoke(ctx, "k1")
			return err
		}, []string{"", "data._id", "data.revokedAt"}, []string{"data.createdAt", "data.publicKey"}},
	}
	clients := func(t *testing.T, status int, body []byte) (*sms.Client, *sms.DashboardClient) {
		return newClientsFor(t, &answer{status: status, body: body}, sms.WithMaxRetries(0))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, tt.call(clients(t, tt.status, []byte(tt.body))), "the whole body decodes")
			for _, m := range tt.members {
				err := tt.call(clients(t, tt.status, without(t, tt.body, m)))
				want := m
				if m == "" {
					want = tt.members[1] // the first member checked
				}
				require.Error(t, err, "without %q", m)
				assert.Contains(t, err.Error(), `the member "`+want+`" is missing`, "without %q", m)
			}
			for _, m := range tt.optional {
				assert.NoError(t, tt.call(clients(t, tt.status, without(t, tt.body, m))), "without %q", m)
			}
		})
	}
}

// Text that is not valid UTF-8 would reach the server with U+FFFD in place of each invalid
// byte: it is a *ValidationError, before any request.
func TestHardening_InvalidUTF8IsValidationError(t *testing.T) {
	t.Parallel()
	const bad = "caf\xe9 \xff"
	ctx := context.Background()
	tests := []struct {
		field string
		call  func(*sms.Client, *sms.DashboardClient) error
	}{
		{"Message", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: bad})
			return err
		}},
		{"Message", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "08025671695"}}, From: "ACME", Message: bad})
			return err
		}},
		{"To[1].Name", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{
				To: []sms.Recipient{{Phone: "08025671695", Name: "Ada"}, {Phone: "08025671696", Name: bad}}, From: "ACME", Message: "Hi {{name}}",
			})
			return err
		}},
		{"id", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Status(ctx, bad, nil)
			return err
		}},
		{"MessageText", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: "ACME", MessageText: "< 1234 > " + bad})
			return err
		}},
		{"PinPlaceholder", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: "ACME", MessageText: "code " + bad, PinPlaceholder: bad})
			return err
		}},
		{"PinID", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: bad, Pin: "123456"})
			return err
		}},
		{"Pin", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "p1", Pin: "12\xff456"})
			return err
		}},
		{"Usecase", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", Usecase: bad, Company: "Acme"})
			return err
		}},
		{"Company", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", Usecase: "alerts", Company: bad})
			return err
		}},
		{"Name", func(_ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.Create(ctx, &sms.CreateKeyParams{Name: bad, Scopes: sms.Scopes{sms.ScopeSMS}})
			return err
		}},
		{"id", func(_ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.Revoke(ctx, bad)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			t.Parallel()
			c, d, ct := offlineClients(t)
			err := tt.call(c, d)
			var ve *sms.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.field, ve.Field)
			assert.Equal(t, "the text is not valid UTF-8", ve.Reason)
			assert.ErrorIs(t, err, sms.ErrInvalidParams)
			assert.Zero(t, ct.n.Load(), "no request")
			checkErrorString(t, err.Error())
		})
	}
}

// idleCounter answers like answer and counts CloseIdleConnections calls.
type idleCounter struct {
	answer
	closed atomic.Int32
}

func (i *idleCounter) CloseIdleConnections() { i.closed.Add(1) }

func TestHardening_CloseIdleConnections(t *testing.T) {
	t.Parallel()
	t.Run("given transport", func(t *testing.T) {
		t.Parallel()
		tr := &idleCounter{answer: answer{status: 200, body: []byte(`{"data":[],"count":0,"requestId":"r"}`)}}
		c, d := newClientsFor(t, tr)
		_, err := c.SenderIDs.List(context.Background(), nil)
		require.NoError(t, err)
		require.Zero(t, tr.closed.Load())
		c.CloseIdleConnections()
		assert.Equal(t, int32(1), tr.closed.Load())
		_, err = d.Keys.List(context.Background())
		require.NoError(t, err)
		d.CloseIdleConnections()
		assert.Equal(t, int32(2), tr.closed.Load())
		var nilClient *sms.Client
		nilClient.CloseIdleConnections() // no panic
	})
	t.Run("default transport", func(t *testing.T) {
		t.Parallel()
		var idle, closed atomic.Int32
		ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"data":{"balance":1.00,"cashback":0.00,"currency":"NGN"},"requestId":"r"}`)
		}))
		ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			switch s {
			case http.StateIdle:
				idle.Add(1)
			case http.StateClosed:
				closed.Add(1)
			}
		}
		ts.Start()
		t.Cleanup(ts.Close)
		c, err := sms.NewClient("pk_test_abc", "sk_test_def", sms.WithBaseURL(ts.URL)) // the SDK's own pooled transport
		require.NoError(t, err)
		_, err = c.Balance.Get(context.Background())
		require.NoError(t, err)
		require.Eventually(t, func() bool { return idle.Load() == 1 }, 5*time.Second, time.Millisecond, "the connection is kept idle")
		require.Zero(t, closed.Load())
		c.CloseIdleConnections()
		assert.Eventually(t, func() bool { return closed.Load() == 1 }, 5*time.Second, time.Millisecond, "the idle connection is closed")
	})
}
