package sms_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

func TestOTPSendAndVerify(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	ctx := context.Background()
	before := balance(t, srv)

	otp := sendOTP(t, srv, client, "08025671695")
	assert.NotEmpty(t, otp.PinID)
	assert.Equal(t, "2348025671695", otp.To)
	assert.Equal(t, sms.SMSStatusSent, otp.SMSStatus)
	assert.Equal(t, ptr(sms.AmountFromKobo(320)), otp.Amount)
	assert.Equal(t, "NGN", otp.Currency)
	assert.Equal(t, before-320, balance(t, srv))

	pinID, pin, err := srv.LatestOTP("08025671695")
	require.NoError(t, err)
	require.Equal(t, otp.PinID, pinID)
	assert.Regexp(t, regexp.MustCompile(`^[0-9]{6}$`), pin)

	v, err := client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: pinID, Pin: "wrong"})
	require.NoError(t, err, "a wrong pin is not an error")
	v.Response = nil
	assert.Equal(t, sms.Verification{PinID: pinID, Verified: false, To: "2348025671695", AttemptsRemaining: ptr(4)}, *v)

	params := &sms.VerifyOTPParams{PinID: pinID, Pin: pin}
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v %s", params, params, *params, params), pin, "params never print the pin")
	v, err = client.OTP.Verify(ctx, params)
	require.NoError(t, err)
	assert.True(t, v.Verified)
	assert.Equal(t, "2348025671695", v.To)
	assert.Nil(t, v.AttemptsRemaining, "a verified pin's answer has no attemptsRemaining")

	_, err = client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: pinID, Pin: pin})
	require.ErrorIs(t, err, sms.ErrBadRequest, "a pin is single-use")

	_, err = client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "00000000-0000-4000-8000-000000000000", Pin: pin})
	require.ErrorIs(t, err, sms.ErrNotFound)

	// The pin never went out in clear in the mock's request log.
	for _, r := range srv.Requests() {
		assert.NotContains(t, string(r.Body), `"pin":"`+pin+`"`)
	}
}

func TestOTPSendSettings(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	ctx := context.Background()
	_, err := client.OTP.Send(ctx, &sms.SendOTPParams{
		To: "2348025671695", From: srv.Default().SenderID, PinType: sms.PinTypeAlphanumeric, PinLength: 8,
		PinTimeToLive: 2 * time.Minute, PinPlaceholder: "##", Message: "Code: ##",
	})
	require.NoError(t, err)
	reqs := srv.Requests()
	assert.JSONEq(t, `{"to":"2348025671695","from":"MOCKSMS","message_text":"Code: ##","pin_type":"alphanumeric",
		"pin_length":8,"pin_time_to_live":2,"pin_placeholder":"##"}`, string(reqs[len(reqs)-1].Body))

	pinID, pin, err := srv.LatestOTP("2348025671695")
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`^[A-Z0-9]{8}$`), pin)

	srv.Advance(2 * time.Minute)
	_, err = client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: pinID, Pin: pin})
	require.ErrorIs(t, err, sms.ErrBadRequest, "expired")
}

