package rules

import (
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// phoneInputPattern is the pattern of PhoneInput in api/openapi.yaml, compiled.
func phoneInputPattern(t testing.TB) *regexp.Regexp {
	t.Helper()
	doc, err := os.ReadFile("../../api/openapi.yaml")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?s)\n    PhoneInput:\n.*?\n      pattern: '((?:[^']|'')*)'\n`).FindSubmatch(doc)
	require.NotNil(t, m, "PhoneInput's pattern in api/openapi.yaml")
	return regexp.MustCompile(strings.ReplaceAll(string(m[1]), "''", "'"))
}

// phoneCase writes a random phone-like string: a shape NormalizePhone reads (a local Nigerian
// number, its 10 digits, 234 with or without a trunk 0, another country's, 00, too short or
// too long), its digits sometimes changed, with random separators, a "+" or not, and
// sometimes a spreadsheet's ".0" or ".00"; or random characters of the alphabet.
func phoneCase(rng *rand.Rand) string {
	const alphabet = "0123456789 ().-+"
	if rng.IntN(5) == 0 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	heads := []string{"0803", "0703", "0813", "0903", "0913", "0296", "00", "803", "703", "813", "903", "913", "2348", "23408", "2340", "234", "1", "44", "7", "91", "82", "960", "2", "23", "2349", "0"}
	d := []byte(heads[rng.IntN(len(heads))])
	for n := rng.IntN(14); len(d) < n+len(heads[0]) && len(d) < 17; {
		d = append(d, byte('0'+rng.IntN(10)))
	}
	if rng.IntN(8) == 0 && len(d) > 0 {
		d[rng.IntN(len(d))] = byte('0' + rng.IntN(10))
	}
	seps := []string{"", "", "", " ", "-", ".", "(", ")", " (", ") ", "..", " .", ". "}
	var b strings.Builder
	if rng.IntN(6) == 0 {
		b.WriteString(seps[rng.IntN(len(seps))])
	}
	if rng.IntN(3) == 0 {
		b.WriteString("+")
		if rng.IntN(4) == 0 {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
	}
	for i, c := range d {
		if i > 0 && rng.IntN(3) == 0 {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		b.WriteByte(c)
	}
	switch rng.IntN(8) {
	case 0:
		b.WriteString(".0")
	case 1:
		b.WriteString(".00")
	case 2:
		b.WriteString([]string{". 0", " .0", ".000", ".(0)", ".01", "0.0", ".0 "}[rng.IntN(7)])
	}
	if rng.IntN(6) == 0 {
		b.WriteString(seps[rng.IntN(len(seps))])
	}
	return b.String()
}

// The document's phone pattern accepts exactly what NormalizePhone accepts, both ways: a
// client validating against the document sends nothing the mock refuses for its form, and
// refuses nothing the mock accepts.
func TestPhoneInputPatternIsNormalizePhone(t *testing.T) {
	t.Parallel()
	re := phoneInputPattern(t)
	for _, s := range []string{"01000000000", "234803123456", "8031234567.0", "+7077566078", "+8031234567", "0296 355 7538", "00447946095800",
		"08031234567", "+234 803 123 4567", "0803-123-4567", "(0803) 1234567", "0803.123.4567", "+234 (0)803 123 4567", "8031234567",
		"+44 20 7946 0958", "8031234567. 0", "8031234567 .0", "+2348031234567.00", "12345678", "1234567", "1234567890123456", "+1 (415) 555-0100"} {
		_, err := NormalizePhone(s)
		require.Equal(t, err == nil, re.MatchString(s), "%q: NormalizePhone says %v", s, err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	accepted := 0
	for range 100_000 {
		s := phoneCase(rng)
		_, err := NormalizePhone(s)
		require.Equal(t, err == nil, re.MatchString(s), "%q: NormalizePhone says %v", s, err)
		if err == nil {
			accepted++
		}
	}
	require.Greater(t, accepted, 10_000, "the cases hold enough accepted numbers")
}

// FuzzPhoneInputPattern: the document's pattern and NormalizePhone agree on any string.
func FuzzPhoneInputPattern(f *testing.F) {
	for _, s := range []string{"01000000000", "234803123456", "8031234567.0", "+7077566078", "+234 (0)803 123 4567", "0803.123.4567", "8031234567 .00"} {
		f.Add(s)
	}
	re := phoneInputPattern(f)
	f.Fuzz(func(t *testing.T, s string) {
		_, err := NormalizePhone(s)
		if (err == nil) != re.MatchString(s) {
			t.Fatalf("%q: the pattern says %v, NormalizePhone %v", s, re.MatchString(s), err)
		}
	})
}
