package sms_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

// The answers of this file are those a production service of this kind may give and the
// service's pages do not show: each SDK call is answered by an httptest server with one
// variant, and the outcome asserted. docs/api.md, "Answers the pages don't show", states the
// same cases.

// serveOnce returns clients whose every request is answered with status, body and the
// headers h (Content-Type: application/json when h is nil), by an httptest server.
func serveOnce(t *testing.T, status int, h http.Header, body string) (*sms.Client, *sms.DashboardClient) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h == nil {
			w.Header().Set("Content-Type", "application/json")
		}
		for k, v := range h {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	opts := []sms.Option{sms.WithBaseURL(srv.URL), sms.WithMaxRetries(0)}
	c, err := sms.NewClient(fakeKey, fakeSecret, opts...)
	require.NoError(t, err)
	d, err := sms.NewDashboardClient(fakeJWT, opts...)
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	t.Cleanup(d.CloseIdleConnections)
	return c, d
}

// sdkCall makes one SDK call and returns its result and error.
type sdkCall func(ctx context.Context, c *sms.Client, d *sms.DashboardClient) (any, error)

var sdkCalls = map[string]sdkCall{
	"SMS.Send": func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) (any, error) {
		return c.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "Hi", Reference: "order-1"})
	},
	"Campaigns.Create": func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) (any, error) {
		return c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "08025671695"}}, From: "ACME", Message: "Hi", Reference: "spring"})
	},
	"Campaigns.List": func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) (any, error) {
		return c.Campaigns.List(ctx, nil)
	},
	"Campaigns.Delivery": func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) (any, error) {
		return c.Campaigns.Delivery(ctx, "c1", nil)
	},
	"bulk.WaitCampaign": func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) (any, error) {
		return bulk.WaitCampaign(ctx, c, "c1", &bulk.WaitParams{MinDelay: time.Millisecond, MaxDelay: time.Millisecond})
	},
	"OTP.Send": func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) (any, error) {
		return c.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: "ACME"})
	},
	"OTP.Verify": func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) (any, error) {
		return c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "p1", Pin: "123456"})
	},
	"Balance.Get": func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) (any, error) {
		return c.Balance.Get(ctx, nil)
	},
	"SenderIDs.Request": func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) (any, error) {
		return c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "alerts", Company: "Acme"})
	},
	"SenderIDs.List": func(ctx context.Context, c *sms.Client, _ *sms.DashboardClient) (any, error) {
		return c.SenderIDs.List(ctx, nil)
	},
	"Keys.Create": func(ctx context.Context, _ *sms.Client, d *sms.DashboardClient) (any, error) {
		return d.Keys.Create(ctx, &sms.CreateKeyParams{Name: "ci", Scopes: sms.Scopes{sms.ScopeSMS}})
	},
	"Keys.List": func(ctx context.Context, _ *sms.Client, d *sms.DashboardClient) (any, error) {
		return d.Keys.List(ctx, nil)
	},
	"Keys.Revoke": func(ctx context.Context, _ *sms.Client, d *sms.DashboardClient) (any, error) {
		return d.Keys.Revoke(ctx, "k1", nil)
	},
}

// The bodies the variants start from, with a %s where a member is varied.
const (
	sendBody    = `{"message":"SMS request accepted.","campaign":{"id":"667000000000000000000001","status":"sent","message_id":"3017600245086449408013699","recipients":1,"currency":"NGN",%s},"requestId":"req-123"}`
	listBody    = `{"data":[{"_id":"c1","senderId":"ACME","recipientCount":1,"amount":3.20,"status":"sent","currency":"NGN","channel":"generic","messageId":"m1",%s}],%s}`
	statusBody  = `{"data":{"campaignId":"c1","messageId":"m1",%s}}`
	otpBody     = `{"data":{"smsStatus":"Message Sent","pinId":"p1",%s}}`
	verifyBody  = `{"data":{"pinId":"p1",%s}}`
	balanceBody = `{"data":{%s,"currency":"NGN"}}`
	senderBody  = `{"data":[{"title":"ACME","country":"Nigeria",%s}]}`
	keyBody     = `{"data":{"_id":"k1","publicKey":"pk_test_abc","name":"ci",%s}}`
)

// at returns the time of an RFC 3339 text.
func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return v
}

