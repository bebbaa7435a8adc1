package rules

import (
	"errors"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// The fuzz targets check the package against independent, deliberately simple models written
// here from the contract, not from the package's code.

// refGSMBasic and refGSMExtension are GSM 03.38 (3GPP TS 23.038) written out row by row from
// the standard's table: the basic set by septet value 0x00-0x7F (0x1B is the escape, not a
// character), and the characters of the extension table, each sent as escape + septet.
var (
	refGSMBasic = [8]string{
		"@\u00a3$\u00a5\u00e8\u00e9\u00f9\u00ec\u00f2\u00c7\n\u00d8\u00f8\r\u00c5\u00e5",        // 0x00
		"\u0394_\u03a6\u0393\u039b\u03a9\u03a0\u03a8\u03a3\u0398\u039e\u00c6\u00e6\u00df\u00c9", // 0x10, without 0x1B
		" !\"#\u00a4%&'()*+,-./",                    // 0x20
		"0123456789:;<=>?",                          // 0x30
		"\u00a1ABCDEFGHIJKLMNO",                     // 0x40
		"PQRSTUVWXYZ\u00c4\u00d6\u00d1\u00dc\u00a7", // 0x50
		"\u00bfabcdefghijklmno",                     // 0x60
		"pqrstuvwxyz\u00e4\u00f6\u00f1\u00fc\u00e0", // 0x70
	}
	refGSMExtension = "\u000c^{}\\[~]|\u20ac" // form feed, ^ { } \ [ ~ ] | euro sign
)

// refSeptets is the width of a rune in GSM-7 septets, 0 when it is not in the alphabet.
func refSeptets(r rune) int {
	for _, row := range refGSMBasic {
		if strings.ContainsRune(row, r) {
			return 1
		}
	}
	if strings.ContainsRune(refGSMExtension, r) {
		return 2
	}
	return 0
}

// refCountParts is the contract's part count done the plain way: decide the encoding, give
// every character its width (septets, or UTF-16 code units), then fill parts greedily without
// cutting a character.
func refCountParts(msg string) (int, Encoding) {
	if msg == "" {
		return 0, GSM7
	}
	runes := []rune(msg) // invalid UTF-8 becomes U+FFFD, one per bad byte
	widths := make([]int, len(runes))
	enc := GSM7
	for i, r := range runes {
		if widths[i] = refSeptets(r); widths[i] == 0 {
			enc = UCS2
		}
	}
	single, multi := 160, 153
	if enc == UCS2 {
		single, multi = 70, 67
		for i, r := range runes {
			widths[i] = utf16.RuneLen(r)
		}
	}
	total := 0
	for _, w := range widths {
		total += w
	}
	if total <= single {
		return 1, enc
	}
	parts, room := 1, multi
	for _, w := range widths {
		if w > room {
			parts, room = parts+1, multi
		}
		room -= w
	}
	return parts, enc
}

func FuzzCountParts(f *testing.F) {
	for _, s := range []string{
		"", "a", "Hello, world!", strings.Repeat("a", 160), strings.Repeat("a", 161),
		strings.Repeat("a", 306), strings.Repeat("a", 307), strings.Repeat("€", 80), strings.Repeat("€", 81),
		strings.Repeat("a", 152) + "{" + strings.Repeat("b", 152), "Ça va? àèìòù ÄÖÑÜ §¿¡",
		strings.Repeat("ж", 70), strings.Repeat("ж", 71), strings.Repeat("😀", 35), strings.Repeat("😀", 36),
		strings.Repeat("x", 66) + "😀" + strings.Repeat("x", 66), strings.Repeat("a", 70) + "ж",
		"`", "\x1b", "\f\f", "ç", "Ç", "\xff\xfe", "\xed\xa0\x80", "a\x00b", "\u00a0", "\U0010FFFF",
		strings.Repeat("a", 1531),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts, enc := CountParts(s)
		wantParts, wantEnc := refCountParts(s)
		if parts != wantParts || enc != wantEnc {
			t.Fatalf("CountParts(%q) = %d, %v; the model says %d, %v", s, parts, enc, wantParts, wantEnc)
		}

		// Bounds that hold whatever the packing: every part but the last is at least
		// multi-1 units full (a two-unit character may leave one unit empty), and none
		// holds more than multi.
		units := 0
		for _, r := range s {
			units += utf16.RuneLen(r)
		}
		switch {
		case s == "":
			if parts != 0 {
				t.Fatalf("CountParts(\"\") = %d parts, want 0", parts)
			}
			return
		case parts < 1 || parts > units:
			t.Fatalf("CountParts(%q) = %d parts, want 1..%d (its UTF-16 length)", s, parts, units)
		}
		n, single, multi := units, 70, 67
		if enc == GSM7 {
			n, single, multi = 0, 160, 153
			for _, r := range s {
				n += refSeptets(r)
			}
		}
		lo, hi := ceilDiv(n, multi), ceilDiv(n, multi-1)
		if n <= single {
			lo, hi = 1, 1
		}
		if parts < lo || parts > hi {
			t.Fatalf("CountParts(%q) = %d parts for %d units of %v, want %d..%d", s, parts, n, enc, lo, hi)
		}
	})
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// refPhone is the contract's phone grammar: international with an optional "+" (8 to 15
// digits, the first not 0), or local Nigerian (0 and 10 digits); written with spaces, dashes,
// dots and parentheses anywhere, the "+" before the first digit; a trunk 0 after 234 dropped;
// 10 digits starting 70, 80, 81, 90 or 91 without "+" a Nigerian number without its 0, and
// refused with one; a number starting with 234 Nigerian, with 10 digits after 234 and its
// trunk 0, the first not 0; refused when it starts with 00 or ends in ".0" or ".00".
var (
	refWritten       = regexp.MustCompile(`^[ ().-]*(\+[ ().-]*)?[0-9][0-9 ().-]*$`)
	refInternational = regexp.MustCompile(`^[1-9][0-9]{7,14}$`)
	refLocal         = regexp.MustCompile(`^0[0-9]{10}$`)
	refNoZero        = regexp.MustCompile(`^(70|80|81|90|91)[0-9]{8}$`)
	refNigerian      = regexp.MustCompile(`^2340?([1-9][0-9]{9})$`)
	refFloat         = regexp.MustCompile(`\.0{1,2}$`)
)

// refNormalizePhone is what NormalizePhone must answer for s: the number, or "" when it is
// refused.
func refNormalizePhone(s string) string {
	if !refWritten.MatchString(s) {
		return ""
	}
	plus := strings.Contains(s, "+")
	digits := strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' {
			return r
		}
		return -1
	}, s)
	var want string
	switch {
	case refLocal.MatchString(digits):
		if !plus && digits[1] != '0' && slices.Contains([]string{"70", "80", "81", "90", "91"}, digits[1:3]) {
			want = "234" + digits[1:]
		}
	case refNoZero.MatchString(digits):
		if !plus {
			want = "234" + digits
		}
	case strings.HasPrefix(digits, "234") && len(digits) > 3:
		if m := refNigerian.FindStringSubmatch(digits); m != nil {
			want = "234" + m[1]
		}
	case refInternational.MatchString(digits):
		want = digits
	}
	if want != "" && refFloatEnding(s) {
		return ""
	}
	return want
}

