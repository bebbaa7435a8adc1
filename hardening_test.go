package sms_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

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
