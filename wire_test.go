package sms_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

// Every sample answer of the live service's pages decodes, member by member, to what it says;
// what a sample does not show is nil or empty, never a zero that could be taken for an answer.
func TestLiveSamplesDecode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		file   string
		status int
		method string
		path   string
		// call makes the request and returns its result with its Response set aside, and the
		// Response.
		call func(t *testing.T, c *sms.Client) (any, *sms.Response, error)
		want any
		// requestID is the Response's: the body's requestId, as no header carries one.
		requestID string
	}{
		{
			file: "sms-send-202.json", status: 202, method: "POST", path: "/v1/sms/send",
			call: func(t *testing.T, c *sms.Client) (any, *sms.Response, error) {
				res, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "Hi", Reference: "order-1"})
				if err != nil {
					return nil, nil, err
				}
				resp := res.Response
				res.Response = nil
				return *res, resp, nil
			},
			want: sms.SendResult{
				Message: "SMS request accepted.",
				Campaign: sms.Campaign{
					ID: "667000000000000000000001", Status: sms.CampaignStatusSent, MessageID: "3017600245086449408013699",
					Recipients: 1, Amount: ptr(sms.AmountFromKobo(320)), Currency: "NGN", Parts: ptr(1),
					SenderID: "ACME", Channel: sms.ChannelGeneric, Reference: "order-1", CreatedAt: nil,
				},
				Replayed: false,
			},
			requestID: "req-123",
		},
		{
			file: "sms-send-202.json", status: 202, method: "POST", path: "/v1/sms/campaigns",
			call: func(t *testing.T, c *sms.Client) (any, *sms.Response, error) {
				res, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "08025671695"}}, From: "ACME", Message: "Hi", Channel: sms.ChannelDND, Reference: "spring"})
				if err != nil {
					return nil, nil, err
				}
				resp := res.Response
				res.Response = nil
				return res.Campaign, resp, nil
			},
			want: sms.Campaign{
				ID: "667000000000000000000001", Status: sms.CampaignStatusSent, MessageID: "3017600245086449408013699",
				Recipients: 1, Amount: ptr(sms.AmountFromKobo(320)), Currency: "NGN", Parts: ptr(1),
				SenderID: "ACME", Channel: sms.ChannelDND, Reference: "spring",
			},
			requestID: "req-123",
		},
		{
			file: "otp-send.json", status: 200, method: "POST", path: "/v1/otp/send",
			call: func(t *testing.T, c *sms.Client) (any, *sms.Response, error) {
				otp, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: "ACME"})
				if err != nil {
					return nil, nil, err
				}
				resp := otp.Response
				otp.Response = nil
				return *otp, resp, nil
			},
			want: sms.OTP{
				PinID: "c8dcd048-5e7f-4347-8c89-4470c3af0b", To: "2348025671695", SMSStatus: "Message Sent",
				Amount: nil, Currency: "", // the page does not say what the SMS cost
			},
			requestID: "", // the OTP samples carry no requestId
		},
		{
			file: "otp-verify.json", status: 200, method: "POST", path: "/v1/otp/verify",
			call: func(t *testing.T, c *sms.Client) (any, *sms.Response, error) {
				v, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "c8dcd048-5e7f-4347-8c89-4470c3af0b", Pin: "195558"})
				if err != nil {
					return nil, nil, err
				}
				assert.Equal(t, sms.PinStateVerified, sms.PinStateOf(v, err))
				resp := v.Response
				v.Response = nil
				return *v, resp, nil
			},
			want: sms.Verification{
				PinID: "c8dcd048-5e7f-4347-8c89-4470c3af0b", Verified: true, To: "2348025671695",
				AttemptsRemaining: nil, // the page does not show it
			},
		},
		{
			file: "sender-ids-active.json", status: 200, method: "GET", path: "/v1/sender-ids?status=active",
			call: func(t *testing.T, c *sms.Client) (any, *sms.Response, error) {
				ids, err := c.SenderIDs.List(ctx, &sms.ListSenderIDsParams{Status: sms.SenderIDStatusActive})
				if err != nil {
					return nil, nil, err
				}
				require.Len(t, ids.Items, 1)
				assert.Equal(t, sms.Pagination{Total: 1}, ids.Pagination, "the sample's count is the total")
				require.Nil(t, ids.Items[0].Response, "the page carries the Response")
				return ids.Items, ids.Response, nil
			},
			want: []sms.SenderID{{
				ID: "", Title: "ACME", Status: sms.SenderIDStatusActive, Country: "Nigeria", UseCase: "", Company: "", CreatedAt: nil,
			}},
		},
		{
			file: "sender-ids-provider-createdat.json", status: 200, method: "GET", path: "/v1/sender-ids",
			call: func(t *testing.T, c *sms.Client) (any, *sms.Response, error) {
				ids, err := c.SenderIDs.List(ctx, nil)
				if err != nil {
					return nil, nil, err
				}
				require.Len(t, ids.Items, 1)
				require.Nil(t, ids.Items[0].Response, "the page carries the Response")
				return ids.Items, ids.Response, nil
			},
			want: []sms.SenderID{{
				Title: "ACME", Status: sms.SenderIDStatusActive, Country: "Nigeria",
				CreatedAt: ptr(time.Date(2025, 5, 12, 9, 20, 27, 0, time.UTC)), // no zone: West Africa Time, UTC+1 (DefaultTimeZone)
			}},
		},
		{
			file: "balance.json", status: 200, method: "GET", path: "/v1/balance",
			call: func(t *testing.T, c *sms.Client) (any, *sms.Response, error) {
				b, err := c.Balance.Get(ctx, nil)
				if err != nil {
					return nil, nil, err
				}
				resp := b.Response
				b.Response = nil
				return *b, resp, nil
			},
			want:      sms.Balance{Balance: sms.AmountFromKobo(1_500_000), Cashback: ptr(sms.AmountFromKobo(0)), Currency: "NGN"},
			requestID: "req-123",
		},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+tt.path, func(t *testing.T) {
			t.Parallel()
			a := &answer{status: tt.status, body: fixture(t, tt.file)}
			got, resp, err := tt.call(t, newClientFor(t, a, sms.WithMaxRetries(0)))
			require.NoError(t, err, "the live sample decodes")
			assert.Equal(t, tt.want, got)
			require.NotNil(t, resp, "every result carries its Response")
			assert.Equal(t, tt.status, resp.StatusCode)
			assert.Equal(t, tt.requestID, resp.RequestID)
			assert.Nil(t, resp.RateLimit, "the live pages show no rate-limit headers")
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			method, path, _ := a.request()
			assert.Equal(t, tt.method, method)
			assert.Equal(t, tt.path, path)
		})
	}
}

