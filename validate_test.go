package sms_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

// TestValidationBeforeAnyRequest checks every parameter that is refused locally: a
// *ValidationError naming the field, matching ErrInvalidParams (not ErrBadRequest), and no
// request sent.
func TestValidationBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	okSend := func() *sms.SendParams {
		return &sms.SendParams{To: []string{"2348025671695"}, From: "ACME", Message: "hi"}
	}
	okCampaign := func() *sms.CreateCampaignParams {
		return &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "2348025671695"}}, From: "ACME", Message: "hi"}
	}
	okOTP := func() *sms.SendOTPParams {
		return &sms.SendOTPParams{To: "2348025671695", From: "ACME", Message: "Code < 1234 >"}
	}
	okKey := func() *sms.CreateKeyParams {
		return &sms.CreateKeyParams{Name: "k", Scopes: sms.Scopes{sms.ScopeSMS}}
	}
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "2348025671695"
		}
		return out
	}
	manyRecipients := make([]sms.Recipient, 10_001)
	for i := range manyRecipients {
		manyRecipients[i] = sms.Recipient{Phone: "2348025671695"}
	}
	long := strings.Repeat("a", 1531) // 11 parts

	type run func(c *sms.Client, d *sms.DashboardClient) error
	send := func(edit func(p *sms.SendParams)) run {
		return func(c *sms.Client, _ *sms.DashboardClient) error {
			p := okSend()
			edit(p)
			_, err := c.SMS.Send(ctx, p)
			return err
		}
	}
	campaign := func(edit func(p *sms.CreateCampaignParams)) run {
		return func(c *sms.Client, _ *sms.DashboardClient) error {
			p := okCampaign()
			edit(p)
			_, err := c.Campaigns.Create(ctx, p)
			return err
		}
	}
	otp := func(edit func(p *sms.SendOTPParams)) run {
		return func(c *sms.Client, _ *sms.DashboardClient) error {
			p := okOTP()
			edit(p)
			_, err := c.OTP.Send(ctx, p)
			return err
		}
	}
	key := func(edit func(p *sms.CreateKeyParams)) run {
		return func(_ *sms.Client, d *sms.DashboardClient) error {
			p := okKey()
			edit(p)
			_, err := d.Keys.Create(ctx, p)
			return err
		}
	}
	first := func(seq func(func(sms.Campaign, error) bool)) error {
		for _, err := range seq {
			return err
		}
		return nil
	}

	tests := []struct {
		name  string
		run   run
		field string
	}{
		{"send: nil params", func(c *sms.Client, _ *sms.DashboardClient) error { _, err := c.SMS.Send(ctx, nil); return err }, "SendParams"},
		{"send: no recipients", send(func(p *sms.SendParams) { p.To = nil }), "To"},
		{"send: 101 recipients", send(func(p *sms.SendParams) { p.To = many(101) }), "To"},
		{"send: bad number", send(func(p *sms.SendParams) { p.To = []string{"2348025671695", "0802"} }), "To[1]"},
		{"send: local number with plus", send(func(p *sms.SendParams) { p.To = []string{"+08025671695"} }), "To[0]"},
		{"send: no sender", send(func(p *sms.SendParams) { p.From = "" }), "From"},
		{"send: short sender", send(func(p *sms.SendParams) { p.From = "AB" }), "From"},
		{"send: long sender", send(func(p *sms.SendParams) { p.From = "ABCDEFGHIJKL" }), "From"},
		{"send: sender with dash", send(func(p *sms.SendParams) { p.From = "ACME-NG" }), "From"},
		{"send: no message", send(func(p *sms.SendParams) { p.Message = "" }), "Message"},
		{"send: 11 parts", send(func(p *sms.SendParams) { p.Message = long }), "Message"},
		{"send: 11 UCS-2 parts", send(func(p *sms.SendParams) { p.Message = strings.Repeat("ж", 671) }), "Message"},
		{"send: channel", send(func(p *sms.SendParams) { p.Channel = "premium" }), "Channel"},
		{"send: reference too long", send(func(p *sms.SendParams) { p.Reference = strings.Repeat("r", 101) }), "Reference"},
		{"send: reference not ASCII", send(func(p *sms.SendParams) { p.Reference = "naïve" }), "Reference"},
		{"send: reference with a tab", send(func(p *sms.SendParams) { p.Reference = "a\tb" }), "Reference"},

		{"campaign: nil params", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Create(ctx, nil)
			return err
		}, "CreateCampaignParams"},
		{"campaign: no recipients", campaign(func(p *sms.CreateCampaignParams) { p.To = nil }), "To"},
		{"campaign: 10,001 recipients", campaign(func(p *sms.CreateCampaignParams) { p.To = manyRecipients }), "To"},
		{"campaign: bad number", campaign(func(p *sms.CreateCampaignParams) { p.To[0].Phone = "12" }), "To[0].Phone"},
		{"campaign: long name", campaign(func(p *sms.CreateCampaignParams) { p.To[0].Name = strings.Repeat("n", 101) }), "To[0].Name"},
		{"campaign: name makes 11 parts", campaign(func(p *sms.CreateCampaignParams) {
			p.Message = "Hi {{name}} " + strings.Repeat("a", 1500)
			p.To = append(p.To, sms.Recipient{Phone: "2348030000001", Name: strings.Repeat("n", 40)})
		}), "To[1].Name"},
		{"campaign: 11 parts", campaign(func(p *sms.CreateCampaignParams) { p.Message = long }), "Message"},
		{"campaign: no message", campaign(func(p *sms.CreateCampaignParams) { p.Message = "" }), "Message"},
		{"campaign: sender", campaign(func(p *sms.CreateCampaignParams) { p.From = "A B" }), "From"},
		{"campaign: channel", campaign(func(p *sms.CreateCampaignParams) { p.Channel = "DND" }), "Channel"},
		{"campaign: reference", campaign(func(p *sms.CreateCampaignParams) { p.Reference = "\x7f" }), "Reference"},

		{"list: negative page", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.List(ctx, &sms.ListCampaignsParams{Page: -1})
			return err
		}, "Page"},
		{"list: limit 101", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.List(ctx, &sms.ListCampaignsParams{Limit: 101})
			return err
		}, "Limit"},
		{"all: negative limit", func(c *sms.Client, _ *sms.DashboardClient) error {
			return first(c.Campaigns.All(ctx, &sms.ListCampaignsParams{Limit: -1}))
		}, "Limit"},
		{"status: no id", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Delivery(ctx, "", nil)
			return err
		}, "id"},
		{"status: dot-dot id", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Delivery(ctx, "..", nil)
			return err
		}, "id"},
		{"status: limit", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Delivery(ctx, "abc", &sms.DeliveryParams{Limit: 1000})
			return err
		}, "Limit"},
		{"recipients: no id", func(c *sms.Client, _ *sms.DashboardClient) error {
			for _, err := range c.Campaigns.AllRecipients(ctx, "", nil) {
				return err
			}
			return nil
		}, "id"},
		{"recipients: page", func(c *sms.Client, _ *sms.DashboardClient) error {
			for _, err := range c.Campaigns.AllRecipients(ctx, "abc", &sms.DeliveryParams{Page: -2}) {
				return err
			}
			return nil
		}, "Page"},

		{"otp: nil params", func(c *sms.Client, _ *sms.DashboardClient) error { _, err := c.OTP.Send(ctx, nil); return err }, "SendOTPParams"},
		{"otp: number", otp(func(p *sms.SendOTPParams) { p.To = "" }), "To"},
		{"otp: sender", otp(func(p *sms.SendOTPParams) { p.From = "" }), "From"},
		{"otp: pin type", otp(func(p *sms.SendOTPParams) { p.PinType = "hex" }), "PinType"},
		{"otp: pin length 3", otp(func(p *sms.SendOTPParams) { p.PinLength = 3 }), "PinLength"},
		{"otp: pin length 9", otp(func(p *sms.SendOTPParams) { p.PinLength = 9 }), "PinLength"},
		{"otp: ttl not whole minutes", otp(func(p *sms.SendOTPParams) { p.PinTimeToLive = 90 * time.Second }), "PinTimeToLive"},
		{"otp: ttl 61 minutes", otp(func(p *sms.SendOTPParams) { p.PinTimeToLive = 61 * time.Minute }), "PinTimeToLive"},
		{"otp: negative ttl", otp(func(p *sms.SendOTPParams) { p.PinTimeToLive = -time.Minute }), "PinTimeToLive"},
		{"otp: long placeholder", otp(func(p *sms.SendOTPParams) {
			p.PinPlaceholder = strings.Repeat("#", 21)
			p.Message = p.PinPlaceholder
		}), "PinPlaceholder"},
		{"otp: no placeholder", otp(func(p *sms.SendOTPParams) { p.Message = "Your code" }), "Message"},
		{"otp: custom placeholder missing", otp(func(p *sms.SendOTPParams) { p.PinPlaceholder = "{pin}" }), "Message"},
		{"otp: 11 parts with the pin", otp(func(p *sms.SendOTPParams) {
			p.Message = strings.Repeat("a", 1525) + "< 1234 >" // 1525 + 6 = 1531 characters
		}), "Message"},
		{"verify: nil params", func(c *sms.Client, _ *sms.DashboardClient) error { _, err := c.OTP.Verify(ctx, nil); return err }, "VerifyOTPParams"},
		{"verify: no pin ID", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{Pin: "1234"})
			return err
		}, "PinID"},
		{"verify: no pin", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "x"})
			return err
		}, "Pin"},
		{"verify: too short", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "x", Pin: "12"})
			return err
		}, "Pin"},
		{"verify: too long", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "x", Pin: "123456789"})
			return err
		}, "Pin"},
		{"verify: leading space", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "x", Pin: " 123456"})
			return err
		}, "Pin"},
		{"verify: separator", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "x", Pin: "123-456"})
			return err
		}, "Pin"},
		{"verify: not ASCII", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "x", Pin: "１２３４５６"})
			return err
		}, "Pin"},
		{"verify: letters in a numeric pin", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "x", Pin: "12345A", PinType: sms.PinTypeNumeric})
			return err
		}, "Pin"},
		{"verify: length other than sent", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "x", Pin: "12345", PinLength: 6})
			return err
		}, "Pin"},
		{"verify: pin type", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "x", Pin: "123456", PinType: "hex"})
			return err
		}, "PinType"},
		{"verify: pin length", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "x", Pin: "123456", PinLength: 9})
			return err
		}, "PinLength"},

		{"sender ID: nil params", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, nil)
			return err
		}, "RequestSenderIDParams"},
		{"sender ID: shape", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "AC", UseCase: "u", Company: "c"})
			return err
		}, "SenderID"},
		{"sender ID: blank usecase", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "  ", Company: "c"})
			return err
		}, "UseCase"},
		{"sender ID: long usecase", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: strings.Repeat("u", 501), Company: "c"})
			return err
		}, "UseCase"},
		{"sender ID: long company", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "u", Company: strings.Repeat("c", 101)})
			return err
		}, "Company"},
		{"sender IDs: status filter", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.List(ctx, &sms.ListSenderIDsParams{Status: sms.SenderIDStatus("sent")})
			return err
		}, "Status"},

		{"key: nil params", func(_ *sms.Client, d *sms.DashboardClient) error { _, err := d.Keys.Create(ctx, nil); return err }, "CreateKeyParams"},
		{"key: no name", key(func(p *sms.CreateKeyParams) { p.Name = " " }), "Name"},
		{"key: long name", key(func(p *sms.CreateKeyParams) { p.Name = strings.Repeat("k", 101) }), "Name"},
		{"key: no scopes", key(func(p *sms.CreateKeyParams) { p.Scopes = nil }), "Scopes"},
		{"key: unknown scope", key(func(p *sms.CreateKeyParams) { p.Scopes = sms.Scopes{sms.ScopeSMS, "admin"} }), "Scopes[1]"},
		{"key: prefix", key(func(p *sms.CreateKeyParams) { p.Prefix = "pk_prod" }), "Prefix"},
		{"key: negative expiry", key(func(p *sms.CreateKeyParams) { p.ExpiresInDays = -1 }), "ExpiresInDays"},
		{"key: expiry too long", key(func(p *sms.CreateKeyParams) { p.ExpiresInDays = 3651 }), "ExpiresInDays"},
		{"revoke: no id", func(_ *sms.Client, d *sms.DashboardClient) error { _, err := d.Keys.Revoke(ctx, "", nil); return err }, "id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, d, ct := offlineClients(t)
			err := tt.run(c, d)
			var ve *sms.ValidationError
			require.True(t, errors.As(err, &ve), "want a *ValidationError, got %T: %v", err, err)
			assert.Equal(t, tt.field, ve.Field)
			assert.NotEmpty(t, ve.Reason)
			assert.ErrorIs(t, err, sms.ErrInvalidParams)
			assert.NotErrorIs(t, err, sms.ErrBadRequest, "only a server's 400 is a bad request")
			assert.Equal(t, "sms: invalid "+tt.field+": "+ve.Reason, err.Error())
			assert.Equal(t, int32(0), ct.N.Load(), "no request was sent")
		})
	}
}

