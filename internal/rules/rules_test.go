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
		ok       bool
	}{
		{"2348025671695", "2348025671695", true},
		{"+2348025671695", "2348025671695", true},
		{"08025671695", "2348025671695", true},
		{"+08025671695", "", false},
		{"0802567169", "", false},
		{"12345678", "12345678", true},
		{"1234567", "", false},
		{"123456789012345", "123456789012345", true},
		{"1234567890123456", "", false},
		{"", "", false},
		{"+", "", false},
		{"234 802 567 1695", "", false},
		{"234802567169a", "", false},
		{"0234802567169", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := NormalizePhone(tt.in)
			if !tt.ok {
				require.ErrorIs(t, err, ErrPhone)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestMaskPhone(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "234802****695", MaskPhone("2348025671695"))
	assert.Equal(t, "****", MaskPhone("123"))
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
