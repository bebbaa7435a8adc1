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
		b, err := c.Balance.Get(context.Background())
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
