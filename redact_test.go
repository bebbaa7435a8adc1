package sms_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

// The credentials of TestServerTextRedacted's clients: shaped as the service issues them, so
// that only the client's knowledge of what it sent finds them once cut or split.
const (
	ownKey    = "pk_test_Jq3Lw8Nz5Rt1Vx7Bc4Dm9Fh2"
	ownSecret = "sk_test_Q9vX2mL7pR4tY8wZ1aB5cD6eF3gH0jK2uN7sW4y"
	ownToken  = "aGVhZGVyLXBhcnQ.Ym9keS1wYXJ0LWxvbmc.c2lnbmF0dXJlLXBhcnQ" // no eyJ: found as the client's own
)

// The server's text reaches no error string or field with the client's own secret, its
// dashboard token or the pin it sent (whole, cut, or split), nor anything shaped like a
// secret or a JWT; phone numbers are masked.
func TestServerTextRedacted(t *testing.T) {
	t.Parallel()
	secretBody := strings.TrimPrefix(ownSecret, "sk_test_")
	tests := []struct {
		name   string
		status int
		body   string
		call   func(c *sms.Client, d *sms.DashboardClient) error
		absent []string
		want   []string // in the error string
	}{
		{
			name: "a 401 echoing the secret", status: 401,
			body:   `{"error":{"code":"unauthorized","message":"Invalid API secret ` + ownSecret + `"}}`,
			call:   readBalance,
			absent: []string{secretBody[:8]}, want: []string{"Invalid API secret [REDACTED]"},
		},
		{
			name: "a 401 echoing the secret without its prefix, split in two", status: 401,
			body:   `{"message":"secret ` + secretBody[:20] + ` ... ` + secretBody[20:] + ` not found"}`,
			call:   readBalance,
			absent: []string{secretBody[:8], secretBody[len(secretBody)-8:]},
			want:   []string{"secret [REDACTED] ... [REDACTED] not found"},
		},
		{
			name: "a 401 echoing the dashboard token", status: 401,
			body: `{"errors":[{"message":"token ` + ownToken + ` expired"}],"requestId":"req-` + ownToken[:16] + `"}`,
			call: func(_ *sms.Client, d *sms.DashboardClient) error {
				_, err := d.Keys.List(context.Background(), nil)
				return err
			},
			absent: []string{ownToken[:8]}, want: []string{"token [REDACTED] expired"},
		},
		{
			name: "a 400 naming the pin sent, and someone else's JWT", status: 400,
			body: `{"error":{"code":"bad_request","message":"pin 4829 is wrong for eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig","field":"pin"}}`,
			call: func(c *sms.Client, _ *sms.DashboardClient) error {
				_, err := c.OTP.Verify(context.Background(), &sms.VerifyOTPParams{PinID: "p-1", Pin: "4829"})
				return err
			},
			absent: []string{"4829", "eyJhbGci"}, want: []string{"pin [REDACTED] is wrong for [REDACTED]"},
		},
		{
			name: "a gateway's page holding the secret and a number", status: 502,
			body:   `<html><p>upstream said: key=` + ownSecret + ` to +234 802 567 1695</p></html>`,
			call:   readBalance,
			absent: []string{secretBody[:8], "567 1695"}, want: []string{"key=[REDACTED] to +234802****695"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rt := &answer{status: tt.status, body: []byte(tt.body)}
			opts := []sms.Option{sms.WithBaseURL(inProcessBase), sms.WithHTTPClient(&http.Client{Transport: rt}), sms.WithMaxRetries(0)}
			c, err := sms.NewClient(ownKey, ownSecret, opts...)
			require.NoError(t, err)
			d, err := sms.NewDashboardClient(ownToken, opts...)
			require.NoError(t, err)
			err = tt.call(c, d)
			require.Error(t, err)
			var apiErr *sms.Error
			require.ErrorAs(t, err, &apiErr)
			fields := fmt.Sprintf("%s|%s|%s|%s|%s|%v|%+v", err.Error(), apiErr.Message, apiErr.Code, apiErr.Field, apiErr.Snippet, apiErr.RequestID, err)
			for _, a := range tt.absent {
				assert.NotContains(t, fields, a)
			}
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// A read answered 200 by a page that is not JSON keeps the page's start in its error, with the
// client's own secret and the numbers in it redacted.
func TestReadSnippetRedacted(t *testing.T) {
	t.Parallel()
	rt := &answer{status: 200, body: []byte(`<html><p>maintenance: key=` + ownSecret + ` call 0802 567 1695</p></html>`)}
	c, err := sms.NewClient(ownKey, ownSecret, sms.WithBaseURL(inProcessBase), sms.WithHTTPClient(&http.Client{Transport: rt}), sms.WithMaxRetries(0))
	require.NoError(t, err)
	err = readBalance(c, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "maintenance: key=[REDACTED]")
	assert.NotContains(t, fmt.Sprintf("%v|%+v", err, err), ownSecret[8:16])
	assert.NotContains(t, err.Error(), "567 1695")
}

// An unreadable answer to a send shows no phone number in full, in whatever form the server
// wrote it, nor a pin or a secret under any member name that says so, in the error's Body and
// string.
func TestOutcomeBodyMasked(t *testing.T) {
	t.Parallel()
	body := `{"status":"success","data":{"to":[2348025671695,"+234 803 123 4567"],"msisdn":2348051234567,` +
		`"recipient":"0807-123-4567","note":"sent to_2348091234567","otp_code":"5521","pinCode":7731,` +
		`"text":"Your code is 913357","api_secret":"sk_live_abc","key":"` + ownSecret + `"`
	rt := &answer{status: 200, body: []byte(body)}
	c, err := sms.NewClient(ownKey, ownSecret, sms.WithBaseURL(inProcessBase), sms.WithHTTPClient(&http.Client{Transport: rt}), sms.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.SMS.Send(context.Background(), &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "Hi"})
	var oe *sms.OutcomeError
	require.ErrorAs(t, err, &oe)
	for _, s := range []string{oe.Body, err.Error()} {
		for _, leak := range []string{"8025671695", "803 123 4567", "8051234567", "807-123-4567", "8091234567", "5521", "7731", "913357", "sk_live_abc", ownSecret[8:16]} {
			assert.NotContains(t, s, leak)
		}
	}
	assert.Contains(t, oe.Body, `"to":["234802****695","+234803****567"]`)
	assert.Contains(t, oe.Body, `"otp_code":"[REDACTED]","pinCode":"[REDACTED]"`)
	assert.True(t, errors.Is(err, sms.ErrOutcomeUnknown))
}

func readBalance(c *sms.Client, _ *sms.DashboardClient) error { return getBalance(c) }

// The debug log shows the request ID the server sent with the client's own secret replaced.
func TestDebugLogRedactsServerText(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rt := &answer{status: 200, header: http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req-" + ownSecret}},
		body: []byte(`{"data":{"balance":1,"currency":"NGN"}}`)}
	c, err := sms.NewClient(ownKey, ownSecret, sms.WithBaseURL(inProcessBase), sms.WithHTTPClient(&http.Client{Transport: rt}), sms.WithLogger(logger))
	require.NoError(t, err)
	_, _ = c.Balance.Get(context.Background(), nil)
	require.Contains(t, buf.String(), "requestId=req-[REDACTED]")
	assert.NotContains(t, buf.String(), strings.TrimPrefix(ownSecret, "sk_test_")[:8])
}

// Every form in which a server writes a number, a pin or the client's own secret is masked in
// an *Error and in an *OutcomeError (its string and Body): dots, no-break spaces, tabs,
// slashes, %20, a float, full-width digits; a pin grouped; the secret base64- or %-encoded.
func TestServerTextWrittenFormsMasked(t *testing.T) {
	t.Parallel()
	b64 := base64.StdEncoding.EncodeToString([]byte(ownSecret))
	pct := url.PathEscape(strings.ReplaceAll(ownSecret, "_", "%5F"))
	forms := `0803.123.4567 | +234.803.123.4567 | 0803\u00a0123\u00a04567 | 0803\t123\t4567 | 0803/123/4567 | ` +
		`/v1/x?to=0803%20123%204567 | 2348031234567.0 | 2.348031234567E12 | \uff10\uff18\uff10\uff13\uff11\uff12\uff13\uff14\uff15\uff16\uff17 | ` +
		`pin 482-913 or 482 913 | key ` + b64 + ` | key ` + pct
	leaks := []string{"123.4567", "123\u00a04567", "123\t4567", "123/4567", "123%204567", "2348031234567", "2.348031234567", "\uff14\uff15\uff16",
		"482-913", "482 913", b64[:12], "Q9vX2mL7", "%5FQ9vX"}
	verify := func(c *sms.Client) error {
		_, err := c.OTP.Verify(context.Background(), &sms.VerifyOTPParams{PinID: "p-1", Pin: "482913"})
		return err
	}
	for _, tt := range []struct {
		name   string
		status int
		body   string
		call   func(c *sms.Client) error
	}{
		{"an *Error", 400, `{"error":{"code":"bad_request","message":"` + forms + `"}}`, verify},
		{"an *OutcomeError", 200, `{"status":"success","data":{"note":"` + forms + `"`, func(c *sms.Client) error {
			_, err := c.SMS.Send(context.Background(), &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "Hi"})
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rt := &answer{status: tt.status, body: []byte(tt.body)}
			c, err := sms.NewClient(ownKey, ownSecret, sms.WithBaseURL(inProcessBase), sms.WithHTTPClient(&http.Client{Transport: rt}), sms.WithMaxRetries(0))
			require.NoError(t, err)
			err = tt.call(c)
			require.Error(t, err)
			shown := fmt.Sprintf("%v|%+v", err, err)
			var oe *sms.OutcomeError
			if errors.As(err, &oe) {
				shown += "|" + oe.Body
				require.NotEmpty(t, oe.Body)
			} else {
				var apiErr *sms.Error
				require.ErrorAs(t, err, &apiErr)
				shown += "|" + apiErr.Message + "|" + apiErr.Snippet
			}
			for _, leak := range leaks {
				assert.NotContains(t, shown, leak)
			}
			assert.Contains(t, shown, "0803****567")
		})
	}
}
