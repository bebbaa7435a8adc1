package sms_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// verifyWith answers one Verify with st and returns its results.
func verifyWith(t *testing.T, st step, p *sms.VerifyOTPParams) (*sms.Verification, error) {
	t.Helper()
	c := newClientFor(t, &script{steps: []step{st}}, sms.WithMaxRetries(0))
	if p == nil {
		p = &sms.VerifyOTPParams{PinID: "p1", Pin: "123456"}
	}
	return c.OTP.Verify(context.Background(), p)
}

// PinStateOf classifies every answer of Verify that says something about the pin, by status,
// code and the mock's messages, and nothing else.
func TestPinStateOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		step   step
		params *sms.VerifyOTPParams
		want   sms.PinState
		is     error // the error still matches it
	}{
		{"verified", step{status: 200, body: `{"data":{"pinId":"p1","verified":true,"msisdn":"2348025671695"}}`}, nil, sms.PinStateVerified, nil},
		{"verified, the provider's string", step{status: 200, body: `{"data":{"pinId":"p1","verified":"True","msisdn":"2348025671695"}}`}, nil, sms.PinStateVerified, nil},
		{"wrong", step{status: 200, body: `{"data":{"pinId":"p1","verified":false,"attemptsRemaining":3}}`}, nil, sms.PinStateWrong, nil},
		{"wrong, the provider's string", step{status: 200, body: `{"data":{"pinId":"p1","verified":"False"}}`}, nil, sms.PinStateWrong, nil},
		{"expired, the provider's string", step{status: 200, body: `{"data":{"pinId":"p1","verified":"Expired"}}`}, nil, sms.PinStateExpired, nil},
		{"expired (mock)", errorStep(400, "bad_request", "This pin has expired.", "pin_id", nil), nil, sms.PinStateExpired, sms.ErrBadRequest},
		{"replaced (mock)", errorStep(400, "bad_request", "This pin was replaced by a newer one.", "pin_id", nil), nil, sms.PinStateReplaced, sms.ErrBadRequest},
		{"voided", errorStep(400, "bad_request", "This pin was voided.", "", nil), nil, sms.PinStateReplaced, sms.ErrBadRequest},
		{"already verified (mock)", errorStep(400, "bad_request", "This pin was already verified.", "pin_id", nil), nil, sms.PinStateAlreadyVerified, sms.ErrBadRequest},
		{"already used", errorStep(400, "bad_request", "Token already used", "", nil), nil, sms.PinStateAlreadyVerified, sms.ErrBadRequest},
		{"refused by the server as a pin", errorStep(400, "bad_request", "pin must be 4 to 8 characters.", "pin", nil), nil, sms.PinStateMalformed, sms.ErrBadRequest},
		{"a 400 in other words", errorStep(400, "bad_request", "Invalid token.", "pin_id", nil), nil, sms.PinStateUnusable, sms.ErrBadRequest},
		{"not found (mock)", errorStep(404, "not_found", "Pin not found.", "", nil), nil, sms.PinStateNotFound, sms.ErrNotFound},
		{"locked (mock)", errorStep(429, "rate_limited", "Too many wrong attempts; this pin is locked.", "", http.Header{"Retry-After": {"600"}}), nil, sms.PinStateLocked, sms.ErrRateLimited},
		{"locked while the key's quota runs out", errorStep(429, "rate_limited", "Too many wrong attempts; this pin is locked.", "", quota(60, 0)), nil, sms.PinStateLocked, sms.ErrRateLimited},
		{"the key's request limit (mock)", errorStep(429, "rate_limited", "Rate limit exceeded; try again later.", "", quota(60, 0)), nil, sms.PinStateUnknown, sms.ErrRateLimited},
		{"a 429 without words", step{status: 429, body: ``}, nil, sms.PinStateUnknown, sms.ErrRateLimited},
		{"a 429 speaking of the pin", errorStep(429, "rate_limited", "Pin locked.", "", nil), nil, sms.PinStateLocked, sms.ErrRateLimited},
		{"the key's request limit, no header", errorStep(429, "rate_limited", "Rate limit exceeded; try again later.", "", nil), nil, sms.PinStateUnknown, sms.ErrRateLimited},
		{"too many requests (the service's words)", errorStep(429, "rate_limited", "Too many requests.", "", nil), nil, sms.PinStateUnknown, sms.ErrRateLimited},
		{"too many OTP attempts (the service's words)", errorStep(429, "rate_limited", "Too many OTP attempts.", "", nil), nil, sms.PinStateLocked, sms.ErrRateLimited},
		{"unauthorized", errorStep(401, "unauthorized", "Invalid API key or secret.", "", nil), nil, sms.PinStateUnknown, sms.ErrUnauthorized},
		{"server error", errorStep(503, "server_error", "This pin has expired.", "", nil), nil, sms.PinStateUnknown, sms.ErrServer},
		{"dropped", step{err: dropped}, nil, sms.PinStateUnknown, sms.ErrOutcomeUnknown},
		{"too short, refused locally", step{status: 500}, &sms.VerifyOTPParams{PinID: "p1", Pin: "12"}, sms.PinStateMalformed, sms.ErrInvalidParams},
		{"a space, refused locally", step{status: 500}, &sms.VerifyOTPParams{PinID: "p1", Pin: " 123456"}, sms.PinStateMalformed, sms.ErrInvalidParams},
		{"no pin ID, refused locally", step{status: 500}, &sms.VerifyOTPParams{Pin: "123456"}, sms.PinStateUnknown, sms.ErrInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := verifyWith(t, tt.step, tt.params)
			assert.Equal(t, tt.want, sms.PinStateOf(v, err), "%v", err)
			if tt.is == nil {
				require.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tt.is)
			if errors.Is(err, sms.ErrInvalidParams) {
				assert.NotErrorIs(t, err, sms.ErrBadRequest, "a local refusal is not a server's 400")
				var ve *sms.ValidationError
				assert.ErrorAs(t, err, &ve)
			} else if tt.step.err == nil {
				var e *sms.Error
				assert.ErrorAs(t, err, &e, "the API's error is still there")
			}
		})
	}
	assert.Equal(t, sms.PinStateUnknown, sms.PinStateOf(nil, nil))
	// An error of another call says nothing about a pin, even with the same status.
	c := newClientFor(t, &script{steps: []step{errorStep(429, "rate_limited", "Too many OTPs sent to this number; try again later.", "", nil)}}, sms.WithMaxRetries(0))
	_, err := c.OTP.Send(context.Background(), &sms.SendOTPParams{To: "08025671695", From: "ACME"})
	require.ErrorIs(t, err, sms.ErrRateLimited)
	assert.Equal(t, sms.PinStateUnknown, sms.PinStateOf(nil, err))
}

