package sms

import (
	"bytes"
	"fmt"

	"github.com/seedsms/sms-go/internal/rules"
)

// Amount is a sum of money in naira, held exactly as integer kobo (1 naira = 100 kobo). It is
// read from the API's JSON numbers without floating point, so 3.20 is exactly 320 kobo. The
// zero value is 0.00. Amounts compare with ==.
//
// Reading the API's answers, an Amount accepts an integer (15000) or a decimal number (3.2,
// 3.20). A number finer than a kobo (3.205), which the service's pages never show, is rounded
// to the nearest kobo, half away from zero (3.21), rather than failing the whole answer: the
// answer of a send that did happen must not read as an error. ParseAmount, which reads what
// people type, refuses such numbers instead.
type Amount struct {
	kobo int64
}

// AmountFromKobo returns an amount given in kobo: AmountFromKobo(320) is 3.20 naira.
func AmountFromKobo(kobo int64) Amount { return Amount{kobo: kobo} }

// ParseAmount reads naira written with at most two decimals, such as "3.20", "3.2" or "10000".
func ParseAmount(naira string) (Amount, error) {
	k, err := rules.ParseNaira(naira)
	if err != nil {
		return Amount{}, fmt.Errorf("sms: parse amount %q: %w", naira, err)
	}
	return Amount{kobo: k}, nil
}

// Add returns a + b.
func (a Amount) Add(b Amount) Amount { return Amount{kobo: a.kobo + b.kobo} }

// Sub returns a - b, which is negative when b is the larger.
func (a Amount) Sub(b Amount) Amount { return Amount{kobo: a.kobo - b.kobo} }

// Kobo returns the amount in kobo.
func (a Amount) Kobo() int64 { return a.kobo }

// String returns the amount in naira with exactly two decimals, such as "3.20".
func (a Amount) String() string { return rules.FormatNaira(a.kobo) }

// MarshalJSON writes the amount as a JSON number of naira with two decimals, as the API does.
func (a Amount) MarshalJSON() ([]byte, error) { return []byte(rules.FormatNaira(a.kobo)), nil }

// UnmarshalJSON reads a JSON number of naira, or a JSON string holding one ("1500.00", as
// some servers write money): an integer or a decimal, rounded to the nearest kobo, half away
// from zero, when it is finer (see Amount). JSON null leaves the amount unchanged; anything
// else is an error.
func (a *Amount) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = bytes.TrimSpace(b[1 : len(b)-1])
	}
	k, err := rules.ParseNairaRounded(string(b))
	if err != nil {
		return fmt.Errorf("sms: amount %.40q: %w", b, err)
	}
	a.kobo = k
	return nil
}
