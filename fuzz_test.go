package sms_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	sms "github.com/seedsms/sms-go"
)

// fixedAnswer answers every request with one status, header and body.
type fixedAnswer struct {
	status     int
	retryAfter string
	body       []byte
}

func (c fixedAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_fuzz"}}
	if c.retryAfter != "" {
		h.Set("Retry-After", c.retryAfter)
	}
	return &http.Response{StatusCode: c.status, Header: h, Body: io.NopCloser(bytes.NewReader(c.body)), Request: req}, nil
}

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
		c, err := sms.NewClient("pk_test_fuzz", "sk_test_fuzz",
			sms.WithBaseURL("http://127.0.0.1"), sms.WithMaxRetries(0),
			sms.WithHTTPClient(&http.Client{Transport: fixedAnswer{status, retryAfter, body}}))
		if err != nil {
			t.Fatal(err)
		}
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