// refFloatEnding reports whether s, its trailing separators left out, ends in a dot and one or
// two zeros that follow it directly.
func refFloatEnding(s string) bool {
	return refFloat.MatchString(strings.TrimRight(s, " ()-."))
}

func FuzzNormalizePhone(f *testing.F) {
	for _, s := range []string{
		"2348025671695", "+2348025671695", "08025671695", "+08025671695", "0802567169", "12345678",
		"1234567", "123456789012345", "1234567890123456", "", "+", "++2348025671695", "234 802 567 1695",
		"234802567169a", "0234802567169", "٢٣٤٨٠٢٥٦٧١٦٩٥", "+0", "00000000000", "+12345678", "2348025671695\n",
		"+234 803 123 4567", "0803-123-4567", "(0803) 1234567", "0803.123.4567", "8031234567", "+8031234567",
		"+234 (0)803 123 4567", "234008031234567", "8031234567.0", "8031234567.00", "+33 6.12.34.56.00",
		"8031234567.000", "8031234567.0.", "- ( ) .", "(+234) 803", "0803\u00a01234567",
		"+234 803 123 456", "+234 803 123 45678", "234 0803 123 45678", "23400803123456", "2340", "0296 355 7538", "02079460958",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := NormalizePhone(s)
		want := refNormalizePhone(s)
		if want == "" {
			if err == nil {
				t.Fatalf("NormalizePhone(%q) = %q; the contract rejects it", s, got)
			}
			if !errors.Is(err, ErrPhone) {
				t.Fatalf("NormalizePhone(%q): error %v is not ErrPhone", s, err)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("NormalizePhone(%q) = %q, %v; want %q", s, got, err, want)
		}
		if len(got) < 8 || len(got) > 15 || got[0] == '0' || strings.Trim(got, "0123456789") != "" {
			t.Fatalf("NormalizePhone(%q) = %q: not 8-15 digits without a leading 0", s, got)
		}
		if again, err := NormalizePhone(got); err != nil || again != got {
			t.Fatalf("NormalizePhone is not idempotent: %q -> %q -> %q, %v", s, got, again, err)
		}
		if plus, err := NormalizePhone("+" + got); err != nil || plus != got {
			t.Fatalf("NormalizePhone(%q) = %q, %v; want %q", "+"+got, plus, err, got)
		}
	})
}

