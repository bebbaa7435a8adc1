package safetext

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every form in which a server writes a phone number is masked: dots, no-break and other
// spaces, tabs, slashes, %20 in a URL, a float, full-width digits, Unicode dashes.
func TestMaskPhonesWrittenForms(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"0803.123.4567", "0803****567"},
		{"+234.803.123.4567", "+234803****567"},
		{"to 0803\u00a0123\u00a04567.", "to 0803****567."},
		{"+234\u202f803\u202f123\u202f4567", "+234803****567"},
		{"0803\t123\t4567", "0803****567"},
		{"0803/123/4567", "0803****567"},
		{"/v1/x?to=0803%20123%204567&p=1", "/v1/x?to=0803****567&p=1"},
		{"to=%2B234%20803%20123%204567", "to=%2B234803****567"},
		{"amount 2348031234567.0 sent", "amount 234803****567 sent"},
		{"2348031234567.00", "234803****567"},
		{"8031234567.0", "803****567"},
		{"2.348031234567E12", "234803****567"},
		{"n=2.348031234567e+12,", "n=234803****567,"},
		{"\uff10\uff18\uff10\uff13\uff11\uff12\uff13\uff14\uff15\uff16\uff17", "0803****567"},
		{"\uff0b\uff12\uff13\uff14\uff18\uff10\uff13\uff11\uff12\uff13\uff14\uff15\uff16\uff17", "\uff0b234803****567"},
		{"0803\u2013123\u20134567", "0803****567"},
		{"\u0660\u0668\u0660\u0663\u0661\u0662\u0663\u0664\u0665\u0666\u0667", "0803****567"},
		// Still not phone numbers.
		{"10000000.00", "10000000.00"},
		{"1.2348025671695", "1.2348025671695"},
		{"2348031234567.5", "2348031234567.5"},
		{"192.168.100.200", "192.168.100.200"},
		{"v1.2.3", "v1.2.3"},
		{"28/11/2026", "28/11/2026"},
		{"2026-11-28 01:21:29", "2026-11-28 01:21:29"},
		{"1.5E3", "1.5E3"},
		{"1732752000.0", "1732752000.0"},
		{"line 0803\n123\n4567", "line 0803\n123\n4567"},
	} {
		assert.Equal(t, tt.want, MaskPhones(tt.in), "%q", tt.in)
	}
}

// A pin the caller sent is found however the server groups or writes its digits.
func TestRedactorPinForms(t *testing.T) {
	t.Parallel()
	r := New(Config{Pins: []string{"482913"}})
	for _, tt := range []struct{ in, want string }{
		{"pin 482-913 expired", "pin [REDACTED] expired"},
		{"pin 482 913 expired", "pin [REDACTED] expired"},
		{"pin 482.913", "pin [REDACTED]"},
		{"pin \uff14\uff18\uff12\uff19\uff11\uff13", "pin [REDACTED]"},
		{"pin 4\u00a082\u00a0913", "pin [REDACTED]"},
		{"id 1482913 and 4829130", "id 1482913 and 4829130"},
	} {
		assert.Equal(t, tt.want, r.Text(tt.in), "%q", tt.in)
	}
	people := New(Config{People: true})
	for _, tt := range []struct{ in, want string }{
		{"Your code is 482 913.", "Your code is [REDACTED]."},
		{"Your code is 482-913.", "Your code is [REDACTED]."},
		{"OTP: 48-29-13", "OTP: [REDACTED]"},
	} {
		assert.Equal(t, tt.want, people.Text(tt.in), "%q", tt.in)
	}
}

// The caller's own secret is found encoded: base64 (standard or URL, padded or not, alone or
// inside a longer text), %-encoded once or twice, every byte or some, cut in pieces of 6 or 7
// characters with anything but letters and digits between.
func TestRedactorEncodedSecret(t *testing.T) {
	t.Parallel()
	r := New(Config{Secrets: []string{ownSecret}})
	pct := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[s[i]>>4])+string("0123456789abcdef"[s[i]&15])))
		}
		return b.String()
	}
	body := strings.TrimPrefix(ownSecret, "sk_live_")
	var pieces7 []string
	for i := 0; i < len(ownSecret); i += 7 {
		pieces7 = append(pieces7, ownSecret[i:min(i+7, len(ownSecret))])
	}
	var pieces6 []string
	for i := 0; i < len(body); i += 6 {
		pieces6 = append(pieces6, body[i:min(i+6, len(body))])
	}
	for name, in := range map[string]string{
		"base64":              base64.StdEncoding.EncodeToString([]byte(ownSecret)),
		"base64 raw url":      base64.RawURLEncoding.EncodeToString([]byte(ownSecret)),
		"base64 of a text":    base64.StdEncoding.EncodeToString([]byte("user:" + ownSecret)),
		"base64 of the body":  base64.StdEncoding.EncodeToString([]byte(body)),
		"percent":             pct(ownSecret),
		"percent twice":       url.QueryEscape(pct(ownSecret)),
		"percent, some bytes": strings.ReplaceAll(ownSecret, "_", "%5F"),
		"pieces of 7":         strings.Join(pieces7, " "),
		"pieces of 7, lines":  strings.Join(pieces7, "\n- "),
		"pieces of 6":         strings.Join(pieces6, ", "),
	} {
		got := r.Text("key " + in + " end")
		assert.True(t, strings.HasPrefix(got, "key ") && strings.Contains(got, Redacted) && strings.HasSuffix(got, " end"), "%s: %q -> %q", name, in, got)
		assert.NotContains(t, got, in, name)
		for i := 0; i+6 <= len(body); i++ {
			assert.NotContains(t, got, body[i:i+6], name)
		}
	}
	for _, in := range []string{"hello world, it is fine", "c29tZSBvcmRpbmFyeSB0ZXh0", "a%20b%20c", "Q9vX2 alone"} {
		assert.Equal(t, in, r.Text(in))
	}
}