func TestAnswersThePagesDontShow(t *testing.T) {
	t.Parallel()
	sendResult := func(t *testing.T, v any) *sms.SendResult { return v.(*sms.SendResult) }
	firstCampaign := func(t *testing.T, v any) sms.Campaign {
		pg := v.(*sms.Page[sms.Campaign])
		require.Len(t, pg.Items, 1)
		return pg.Items[0]
	}
	apiError := func(t *testing.T, err error) *sms.Error {
		var e *sms.Error
		require.ErrorAs(t, err, &e)
		return e
	}
	bom := "\ufeff"
	html403 := `<html><head><title>403 Forbidden</title></head><body><h1>Request blocked by the WAF</h1></body></html>`
	tests := []struct {
		name   string
		calls  []string // each call is made against the answer
		status int
		header http.Header
		body   string
		check  func(t *testing.T, v any, err error)
	}{
		// Sends: the members of an accepted send, in the forms servers write them.
		{"amount as a string", []string{"SMS.Send", "Campaigns.Create"}, 202, nil, fmt.Sprintf(sendBody, `"amount":"3.20","sms_parts":1`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, ptr(sms.AmountFromKobo(320)), sendResult(t, v).Campaign.Amount)
			}},
		{"amount in kobo", []string{"SMS.Send", "Campaigns.Create"}, 202, nil, fmt.Sprintf(sendBody, `"amount":320,"unit":"kobo"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, ptr(sms.AmountFromKobo(320)), sendResult(t, v).Campaign.Amount, "3.20 naira, not 320.00")
			}},
		{"amount in a unit the SDK does not know", []string{"SMS.Send", "Campaigns.Create"}, 202, nil, fmt.Sprintf(sendBody, `"amount":1,"unit":"credits"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err, "an optional member never fails an accepted send")
				assert.Nil(t, sendResult(t, v).Campaign.Amount, "never guessed")
				assert.Equal(t, []string{"campaign.amount"}, sendResult(t, v).Response.Unreadable)
			}},
		{"OTP amount in kobo", []string{"OTP.Send"}, 200, nil, fmt.Sprintf(otpBody, `"amount":320,"unit":"kobo"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, ptr(sms.AmountFromKobo(320)), v.(*sms.OTP).Amount)
			}},
		{"no amount: nil, not 0.00", []string{"SMS.Send", "Campaigns.Create"}, 202, nil, fmt.Sprintf(sendBody, `"sms_parts":1`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Nil(t, sendResult(t, v).Campaign.Amount)
				assert.Nil(t, sendResult(t, v).Response.Unreadable, "absent is not unreadable")
			}},
		{"amount unreadable", []string{"SMS.Send", "Campaigns.Create"}, 202, nil, fmt.Sprintf(sendBody, `"amount":{"value":3.2},"sms_parts":"x"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err, "an optional member never fails an accepted send")
				res := sendResult(t, v)
				assert.Nil(t, res.Campaign.Amount)
				assert.Nil(t, res.Campaign.Parts)
				assert.Equal(t, []string{"campaign.amount", "campaign.sms_parts"}, res.Response.Unreadable)
			}},
		{"parts as a string, ids as numbers", []string{"SMS.Send", "Campaigns.Create"}, 202, nil,
			`{"campaign":{"id":667000000000000000000001,"status":"sent","message_id":3017600245086449408013699,"recipients":"1","amount":3.2,"sms_parts":"1"},"requestId":42}`,
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				c := sendResult(t, v).Campaign
				assert.Equal(t, "667000000000000000000001", c.ID, "every digit kept")
				assert.Equal(t, "3017600245086449408013699", c.MessageID, "every digit kept")
				assert.Equal(t, 1, c.Recipients)
				assert.Equal(t, ptr(1), c.Parts)
				assert.Equal(t, "42", sendResult(t, v).Response.RequestID)
			}},
		{"status words of the provider", []string{"SMS.Send", "Campaigns.Create"}, 202, nil, fmt.Sprintf(strings.Replace(sendBody, `"status":"sent"`, `"status":"Message Sent"`, 1), `"amount":3.2`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.CampaignStatusSent, sendResult(t, v).Campaign.Status)
			}},
		{"a byte order mark", []string{"SMS.Send", "Campaigns.Create"}, 202, nil, bom + fmt.Sprintf(sendBody, `"amount":3.2`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, "667000000000000000000001", sendResult(t, v).Campaign.ID)
			}},
		{"Idempotent-Replayed: True", []string{"SMS.Send"}, 202, http.Header{"Content-Type": {"application/json"}, "Idempotent-Replayed": {"True"}}, fmt.Sprintf(sendBody, `"amount":3.2`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.True(t, sendResult(t, v).Replayed)
			}},
		// An accepted send whose result cannot be built is an error, never a result with
		// empty ids (what the error matches is the outcome's: see ErrOutcomeUnknown).
		{"202 without a body", []string{"SMS.Send", "Campaigns.Create", "OTP.Send", "SenderIDs.Request", "Keys.Create", "Keys.Revoke"}, 202, nil, ``,
			func(t *testing.T, v any, err error) { require.Error(t, err) }},
		{"campaign null", []string{"SMS.Send", "Campaigns.Create"}, 202, nil, `{"message":"ok","campaign":null}`,
			func(t *testing.T, v any, err error) { require.ErrorContains(t, err, "campaign.id") }},
		{"an HTML page", []string{"SMS.Send", "Campaigns.Create", "Balance.Get"}, 200, http.Header{"Content-Type": {"text/html"}}, `<html>ok</html>`,
			func(t *testing.T, v any, err error) { require.Error(t, err) }},
		// A 2xx whose body says it is an error: an error with the server's words, before any
		// member is read; on a write, an unknown outcome (the server may have done it).
		{"200 success false on a read", []string{"Campaigns.List", "SenderIDs.List", "Keys.List", "Balance.Get", "Campaigns.Delivery"}, 200, nil,
			`{"success":false,"message":"DB timeout","data":[]}`,
			func(t *testing.T, v any, err error) {
				e := apiError(t, err)
				assert.Equal(t, 200, e.StatusCode)
				assert.Equal(t, "DB timeout", e.Message)
				assert.Contains(t, err.Error(), "DB timeout")
				assert.NotErrorIs(t, err, sms.ErrOutcomeUnknown, "a read")
			}},
		{"200 status error Invalid API key", []string{"Balance.Get", "Campaigns.Delivery", "bulk.WaitCampaign", "Keys.List", "Campaigns.List"}, 200, nil,
			`{"status":"error","message":"Invalid API key"}`,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrUnauthorized, "the words name it")
				assert.Equal(t, "Invalid API key", apiError(t, err).Message)
				assert.NotContains(t, err.Error(), "missing")
			}},
		{"200 status error on a write", []string{"SMS.Send", "Campaigns.Create", "OTP.Send", "OTP.Verify", "SenderIDs.Request", "Keys.Create", "Keys.Revoke"}, 200, nil,
			`{"status":"error","message":"Invalid API key"}`,
			func(t *testing.T, v any, err error) {
				var oe *sms.OutcomeError
				require.ErrorAs(t, err, &oe, "the request may have taken effect")
				assert.ErrorIs(t, err, sms.ErrUnauthorized)
				assert.Equal(t, "Invalid API key", apiError(t, err).Message)
				assert.Contains(t, err.Error(), "Invalid API key")
				assert.Equal(t, sms.PinStateUnknown, sms.PinStateOf(nil, err))
			}},
		{"200 with the API's error object", []string{"Balance.Get", "SMS.Send"}, 200, nil, `{"error":{"code":"insufficient_balance","message":"Low balance."}}`,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrInsufficientBalance, "the code names it")
				assert.Equal(t, "Low balance.", apiError(t, err).Message)
			}},
		{"200 with an errors list", []string{"Campaigns.List", "OTP.Send"}, 200, nil, `{"errors":[{"message":"Service unavailable"}],"data":[]}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, "Service unavailable", apiError(t, err).Message)
				assert.NotErrorIs(t, err, sms.ErrServer, "no status named")
			}},
		{"200 whose body names a 503", []string{"Balance.Get", "SenderIDs.List"}, 200, nil, `{"statusCode":503,"message":"Upstream down","data":{"balance":1}}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateUnknown, sms.PinStateOf(nil, err))
				assert.Equal(t, "Upstream down", apiError(t, err).Message)
				assert.ErrorIs(t, err, sms.ErrServer, "it names a 5xx")
			}},
		{"error members that say nothing", []string{"Balance.Get"}, 200, nil, `{"error":null,"errors":[],"success":true,"status":"ok","data":{"balance":1}}`,
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.AmountFromKobo(100), v.(*sms.Balance).Balance)
			}},
		{"200 HTML page on a read", []string{"Balance.Get", "Campaigns.List", "SenderIDs.List", "Keys.List"}, 200, http.Header{"Content-Type": {"text/html"}}, "<html><body>Down for maintenance\x1b[2J</body></html>",
			func(t *testing.T, v any, err error) {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "Down for maintenance", "the start of the body")
				assert.NotContains(t, err.Error(), "\x1b", "escaped")
			}},
		// Round three: errors sent as 200 in the other conventions, one rule for reads, writes
		// and sms doctor.
		{"200 status false", []string{"Campaigns.List", "SenderIDs.List", "Keys.List", "Balance.Get", "Campaigns.Delivery"}, 200, nil,
			`{"status":false,"message":"Invalid API key","data":[]}`,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrUnauthorized, "never an empty list")
				assert.Equal(t, "Invalid API key", apiError(t, err).Message)
			}},
		{"200 status false on a write", []string{"SMS.Send", "Campaigns.Create", "OTP.Send", "OTP.Verify", "SenderIDs.Request", "Keys.Create", "Keys.Revoke"}, 200, nil,
			`{"status":false,"message":"Invalid API key","data":[]}`,
			func(t *testing.T, v any, err error) {
				var oe *sms.OutcomeError
				require.ErrorAs(t, err, &oe, "the request may have taken effect")
				assert.ErrorIs(t, err, sms.ErrUnauthorized)
			}},
		{"200 status 401", []string{"Campaigns.List", "SenderIDs.List", "Keys.List", "Balance.Get"}, 200, nil,
			`{"status":"401","message":"Unauthenticated.","data":[]}`,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrUnauthorized, "the status it names")
				assert.Equal(t, "Unauthenticated.", apiError(t, err).Message)
			}},
		{"200 responseCode 99", []string{"Campaigns.List", "SenderIDs.List", "Keys.List", "Balance.Get"}, 200, nil,
			`{"responseCode":"99","responseMessage":"System malfunction","data":[]}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, "System malfunction", apiError(t, err).Message)
				assert.Contains(t, err.Error(), "System malfunction")
			}},
		{"200 code with msg", []string{"Campaigns.List", "SenderIDs.List", "Keys.List", "Balance.Get", "SMS.Send"}, 200, nil,
			`{"code":1001,"msg":"Invalid API key"}`,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrUnauthorized)
				assert.Equal(t, "Invalid API key", apiError(t, err).Message)
			}},
		{"200 a word code with msg", []string{"Campaigns.List", "Balance.Get"}, 200, nil,
			`{"code":"E_SENDER","msg":"Sender ID not approved"}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, "Sender ID not approved", apiError(t, err).Message)
				assert.Equal(t, "E_SENDER", apiError(t, err).Code)
			}},
		{"success members that say success", []string{"Balance.Get"}, 200, nil,
			`{"status":true,"responseCode":"00","code":0,"msg":"success","data":{"balance":1,"currency":"NGN"}}`,
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.AmountFromKobo(100), v.(*sms.Balance).Balance)
			}},
		// The server's words, whatever members hold them.
		{"Spring Boot's defaultMessage", []string{"SMS.Send", "Balance.Get"}, 400, nil,
			`{"timestamp":"2026-11-29T10:00:00.000+00:00","status":400,"error":"Bad Request","errors":[{"defaultMessage":"must not be blank","field":"to","rejectedValue":""}],"path":"/v1/sms/send"}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, "must not be blank", apiError(t, err).Message)
				assert.Equal(t, "to", apiError(t, err).Field)
			}},
		{"Django's field errors", []string{"SMS.Send", "Balance.Get"}, 400, nil, `{"to":["This field is required."],"from":["Not an approved sender ID."]}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, "Not an approved sender ID.; This field is required.", apiError(t, err).Message)
				assert.Equal(t, "from", apiError(t, err).Field)
			}},
		{"msg", []string{"SMS.Send", "Balance.Get"}, 400, nil, `{"code":40001,"msg":"Message too long"}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, "Message too long", apiError(t, err).Message)
			}},
		{"a SOAP fault's string past the snippet", []string{"Balance.Get", "SMS.Send"}, 500, http.Header{"Content-Type": {"text/xml"}},
			`<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>Upstream SMSC bind failed</faultstring></soap:Fault></soap:Body></soap:Envelope>`,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrServer)
				assert.Equal(t, "Upstream SMSC bind failed", apiError(t, err).Message)
				assert.Contains(t, err.Error(), "Upstream SMSC bind failed")
			}},
		// An answer must be about what was asked.
		{"verify answer about another pin", []string{"OTP.Verify"}, 200, nil, `{"data":{"pinId":"p2","verified":true}}`,
			func(t *testing.T, v any, err error) {
				require.Error(t, err, "never a verified pin")
				assert.ErrorIs(t, err, sms.ErrOutcomeUnknown, "a write: the pin may have been used up")
				assert.Equal(t, sms.PinStateUnknown, sms.PinStateOf(nil, err))
				assert.Contains(t, err.Error(), `"p2"`)
			}},
		{"status answer about another campaign", []string{"Campaigns.Delivery", "bulk.WaitCampaign"}, 200, nil, `{"data":{"campaignId":"c2","status":"delivered","counts":{"sent":0,"delivered":1,"failed":0,"dnd":0}}}`,
			func(t *testing.T, v any, err error) {
				require.Error(t, err, "never a final wait")
				assert.Contains(t, err.Error(), `"c2"`)
				assert.NotErrorIs(t, err, sms.ErrOutcomeUnknown, "a read")
			}},
		{"verify answer about another pin, as pin_id", []string{"OTP.Verify"}, 200, nil, `{"data":{"pin_id":"p2","verified":true}}`,
			func(t *testing.T, v any, err error) {
				require.Error(t, err, "never a verified pin, whatever the member's name")
				assert.ErrorIs(t, err, sms.ErrOutcomeUnknown)
				assert.Equal(t, sms.PinStateUnknown, sms.PinStateOf(nil, err))
				assert.Contains(t, err.Error(), `"p2"`)
			}},
		{"status answer about another campaign, as campaign_id or id", []string{"Campaigns.Delivery", "bulk.WaitCampaign"}, 200, nil, `{"data":{"campaign_id":"c2","id":"c2","status":"delivered"}}`,
			func(t *testing.T, v any, err error) {
				require.Error(t, err, "never a final wait")
				assert.Contains(t, err.Error(), `"c2"`)
			}},
		{"send answer about another reference", []string{"SMS.Send", "Campaigns.Create"}, 202, nil, fmt.Sprintf(sendBody, `"amount":3.2,"reference":"someone-else"`),
			func(t *testing.T, v any, err error) {
				require.ErrorIs(t, err, sms.ErrOutcomeUnknown, "the answer says nothing of this request")
				assert.Contains(t, err.Error(), `"someone-else"`)
			}},
		{"send answer with its own reference", []string{"SMS.Send"}, 202, nil, fmt.Sprintf(sendBody, `"amount":3.2,"reference":"order-1"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
			}},
		{"campaign id true", []string{"SMS.Send", "Campaigns.Create"}, 202, nil, strings.Replace(fmt.Sprintf(sendBody, `"amount":3.2`), `"id":"667000000000000000000001"`, `"id":true`, 1),
			func(t *testing.T, v any, err error) {
				require.ErrorIs(t, err, sms.ErrOutcomeUnknown, "never the id \"true\"")
				assert.Contains(t, err.Error(), "campaign.id")
			}},
		// Smaller kinds.
		{"422 the pin has expired", []string{"OTP.Verify"}, 422, nil, `{"message":"The pin has expired."}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateExpired, sms.PinStateOf(nil, err))
			}},
		{"404 of a missing route", []string{"OTP.Verify"}, 404, nil, `{"error":{"code":"not_found","message":"No route for POST /api/v1/otp/verify."}}`,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrNotFound)
				assert.Equal(t, sms.PinStateUnknown, sms.PinStateOf(nil, err), "a wrong base path, not the pin")
			}},
		{"OTP smsStatus Insufficient Balance", []string{"OTP.Send"}, 200, nil, `{"data":{"smsStatus":"Insufficient Balance","pinId":"p1"},"status":"200"}`,
			func(t *testing.T, v any, err error) {
				var sf *sms.SendFailedError
				require.ErrorAs(t, err, &sf, "not a sent OTP")
				assert.ErrorIs(t, err, sms.ErrInsufficientBalance)
				assert.Contains(t, err.Error(), "Insufficient Balance")
			}},
		{"balance too large", []string{"Balance.Get"}, 200, nil, fmt.Sprintf(balanceBody, `"balance":1e25`),
			func(t *testing.T, v any, err error) {
				require.ErrorContains(t, err, `"data.balance" is present but unreadable`)
			}},
		{"balance with a thousands separator", []string{"Balance.Get"}, 200, nil, fmt.Sprintf(balanceBody, `"balance":"15,000.00"`),
			func(t *testing.T, v any, err error) {
				require.ErrorContains(t, err, `"data.balance" is present but unreadable`)
				assert.NotContains(t, err.Error(), "missing")
			}},
		{"negative delivery counts", []string{"Campaigns.Delivery", "bulk.WaitCampaign"}, 200, nil, fmt.Sprintf(statusBody, `"status":"sent","counts":{"sent":-1,"delivered":2,"failed":0,"dnd":0}`),
			func(t *testing.T, v any, err error) {
				require.ErrorContains(t, err, "counts.sent is -1")
			}},
		// Member names: id for _id, sender_id or senderId for title.
		{"campaign items keyed id", []string{"Campaigns.List"}, 200, nil, `{"data":[{"id":"c9","status":"sent"}]}`,
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, "c9", firstCampaign(t, v).ID)
			}},
		{"sender IDs keyed id and sender_id or senderId", []string{"SenderIDs.List"}, 200, nil, `{"data":[{"id":"s1","sender_id":"ACME","status":"active"},{"_id":"s2","senderId":"BETA","status":"pending"}]}`,
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				ids := v.(*sms.Page[sms.SenderID]).Items
				require.Len(t, ids, 2)
				assert.Equal(t, []string{"s1", "ACME", "s2", "BETA"}, []string{ids[0].ID, ids[0].Title, ids[1].ID, ids[1].Title})
			}},
		{"keys keyed id", []string{"Keys.List"}, 200, nil, `{"data":[{"id":"k9","publicKey":"pk_test_abc"}]}`,
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, "k9", v.(*sms.Page[sms.Key]).Items[0].ID)
			}},
		// Campaign lists: members of items, and paging.
		{"createdAt in epoch milliseconds", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":1616950260000`, `"pagination":{"page":1,"limit":20,"total":1}`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, at(t, "2021-03-28T16:51:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt in epoch seconds", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":1616950260`, `"pagination":{"page":1,"limit":20,"total":1}`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, at(t, "2021-03-28T16:51:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt DD/MM/YYYY HH:MM", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"29/03/2021 16:51"`, `"pagination":{"page":1,"limit":20,"total":1}`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, at(t, "2021-03-29T16:51:00+01:00").UTC(), *firstCampaign(t, v).CreatedAt, "no zone: West Africa Time")
			}},
		{"createdAt with an offset without a colon", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"2021-03-29T17:51:00+0100"`, `"pagination":{"page":1,"limit":20,"total":1}`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.True(t, at(t, "2021-03-29T16:51:00Z").Equal(*firstCampaign(t, v).CreatedAt))
			}},
		{"createdAt unreadable", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"last Monday","smsParts":"1"`, `"pagination":{"page":1,"limit":20,"total":1}`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err, "one odd member does not fail the page")
				c := firstCampaign(t, v)
				assert.Nil(t, c.CreatedAt)
				assert.Equal(t, ptr(1), c.Parts)
				assert.Equal(t, []string{"data[0].createdAt"}, v.(*sms.Page[sms.Campaign]).Response.Unreadable)
			}},
		// Dates: a time without a zone in the zone the answer states, else West Africa Time;
		// epochs of any unit; SMPP times. Each is 2025-11-29 10:00 UTC.
		{"createdAt without a zone, beside timezone Africa/Lagos", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"2025-11-29 11:00:00"`, `"timezone":"Africa/Lagos"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				require.NotNil(t, firstCampaign(t, v).CreatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt without a zone, beside timezone UTC", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"2025-11-29 10:00:00"`, `"timezone":"UTC"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				require.NotNil(t, firstCampaign(t, v).CreatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt without a zone, beside timezone +02:00", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"2025-11-29 12:00:00"`, `"timezone":"+02:00"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				require.NotNil(t, firstCampaign(t, v).CreatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt without a zone and no timezone: West Africa Time", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"2025-11-29 11:00:00"`, `"requestId":"r"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				require.NotNil(t, firstCampaign(t, v).CreatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt in epoch microseconds", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":1764410400000000`, `"requestId":"r"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				require.NotNil(t, firstCampaign(t, v).CreatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt in epoch nanoseconds", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"1764410400000000000"`, `"requestId":"r"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				require.NotNil(t, firstCampaign(t, v).CreatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt in fractional epoch seconds", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":1764410400.000`, `"requestId":"r"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				require.NotNil(t, firstCampaign(t, v).CreatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt an SMPP absolute time", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"251129110000004+"`, `"requestId":"r"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				require.NotNil(t, firstCampaign(t, v).CreatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt an SMPP receipt's YYMMDDhhmm", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"2511291100"`, `"requestId":"r"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				require.NotNil(t, firstCampaign(t, v).CreatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt an SMPP receipt's YYMMDDhhmmss", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"251129110000"`, `"requestId":"r"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				require.NotNil(t, firstCampaign(t, v).CreatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"createdAt YYYYMMDDhhmmss", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"20251129110000"`, `"requestId":"r"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				require.NotNil(t, firstCampaign(t, v).CreatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *firstCampaign(t, v).CreatedAt)
			}},
		{"a timezone the SDK cannot read", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"createdAt":"2025-11-29 11:00:00","smsParts":1`, `"timezone":"Mars/Olympus_Mons"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Nil(t, firstCampaign(t, v).CreatedAt, "never guessed")
				assert.Equal(t, []string{"timezone"}, v.(*sms.Page[sms.Campaign]).Response.Unreadable)
			}},
		{"a recipient's SMPP done date", []string{"Campaigns.Delivery"}, 200, nil, fmt.Sprintf(statusBody, `"status":"delivered","recipients":[{"to":"2348025671695","status":"DELIVRD","updatedAt":"2511291100"}]`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				st := v.(*sms.Delivery)
				require.NotNil(t, st.Recipients.Items[0].UpdatedAt)
				assert.Equal(t, at(t, "2025-11-29T10:00:00Z"), *st.Recipients.Items[0].UpdatedAt, "not 2049")
			}},
		{"paging under meta with perPage", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"smsParts":1`, `"meta":{"page":"1","perPage":20,"totalCount":"250"}`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.Pagination{Page: 1, Limit: 20, Total: 250}, v.(*sms.Page[sms.Campaign]).Pagination)
			}},
		{"Laravel's paging", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"smsParts":1`, `"current_page":1,"per_page":20,"last_page":13,"total":250`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.Pagination{Page: 1, Limit: 20, Total: 250, Pages: 13}, v.(*sms.Page[sms.Campaign]).Pagination)
			}},
		{"no paging at all", []string{"Campaigns.List"}, 200, nil, fmt.Sprintf(listBody, `"smsParts":1`, `"requestId":"r"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.Pagination{Total: -1}, v.(*sms.Page[sms.Campaign]).Pagination, "the total is unknown, not 0")
			}},
		{"campaign status Delivered", []string{"Campaigns.List"}, 200, nil, strings.Replace(fmt.Sprintf(listBody, `"smsParts":1`, `"requestId":"r"`), `"status":"sent"`, `"status":"DELIVERED"`, 1),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.CampaignStatus("delivered"), firstCampaign(t, v).Status)
			}},
		// Delivery status and Wait.
		{"counts as strings", []string{"Campaigns.Delivery"}, 200, nil, fmt.Sprintf(statusBody, `"status":"Delivered","counts":{"sent":"0","delivered":"1","failed":0,"dnd":0}`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				st := v.(*sms.Delivery)
				assert.Equal(t, &sms.DeliveryCounts{Delivered: 1}, st.Counts)
				assert.True(t, st.Final())
			}},
		{"counts unreadable", []string{"Campaigns.Delivery"}, 200, nil, fmt.Sprintf(statusBody, `"status":"sent","counts":{"sent":"many","delivered":1}`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				st := v.(*sms.Delivery)
				assert.Nil(t, st.Counts, "read whole or not at all")
				assert.Equal(t, []string{"data.counts"}, st.Response.Unreadable)
			}},
		{"recipients of the provider", []string{"Campaigns.Delivery"}, 200, nil,
			fmt.Sprintf(statusBody, `"status":"Message Sent","recipients":[{"to":2348025671695,"status":"DND Active on Phone Number","updatedAt":"2021-03-29 16:51:00"},{"to":"2348025671696","status":"Rejected","updatedAt":{}}]`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				st := v.(*sms.Delivery)
				assert.Equal(t, sms.DeliveryStatusSent, st.Status)
				require.Len(t, st.Recipients.Items, 2)
				assert.Equal(t, "2348025671695", st.Recipients.Items[0].To)
				assert.Equal(t, sms.RecipientStatusDND, st.Recipients.Items[0].Status)
				assert.Equal(t, at(t, "2021-03-29T16:51:00+01:00").UTC(), *st.Recipients.Items[0].UpdatedAt, "no zone: West Africa Time")
				assert.Equal(t, sms.RecipientStatusFailed, st.Recipients.Items[1].Status)
				assert.Equal(t, []string{"data.recipients[1].updatedAt"}, st.Response.Unreadable)
			}},
		{"Wait ends on a word it does not know", []string{"bulk.WaitCampaign"}, 200, nil, fmt.Sprintf(statusBody, `"status":"completed"`),
			func(t *testing.T, v any, err error) {
				require.ErrorContains(t, err, `"completed"`)
				require.NotNil(t, v.(*sms.Delivery), "with the status that carried it")
			}},
		{"Wait ends on the provider's Delivered", []string{"bulk.WaitCampaign"}, 200, nil, fmt.Sprintf(statusBody, `"status":"Delivered"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.DeliveryStatusDelivered, v.(*sms.Delivery).Status)
			}},
		{"Wait ends on DND", []string{"bulk.WaitCampaign"}, 200, nil, fmt.Sprintf(statusBody, `"status":"DND Active on Phone Number"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.DeliveryStatusDND, v.(*sms.Delivery).Status)
			}},
		// OTP.
		{"OTP failed: smsStatus", []string{"OTP.Send"}, 200, nil, `{"data":{"smsStatus":"Message Failed","pinId":"p1","phone_number":"2348025671695"}}`,
			func(t *testing.T, v any, err error) {
				var sf *sms.SendFailedError
				require.ErrorAs(t, err, &sf)
				assert.ErrorIs(t, err, sms.ErrSendFailed)
				assert.NotErrorIs(t, err, sms.ErrOutcomeUnknown, "the server said what happened")
				assert.Equal(t, "p1", sf.OTP.PinID)
				assert.Contains(t, err.Error(), "Message Failed")
			}},
		{"OTP failed: inner status", []string{"OTP.Send"}, 200, nil, `{"data":{"smsStatus":"Message Sent","pinId":"p1","status":"400"}}`,
			func(t *testing.T, v any, err error) {
				var sf *sms.SendFailedError
				require.ErrorAs(t, err, &sf)
				assert.Equal(t, sms.AnswerStatus("400"), sf.Status)
				assert.Equal(t, sms.SMSStatusSent, sf.OTP.SMSStatus)
			}},
		{"OTP failed: issue's shape", []string{"OTP.Send"}, 200, nil, `{"smsStatus":"Message Failed","status":"400"}`,
			func(t *testing.T, v any, err error) {
				var sf *sms.SendFailedError
				require.ErrorAs(t, err, &sf)
				assert.Equal(t, sms.AnswerStatus("400"), sf.Status)
			}},
		{"OTP sent: an smsStatus of no constant is kept as written", []string{"OTP.Send"}, 200, nil, `{"data":{"smsStatus":"Queued for delivery","pinId":"p1"},"status":"200"}`,
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.SMSStatus("Queued for delivery"), v.(*sms.OTP).SMSStatus)
			}},
		{"OTP sent: number and amount as they come", []string{"OTP.Send"}, 200, nil, fmt.Sprintf(otpBody, `"phone_number":2348025671695,"status":200,"amount":"3.20"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				o := v.(*sms.OTP)
				assert.Equal(t, "2348025671695", o.To)
				assert.Equal(t, ptr(sms.AmountFromKobo(320)), o.Amount)
			}},
		{"verified, msisdn a number, attempts a string", []string{"OTP.Verify"}, 200, nil, fmt.Sprintf(verifyBody, `"verified":"True","msisdn":2348025671695,"attemptsRemaining":"2"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				vf := v.(*sms.Verification)
				assert.Equal(t, sms.PinStateVerified, sms.PinStateOf(vf, err))
				assert.Equal(t, "2348025671695", vf.To)
				assert.Equal(t, ptr(2), vf.AttemptsRemaining)
			}},
		{"attempts unreadable", []string{"OTP.Verify"}, 200, nil, fmt.Sprintf(verifyBody, `"verified":false,"attemptsRemaining":"some"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				vf := v.(*sms.Verification)
				assert.Equal(t, sms.PinStateWrong, sms.PinStateOf(vf, err))
				assert.Nil(t, vf.AttemptsRemaining)
				assert.Equal(t, []string{"data.attemptsRemaining"}, vf.Response.Unreadable)
			}},
		// Pin states from codes and statuses before words.
		{"429 Django REST's throttle", []string{"OTP.Verify"}, 429, nil, `{"detail":"Request was throttled. Expected available in 59 seconds."}`,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrRateLimited)
				assert.Equal(t, sms.PinStateUnknown, sms.PinStateOf(nil, err), "a throttle, not a locked pin: a new OTP would meet it too")
			}},
		{"429 Laravel's Too Many Attempts.", []string{"OTP.Verify"}, 429, nil, `{"message":"Too Many Attempts."}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateUnknown, sms.PinStateOf(nil, err))
			}},
		{"429 Limit Exceeded", []string{"OTP.Verify"}, 429, nil, `{"message":"Limit Exceeded"}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateUnknown, sms.PinStateOf(nil, err))
			}},
		{"429 with a code naming the pin", []string{"OTP.Verify"}, 429, nil, `{"error":{"code":"pin_locked","message":"Try later."}}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateLocked, sms.PinStateOf(nil, err))
			}},
		{"410 for an expired pin", []string{"OTP.Verify"}, 410, nil, `{"message":"Gone"}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateExpired, sms.PinStateOf(nil, err))
			}},
		{"409 for a pin already verified", []string{"OTP.Verify"}, 409, nil, `{"message":"Conflict"}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateAlreadyVerified, sms.PinStateOf(nil, err))
			}},
		{"attemptsRemaining 0", []string{"OTP.Verify"}, 200, nil, fmt.Sprintf(verifyBody, `"verified":false,"attemptsRemaining":0`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.PinStateLocked, sms.PinStateOf(v.(*sms.Verification), err), "no try left: not \"try again\"")
			}},
		{"200 status false Pin has expired", []string{"OTP.Verify"}, 200, nil, `{"status":false,"message":"Pin has expired","data":{"verified":false}}`,
			func(t *testing.T, v any, err error) {
				require.Error(t, err)
				assert.Equal(t, sms.PinStateExpired, sms.PinStateOf(nil, err), "the words name its state")
			}},
		{"OTP smsStatus DND Active on Phone Number", []string{"OTP.Send"}, 200, nil, `{"data":{"smsStatus":"DND Active on Phone Number","pinId":"p1","status":"200"}}`,
			func(t *testing.T, v any, err error) {
				var sf *sms.SendFailedError
				require.ErrorAs(t, err, &sf, "never a sent OTP")
				assert.Contains(t, err.Error(), "DND Active on Phone Number")
			}},
		// Errors in any shape.
		{`{"error":"..."}`, []string{"OTP.Verify"}, 400, nil, `{"error":"Pin has expired"}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateExpired, sms.PinStateOf(nil, err))
				assert.Equal(t, "Pin has expired", apiError(t, err).Message)
			}},
		{`{"message":"..."}`, []string{"OTP.Verify"}, 400, nil, `{"message":"Pin has expired"}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateExpired, sms.PinStateOf(nil, err))
				assert.Equal(t, "Pin has expired", apiError(t, err).Message)
			}},
		{`{"errors":[strings]}`, []string{"OTP.Verify"}, 400, nil, `{"errors":["This pin was replaced by a newer one"]}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateReplaced, sms.PinStateOf(nil, err))
			}},
		{`{"errors":[objects]}`, []string{"OTP.Verify"}, 400, nil, `{"errors":[{"code":"pin_used","message":"Pin already verified"}]}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateAlreadyVerified, sms.PinStateOf(nil, err))
				assert.Equal(t, "pin_used", apiError(t, err).Code)
			}},
		{"404 of the API", []string{"OTP.Verify"}, 404, nil, `{"error":{"code":"not_found","message":"Pin not found."}}`,
			func(t *testing.T, v any, err error) {
				assert.Equal(t, sms.PinStateNotFound, sms.PinStateOf(nil, err))
			}},
		{"404 of a router", []string{"OTP.Verify"}, 404, http.Header{"Content-Type": {"text/html"}}, `<html>Not Found</html>`,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrNotFound)
				assert.Equal(t, sms.PinStateUnknown, sms.PinStateOf(nil, err), "not the service's word on the pin")
			}},
		{"403 of a firewall", []string{"Balance.Get", "SMS.Send", "OTP.Verify"}, 403, http.Header{"Content-Type": {"text/html"}}, html403,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrForbidden)
				assert.NotErrorIs(t, err, sms.ErrInsufficientScope)
				var se *sms.ScopeError
				assert.False(t, errors.As(err, &se), "no scope would help")
				assert.Contains(t, apiError(t, err).Snippet, "blocked by the WAF")
				assert.Contains(t, err.Error(), "blocked by the WAF")
			}},
		{"403 of the API", []string{"Balance.Get"}, 403, nil, `{"error":{"code":"insufficient_scope","message":"no"}}`,
			func(t *testing.T, v any, err error) {
				var se *sms.ScopeError
				require.ErrorAs(t, err, &se)
				assert.Equal(t, sms.ScopeBalance, se.Scope)
			}},
		{"a 400 whose code is insufficient_balance", []string{"SMS.Send", "Campaigns.Create"}, 400, nil, `{"error":{"code":"insufficient_balance","message":"Low balance."}}`,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrInsufficientBalance, "the code first")
				assert.NotErrorIs(t, err, sms.ErrBadRequest)
				assert.Equal(t, "Low balance.", apiError(t, err).Message)
			}},
		{"an error with a BOM", []string{"Balance.Get"}, 402, nil, bom + `{"error":{"code":"insufficient_balance","message":"Insufficient wallet balance."}}`,
			func(t *testing.T, v any, err error) {
				assert.ErrorIs(t, err, sms.ErrInsufficientBalance)
				assert.Equal(t, "Insufficient wallet balance.", apiError(t, err).Message)
			}},
		// Balance.
		{"balance as strings", []string{"Balance.Get"}, 200, nil, fmt.Sprintf(balanceBody, `"balance":"1500.00","cashback":"0"`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.AmountFromKobo(150_000), v.(*sms.Balance).Balance)
			}},
		{"balance with a BOM", []string{"Balance.Get"}, 200, nil, bom + fmt.Sprintf(balanceBody, `"balance":15000`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.AmountFromKobo(1_500_000), v.(*sms.Balance).Balance)
			}},
		{"cashback unreadable", []string{"Balance.Get"}, 200, nil, fmt.Sprintf(balanceBody, `"balance":1,"cashback":[0]`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, []string{"data.cashback"}, v.(*sms.Balance).Response.Unreadable)
				assert.Nil(t, v.(*sms.Balance).Cashback, "unreadable is absent, not 0.00")
			}},
		{"cashback absent", []string{"Balance.Get"}, 200, nil, fmt.Sprintf(balanceBody, `"balance":1`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Nil(t, v.(*sms.Balance).Cashback, "absent is nil, never a real 0.00")
			}},
		{"balance unreadable", []string{"Balance.Get"}, 200, nil, fmt.Sprintf(balanceBody, `"balance":"lots"`),
			func(t *testing.T, v any, err error) { require.ErrorContains(t, err, "data.balance") }},
		{"balance in kobo", []string{"Balance.Get"}, 200, nil, `{"data":{"balance":150000,"cashback":"2500","currency":"NGN","unit":"kobo"}}`,
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.AmountFromKobo(150_000), v.(*sms.Balance).Balance, "1,500.00 naira, not 150,000.00")
				assert.Equal(t, ptr(sms.AmountFromKobo(2500)), v.(*sms.Balance).Cashback)
			}},
		{"balance in naira, stated", []string{"Balance.Get"}, 200, nil, `{"data":{"balance":"1500.00","currency":"NGN","unit":"naira"}}`,
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				assert.Equal(t, sms.AmountFromKobo(150_000), v.(*sms.Balance).Balance)
			}},
		{"balance in a unit the SDK does not know", []string{"Balance.Get"}, 200, nil, `{"data":{"balance":1500,"currency":"NGN","unit":"credits"}}`,
			func(t *testing.T, v any, err error) {
				require.ErrorContains(t, err, `"data.unit" is "credits"`, "never guessed")
			}},
		{"kobo with a fraction", []string{"Balance.Get"}, 200, nil, `{"data":{"balance":1500.5,"currency":"NGN","unit":"kobo"}}`,
			func(t *testing.T, v any, err error) {
				require.ErrorContains(t, err, `"data.balance" is present but unreadable`)
			}},
		// Sender IDs.
		{"sender ID words", []string{"SenderIDs.List"}, 200, nil, `{"data":[{"title":"ACME","status":"Active"},{"title":"BETA","status":"Rejected"},{"title":"GAMMA","status":"PENDING","createdAt":"29/03/2021 16:51","_id":77}]}`,
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				ids := v.(*sms.Page[sms.SenderID]).Items
				require.Len(t, ids, 3)
				assert.Equal(t, []sms.SenderIDStatus{sms.SenderIDStatusActive, sms.SenderIDStatusBlocked, sms.SenderIDStatusPending}, []sms.SenderIDStatus{ids[0].Status, ids[1].Status, ids[2].Status})
				assert.Equal(t, "77", ids[2].ID)
				assert.Equal(t, at(t, "2021-03-29T16:51:00+01:00").UTC(), *ids[2].CreatedAt, "no zone: West Africa Time")
			}},
		{"sender ID createdAt unreadable", []string{"SenderIDs.List"}, 200, nil, fmt.Sprintf(senderBody, `"status":"active","createdAt":true`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				page := v.(*sms.Page[sms.SenderID])
				assert.Nil(t, page.Items[0].CreatedAt)
				assert.Equal(t, []string{"data[0].createdAt"}, page.Response.Unreadable)
			}},
		// Keys.
		{"key scopes as an array, times as epochs", []string{"Keys.Create"}, 201, nil, fmt.Sprintf(keyBody, `"secret":"sk_test_def","scopes":["sms","balance"],"createdAt":1616950260`),
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				k := v.(*sms.Key)
				assert.Equal(t, sms.Scopes{sms.ScopeSMS, sms.ScopeBalance}, k.Scopes)
				assert.Equal(t, at(t, "2021-03-28T16:51:00Z"), *k.CreatedAt)
			}},
		{"revokedAt unreadable", []string{"Keys.Revoke"}, 200, nil, fmt.Sprintf(keyBody, `"revokedAt":"soon"`),
			func(t *testing.T, v any, err error) {
				require.ErrorContains(t, err, "data.revokedAt", "required by Revoke")
			}},
		{"key times unreadable in a list", []string{"Keys.List"}, 200, nil, `{"data":[{"_id":"k1","publicKey":"pk_test_abc","lastUsedAt":"soon","scopes":"sms"}]}`,
			func(t *testing.T, v any, err error) {
				require.NoError(t, err)
				page := v.(*sms.Page[sms.Key])
				assert.Nil(t, page.Items[0].LastUsedAt)
				assert.Equal(t, []string{"data[0].scopes", "data[0].lastUsedAt"}, page.Response.Unreadable)
			}},
	}
	for _, tt := range tests {
		for _, name := range tt.calls {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				call, ok := sdkCalls[name]
				require.True(t, ok, name)
				c, d := serveOnce(t, tt.status, tt.header, tt.body)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				v, err := call(ctx, c, d)
				tt.check(t, v, err)
			})
		}
	}
}

// pagedServer serves a list of n campaigns, newest first, paged by the page and limit asked
// for (or always size a page when size is not 0), with the paging members that paging writes
// for a page, limit and total. It counts the requests.
func pagedServer(t *testing.T, n, size int, paging func(page, limit, total int) string) (*sms.Client, *atomic.Int64) {
	t.Helper()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		page = max(page, 1)
		if limit == 0 {
			limit = 20
		}
		if size > 0 {
			limit = size
		}
		var b strings.Builder
		b.WriteString(`{"data":[`)
		for i := (page - 1) * limit; i < min(page*limit, n); i++ {
			if i > (page-1)*limit {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"_id":"c%d","status":"sent","amount":"3.20"}`, i)
		}
		b.WriteString("]")
		if p := paging(page, limit, n); p != "" {
			b.WriteString("," + p)
		}
		b.WriteString("}")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	c, err := sms.NewClient(fakeKey, fakeSecret, sms.WithBaseURL(srv.URL), sms.WithMaxRetries(0))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c, &requests
}

