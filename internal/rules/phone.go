package rules

import (
	"errors"
	"strconv"
	"strings"
)

// ErrPhone is returned by NormalizePhone for a number that is neither international nor local
// Nigerian. Every error of NormalizePhone matches it with errors.Is; some say more.
var ErrPhone = errors.New("phone number must be 8-15 digits with an optional leading + and no leading 0, or a local Nigerian number (0 + 10 digits)")

// phoneError is an error of NormalizePhone that says more than ErrPhone, and matches it.
type phoneError string

func (e phoneError) Error() string        { return string(e) }
func (e phoneError) Is(target error) bool { return target == ErrPhone }

var (
	errPhoneFloat = phoneError("phone number ends in .0 or .00, as a spreadsheet writes a number it stored with decimals (8031234567.0): export the column as text, or separate the last digits with a space")
	errPhone00    = phoneError("phone number starts with 00, the prefix for calls abroad: write it with + and the country code instead (+44 20 7946 0958)")
	errPhoneNoCC  = phoneError("no country has international numbers of 10 digits starting with 70, 80, 81, 90 or 91: write a Nigerian number as 0 + 10 digits or +234 + 10 digits")
	errPhoneLocal = phoneError("0 + 10 digits is a local Nigerian number only when the 10 digits start with 70, 80, 81, 90 or 91 (a mobile number; no other Nigerian number has 10 digits): write a number of another country with + and its country code (+44 20 7946 0958)")
)

// maxPhoneDigits is the longest international number (E.164).
const maxPhoneDigits = 15

// NigerianDigits is how many digits a Nigerian number has after its country code, 234.
const NigerianDigits = 10

// errNigerianLength says that the national part of a Nigerian number (its digits after 234
// and its trunk 0) is national digits long, not NigerianDigits, or (zero) starts with 0.
func errNigerianLength(national int, zero bool) error {
	if zero {
		return phoneError("another 0 after 234 and its trunk 0, where a Nigerian number has " + strconv.Itoa(NigerianDigits) + " digits after 234, the first not 0")
	}
	return phoneError(strconv.Itoa(national) + " digits after 234, where a Nigerian number has " + strconv.Itoa(NigerianDigits) + " (a trunk 0 after 234 not counted)")
}

// NormalizePhone returns number in its normalized form: digits only, international. It accepts
// international numbers with or without a leading "+" (8 to 15 digits, the first not 0) and
// local Nigerian numbers ("0" followed by 10 digits starting with 70, 80, 81, 90 or 91), which
// become "234" + the 10 digits.
//
// Numbers are accepted as people write them: spaces, dashes, dots and parentheses may stand
// anywhere around the digits ("+234 803 123 4567", "0803-123-4567", "(0803) 1234567",
// "0803.123.4567"), and the "+" before the first digit. Two Nigerian habits are read as such:
//
//   - A trunk "0" after the country code, as in "+234 (0)803 123 4567", is dropped.
//   - A number starting with 234 is Nigerian, and has NigerianDigits digits after it (and
//     after its trunk 0, if written), the first not 0: "+234 803 123 456" (9) and
//     "234 0803 123 45678" (11) are refused with an error that says how many it has.
//   - 10 digits starting with 70, 80, 81, 90 or 91 without "+" ("8031234567", a local number
//     whose 0 a spreadsheet removed) are a Nigerian mobile number, "234" + the 10 digits. No
//     country's international numbers have that shape: those of 7 (Russia, Kazakhstan), 81
//     (Japan), 90 (Turkey) and 91 (India) have 11 or 12 digits, and 80x country codes are
//     unassigned or make 11 digits, while every Nigerian mobile number starts so. With a "+"
//     the same digits are refused, for the same reason. Other 10-digit numbers, such as
//     Seoul's 82 2 123 4567 or the Maldives' 960 777 1234, stay international.
//
// Refused with an error that says why: "0" + 10 digits that start otherwise ("0296 355 7538",
// "020 7946 0958"): every Nigerian number of 10 digits is a mobile one, so such a number is a
// local number of another country (the United Kingdom's have this shape), which "234" would
// send to a Nigerian number that does not exist; a number starting with 00 (the prefix for calls
// abroad; no Nigerian number has another 0 after its trunk 0), and one ending in ".0" or ".00"
// ("8031234567.0", as a spreadsheet writes a number it stored with decimals), rather than
// read with those zeros.
func NormalizePhone(number string) (string, error) {
	s, plus := strings.CutPrefix(number, "+")
	if len(s) <= maxPhoneDigits && allDigits(s) {
		return normalizeDigits(number, s, plus, false) // the common case, without a copy
	}
	return normalizeWritten(number)
}

// normalizeWritten is NormalizePhone for a number with separators, or an invalid one.
func normalizeWritten(number string) (string, error) {
	var (
		buf      [maxPhoneDigits]byte
		n        int  // digits in buf
		plus     bool // a "+" came before the first digit
		pending  byte // the last separator since the last digit, 0 if none
		groupSep byte // the separator before the last group of digits, 0 if none
		group    int  // digits in the last group
	)
	for i := 0; i < len(number); i++ {
		switch c := number[i]; {
		case '0' <= c && c <= '9':
			if n == len(buf) {
				return "", ErrPhone
			}
			if pending != 0 {
				groupSep, group, pending = pending, 0, 0
			}
			buf[n] = c
			n++
			group++
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')':
			pending = c
		case c == '+' && n == 0 && !plus:
			plus = true
		default:
			return "", ErrPhone
		}
	}
	d := buf[:n]
	norm, err := normalizeDigits(number, d, plus, true)
	if groupSep == '.' && (group == 1 || group == 2 && d[n-2] == '0') && d[n-1] == '0' {
		if err == nil {
			return "", errPhoneFloat // an otherwise valid number: say why it is not
		}
		if _, e := normalizeDigits(number, d[:n-group], plus, true); e == nil {
			return "", errPhoneFloat // valid without the spreadsheet's zeros
		}
	}
	return norm, err
}

// normalizeDigits is NormalizePhone for the digits d of number (at most maxPhoneDigits),
// which had a "+" before them or not, and separators or not.
func normalizeDigits[D string | []byte](number string, d D, plus, sep bool) (string, error) {
	n := len(d)
	switch {
	case n == 0:
		return "", ErrPhone
	case d[0] == '0':
		switch {
		case n > 1 && d[1] == '0':
			return "", errPhone00
		case plus || n != 11:
			return "", ErrPhone
		case !nigerianMobile(string(d[1:3])):
			return "", errPhoneLocal
		}
		return "234" + string(d[1:]), nil
	case n == 10 && nigerianMobile(string(d[:2])):
		if plus {
			return "", errPhoneNoCC
		}
		return "234" + string(d), nil
	case n > 3 && string(d[:3]) == "234":
		national := d[3:]
		trunk := national[0] == '0'
		if trunk {
			national = national[1:]
		}
		switch {
		case len(national) != NigerianDigits:
			return "", errNigerianLength(len(national), false)
		case national[0] == '0':
			return "", errNigerianLength(len(national), true)
		case trunk:
			return "234" + string(national), nil
		}
	}
	switch {
	case n < 8:
		return "", ErrPhone
	case !sep && !plus:
		return number, nil
	case !sep:
		return number[1:], nil
	}
	return string(d), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// nigerianMobile reports whether the first two of 10 digits start a Nigerian mobile number
// without its 0.
func nigerianMobile(prefix string) bool {
	switch prefix {
	case "70", "80", "81", "90", "91":
		return true
	}
	return false
}
