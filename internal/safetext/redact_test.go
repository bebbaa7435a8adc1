package safetext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One rule masks phone numbers in every form people and servers write them, and leaves alone
// what only looks like one: ids, times, decimals, epoch times.
func TestMaskPhones(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"2348025671695", "234802****695"},
		{"+2348025671695", "+234802****695"},
		{"to 08025671695.", "to 0802****695."},
		{"+234 802 567 1695", "+234802****695"},
		{"0802-567-1695", "0802****695"},
		{"(0802) 567 1695", "(0802****695"},
		{"0296 355 7538", "0296****538"},
		{"to_2348025671695", "to_234802****695"},
		{"msisdn:2348025671695,", "msisdn:234802****695,"},
		{"2348025671695 2348031234567", "234802****695 234803****567"},
		{"0803 123 4567 0805 123 4567", "0803****567 0805****567"},
		{"+2348025671695+2348031234567", "+234802****695+234803****567"},
		{"[2348025671695,2348031234567]", "[234802****695,234803****567]"},
		{"call 08031234567 at 10:00", "call 0803****567 at 10:00"},
		{"08031234567 10:00", "0803****567 10:00"},
		{"0802567169", "080****169"},
		{"/v1/x?to=%2B2348025671695&page=2", "/v1/x?to=%2B234802****695&page=2"},
		// Not phone numbers.
		{"cmp2348025671695", "cmp2348025671695"},
		{"2348025671695abc", "2348025671695abc"},
		{"2026-11-28 01:21:29", "2026-11-28 01:21:29"},
		{"2026-11-28T01:21:29Z", "2026-11-28T01:21:29Z"},
		{"10000000.00", "10000000.00"},
		{"1.2348025671695", "1.2348025671695"},
		{"1732752000", "1732752000"},
		{"1732752000000", "1732752000000"},
		{"123456789", "123456789"},
		{"1234567890123456", "1234567890123456"},
		{"req-3017600245086449408013699", "req-3017600245086449408013699"},
	} {
		assert.Equal(t, tt.want, MaskPhones(tt.in), tt.in)
	}
	assert.Equal(t, "234802****695", MaskPhone("2348025671695"))
	assert.Equal(t, "****", MaskPhone("123"))
}

func TestHidden(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"pin", "PIN", "otp", "otp_code", "otpCode", "pinCode", "pin_code", "secret", "api_secret",
		"apiSecret", "APISecret", "X-API-Secret", "client_secret", "secretKey", "api_key", "apiKey", "token", "access_token",
		"refreshToken", "jwt", "password", "passcode", "verification_code", "authorization", "Cookie", "pins", "tokens", "ſecret", "api_\u212Aey"} {
		assert.True(t, Hidden(name), name)
	}
	for _, name := range []string{"pinId", "pin_id", "pinType", "pin_length", "pinAttempts", "pinPlaceholder", "publicKey",
		"error_code", "code", "to", "message", "phone_number", "key", "tokenType", "otpId", ""} {
		assert.False(t, Hidden(name), name)
	}
	for _, name := range []string{"to", "msisdn", "phone", "phone_number", "phoneNumber", "mobile", "mobileNumber", "recipients", "sentTo", "destination"} {
		assert.True(t, PhoneMember(name), name)
	}
	for _, name := range []string{"toll", "total", "number", "telephoneCount", "from", ""} {
		assert.False(t, PhoneMember(name), name)
	}
}

const (
	ownSecret = "sk_live_Q9vX2mL7pR4tY8wZ1aB5cD6eF3gH0jK2"
	ownJWT    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJlLWJ5dGVzLWhlcmU"
)

// A Redactor finds the caller's own secrets whatever their shape, and anything shaped like a
// secret; with People, pins said in words and phone numbers too.
func TestRedactorText(t *testing.T) {
	t.Parallel()
	r := New(Config{Secrets: []string{ownSecret, ownJWT}, Pins: []string{"4829"}, People: true})
	for _, tt := range []struct{ in, want string }{
		{"Invalid API key " + ownSecret + ".", "Invalid API key [REDACTED]."},
		{"secret=" + strings.TrimPrefix(ownSecret, "sk_live_") + "&x=1", "secret=[REDACTED]&x=1"},
		{"first half Q9vX2mL7pR4tY8wZ, then 1aB5cD6eF3gH0jK2", "first half [REDACTED], then [REDACTED]"},
		{"h=" + ownJWT[:20] + " s=" + ownJWT[strings.LastIndexByte(ownJWT, '.')+1:], "h=[REDACTED] s=[REDACTED]"},
		{"another sk_test_abc123; done", "another [REDACTED]; done"},
		{"Authorization: Bearer abc.def.ghi", "Authorization: [REDACTED]"},
		{"jwt eyJhbGciOiJub25lIn0.eyJ4IjoxfQ.", "jwt [REDACTED]"},
		{"part eyJhbGciOiJIUzI1NiJ9 alone", "part [REDACTED] alone"},
		{"pin 4829 was wrong; 48290 is not it", "pin [REDACTED] was wrong; 48290 is not it"},
		{"Your code is 731905", "Your code is [REDACTED]"},
		{`PIN: A7B3C9`, `PIN: [REDACTED]`},
		{`{\"otp\":\"5521\"}`, `{\"otp\":\"[REDACTED]\"}`},
		{"731905 is your OTP", "[REDACTED] is your OTP"},
		{"the pin has expired", "the pin has expired"},
		{"sent to +234 802 567 1695", "sent to +234802****695"},
		{"pk_live_abc is public", "pk_live_abc is public"},
	} {
		assert.Equal(t, tt.want, r.Text(tt.in), tt.in)
	}
	plain := New(Config{Secrets: []string{ownSecret}})
	assert.Equal(t, "sent to 2348025671695, code is 731905", plain.Text("sent to 2348025671695, code is 731905"), "without People")
}