// refNaira is the grammar ParseNaira documents: an optional minus, digits, an optional
// fraction of at least one digit, and an optional exponent.
var refNaira = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE]([+-]?[0-9]+))?$`)

// refKobo is the exact value of s in kobo by math/big, and whether ParseNaira must accept s:
// s is of the grammar, its exponent is within the documented guard of +-20, and the value is
// whole kobo that fits an int64 either way round.
func refKobo(s string) (kobo int64, accept bool) {
	m := refNaira.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	if m[3] != "" {
		e, err := strconv.Atoi(m[3])
		if err != nil || e < -20 || e > 20 {
			return 0, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, false
	}
	r.Mul(r, big.NewRat(100, 1))
	if !r.IsInt() || !r.Num().IsInt64() || r.Num().Int64() == math.MinInt64 {
		return 0, false
	}
	return r.Num().Int64(), true
}

func FuzzParseNaira(f *testing.F) {
	for _, s := range []string{
		"3.20", "3.2", "3", "0", "10000.00", "0.01", "3.200", "1e2", "1.5E1", "-4.50", "0.001", "3.",
		".5", "abc", "", "1e-3", "99999999999999999999", "-", "-0", "1e", "1e+2", "1E-0", "92233720368547758.07",
		"92233720368547758.08", "-92233720368547758.07", "-92233720368547758.08", "0.10000000000000000000000",
		"100000000000000000000e-20", "0e21", "1e20", "00000000000000000000001.5", "1.5e-1", "1_000", "0x10",
		"+1", " 1", "1 ", "Infinity", "NaN", "1e99999999999999999999",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kobo, err := ParseNaira(s)
		want, accept := refKobo(s)
		switch {
		case err != nil && !errors.Is(err, ErrMoney):
			t.Fatalf("ParseNaira(%q): error %v is not ErrMoney", s, err)
		case err != nil && accept:
			t.Fatalf("ParseNaira(%q): %v; it is exactly %d kobo", s, err, want)
		case err != nil:
			return
		case !accept:
			t.Fatalf("ParseNaira(%q) = %d; not whole kobo of the documented grammar", s, kobo)
		case kobo != want:
			t.Fatalf("ParseNaira(%q) = %d kobo; the exact value is %d kobo", s, kobo, want)
		}
		out := FormatNaira(kobo)
		if !refFormatted.MatchString(out) {
			t.Fatalf("FormatNaira(%d) = %q: not naira with two decimals", kobo, out)
		}
		if back, err := ParseNaira(out); err != nil || back != kobo {
			t.Fatalf("ParseNaira(FormatNaira(%d)) = ParseNaira(%q) = %d, %v", kobo, out, back, err)
		}
	})
}

var refFormatted = regexp.MustCompile(`^-?(0|[1-9][0-9]*)\.[0-9]{2}$`)

// CountPartsWith is CountParts of the message with the tag replaced, for valid UTF-8.
func FuzzCountPartsWith(f *testing.F) {
	f.Add("Hi {{name}}, your order shipped.", "{{name}}", "Ada")
	f.Add("{{name}}", "{{name}}", "")
	f.Add("{{name}}{{name}}{{name}}", "{{name}}", "€€€")
	f.Add(strings.Repeat("a", 150)+"{{name}}", "{{name}}", "漢字")
	f.Add(strings.Repeat("[", 80)+"{{name}}", "{{name}}", "]")
	f.Add("{{na{{name}}me}}", "{{name}}", "{{name}}")
	f.Fuzz(func(t *testing.T, message, tag, value string) {
		if !utf8.ValidString(message) || !utf8.ValidString(value) {
			t.Skip()
		}
		wantParts, wantEnc := CountParts(strings.ReplaceAll(message, tag, value))
		if tag == "" {
			wantParts, wantEnc = CountParts(message)
		}
		parts, enc := CountPartsWith(message, tag, value)
		if parts != wantParts || enc != wantEnc {
			t.Fatalf("CountPartsWith(%q, %q, %q) = %d %v, want %d %v", message, tag, value, parts, enc, wantParts, wantEnc)
		}
	})
}