// The live samples are kept verbatim: they are what the pages show, not what the tests need.
func TestLiveSamplesAreVerbatim(t *testing.T) {
	t.Parallel()
	verbatim := map[string]string{
		"sms-send-202.json":               `{"message":"SMS request accepted.","campaign":{"id":"667000000000000000000001","status":"sent","message_id":"3017600245086449408013699","recipients":1,"amount":3.2,"currency":"NGN","sms_parts":1},"requestId":"req-123"}`,
		"otp-send.json":                   `{"data":{"smsStatus":"Message Sent","phone_number":"2348025671695","pinId":"c8dcd048-5e7f-4347-8c89-4470c3af0b","status":"200"}}`,
		"otp-verify.json":                 `{"data":{"pinId":"c8dcd048-5e7f-4347-8c89-4470c3af0b","verified":true,"msisdn":"2348025671695"}}`,
		"sender-ids-active.json":          `{"data":[{"title":"ACME","status":"active","country":"Nigeria"}],"count":1}`,
		"balance.json":                    `{"data":{"balance":15000,"cashback":0,"currency":"NGN"},"requestId":"req-123"}`,
		"error-insufficient-balance.json": `{"error":{"code":"insufficient_balance","message":"Insufficient wallet balance."},"requestId":"req-123"}`,
	}
	for name, want := range verbatim {
		assert.Equal(t, want, strings.TrimSuffix(string(fixture(t, name)), "\n"), name)
	}
}