// Against the mock, every pin outcome comes out as its state: the classification holds for
// the messages the mock sends.
func TestPinStatesAgainstTheMock(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv, sms.WithMaxRetries(0))
	ctx := context.Background()
	verify := func(pinID, pin string) sms.PinState {
		t.Helper()
		return sms.PinStateOf(client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: pinID, Pin: pin, PinType: sms.PinTypeNumeric, PinLength: 6}))
	}
	latest := func(to string) (string, string) {
		t.Helper()
		id, pin, err := srv.LatestOTP(to)
		require.NoError(t, err)
		return id, pin
	}

	// Wrong, then verified, then already verified.
	sendOTP(t, srv, client, "2348025671601")
	id, pin := latest("2348025671601")
	wrong := "000000"
	if pin == wrong {
		wrong = "111111"
	}
	assert.Equal(t, sms.PinStateWrong, verify(id, wrong))
	assert.Equal(t, sms.PinStateMalformed, verify(id, pin[:5]), "refused locally: no attempt used")
	assert.Equal(t, sms.PinStateVerified, verify(id, pin))
	assert.Equal(t, sms.PinStateAlreadyVerified, verify(id, pin))

	// Replaced by a newer pin.
	sendOTP(t, srv, client, "2348025671602")
	old, oldPin := latest("2348025671602")
	sendOTP(t, srv, client, "2348025671602")
	assert.Equal(t, sms.PinStateReplaced, verify(old, oldPin))

	// Locked after five wrong pins.
	sendOTP(t, srv, client, "2348025671603")
	id, pin = latest("2348025671603")
	wrong = "000000"
	if pin == wrong {
		wrong = "111111"
	}
	for range 4 {
		assert.Equal(t, sms.PinStateWrong, verify(id, wrong))
	}
	assert.Equal(t, sms.PinStateLocked, verify(id, wrong), "the fifth: wrong, with no attempt remaining")
	assert.Equal(t, sms.PinStateLocked, verify(id, pin))

	// Unknown.
	assert.Equal(t, sms.PinStateNotFound, verify("00000000-0000-4000-8000-000000000000", "123456"))

	// Expired.
	sendOTP(t, srv, client, "2348025671604")
	id, pin = latest("2348025671604")
	srv.Advance(11 * time.Minute)
	assert.Equal(t, sms.PinStateExpired, verify(id, pin))
}