// Campaigns.All reads every campaign whatever paging members the answers carry, or none:
// it never stops early in silence.
func TestAllWalksEveryPagingShape(t *testing.T) {
	t.Parallel()
	const n = 250
	tests := []struct {
		name   string
		size   int // the server's page size whatever is asked (All asks for 100), or 0
		paging func(page, limit, total int) string
	}{
		{"the service's", 0, func(p, l, n int) string {
			return fmt.Sprintf(`"pagination":{"page":%d,"limit":%d,"total":%d}`, p, l, n)
		}},
		{"pages only", 0, func(p, l, n int) string { return fmt.Sprintf(`"pagination":{"page":%d,"pages":%d}`, p, (n+l-1)/l) }},
		{"totalCount only", 0, func(p, l, n int) string { return fmt.Sprintf(`"pagination":{"totalCount":%d}`, n) }},
		{"meta with perPage", 0, func(p, l, n int) string { return fmt.Sprintf(`"meta":{"page":%d,"perPage":%d,"total":"%d"}`, p, l, n) }},
		{"Laravel", 0, func(p, l, n int) string {
			return fmt.Sprintf(`"current_page":%d,"per_page":%d,"last_page":%d,"total":%d`, p, l, (n+l-1)/l, n)
		}},
		{"none at all", 0, func(p, l, n int) string { return "" }},
		{"a page size capped without saying, with a total", 30, func(p, l, n int) string { return fmt.Sprintf(`"pagination":{"total":%d}`, n) }},
		{"a page size capped and said", 30, func(p, l, n int) string { return fmt.Sprintf(`"meta":{"per_page":%d}`, l) }},
		{"a larger page size, not said, with a total", 150, func(p, l, n int) string { return fmt.Sprintf(`"pagination":{"total":%d}`, n) }},
		{"a larger page size, not said, no total", 150, func(p, l, n int) string { return "" }},
		{"has_more only, a page size capped without saying", 50, func(p, l, n int) string { return fmt.Sprintf(`"has_more":%t`, p*l < n) }},
		{"Laravel with next_page_url", 0, func(p, l, n int) string {
			return fmt.Sprintf(`"current_page":%d,"per_page":%d,"next_page_url":"/v1/sms/campaigns?page=%d"`, p, l, p+1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _ := pagedServer(t, n, tt.size, tt.paging)
			seen := map[string]bool{}
			for camp, err := range c.Campaigns.All(context.Background(), nil) {
				require.NoError(t, err)
				require.False(t, seen[camp.ID], "%s yielded twice", camp.ID)
				seen[camp.ID] = true
			}
			assert.Len(t, seen, n, "every campaign")
		})
	}
}

// Without a total, the walk goes on to the first short or empty page.
func TestAllWithoutTotalReadsToTheEmptyPage(t *testing.T) {
	t.Parallel()
	c, requests := pagedServer(t, 1000, 0, func(p, l, n int) string { return "" })
	n := 0
	for _, err := range c.Campaigns.All(context.Background(), &sms.ListCampaignsParams{Limit: 10}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 1000, n)
	assert.EqualValues(t, 101, requests.Load(), "100 full pages, then an empty one")
}

// A server that answers every page with the same full page and no total ends the walk with
// an error, never a silent stop nor an endless loop.
func TestAllWithoutTotalAgainstAServerIgnoringThePage(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, `,{"_id":"c%d","status":"sent"}`, i)
	}
	c, _ := serveOnce(t, 200, nil, `{"data":[`+b.String()[1:]+`]}`)
	n, last := drain(c.Campaigns.All(context.Background(), &sms.ListCampaignsParams{Limit: 20}))
	require.Error(t, last)
	assert.Contains(t, last.Error(), "ignoring the page asked for")
	assert.Equal(t, 20, n, "each campaign once")
}

