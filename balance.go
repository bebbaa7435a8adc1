package sms

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// BalanceService reads the wallet.
type BalanceService struct{ c *core }

// Balance is the wallet of the key's mode: live keys see the live wallet, test keys the test
// wallet. The service's balance page shows all three members; only Balance is required.
type Balance struct {
	Balance  Amount
	Cashback *Amount // nil when the server did not send it, or sent it unreadable (see Response.Unreadable)
	Currency string  // "NGN"; empty when the server did not send it
	// Response is the HTTP answer, with its request ID.
	Response *Response
}

// GetBalanceParams is the input of BalanceService.Get. It has no fields: the call takes it so
// that an option can come without changing the call's signature. nil is the zero value.
type GetBalanceParams struct{}

// Get returns the wallet balance. p may be nil.
//
// Endpoint: GET /v1/balance (scope balance), documented by the live page
// https://developers.nairasms.com.ng/balance.
func (s *BalanceService) Get(ctx context.Context, p *GetBalanceParams) (*Balance, error) {
	var out struct {
		envelope
		Data struct {
			Balance  optAmount `json:"balance"`
			Cashback optAmount `json:"cashback"`
			Currency text      `json:"currency"`
			Unit     text      `json:"unit"`
		} `json:"data"`
	}
	cl := &call{method: http.MethodGet, path: "/v1/balance", policy: retryIdempotent}
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	d := out.Data
	if minor, ok := amountUnit(d.Unit.s); !ok || d.Unit.bad {
		// Money in a unit the SDK does not know is never guessed.
		return nil, cl.unbuildable(fmt.Errorf("decoding the %d response: the member %q is %s, a unit the SDK does not read amounts in",
			cl.status, "data.unit", strconv.Quote(printable(d.Unit.s))))
	} else if minor {
		d.Balance, d.Cashback = d.Balance.inMinor(), d.Cashback.inMinor()
	}
	if d.Balance.bad { // present, in a form that is no amount ("15,000.00", 1e25): not missing
		return nil, cl.unbuildable(fmt.Errorf("decoding the %d response: the member %q is present but unreadable as an amount", cl.status, "data.balance"))
	}
	if err := cl.need(member{"data.balance", d.Balance.ok}); err != nil {
		return nil, err
	}
	bad := unreadable(nil, "data.", flaw{"cashback", d.Cashback.bad}, flaw{"currency", d.Currency.bad})
	return &Balance{Balance: d.Balance.a, Cashback: d.Cashback.ptr(), Currency: d.Currency.s, Response: cl.responseOf(out.envelope, bad)}, nil
}

// amountUnit reads the unit an answer states its amounts in: none, naira (NGN, major) is the
// SDK's own (minor false); kobo (minor, cents, subunit) is a hundredth of it (minor true). ok is
// false for any other unit, whose amounts are not read.
func amountUnit(unit string) (minor, ok bool) {
	switch strings.ToLower(strings.TrimSpace(unit)) {
	case "", "naira", "ngn", "major", "₦":
		return false, true
	case "kobo", "minor", "minor_unit", "minor_units", "cent", "cents", "subunit", "subunits":
		return true, true
	}
	return false, false
}
