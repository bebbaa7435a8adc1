package rules

import "errors"

// ErrPhone is returned by NormalizePhone for a number that is neither international nor local
// Nigerian.
var ErrPhone = errors.New("phone number must be 8-15 digits with an optional leading + and no leading 0, or a local Nigerian number (0 + 10 digits)")

// NormalizePhone returns number in its normalized form: digits only, international. It accepts
// international numbers with or without a leading "+" (8 to 15 digits, the first not 0) and
// local Nigerian numbers ("0" followed by 10 digits), which become "234" + the 10 digits.
func NormalizePhone(number string) (string, error) {
	s := number
	plus := len(s) > 0 && s[0] == '+'
	if plus {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 15 {
		return "", ErrPhone
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", ErrPhone
		}
	}
	if s[0] == '0' {
		if plus || len(s) != 11 {
			return "", ErrPhone
		}
		return "234" + s[1:], nil
	}
	if len(s) < 8 {
		return "", ErrPhone
	}
	return s, nil
}

// MaskPhone hides the middle of a phone number for logs: "2348025671695" becomes
// "234802****695". Short inputs are masked whole.
func MaskPhone(number string) string {
	if len(number) < 8 {
		return "****"
	}
	return number[:6] + "****" + number[len(number)-3:]
}