// SendBulk whose batches are answered with the same campaign: the second batch's outcome is
// unknown (its answer is not about it); WaitBulk counts a campaign named twice once.
func TestBulkCampaignNamedTwice(t *testing.T) {
	t.Parallel()
	var statusReads atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			statusReads.Add(1)
			_, _ = w.Write([]byte(`{"data":{"campaignId":"same","status":"delivered","counts":{"sent":0,"delivered":2,"failed":0,"dnd":0}}}`))
			return
		}
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"campaign":{"id":"same","status":"sent","recipients":2,"amount":6.40}}`))
	}))
	t.Cleanup(srv.Close)
	c, err := sms.NewClient(fakeKey, fakeSecret, sms.WithBaseURL(srv.URL), sms.WithMaxRetries(0))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	people := []sms.Recipient{{Phone: "08025671691"}, {Phone: "08025671692"}, {Phone: "08025671693"}, {Phone: "08025671694"}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := bulk.Send(ctx, c, &bulk.Params{JobID: "twice", From: "ACME", Message: "Hi", Recipients: bulk.RecipientsFrom(people), BatchSize: 2, Concurrency: 1})
	require.ErrorIs(t, err, sms.ErrOutcomeUnknown)
	require.Len(t, r.Batches, 2)
	assert.Equal(t, "same", r.Batches[0].CampaignID)
	assert.False(t, r.Batches[0].Unconfirmed)
	assert.True(t, r.Batches[1].Unconfirmed, "its answer names another batch's campaign")
	assert.Contains(t, r.Batches[1].Err.Error(), "already answered for batch 0")

	twice := &bulk.Report{JobID: "twice", Batches: []bulk.Batch{{Index: 0, CampaignID: "same"}, {Index: 1, CampaignID: "same"}}}
	d, err := bulk.Wait(ctx, c, twice, &bulk.WaitParams{MinDelay: time.Millisecond, MaxDelay: time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, 1, d.Campaigns)
	assert.Equal(t, sms.DeliveryCounts{Delivered: 2}, d.Counts, "counted once")
	assert.EqualValues(t, 1, statusReads.Load())
}

// Wait and WaitBulk that poll through 502s until their deadline end with an error that
// matches both the deadline and ErrServer, and shows the server's words.
func TestWaitDeadlineKeepsTheLastPollsError(t *testing.T) {
	t.Parallel()
	c, _ := serveOnce(t, http.StatusBadGateway, nil, `{"error":{"code":"server_error","message":"Upstream timed out."}}`)
	fast := &bulk.WaitParams{MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}
	for name, wait := range map[string]func(ctx context.Context) error{
		"Wait": func(ctx context.Context) error { _, err := bulk.WaitCampaign(ctx, c, "c1", fast); return err },
		"WaitBulk": func(ctx context.Context) error {
			r := &bulk.Report{JobID: "j", Batches: []bulk.Batch{{CampaignID: "c1"}, {Index: 1, CampaignID: "c2"}}}
			_, err := bulk.Wait(ctx, c, r, fast)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			err := wait(ctx)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.ErrorIs(t, err, sms.ErrServer, "the last poll's answer")
			assert.Contains(t, err.Error(), "Upstream timed out.")
		})
	}
}

// cursorServer serves a list of n campaigns, 50 a page whatever is asked, paged by the
// cursor or the URL that paging writes for the index of the next page's first item (-1 when
// none follows).
func cursorServer(t *testing.T, n int, paging func(base string, next int) string) *sms.Client {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
		if a := r.URL.Query().Get("after"); a != "" {
			from, _ = strconv.Atoi(a)
		}
		var b strings.Builder
		b.WriteString(`{"data":[`)
		for i := from; i < min(from+50, n); i++ {
			if i > from {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"c%d","status":"sent"}`, i)
		}
		next := from + 50
		if next >= n {
			next = -1
		}
		b.WriteString("]," + paging(srv.URL, next) + "}")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	c, err := sms.NewClient(fakeKey, fakeSecret, sms.WithBaseURL(srv.URL), sms.WithMaxRetries(0))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// Campaigns.All follows cursor answers to the end, and never stops in silence when it cannot.
