package sms_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

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
