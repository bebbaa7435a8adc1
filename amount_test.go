package sms_test

import (
	"encoding/json"
	"math"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

func TestAmountUnmarshalIsExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json string
		kobo int64
		str  string
	}{
		{"0.01", 1, "0.01"},
		{"0.1", 10, "0.10"},
		{"3.20", 320, "3.20"},
		{"3.2", 320, "3.20"},
		{"4.50", 450, "4.50"},
		{"0", 0, "0.00"},
		{"0.00", 0, "0.00"},
		{"10000.00", 1_000_000, "10000.00"},
		{"1e2", 10_000, "100.00"},
		{"-0.05", -5, "-0.05"},
		{"90071992547409.93", 9_007_199_254_740_993, "90071992547409.93"}, // 2^53 + 1 kobo: not a float64
		{"92233720368547758.07", math.MaxInt64, "92233720368547758.07"},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			t.Parallel()
			var v struct {
				Amount sms.Amount `json:"amount"`
			}
			require.NoError(t, json.Unmarshal([]byte(`{"amount": `+tt.json+`}`), &v))
			assert.Equal(t, tt.kobo, v.Amount.Kobo())
			assert.Equal(t, tt.str, v.Amount.String())
			assert.Equal(t, sms.AmountFromKobo(tt.kobo), v.Amount)

			out, err := json.Marshal(v)
			require.NoError(t, err)
			assert.JSONEq(t, `{"amount":`+tt.str+`}`, string(out))
			assert.Contains(t, string(out), ":"+tt.str, "two decimals on the wire")
		})
	}
}

// A value finer than a kobo in an answer is rounded half away from zero rather than failing
// the whole answer; what is not a number is still refused.
func TestAmountUnmarshalRoundsToKobo(t *testing.T) {
	t.Parallel()
	for in, kobo := range map[string]int64{`0.001`: 0, `0.005`: 1, `3.205`: 321, `3.2049`: 320, `-3.205`: -321, `1e-3`: 0, `15000`: 1_500_000, `"3.20"`: 320, `"1500.00"`: 150_000, `" 7 "`: 700} {
		var a sms.Amount
		require.NoError(t, json.Unmarshal([]byte(in), &a), in)
		assert.Equal(t, kobo, a.Kobo(), in)
	}
	for _, in := range []string{`"3.20 NGN"`, `""`, `true`, `{}`, `92233720368547758.08`, `1e30`, `3.`, `-`} {
		var a sms.Amount
		assert.Error(t, json.Unmarshal([]byte(in), &a), in)
	}
	a := sms.AmountFromKobo(7)
	require.NoError(t, json.Unmarshal([]byte(`null`), &a))
	assert.Equal(t, int64(7), a.Kobo(), "null leaves the amount as it was")
	_, err := sms.ParseAmount("3.205")
	assert.Error(t, err, "what people type is not rounded")
}

func TestParseAmount(t *testing.T) {
	t.Parallel()
	a, err := sms.ParseAmount("3.2")
	require.NoError(t, err)
	assert.Equal(t, sms.AmountFromKobo(320), a)
	_, err = sms.ParseAmount("3.201")
	require.Error(t, err)
	_, err = sms.ParseAmount("₦3")
	require.Error(t, err)
	assert.Equal(t, "0.00", sms.Amount{}.String())
	assert.Equal(t, "1.00", sms.AmountFromKobo(100).String())
}

var nairaText = regexp.MustCompile(`^-?[0-9]+\.[0-9]{2}$`)

func FuzzAmount(f *testing.F) {
	for _, s := range []string{"0.01", "3.20", "10000.00", "-1", "1e2", "92233720368547758.07", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var a sms.Amount
		if json.Unmarshal([]byte(s), &a) != nil {
			return
		}
		// Whatever decodes prints as naira with two decimals and reads back the same.
		back, err := sms.ParseAmount(a.String())
		if err != nil {
			t.Fatalf("%q decoded to %s, which does not parse: %v", s, a, err)
		}
		if back != a {
			t.Fatalf("%q: %s read back as %s", s, a, back)
		}
		if !nairaText.MatchString(a.String()) {
			t.Fatalf("%q: %s is not naira with two decimals", s, a)
		}
	})
}

func TestAmountAddSub(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b     int64
		sum, dif int64
	}{
		{0, 0, 0, 0},
		{320, 450, 770, -130},
		{1_000_000, 790_240_000, 791_240_000, -789_240_000},
		{-5, 5, 0, -10},
	}
	for _, tt := range tests {
		a, b := sms.AmountFromKobo(tt.a), sms.AmountFromKobo(tt.b)
		assert.Equal(t, sms.AmountFromKobo(tt.sum), a.Add(b), "%v + %v", a, b)
		assert.Equal(t, sms.AmountFromKobo(tt.dif), a.Sub(b), "%v - %v", a, b)
		assert.Equal(t, a, a.Add(b).Sub(b), "Sub undoes Add")
	}
}
