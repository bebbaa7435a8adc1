package sms

import (
	"context"
	"net/http"
)

// BalanceService reads the wallet.
type BalanceService struct{ c *core }

// Balance is the wallet of the key's mode: live keys see the live wallet, test keys the test
// wallet.
type Balance struct {
	Balance  Amount
	Cashback Amount
	Currency string // "NGN"
}

// Get returns the wallet balance.
func (s *BalanceService) Get(ctx context.Context) (*Balance, error) {
	var out struct {
		Data struct {
			Balance  *Amount `json:"balance"`
			Cashback Amount  `json:"cashback"`
			Currency string  `json:"currency"`
		} `json:"data"`
	}
	cl := &call{method: http.MethodGet, path: "/v1/balance", policy: retryIdempotent}
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	d := out.Data
	if err := cl.need(member{"data.balance", d.Balance != nil}, member{"data.currency", d.Currency != ""}); err != nil {
		return nil, err
	}
	return &Balance{Balance: *d.Balance, Cashback: d.Cashback, Currency: d.Currency}, nil
}
