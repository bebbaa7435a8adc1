package rules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCountParts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		msg   string
		parts int
		enc   Encoding
	}{
		{"empty", "", 0, GSM7},
		{"short", "Hello", 1, GSM7},
		{"160 gsm", strings.Repeat("a", 160), 1, GSM7},
		{"161 gsm", strings.Repeat("a", 161), 2, GSM7},
		{"306 gsm", strings.Repeat("a", 306), 2, GSM7},
		{"307 gsm", strings.Repeat("a", 307), 3, GSM7},
		{"extension counts two", strings.Repeat("€", 80), 1, GSM7},
		{"extension 81", strings.Repeat("€", 81), 2, GSM7},
		{"escape fits single part", strings.Repeat("a", 152) + "{" + "b", 1, GSM7},
		{"escape pushed to next part", strings.Repeat("a", 152) + "{" + strings.Repeat("b", 152), 3, GSM7},
		{"gsm accents", "Ça va? àèìòù ÄÖÑÜ", 1, GSM7},
		{"ucs2 70", strings.Repeat("ж", 70), 1, UCS2},
		{"ucs2 71", strings.Repeat("ж", 71), 2, UCS2},
		{"ucs2 134", strings.Repeat("ж", 134), 2, UCS2},
		{"ucs2 135", strings.Repeat("ж", 135), 3, UCS2},
		{"emoji is two units", strings.Repeat("😀", 35), 1, UCS2},
		{"emoji 36", strings.Repeat("😀", 36), 2, UCS2},
		{"surrogate pair not split", strings.Repeat("x", 66) + "😀" + strings.Repeat("x", 66), 3, UCS2},
		{"one non-gsm char makes ucs2", strings.Repeat("a", 70) + "ж", 2, UCS2},
		{"ten parts", strings.Repeat("a", 1530), 10, GSM7},
		{"eleven parts", strings.Repeat("a", 1531), 11, GSM7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			parts, enc := CountParts(tt.msg)
			assert.Equal(t, tt.parts, parts)
			assert.Equal(t, tt.enc, enc)
		})
	}
}

func TestNormalizePhone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		err      error // nil when valid; ErrPhone, or an error that matches it and says more
	}{
		// The contract's forms.
		{"2348025671695", "2348025671695", nil},
		{"+2348025671695", "2348025671695", nil},
		{"08025671695", "2348025671695", nil},
		{"12345678", "12345678", nil},
		{"123456789012345", "123456789012345", nil},
		{"+08025671695", "", ErrPhone},
		{"0802567169", "", ErrPhone},
		{"1234567", "", ErrPhone},
		{"1234567890123456", "", ErrPhone},
		{"", "", ErrPhone},
		{"+", "", ErrPhone},
		{"234802567169a", "", ErrPhone},
		{"0234802567169", "", ErrPhone},
		{"00100000000", "", errPhone00}, // once 2340100000000, which is not a number
		{"00 44 20 7946 0958", "", errPhone00},
		{"+00 44 20 7946 0958", "", errPhone00},
		{"00000000000", "", errPhone00},
		{"0296 355 7538", "", errPhoneLocal}, // 0 + 10 digits, but no Nigerian number starts 29
		{"02079460958", "", errPhoneLocal},   // a British local number
		{"07025671695", "2347025671695", nil},
		{"09125671695", "2349125671695", nil},

		// As people write them: spaces, dashes, dots and parentheses separate digits.
		{"+234 803 123 4567", "2348031234567", nil},
		{"234 802 567 1695", "2348025671695", nil},
		{"0803-123-4567", "2348031234567", nil},
		{"(0803) 1234567", "2348031234567", nil},
		{"0803.123.4567", "2348031234567", nil},
		{" 08031234567 ", "2348031234567", nil},
		{"(+234) 803-123-4567", "2348031234567", nil},
		{"+1 (415) 555-0100", "14155550100", nil},
		{"+44 20 7946 0958", "442079460958", nil},
		{"+33 6.12.34.56.78", "33612345678", nil},
		{"06.12.34.56.00", "", ErrPhone}, // a French local number: no country code
		{"0803 123 456", "", ErrPhone},
		{"+234 803 123 4567 8", "", errNigerianLength(11, false)}, // 234: Nigeria, 10 digits after it
		{"- ( ) .", "", ErrPhone},
		{"0803_123_4567", "", ErrPhone},
		{"0803/123/4567", "", ErrPhone},
		{"0803\t1234567", "", ErrPhone},
		{"0805\n1234567", "", ErrPhone},
		{"0803\u00a01234567", "", ErrPhone},
		{"+ 234 803 123 4567", "2348031234567", nil},
		{"234+8031234567", "", ErrPhone},
		{"++2348031234567", "", ErrPhone},
		{"2348031234567+", "", ErrPhone},
		{"+234 803 123 4567 890 12", "", ErrPhone}, // 16 digits

		// The trunk 0 after Nigeria's country code.
		{"+234 (0)803 123 4567", "2348031234567", nil},
		{"23408031234567", "2348031234567", nil},
		{"2340 803 123 4567", "2348031234567", nil},

		// Nigeria's numbers have 10 digits after 234 (and its trunk 0): the others are refused,
		// saying how many they have.
		{"+234 803 123 456", "", errNigerianLength(9, false)},
		{"+234 803 123 45678", "", errNigerianLength(11, false)},
		{"234 0803 123 45678", "", errNigerianLength(11, false)},
		{"234 0803 123 456", "", errNigerianLength(9, false)},
		{"+234 (0)1 234 5678", "", errNigerianLength(8, false)}, // a Lagos line's 8 digits
		{"234 1234", "", errNigerianLength(4, false)},
		{"2340", "", errNigerianLength(0, false)},
		{"234 0 0803 123 456", "", errNigerianLength(10, true)},
		{"234008031234567", "", errNigerianLength(11, false)},
		{"2348031234567", "2348031234567", nil},
		{"2342", "", errNigerianLength(1, false)},
		{"23480312345", "", errNigerianLength(8, false)},
		{"2331234567", "2331234567", nil}, // Ghana: other countries keep 8-15 digits

		// A local number whose 0 a spreadsheet removed.
		{"8031234567", "2348031234567", nil},
		{"7031234567", "2347031234567", nil},
		{"8101234567", "2348101234567", nil},
		{"9031234567", "2349031234567", nil},
		{"9131234567", "2349131234567", nil},
		{"803 123 4567", "2348031234567", nil},
		{"+8031234567", "", errPhoneNoCC},
		{"+91 312 345 67", "", errPhoneNoCC},
		{"8212345678", "8212345678", nil},  // Seoul, 82 2 123 4567
		{"9607771234", "9607771234", nil},  // the Maldives, 960 777 1234
		{"+9613123456", "9613123456", nil}, // Lebanon, 961 3 123 456
		{"803123456", "803123456", nil},    // 9 digits: international, as before
		{"80312345678", "80312345678", nil},

		// A spreadsheet's float.
		{"8031234567.0", "", errPhoneFloat},
		{"2348031234567.0 ", "", errPhoneFloat},
		{"8031234567.00", "", errPhoneFloat},
		{"+234 803 123 4567.", "2348031234567", nil},
		{"+44.20.7946.0958", "442079460958", nil},
		{"+33 6.12.34.56.01", "33612345601", nil},
		{"+33 6.12.34.56.00", "", errPhoneFloat}, // write it with spaces
		{"0803.123.456.7", "2348031234567", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := NormalizePhone(tt.in)
			if tt.err != nil {
				require.ErrorIs(t, err, ErrPhone)
				assert.Equal(t, tt.err.Error(), err.Error())
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestNormalizePhoneAllocs: a number written as the API shows it is returned without a copy.
func TestNormalizePhoneAllocs(t *testing.T) {
	for _, in := range []string{"2348025671695", "+2348025671695"} {
		assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = NormalizePhone(in) }), in)
	}
}

