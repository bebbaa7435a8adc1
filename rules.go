package sms

import (
	"fmt"

	"github.com/seedsms/sms-go/internal/rules"
)

// Encoding is the character set an SMS is sent in: EncodingGSM7 or EncodingUCS2.
type Encoding int

// The two SMS encodings.
const (
	// EncodingGSM7 is the GSM 03.38 alphabet: 160 characters in one part, 153 per part when split;
	// the extension characters ^{}\[~]|€ and form feed count twice.
	EncodingGSM7 Encoding = 1
	// EncodingUCS2 is used as soon as one character is outside GSM 03.38: 70 UTF-16 code units in one
	// part, 67 per part when split.
	EncodingUCS2 Encoding = 2
)

// String returns "GSM-7" or "UCS-2".
func (e Encoding) String() string { return rules.Encoding(e).String() }

// MaxParts is the most parts one message may take; longer messages are refused.
const MaxParts = 10

// CountParts returns how many SMS parts message takes and its encoding, counted exactly as the
// API counts and charges them. The empty message has 0 parts.
func CountParts(message string) (parts int, enc Encoding) {
	parts, e := rules.CountParts(message)
	return parts, Encoding(e)
}

// NormalizePhone returns number in the form the API shows: international digits without "+".
// It accepts international numbers with or without "+" (8 to 15 digits, the first not 0) and
// local Nigerian numbers ("0" and 10 digits), so "08025671695" becomes "2348025671695".
// Spaces, dashes, dots and parentheses may separate the digits ("+234 803 123 4567",
// "0803-123-4567", "(0803) 1234567"); 10 digits starting 70, 80, 81, 90 or 91 without "+"
// are a Nigerian number that lost its 0 (a spreadsheet drops it); a trunk 0 after 234 is
// dropped. A number starting with 234 is Nigerian and must have 10 digits after it (and after
// its trunk 0): "+234 803 123 456" is refused, and the error says it has 9.
func NormalizePhone(number string) (string, error) {
	n, err := rules.NormalizePhone(number)
	if err != nil {
		return "", fmt.Errorf("sms: %w", err)
	}
	return n, nil
}