func TestAllFollowsCursors(t *testing.T) {
	t.Parallel()
	const n = 175
	tests := []struct {
		name    string
		paging  func(base string, next int) string
		wantErr string // "" when every campaign is read
	}{
		{"next_cursor and has_more", func(_ string, next int) string {
			if next < 0 {
				return `"next_cursor":null,"has_more":false`
			}
			return fmt.Sprintf(`"next_cursor":"%d","has_more":true`, next)
		}, ""},
		{"meta.nextCursor", func(_ string, next int) string {
			if next < 0 {
				return `"meta":{}`
			}
			return fmt.Sprintf(`"meta":{"nextCursor":"%d"}`, next)
		}, ""},
		{"links.next", func(base string, next int) string {
			if next < 0 {
				return `"links":{"next":null}`
			}
			return fmt.Sprintf(`"links":{"next":"%s/v1/sms/campaigns?after=%d"}`, base, next)
		}, ""},
		{"next_page_url, relative", func(_ string, next int) string {
			if next < 0 {
				return `"next_page_url":null`
			}
			return fmt.Sprintf(`"next_page_url":"/v1/sms/campaigns?after=%d"`, next)
		}, ""},
		{"has_more without a cursor, pages ignored", func(_ string, next int) string { return `"has_more":true` }, "ignoring the page asked for"},
		{"the same cursor again", func(_ string, next int) string { return `"next_cursor":"0","has_more":true` }, "same cursor"},
		{"a next page on another host", func(_ string, next int) string {
			return fmt.Sprintf(`"links":{"next":"https://elsewhere.example/v1/sms/campaigns?after=%d"}`, next)
		}, "not followed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := cursorServer(t, n, tt.paging)
			seen := map[string]bool{}
			var last error
			for camp, err := range c.Campaigns.All(context.Background(), nil) {
				if err != nil {
					last = err
					break
				}
				require.False(t, seen[camp.ID], "%s yielded twice", camp.ID)
				seen[camp.ID] = true
			}
			if tt.wantErr == "" {
				require.NoError(t, last)
				assert.Len(t, seen, n, "every campaign")
				return
			}
			require.Error(t, last, "never a silent stop")
			assert.Contains(t, last.Error(), tt.wantErr)
		})
	}
}

