package sms_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	sms "github.com/seedsms/sms-go"
)

// FuzzErrorBody feeds arbitrary answers to the SDK: an error status always gives a typed error
// carrying that status (never a panic, whatever the body), and a success with an undecodable
// body gives an error, not a half-filled result.
func FuzzErrorBody(f *testing.F) {
	for _, seed := range []struct {
		status     int
		retryAfter string
		body       string
	}{
		{402, "", `{"error":{"code":"insufficient_balance","message":"Insufficient wallet balance."},"requestId":"req_1"}`},
		{403, "", `{"error":{"code":"insufficient_scope","message":"no","scope":"balance"},"requestId":"req_2"}`},
		{429, "7", `{"error":{"code":"rate_limited","message":"slow down"}}`},
		{429, "Wed, 21 Oct 2015 07:28:00 GMT", `{}`},
		{400, "", `{"error":{"code":5,"message":["x"]}}`},
		{500, "", `<html>bad gateway</html>`},
		{503, "-1", ``},
		{404, "", `{"error":null,"requestId":null}`},
		{200, "", `{"data":{"balance":"x"}}`},
		{200, "", `{"data":{"balance":1e400,"cashback":0,"currency":"NGN"}}`},
		{200, "", `{"data":{"balance":0.001,"cashback":0,"currency":"NGN"}}`},
		{200, "", `[`},
	} {
		f.Add(seed.status, seed.retryAfter, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, status int, retryAfter string, body []byte) {
		status = 200 + abs(status)%400 // 200 to 599
		h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_fuzz"}}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		c := newClientFor(t, &answer{status: status, header: h, body: body}, sms.WithMaxRetries(0))
		b, err := c.Balance.Get(context.Background(), nil)
		if status < 300 {
			if err == nil && b == nil {
				t.Fatal("no error and no balance")
			}
			return
		}
		if err == nil {
			t.Fatalf("status %d gave no error", status)
		}
		var apiErr *sms.Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("status %d: %T is not an *sms.Error: %v", status, err, err)
		}
		if apiErr.StatusCode != status || apiErr.Code == "" || apiErr.Error() == "" {
			t.Fatalf("status %d: %+v", status, apiErr)
		}
		if apiErr.RetryAfter < 0 {
			t.Fatalf("negative RetryAfter %v from %q", apiErr.RetryAfter, retryAfter)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// FuzzErrorString builds the string of errors from arbitrary server text: it is always one
// printable line of valid UTF-8 of bounded length, and the fields keep the text as given.
func FuzzErrorString(f *testing.F) {
	f.Add(402, "insufficient_balance", "Insufficient wallet balance.", "", "req_1", "")
	f.Add(400, "bad_request", "line one\nline two\r\n", "to[3]", "req_\x1b[2J", "")
	f.Add(403, "insufficient_scope", "\x1b[31mred\x1b[0m", "", "req_2", "balance\u202e")
	f.Add(500, "\xff\xfe", strings.Repeat("é", 300), strings.Repeat("\x00", 300), "", "")
	f.Fuzz(func(t *testing.T, status int, code, message, field, requestID, scope string) {
		e := &sms.Error{StatusCode: status, Code: code, Message: message, Field: field, RequestID: requestID}
		checkErrorString(t, e.Error())
		if e.Code != code || e.Message != message || e.Field != field || e.RequestID != requestID {
			t.Fatal("the fields changed")
		}
		se := &sms.ScopeError{Scope: sms.Scope(scope), Err: e}
		checkErrorString(t, se.Error())
	})
}

// FuzzSuccessBody feeds arbitrary 2xx bodies to the tolerant reader of every answer shape: it
// never panics, and gives either an error or a result whose required members are set, with
// every unreadable member named on the Response.
func FuzzSuccessBody(f *testing.F) {
	for _, seed := range []string{
		`{"message":"SMS request accepted.","campaign":{"id":"c1","status":"sent","message_id":3017600245086449408013699,"recipients":"1","amount":"3.20","currency":"NGN","sms_parts":{}},"requestId":7}`,
		`{"data":[{"_id":1,"status":"Message Sent","amount":"x","createdAt":1616950260000,"smsParts":"1"}],"meta":{"page":"1","perPage":20,"totalCount":250}}`,
		`{"data":[],"current_page":1,"per_page":20,"last_page":13,"total":250}`,
		`{"data":{"status":"DND Active on Phone Number","counts":{"sent":"1"},"recipients":[{"to":234,"status":"Rejected","updatedAt":"29/03/2021 16:51"}]},"pagination":{"pages":2}}`,
		`{"data":{"smsStatus":"Message Failed","pinId":"p1","status":"400"}}`,
		`{"data":{"pinId":"p1","verified":"True","msisdn":2348025671695,"attemptsRemaining":"2"}}`,
		`{"data":{"balance":"1500.00","cashback":[0],"currency":1}}`,
		"\ufeff{\"data\":[{\"title\":\"ACME\",\"status\":\"Active\",\"createdAt\":\"2021-03-29T17:51:00+0100\"}]}",
		`{"data":{"_id":"k1","publicKey":"pk_test_a","secret":"sk_test_b","scopes":["sms"],"revokedAt":"soon"}}`,
	} {
		f.Add([]byte(seed))
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, body []byte) {
		c, d := newClientsFor(t, &answer{status: 200, body: body}, sms.WithMaxRetries(0))
		unreadable := func(r *sms.Response) {
			for _, name := range r.Unreadable {
				if name == "" {
					t.Fatal("an unreadable member without a name")
				}
			}
		}
		if res, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "Hi"}); err == nil {
			if res.Campaign.ID == "" || res.Campaign.Status == "" {
				t.Fatalf("a send without its id or status: %+v", res.Campaign)
			}
			unreadable(res.Response)
		}
		if pg, err := c.Campaigns.List(ctx, nil); err == nil {
			for _, cp := range pg.Items {
				if cp.ID == "" || cp.Status == "" {
					t.Fatalf("a campaign without its id or status: %+v", cp)
				}
			}
			if pg.Total < -1 {
				t.Fatalf("total %d", pg.Total)
			}
			unreadable(pg.Response)
		}
		if st, err := c.Campaigns.Delivery(ctx, "c1", nil); err == nil {
			if st.Status == "" {
				t.Fatal("a delivery status without its status")
			}
			unreadable(st.Response)
		}
		var sf *sms.SendFailedError
		if o, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: "ACME"}); err == nil {
			if o.PinID == "" {
				t.Fatal("an OTP without its pin ID")
			}
		} else if errors.As(err, &sf) && sf.OTP == nil {
			t.Fatal("a failed send without its answer")
		}
		if v, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "p1", Pin: "123456"}); err == nil {
			if v.PinID == "" || sms.PinStateOf(v, nil) == sms.PinStateUnknown {
				t.Fatalf("a verification without its pin ID or state: %+v", v)
			}
		}
		if b, err := c.Balance.Get(ctx, nil); err == nil {
			unreadable(b.Response)
		}
		if ids, err := c.SenderIDs.List(ctx, nil); err == nil {
			for _, s := range ids.Items {
				if s.Title == "" || s.Status == "" {
					t.Fatalf("a sender ID without its title or status: %+v", s)
				}
			}
		}
		if k, err := d.Keys.Create(ctx, &sms.CreateKeyParams{Name: "ci", Scopes: sms.Scopes{sms.ScopeSMS}}); err == nil {
			if k.ID == "" || k.PublicKey == "" || k.Secret == "" {
				t.Fatal("a key without its id, public key or secret")
			}
		}
		if k, err := d.Keys.Revoke(ctx, "k1", nil); err == nil && k.RevokedAt == nil {
			t.Fatal("a revoked key without its time")
		}
	})
}
