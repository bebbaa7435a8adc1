package rules

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Prices of one SMS part, in kobo. The API has no price list: 3.20 NGN on the generic channel
// is what the service's documented sms-send sample charges for one part; the dnd channel's
// price is this project's assumption, as the service documents none. The mock charges them
// unless told otherwise, and the command's dry run assumes them.
const (
	DefaultGenericPrice = 320       // 3.20 NGN
	DefaultDNDPrice     = 450       // 4.50 NGN
	MaxPrice            = 1_000_000 // 10,000.00 NGN: the highest price of one part the mock takes
)

// ErrMoney is returned by ParseNaira for a number that is not naira with at most two decimals.
var ErrMoney = errors.New("amount must be a non-negative number of naira with at most 2 decimals")

// FormatNaira writes kobo as naira with exactly two decimals: 320 is "3.20", -5 is "-0.05".
func FormatNaira(kobo int64) string { return string(AppendNaira(make([]byte, 0, 24), kobo)) }

// AppendNaira appends FormatNaira(kobo) to b.
func AppendNaira(b []byte, kobo int64) []byte {
	u := uint64(kobo)
	if kobo < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/100, 10)
	frac := u % 100
	return append(b, '.', byte('0'+frac/10), byte('0'+frac%10))
}

// ParseNaira reads a JSON number of naira exactly into kobo, with no floating point on the way.
// It accepts an optional minus sign, digits, and at most two decimals ("3", "3.2", "3.20");
// trailing zeros past the second decimal ("3.200") and an exponent of zero-free form ("1e2") are
// accepted when the value is still whole kobo. Anything else is ErrMoney.
func ParseNaira(s string) (int64, error) { return parseNaira(s, false) }

// ParseNairaRounded reads a JSON number of naira as ParseNaira does, except that a value
// finer than a kobo ("3.205") is rounded to the nearest kobo, half away from zero: "3.205"
// is 321 kobo, "3.2049" 320, "-3.205" -321. It reads what a server answered, where refusing
// the whole answer for a sub-kobo digit would hide what the server did.
func ParseNairaRounded(s string) (int64, error) { return parseNaira(s, true) }

func parseNaira(s string, round bool) (int64, error) {
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	// Split mantissa and exponent.
	exp := 0
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			e, err := strconv.Atoi(s[i+1:])
			if err != nil || e > 20 || e < -20 {
				return 0, ErrMoney
			}
			exp, s = e, s[:i]
			break
		}
	}
	intPart, frac := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			intPart, frac = s[:i], s[i+1:]
			if frac == "" {
				return 0, ErrMoney
			}
			break
		}
	}
	if intPart == "" || !digits(intPart) || !digits(frac) {
		return 0, ErrMoney
	}
	// The value is int(intPart frac) * 10^(exp - len(frac)) naira; we want kobo: shift by 2.
	mant := intPart + frac
	shift := exp - len(frac) + 2
	up := false // rounding: the first digit dropped is 5 or more
	if shift < 0 {
		keep := len(mant) + shift // digits of whole kobo
		dropped := mant[max(keep, 0):]
		if !round && strings.Trim(dropped, "0") != "" {
			return 0, ErrMoney
		}
		if keep >= 0 {
			up = round && dropped[0] >= '5'
		}
		mant, shift = mant[:max(keep, 0)], 0
		if mant == "" {
			mant = "0"
		}
	}
	v, err := strconv.ParseUint(mant, 10, 63)
	if err != nil {
		return 0, ErrMoney
	}
	for ; shift > 0; shift-- {
		if v > math.MaxInt64/10 {
			return 0, ErrMoney
		}
		v *= 10
	}
	if up {
		if v == math.MaxInt64 {
			return 0, ErrMoney
		}
		v++
	}
	if neg {
		return -int64(v), nil
	}
	return int64(v), nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