// TestValidParamsAreSent checks the edges that are allowed: they reach the transport.
func TestValidParamsAreSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := map[string]func(c *sms.Client) error{
		"100 recipients": func(c *sms.Client) error {
			to := make([]string, 100)
			for i := range to {
				to[i] = "+2348025671695"
			}
			_, err := c.SMS.Send(ctx, &sms.SendParams{To: to, From: "ABC", Message: strings.Repeat("a", 1530), Reference: strings.Repeat("r", 100)})
			return err
		},
		"duplicate numbers keep the first name": func(c *sms.Client) error {
			_, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{
				To:      []sms.Recipient{{Phone: "2348025671695", Name: "A"}, {Phone: "08025671695", Name: strings.Repeat("n", 100)}},
				From:    "ABCDEFGHIJK",
				Message: strings.Repeat("a", 1520) + "{{name}}",
			})
			return err
		},
		"OTP edges": func(c *sms.Client) error {
			_, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: "12345678", From: "ACME", PinLength: 8, PinTimeToLive: time.Hour,
				PinPlaceholder: strings.Repeat("#", 20), Message: strings.Repeat("#", 20)})
			return err
		},
		"limit 100": func(c *sms.Client) error {
			_, err := c.Campaigns.List(ctx, &sms.ListCampaignsParams{Page: 1 << 20, Limit: 100})
			return err
		},
	}
	for name, run := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, _, ct := offlineClients(t)
			err := run(c)
			var ve *sms.ValidationError
			assert.False(t, errors.As(err, &ve), "%v", err)
			assert.Equal(t, int32(1), ct.N.Load())
		})
	}
}