// An OTP without a message text leaves message_text out of the request, as the service's
// otp-send page allows; the rest of the body is as before.
func TestOTPSendWithoutMessageText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params sms.SendOTPParams
		body   string
	}{
		{"only what is required", sms.SendOTPParams{To: "08025671695", From: "ACME"}, `{"to":"2348025671695","from":"ACME"}`},
		{"a placeholder but no text", sms.SendOTPParams{To: "08025671695", From: "ACME", PinPlaceholder: "{pin}", PinLength: 4},
			`{"to":"2348025671695","from":"ACME","pin_length":4,"pin_placeholder":"{pin}"}`},
		{"a text", sms.SendOTPParams{To: "08025671695", From: "ACME", Message: "Code < 1234 >"},
			`{"to":"2348025671695","from":"ACME","message_text":"Code < 1234 >"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := &answer{status: 200, body: fixture(t, "otp-send.json")}
			otp, err := newClientFor(t, a, sms.WithMaxRetries(0)).OTP.Send(context.Background(), &tt.params)
			require.NoError(t, err)
			assert.Equal(t, "c8dcd048-5e7f-4347-8c89-4470c3af0b", otp.PinID)
			_, _, sent := a.request()
			assert.JSONEq(t, tt.body, sent)
		})
	}
}

// The pin of VerifyOTPParams stays out of JSON, nested or not, as slog's JSON handler writes
// it; the request body still carries it, and the mock verifies it.
func TestVerifyOTPParamsKeepsThePinOutOfJSON(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	rec := &recorder{Base: srv.Transport()}
	ws := srv.Default()
	c := newClient(t, srv, sms.WithHTTPClient(&http.Client{Transport: rec}))
	otp, err := c.OTP.Send(context.Background(), &sms.SendOTPParams{To: "08025671695", From: ws.SenderID, Message: "< 1234 >"})
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
	sent := rec.Sent()
	require.NotEmpty(t, sent)
	assert.JSONEq(t, `{"pin_id":"`+otp.PinID+`","pin":"`+pin+`"}`, sent[len(sent)-1])
}

func TestOTPLockedAfterFiveWrongPins(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv, sms.WithMaxRetries(0))
	otp := sendOTP(t, srv, client, "2348025671695")
	for want := 4; want >= 0; want-- {
		v, err := client.OTP.Verify(context.Background(), &sms.VerifyOTPParams{PinID: otp.PinID, Pin: "nope"})
		require.NoError(t, err)
		assert.Equal(t, ptr(want), v.AttemptsRemaining)
	}
	_, pin, err := srv.LatestOTP("2348025671695")
	require.NoError(t, err)
	_, err = client.OTP.Verify(context.Background(), &sms.VerifyOTPParams{PinID: otp.PinID, Pin: pin})
	require.ErrorIs(t, err, sms.ErrRateLimited)
	assert.Greater(t, asAPIError(t, err).RetryAfter, time.Duration(0))
}

func TestOTPSendLimitPerNumber(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv, sms.WithMaxRetries(0))
	first := time.Now()
	for range 5 {
		sendOTP(t, srv, client, "2348025671695")
	}
	_, err := client.OTP.Send(context.Background(), &sms.SendOTPParams{To: "2348025671695", From: "MOCKSMS", Message: "< 1234 >"})
	require.ErrorIs(t, err, sms.ErrRateLimited)
	// The wait is until the first of the five leaves its 10-minute window: 10 minutes less
	// what the sends took (whole seconds, rounded up), however loaded the machine.
	wait := asAPIError(t, err).RetryAfter
	assert.LessOrEqual(t, wait, 10*time.Minute)
	assert.GreaterOrEqual(t, wait, 10*time.Minute-time.Since(first)-time.Second)
}

// OTP.Send and OTP.Verify are retried only when the request cannot have been processed
// (TestOTPSendDroppedIsNotRetried has a send's dropped connection).
func TestOTPRetryPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		path     string
		fault    mockserver.FaultRule
		attempts int
		target   error // nil: success
		unknown  bool
	}{
		{"send: 503 is not retried", "/v1/otp/send", mockserver.FaultRule{Status: 503, Times: 1}, 1, sms.ErrServer, true},
		{"send: 500 is not retried", "/v1/otp/send", mockserver.FaultRule{Status: 500, Times: 1}, 1, sms.ErrServer, true},
		{"send: 429 is retried", "/v1/otp/send", mockserver.FaultRule{Status: 429, Times: 1}, 2, nil, false},
		{"verify: 503 is not retried", "/v1/otp/verify", mockserver.FaultRule{Status: 503, Times: 1}, 1, sms.ErrServer, true},
		{"verify: 429 is retried", "/v1/otp/verify", mockserver.FaultRule{Status: 429, Times: 2}, 3, nil, false},
		{"verify: a drop is an unknown outcome", "/v1/otp/verify", mockserver.FaultRule{Drop: true, Times: 1}, 1, sms.ErrOutcomeUnknown, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// In a bubble: the 429's Retry-After of 1 s takes no wall time.
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t)
				client := newClient(t, srv)
				pinID := "00000000-0000-4000-8000-000000000000"
				if tt.path == "/v1/otp/verify" {
					pinID = sendOTP(t, srv, client, "2348025671695").PinID
				}
				tt.fault.Method, tt.fault.Path = "POST", tt.path
				srv.AddFaults(tt.fault)

				var err error
				if tt.path == "/v1/otp/send" {
					_, err = client.OTP.Send(context.Background(), &sms.SendOTPParams{To: "2348025671695", From: "MOCKSMS", Message: "< 1234 >"})
				} else {
					_, err = client.OTP.Verify(context.Background(), &sms.VerifyOTPParams{PinID: pinID, Pin: "000000"})
				}
				assert.Equal(t, tt.attempts, requestsTo(srv, "POST", tt.path))
				if tt.target == nil {
					require.NoError(t, err)
					return
				}
				require.ErrorIs(t, err, tt.target)
				assert.Equal(t, tt.unknown, errors.Is(err, sms.ErrOutcomeUnknown))
			})
		})
	}
}

// An OTP whose connection dropped after the mock sent it is not retried: one request, one
// OTP, one debit, and an error matching ErrOutcomeUnknown.
func TestOTPSendDroppedIsNotRetried(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			srv, c := mockOver(t, transport)
			before := balance(t, srv)
			srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/otp/send", Drop: true, Times: 1})

			_, err := c.OTP.Send(context.Background(), &sms.SendOTPParams{
				To: "08025671695", From: "MOCKSMS", Message: "Your code is < 1234 >",
			})
			require.Error(t, err)
			assert.ErrorIs(t, err, sms.ErrOutcomeUnknown)
			assert.Equal(t, 1, requestsTo(srv, "POST", "/v1/otp/send"), "not retried")
			pinID, pin, err := srv.LatestOTP("08025671695")
			require.NoError(t, err, "the OTP was sent once")
			assert.NotEmpty(t, pinID)
			assert.NotEmpty(t, pin)
			assert.Equal(t, before-320, balance(t, srv), "charged once")
		})
	}
}

// An OTP refused with a 429 is retried; a 503 after it is final, and may have been processed.
func TestOTPSendRetriedOn429Only(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		srv.AddFaults(
			mockserver.FaultRule{Method: "POST", Path: "/v1/otp/send", Status: 429, RetryAfter: 1, Times: 1},
			mockserver.FaultRule{Method: "POST", Path: "/v1/otp/send", Status: 503, Times: 1},
		)
		_, err := c.OTP.Send(context.Background(), &sms.SendOTPParams{To: "08025671695", From: "MOCKSMS", Message: "< 1234 >"})
		require.Error(t, err)
		assert.ErrorIs(t, err, sms.ErrServer, "the 503 after the 429 is final")
		assert.ErrorIs(t, err, sms.ErrOutcomeUnknown, "a 503 may have been processed")
		assert.Equal(t, 2, requestsTo(srv, "POST", "/v1/otp/send"))
		_, _, err = srv.LatestOTP("08025671695")
		assert.Error(t, err, "no OTP was sent")
	})
}

func TestOTPLogsMaskedNumber(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	var logs syncBuffer
	client := newClient(t, srv, sms.WithLogger(debugLogger(&logs)))
	otp := sendOTP(t, srv, client, "2348025671695")
	_, pin, err := srv.LatestOTP("2348025671695")
	require.NoError(t, err)
	_, err = client.OTP.Verify(context.Background(), &sms.VerifyOTPParams{PinID: otp.PinID, Pin: pin})
	require.NoError(t, err)

	out := logs.String()
	assert.Contains(t, out, "234802****695")
	assert.NotContains(t, out, "2348025671695")
	assert.NotContains(t, out, pin)
	assert.NotContains(t, out, srv.Default().TestSecret)
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(firstLine(out)), &line))
	assert.Equal(t, "POST", line["method"])
	assert.Equal(t, "/v1/otp/send", line["path"])
	assert.EqualValues(t, 200, line["status"])
	assert.Contains(t, line["requestId"], "req-")
	assert.Contains(t, line, "duration")
}