func TestNaira(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		kobo int64
		ok   bool
	}{
		{"3.20", 320, true},
		{"3.2", 320, true},
		{"3", 300, true},
		{"0", 0, true},
		{"10000.00", 1_000_000, true},
		{"0.01", 1, true},
		{"3.200", 320, true},
		{"1e2", 10000, true},
		{"1.5E1", 1500, true},
		{"-4.50", -450, true},
		{"0.001", 0, false},
		{"3.", 0, false},
		{".5", 0, false},
		{"abc", 0, false},
		{"", 0, false},
		{"1e-3", 0, false},
		{"99999999999999999999", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseNaira(tt.in)
			if !tt.ok {
				require.ErrorIs(t, err, ErrMoney)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.kobo, got)
		})
	}
	for _, k := range []int64{0, 1, 5, 99, 100, 320, 450, 1_000_000, -5, -320} {
		back, err := ParseNaira(FormatNaira(k))
		require.NoError(t, err)
		assert.Equal(t, k, back, FormatNaira(k))
	}
	assert.Equal(t, "3.20", FormatNaira(320))
	assert.Equal(t, "-0.05", FormatNaira(-5))
}

// ParseNairaRounded reads what ParseNaira reads, the same, and rounds a value finer than a
// kobo half away from zero instead of refusing it.
func TestParseNairaRounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		kobo int64
		ok   bool
	}{
		{"15000", 1_500_000, true},
		{"3.2", 320, true},
		{"3.20", 320, true},
		{"3.200", 320, true},
		{"3.205", 321, true},
		{"3.2049", 320, true},
		{"3.2050", 321, true},
		{"3.2099", 321, true},
		{"-3.205", -321, true},
		{"-3.2049", -320, true},
		{"0.005", 1, true},
		{"0.0049", 0, true},
		{"9e-3", 1, true},
		{"9e-4", 0, true},
		{"1e-5", 0, true},
		{"0.995", 100, true},
		{"1.5E1", 1500, true},
		{"3.", 0, false},
		{"abc", 0, false},
		{"", 0, false},
		{"99999999999999999999", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseNairaRounded(tt.in)
			if !tt.ok {
				require.ErrorIs(t, err, ErrMoney)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.kobo, got)
			if exact, err := ParseNaira(tt.in); err == nil {
				assert.Equal(t, exact, got, "a value of whole kobo is read the same by both")
			}
		})
	}
}

func TestValidators(t *testing.T) {
	t.Parallel()
	assert.True(t, ValidSenderID("MOCKSMS"))
	assert.True(t, ValidSenderID("abc"))
	assert.False(t, ValidSenderID("ab"))
	assert.False(t, ValidSenderID("ABCDEFGHIJKL"))
	assert.False(t, ValidSenderID("ACME-NG"))
	assert.True(t, ValidReference("order-42 #1"))
	assert.False(t, ValidReference(""))
	assert.False(t, ValidReference(strings.Repeat("r", 101)))
	assert.False(t, ValidReference("tab\there"))
	assert.False(t, ValidReference("naïve"))
	assert.True(t, ValidScope("sender_ids"))
	assert.False(t, ValidScope("admin"))
}

// BenchmarkNormalizePhone: the mock normalizes every recipient of a campaign (10,000 per
// request), the SDK every number it sends.
func BenchmarkNormalizePhone(b *testing.B) {
	for _, in := range []string{"2348025671695", "08025671695", "+234 802 567 1695"} {
		b.Run(in, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = NormalizePhone(in)
			}
		})
	}
}