// Text that is not valid UTF-8 would reach the server with U+FFFD in place of each invalid
// byte: it is a *ValidationError, before any request.
func TestInvalidUTF8IsValidationError(t *testing.T) {
	t.Parallel()
	const bad = "caf\xe9 \xff"
	ctx := context.Background()
	tests := []struct {
		field string
		call  func(*sms.Client, *sms.DashboardClient) error
	}{
		{"Message", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: bad})
			return err
		}},
		{"Message", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "08025671695"}}, From: "ACME", Message: bad})
			return err
		}},
		{"To[1].Name", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{
				To: []sms.Recipient{{Phone: "08025671695", Name: "Ada"}, {Phone: "08025671696", Name: bad}}, From: "ACME", Message: "Hi {{name}}",
			})
			return err
		}},
		{"id", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Delivery(ctx, bad, nil)
			return err
		}},
		{"Message", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: "ACME", Message: "< 1234 > " + bad})
			return err
		}},
		{"PinPlaceholder", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: "ACME", Message: "code " + bad, PinPlaceholder: bad})
			return err
		}},
		{"PinID", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: bad, Pin: "123456"})
			return err
		}},
		{"Pin", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "p1", Pin: "12\xff456"})
			return err
		}},
		{"UseCase", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: bad, Company: "Acme"})
			return err
		}},
		{"Company", func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "alerts", Company: bad})
			return err
		}},
		{"Name", func(_ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.Create(ctx, &sms.CreateKeyParams{Name: bad, Scopes: sms.Scopes{sms.ScopeSMS}})
			return err
		}},
		{"id", func(_ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.Revoke(ctx, bad, nil)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			t.Parallel()
			c, d, ct := offlineClients(t)
			err := tt.call(c, d)
			var ve *sms.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.field, ve.Field)
			assert.Equal(t, "the text is not valid UTF-8", ve.Reason)
			assert.ErrorIs(t, err, sms.ErrInvalidParams)
			assert.Zero(t, ct.N.Load(), "no request")
			checkErrorString(t, err.Error())
		})
	}
}

