package sms_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// TestSecretsNeverLeak runs a whole session — keys, sends, OTPs, every kind of error, a
// dropped connection — with debug logging on in the SDK and the mock, then searches every log
// line, every error string and %v/%+v/%#v of the clients, params, results and errors, and
// /_mock/requests for API secrets, JWTs and OTP pins, and the log lines for full phone
// numbers.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := mockserver.NewTest(t, mockserver.WithLogger(logger))
	ws := srv.Default()
	ctx := context.Background()
	logged := sms.WithLogger(logger)

	var printed bytes.Buffer // everything a user might print
	show := func(vs ...any) {
		for _, v := range vs {
			fmt.Fprintf(&printed, "%v\n%+v\n%#v\n%s\n", v, v, v, v)
			if err, ok := v.(error); ok && err != nil {
				printed.WriteString(err.Error() + "\n")
			}
		}
	}

	dash := newDashboardClient(t, srv, logged)
	keyParams := &sms.CreateKeyParams{Name: "ci", Scopes: sms.Scopes{sms.ScopeSMS, sms.ScopeOTP}, Prefix: sms.KeyPrefixTest}
	key, err := dash.Keys.Create(ctx, keyParams)
	require.NoError(t, err)
	keys, err := dash.Keys.List(ctx)
	require.NoError(t, err)
	show(dash, *dash, keyParams, key, *key, keys)

	client := newClientOf(t, srv, key.PublicKey, key.Secret, logged)
	live := newClientOf(t, srv, ws.LiveKey, ws.LiveSecret, logged)
	show(client, *client, live)

	phones := []string{"08025671695", "+2348025671696", "447700900123"}
	full := []string{"2348025671695", "08025671695", "2348025671696", "447700900123"}
	sendParams := &sms.SendParams{To: phones, From: "MOCKSMS", Message: "hello"}
	res, err := client.SMS.Send(ctx, sendParams)
	require.NoError(t, err)
	show(sendParams, res)

	var pins []string
	otpParams := &sms.SendOTPParams{To: phones[0], From: "MOCKSMS", MessageText: "Code: < 1234 >"}
	otp, err := client.OTP.Send(ctx, otpParams)
	require.NoError(t, err)
	_, pin, err := srv.LatestOTP(phones[0])
	require.NoError(t, err)
	pins = append(pins, pin)
	wrong := &sms.VerifyOTPParams{PinID: otp.PinID, Pin: flip(pin)}
	pins = append(pins, wrong.Pin)
	v, err := client.OTP.Verify(ctx, wrong)
	require.NoError(t, err)
	right := &sms.VerifyOTPParams{PinID: otp.PinID, Pin: pin}
	v2, err := client.OTP.Verify(ctx, right)
	require.NoError(t, err)
	require.True(t, v2.Verified)
	_, reused := client.OTP.Verify(ctx, right) // 400: already verified
	show(otpParams, otp, wrong, right, v, v2, reused)

	// Errors of every kind, each printed.
	badSecret := "sk_test_" + strings.Repeat("Z", 40)
	impostor := newClientOf(t, srv, key.PublicKey, badSecret, logged)
	_, e401 := impostor.Balance.Get(ctx)
	_, e403 := client.Balance.Get(ctx)
	_, e404 := client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "00000000-0000-0000-0000-000000000000", Pin: "123456"})
	require.NoError(t, srv.SetBalance(ws.WorkspaceID, mockserver.Test, 0))
	_, e402 := client.SMS.Send(ctx, sendParams)
	_, eLocal := client.SMS.Send(ctx, &sms.SendParams{To: []string{"12"}, From: "MOCKSMS", Message: "x"})
	badJWT := ws.DashboardToken[:len(ws.DashboardToken)-4] + "AAAA"
	badDash, err := sms.NewDashboardClient(badJWT, mockOpts(t, srv, logged)...)
	require.NoError(t, err)
	_, eJWT := badDash.Keys.List(ctx)
	require.NoError(t, srv.SetBalance(ws.WorkspaceID, mockserver.Test, 1_000_000))
	otp2, err := client.OTP.Send(ctx, otpParams)
	require.NoError(t, err)
	_, pin2, err := srv.LatestOTP(phones[0])
	require.NoError(t, err)
	pins = append(pins, pin2)
	srv.AddFaults(mockserver.FaultRule{Path: "/v1/otp/verify", Drop: true, Times: 1})
	dropped := &sms.VerifyOTPParams{PinID: otp2.PinID, Pin: pin2}
	_, eDrop := client.OTP.Verify(ctx, dropped)
	_, eCred := sms.NewClient(key.PublicKey, "sk_live_"+key.Secret[len("sk_test_"):], mockOpts(t, srv, logged)...)
	for _, e := range []error{e401, e403, e404, e402, eLocal, eJWT, eDrop, eCred} {
		require.Error(t, e)
	}
	assert.ErrorIs(t, eDrop, sms.ErrOutcomeUnknown)
	show(e401, e403, e404, e402, eLocal, eJWT, eDrop, eCred, impostor, badDash, dropped)

	// What the mock recorded, in Go and over HTTP.
	recorded, err := json.Marshal(srv.Requests())
	require.NoError(t, err)
	resp, err := http.Get(srv.URL() + "/_mock/requests")
	require.NoError(t, err)
	overHTTP, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)

	secrets := map[string]string{
		"live secret": ws.LiveSecret, "test secret": ws.TestSecret, "created key's secret": key.Secret,
		"wrong secret": badSecret, "dashboard JWT": ws.DashboardToken, "tampered JWT": badJWT,
		"JWT signature": ws.DashboardToken[strings.LastIndexByte(ws.DashboardToken, '.')+1:],
	}
	for i, p := range pins {
		secrets[fmt.Sprintf("pin %d", i)] = p
	}
	logText := logs.String()
	require.NotEmpty(t, logText, "debug logging produced nothing to check")
	require.Contains(t, logText, "/v1/otp/verify", "the SDK logged its requests")
	places := map[string]string{"log lines": logText, "printed values": printed.String(),
		"/_mock/requests": string(recorded), "GET /_mock/requests": string(overHTTP)}
	for where, text := range places {
		for what, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("the %s appears in %s", what, where)
			}
		}
	}
	for _, line := range strings.Split(logText, "\n") {
		for _, number := range full {
			if strings.Contains(line, number) {
				t.Errorf("a full phone number in a log line: %s", line)
			}
		}
	}
}

// flip returns a pin of the same length that differs from pin.
func flip(pin string) string {
	b := []byte(pin)
	if b[0] == '0' {
		b[0] = '1'
	} else {
		b[0] = '0'
	}
	return string(b)
}