func TestRedactorJSON(t *testing.T) {
	t.Parallel()
	r := New(Config{Secrets: []string{ownSecret}, People: true})
	for _, tt := range []struct{ in, want string }{
		{
			`{"api_key":"abc","api_secret":{"v":1},"pinCode":12345,"pinId":"p-1","otp_code":"9911","pin":null}`,
			`{"api_key":"[REDACTED]","api_secret":"[REDACTED]","pinCode":"[REDACTED]","pinId":"p-1","otp_code":"[REDACTED]","pin":null}`,
		},
		{
			`{"to":[2348025671695,"0803 123 4567"], "msisdn": 2348031234567, "amount": 10000000.00}`,
			`{"to":["234802****695","0803****567"], "msisdn": "234803****567", "amount": 10000000.00}`,
		},
		{
			`{"message":"Hello, your code is 731905. Key ` + ownSecret + `","data":{"2348025671695":"sent"}}`,
			`{"message":"Hello, your code is [REDACTED]. Key [REDACTED]","data":{"234802****695":"sent"}}`,
		},
		{`{"p\u0069n":"1234","text":"a\"b"}`, `{"p\u0069n":"[REDACTED]","text":"a\"b"}`},
		{`{"secret":"sk_live_012345`, `{"secret":"[REDACTED]"`},
		{`{"data":{"token":["a","b"],"x":1}}`, `{"data":{"token":"[REDACTED]","x":1}}`},
		{`<html>call 0803 123 4567</html>`, `<html>call 0803****567</html>`},
		{
			`{"to":"803123456","recipients":[{"phone":"12345"}, "+1 (415) 555-0100"],"phoneNumber":8031234,"toll":"803123456","sentTo":["Ada"]}`,
			`{"to":"80****456","recipients":[{"phone":"****"}, "+1415****100"],"phoneNumber":"****","toll":"803123456","sentTo":["Ada"]}`,
		},
	} {
		got := string(r.JSON([]byte(tt.in)))
		assert.Equal(t, tt.want, got, tt.in)
		if json.Valid([]byte(tt.in)) {
			assert.True(t, json.Valid([]byte(got)), got)
		}
	}
}

// Whatever the body, a valid JSON value stays valid, the caller's own secret and any piece of
// it never shows, and every member whose name says it holds a secret is hidden.
func FuzzRedactJSON(f *testing.F) {
	f.Add([]byte(`{"api_secret":"` + ownSecret + `","to":[2348025671695]}`))
	f.Add([]byte(`{"a":{"pinCode":[1,{"b":"c"}],"text":"Q9vX2mL7pR4tY8wZ and 0803 123 4567"}}`))
	f.Add([]byte(`["\u0070in", {"otp": "1\"2"}, -1.5e3, true, null]`))
	f.Add([]byte(`{"secret":"sk_live_`))
	f.Add([]byte(`{"to":["0803.123.4567","0803\u00a0123\u00a04567",2348031234567.0,2.348031234567E12],"n":"+234.803.123.4567"}`))
	f.Add([]byte(`{"text":"0803/123/4567 0803%20123%204567 \uff10\uff18\uff10\uff13\uff11\uff12\uff13\uff14\uff15\uff16\uff17","m":"code is 482 913"}`))
	f.Add([]byte(`{"k":"c2tfbGl2ZV9ROXZYMm1MN3BSNHRZOHdaMWFCNWNENmVGM2dIMGpLMg==","p":"%73%6B%5F%6C%69%76%65%5FQ9vX2mL7pR4tY8wZ1aB5cD6eF3gH0jK2"}`))
	r := New(Config{Secrets: []string{ownSecret}, People: true})
	f.Fuzz(func(t *testing.T, body []byte) {
		out := r.JSON(body)
		body2 := []byte(strings.ReplaceAll(string(body), "SECRET", ownSecret))
		out2 := r.JSON(body2)
		for _, o := range [][]byte{out, out2} {
			for i := len("sk_live_"); i+MinPiece <= len(ownSecret); i++ {
				require.NotContains(t, string(o), ownSecret[i:i+MinPiece])
			}
		}
		if !json.Valid(body) {
			return
		}
		require.True(t, json.Valid(out), "%s -> %s", body, out)
		var v any
		d := json.NewDecoder(bytes.NewReader(out))
		d.UseNumber() // a valid number may not fit a float64 (1E700)
		require.NoError(t, d.Decode(&v))
		var walk func(any)
		walk = func(v any) {
			switch t2 := v.(type) {
			case map[string]any:
				for k, x := range t2 {
					if Hidden(k) {
						switch x.(type) {
						case nil, bool:
						default:
							require.Equal(t, Redacted, x, "member %q of %s", k, out)
						}
						continue
					}
					walk(x)
				}
			case []any:
				for _, x := range t2 {
					walk(x)
				}
			}
		}
		walk(v)
	})
}