// TestNigerianNumberLength: a number starting with 234 is Nigerian and has 10 digits after
// 234 (and its trunk 0); SMS, campaigns, OTPs and bulk sends refuse the others before any
// request, saying how many digits they have.
func TestNigerianNumberLength(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		number, digits string // digits: what the reason must say it found
	}{
		{"+234 803 123 456", "9 digits after 234"},
		{"+234 803 123 45678", "11 digits after 234"},
		{"234 0803 123 45678", "11 digits after 234"},
		{"2340803123456", "9 digits after 234"},
		{"+234 (0)1 234 5678", "8 digits after 234"},
	}
	calls := []struct {
		name, field string
		call        func(c *sms.Client, number string) error
	}{
		{"send", "To[1]", func(c *sms.Client, n string) error {
			_, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"2348025671695", n}, From: "ACME", Message: "hi"})
			return err
		}},
		{"campaign", "To[0].Phone", func(c *sms.Client, n string) error {
			_, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: n}}, From: "ACME", Message: "hi"})
			return err
		}},
		{"otp", "To", func(c *sms.Client, n string) error {
			_, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: n, From: "ACME", Message: "Code < 1234 >"})
			return err
		}},
	}
	for _, tt := range tests {
		for _, call := range calls {
			t.Run(call.name+"/"+tt.number, func(t *testing.T) {
				t.Parallel()
				c, _, ct := offlineClients(t)
				err := call.call(c, tt.number)
				var ve *sms.ValidationError
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, call.field, ve.Field)
				assert.Contains(t, ve.Reason, "a Nigerian number has 10")
				assert.Contains(t, ve.Reason, tt.digits)
				assert.Equal(t, int32(0), ct.N.Load(), "no request was sent")
			})
		}
		t.Run("NormalizePhone/"+tt.number, func(t *testing.T) {
			t.Parallel()
			_, err := sms.NormalizePhone(tt.number)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.digits)
		})
	}
}