// A total that the items contradict is not trusted: the list reads as of unknown size, and
// All reads on.
func TestTotalContradictedByTheItems(t *testing.T) {
	t.Parallel()
	c, _ := pagedServer(t, 250, 0, func(p, l, n int) string { return `"pagination":{"total":0}` })
	page, err := c.Campaigns.List(context.Background(), &sms.ListCampaignsParams{Limit: 100})
	require.NoError(t, err)
	assert.Len(t, page.Items, 100)
	assert.Equal(t, -1, page.Total, "100 items: the total 0 is wrong")
	assert.Equal(t, []string{"pagination.total"}, page.Response.Unreadable)
	n, last := drain(c.Campaigns.All(context.Background(), nil))
	require.NoError(t, last)
	assert.Equal(t, 250, n)
}

// serverPaged serves a list of n items at path, 25 a page whatever is asked (page by page,
// or from the index a cursor or an after parameter names), each item written by item. paging
// writes the page's paging, as headers and body members, for the page number, the index of
// the next page's first item (-1 when none follows) and n. It counts the requests.
func serverPaged(t *testing.T, path string, n int, item func(i int) string, paging func(base string, page, next, n int) (http.Header, string)) (*sms.Client, *sms.DashboardClient, *atomic.Int64) {
	t.Helper()
	const size = 25
	var requests atomic.Int64
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		page := max(1, atoiOr(q.Get("page"), 1))
		from := (page - 1) * size
		for _, name := range []string{"cursor", "after"} {
			if c := q.Get(name); c != "" {
				from = atoiOr(strings.TrimPrefix(c, "b64/"), 0)
			}
		}
		var b strings.Builder
		b.WriteString(`{"data":[`)
		for i := from; i < min(from+size, n); i++ {
			if i > from {
				b.WriteByte(',')
			}
			b.WriteString(item(i))
		}
		next := from + size
		if next >= n {
			next = -1
		}
		h, members := paging(srv.URL, page, next, n)
		b.WriteString("]")
		if members != "" {
			b.WriteString("," + members)
		}
		b.WriteString("}")
		for k, v := range h {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	c, err := sms.NewClient(fakeKey, fakeSecret, sms.WithBaseURL(srv.URL), sms.WithMaxRetries(0))
	require.NoError(t, err)
	d, err := sms.NewDashboardClient(fakeJWT, sms.WithBaseURL(srv.URL), sms.WithMaxRetries(0))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	t.Cleanup(d.CloseIdleConnections)
	return c, d, &requests
}

func atoiOr(s string, or int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return or
}

// Every list's All reads every item whatever paging form a server uses, in the body or in the
// headers; a list the API returns whole (keys, sender IDs) is walked when a server pages it.
func TestAllReadsPagingInEveryForm(t *testing.T) {
	t.Parallel()
	const n = 60
	none := http.Header(nil)
	link := func(base string, next int) http.Header {
		if next < 0 {
			return http.Header{"Link": {fmt.Sprintf(`<%s/v1/sms/campaigns?page=1>; rel="first"`, base)}}
		}
		return http.Header{"Link": {fmt.Sprintf(`<%s/v1/sms/campaigns?page=1>; rel="first", <%s/v1/sms/campaigns?after=%d>; rel="next"`, base, base, next)}}
	}
	campaign := func(i int) string { return fmt.Sprintf(`{"_id":"c%d","status":"sent"}`, i) }
	tests := []struct {
		name   string
		paging func(base string, page, next, n int) (http.Header, string)
	}{
		{"Laravel's paginator, its links an array", func(base string, p, next, n int) (http.Header, string) {
			return none, fmt.Sprintf(`"current_page":%d,"per_page":25,"last_page":3,"total":%d,"links":[{"url":null,"label":"&laquo; Previous","active":false},{"url":"%s/v1/sms/campaigns?page=1","label":"1","active":true}],"next_page_url":"%s/v1/sms/campaigns?page=%d","path":"%s/v1/sms/campaigns"`, p, n, base, base, p+1, base)
		}},
		{"a Link header", func(base string, _, next, _ int) (http.Header, string) { return link(base, next), "" }},
		{"X-Total-Count", func(_ string, _, _, n int) (http.Header, string) {
			return http.Header{"X-Total-Count": {strconv.Itoa(n)}}, ""
		}},
		{"the next cursor in a header", func(_ string, _, next, _ int) (http.Header, string) {
			if next < 0 {
				return none, ""
			}
			return http.Header{"X-Next-Cursor": {strconv.Itoa(next)}}, ""
		}},
		{"JSON:API link objects", func(base string, _, next, _ int) (http.Header, string) {
			if next < 0 {
				return none, `"links":{"self":{"href":"x"},"next":null}`
			}
			return none, fmt.Sprintf(`"links":{"self":{"href":"x"},"next":{"href":"%s/v1/sms/campaigns?after=%d"}}`, base, next)
		}},
		{"Django REST's count and next", func(base string, _, next, n int) (http.Header, string) {
			if next < 0 {
				return none, fmt.Sprintf(`"count":%d,"next":null`, n)
			}
			return none, fmt.Sprintf(`"count":%d,"next":"%s/v1/sms/campaigns?after=%d"`, n, base, next)
		}},
		{"a base64 cursor holding a /", func(_ string, _, next, _ int) (http.Header, string) {
			if next < 0 {
				return none, `"next_cursor":null`
			}
			return none, fmt.Sprintf(`"next_cursor":"b64/%d"`, next)
		}},
		{"a relative ?cursor= link", func(_ string, _, next, _ int) (http.Header, string) {
			if next < 0 {
				return none, `"links":{"next":null}`
			}
			return none, fmt.Sprintf(`"links":{"next":"?cursor=%d"}`, next)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := serverPaged(t, "/v1/sms/campaigns", n, campaign, tt.paging)
			page, err := c.Campaigns.List(context.Background(), nil)
			require.NoError(t, err, "a page is read whatever its paging form")
			assert.Len(t, page.Items, 25)
			seen := map[string]bool{}
			for camp, err := range c.Campaigns.All(context.Background(), nil) {
				require.NoError(t, err)
				require.False(t, seen[camp.ID], "%s yielded twice", camp.ID)
				seen[camp.ID] = true
			}
			assert.Len(t, seen, n, "every campaign, not the first page's 25")
		})
	}

	t.Run("sender IDs paged by the server", func(t *testing.T) {
		t.Parallel()
		c, _, _ := serverPaged(t, "/v1/sender-ids", n, func(i int) string { return fmt.Sprintf(`{"title":"S%d","status":"active"}`, i) },
			func(_ string, _, next, _ int) (http.Header, string) {
				if next < 0 {
					return none, `"has_more":false`
				}
				return none, fmt.Sprintf(`"next_cursor":"%d","has_more":true`, next)
			})
		got, last := drain(c.SenderIDs.All(context.Background(), nil))
		require.NoError(t, last)
		assert.Equal(t, n, got)
	})
	t.Run("keys paged by the server", func(t *testing.T) {
		t.Parallel()
		_, d, requests := serverPaged(t, "/v1/keys", n, func(i int) string { return fmt.Sprintf(`{"_id":"k%d","publicKey":"pk_test_%d"}`, i, i) },
			func(_ string, p, _, n int) (http.Header, string) {
				return none, fmt.Sprintf(`"count":%d,"page":%d`, n, p)
			})
		got, last := drain(d.Keys.All(context.Background(), nil))
		require.NoError(t, last)
		assert.Equal(t, n, got)
		assert.EqualValues(t, 3, requests.Load())
	})
}

// A cursor walk that cannot end well ends with an error that says why: a cycle of cursors,
// or a run of empty pages each with a new cursor, never duplicates without end nor 10,000
// requests.
func TestAllStopsOnCursorCyclesAndEmptyRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		answer  func(cursor string) string
		wantErr string
		maxReqs int64
	}{
		{"c1 -> c2 -> c1", func(cursor string) string {
			next := map[string]string{"": "c1", "c1": "c2", "c2": "c1"}[cursor]
			return fmt.Sprintf(`{"data":[{"_id":"x%s","status":"sent"}],"next_cursor":"%s","has_more":true}`, cursor, next)
		}, "cycle", 4},
		{"empty pages with fresh cursors", func(cursor string) string {
			return fmt.Sprintf(`{"data":[],"next_cursor":"%s-n","has_more":true}`, cursor)
		}, "added no new item", 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var requests atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if requests.Add(1) > 100 {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(tt.answer(r.URL.Query().Get("cursor"))))
			}))
			t.Cleanup(srv.Close)
			c, err := sms.NewClient(fakeKey, fakeSecret, sms.WithBaseURL(srv.URL), sms.WithMaxRetries(0))
			require.NoError(t, err)
			t.Cleanup(c.CloseIdleConnections)
			seen := map[string]bool{}
			var last error
			for camp, err := range c.Campaigns.All(context.Background(), nil) {
				if err != nil {
					last = err
					break
				}
				require.False(t, seen[camp.ID], "%s yielded twice", camp.ID)
				seen[camp.ID] = true
			}
			require.Error(t, last)
			assert.Contains(t, last.Error(), tt.wantErr)
			assert.LessOrEqual(t, requests.Load(), tt.maxReqs)
		})
	}
}

// WithTimeZone sets the zone of the times an answer writes without one and does not state a
// zone for; an answer's timezone member still wins.
func TestWithTimeZone(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, top string
		want      string
	}{
		{"no timezone: the client's", `"requestId":"r"`, "2025-11-29T11:00:00Z"},
		{"the answer's timezone", `"timezone":"Africa/Lagos"`, "2025-11-29T10:00:00Z"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = fmt.Fprintf(w, listBody, `"createdAt":"2025-11-29 11:00:00"`, tt.top)
			}))
			t.Cleanup(srv.Close)
			c, err := sms.NewClient(fakeKey, fakeSecret, sms.WithBaseURL(srv.URL), sms.WithTimeZone(time.UTC))
			require.NoError(t, err)
			t.Cleanup(c.CloseIdleConnections)
			page, err := c.Campaigns.List(context.Background(), nil)
			require.NoError(t, err)
			assert.Equal(t, at(t, tt.want), *page.Items[0].CreatedAt)
		})
	}
	_, err := sms.NewClient(fakeKey, fakeSecret, sms.WithBaseURL("https://api.example.com"), sms.WithTimeZone(nil))
	require.ErrorContains(t, err, "WithTimeZone")
}