// With RandomRuns, a generated secret of anyone's, without its prefix, is found by its shape.
func TestRedactorRandomRuns(t *testing.T) {
	t.Parallel()
	r := New(Config{RandomRuns: true})
	other := "Xk3mP9qL2vR7tY4wZ8aB1cD5eF6gH0jK2nM4pQ7s" // 40 letters and digits
	require.Len(t, other, 40)
	assert.Equal(t, "key "+Redacted+", then", r.Text("key "+other+", then"))
	for _, in := range []string{"da39a3ee5e6b4b0d3255bfef95601890afd80709", "req-3017600245086449408013699", "pk_live_Ab3dEf6hIj9kLm2nOp5qRs8t"} {
		assert.Equal(t, in, r.Text(in))
	}
	assert.Equal(t, "key "+other, New(Config{}).Text("key "+other))
}

// phoneForms writes 08031234567 as servers do.
var phoneForms = []string{
	"0803.123.4567", "+234.803.123.4567", "0803\u00a0123\u00a04567", "0803\t123\t4567", "0803/123/4567",
	"0803%20123%204567", "2348031234567.0", "2.348031234567E12", "\uff10\uff18\uff10\uff13\uff11\uff12\uff13\uff14\uff15\uff16\uff17",
	"0803\u2013123\u20134567", "+234 803 123 4567", "(0803) 123-4567",
}

// secretForms writes s as servers do.
func secretForms(s string) []string {
	var pct strings.Builder
	for i := 0; i < len(s); i++ {
		pct.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[s[i]>>4])+string("0123456789abcdef"[s[i]&15])))
	}
	var pieces []string
	for i := 0; i < len(s); i += 7 {
		pieces = append(pieces, s[i:min(i+7, len(s))])
	}
	return []string{
		s, strings.TrimPrefix(s, "sk_live_"), base64.StdEncoding.EncodeToString([]byte(s)), base64.RawURLEncoding.EncodeToString([]byte("k=" + s)),
		pct.String(), url.QueryEscape(pct.String()), strings.Join(pieces, " "), strings.Join(pieces, ", "),
	}
}

// Whatever text surrounds it, a phone number in any written form, a pin grouped, and the
// caller's secret in any encoding are never shown.
func FuzzRedactText(f *testing.F) {
	for i := range phoneForms {
		f.Add("sent to", "ok", uint8(i))
	}
	f.Add("key", "", uint8(len(phoneForms)))
	f.Add("<p>", "</p>", uint8(len(phoneForms)+3))
	f.Add("pin", "expired", uint8(200))
	f.Add(`{"a":"`, `"}`, uint8(len(phoneForms)+6))
	r := New(Config{Secrets: []string{ownSecret}, Pins: []string{"482913"}, People: true})
	secrets := secretForms(ownSecret)
	pins := []string{"482 913", "482-913", "48.29.13", "\uff14\uff18\uff12\uff19\uff11\uff13"}
	body := strings.TrimPrefix(ownSecret, "sk_live_")
	f.Fuzz(func(t *testing.T, prefix, suffix string, which uint8) {
		noDigits := func(s string) string {
			return strings.Map(func(c rune) rune {
				if unicode.IsDigit(c) {
					return -1
				}
				return c
			}, s)
		}
		prefix, suffix = noDigits(prefix), noDigits(suffix)
		var form string
		switch n := int(which); {
		case n < len(phoneForms):
			form = phoneForms[n]
		case n < len(phoneForms)+len(secrets):
			form = secrets[n-len(phoneForms)]
		default:
			form = pins[n%len(pins)]
		}
		out := r.Text(prefix + " " + form + " " + suffix)
		require.NotContains(t, out, form)
		for i := 0; i+MinPiece <= len(body); i++ {
			require.NotContains(t, out, body[i:i+MinPiece])
		}
		if int(which) < len(phoneForms) {
			require.NotContains(t, noSpace(out), "1234567")
		}
	})
}

func noSpace(s string) string {
	return strings.Map(func(c rune) rune {
		if unicode.IsSpace(c) {
			return -1
		}
		return c
	}, s)
}
