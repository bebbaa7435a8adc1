package sms

import (
	"context"
	"net/http"
)

// BalanceService reads the wallet.
type BalanceService struct{ c *core }

// Balance is the wallet of the key's mode: live keys see the live wallet, test keys the test
// wallet. The service's balance page shows all three members; only Balance is required.
type Balance struct {
	Balance  Amount
	Cashback Amount // 0.00 when the server did not send it
	Currency string // "NGN"; empty when the server did not send it
	// Response is the HTTP answer, with its request ID.
	Response *Response
}

// Get returns the wallet balance.
func (s *BalanceService) Get(ctx context.Context) (*Balance, error) {
	var out struct {
		envelope
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
	if err := cl.need(member{"data.balance", d.Balance != nil}); err != nil {
		return nil, err
	}
	return &Balance{Balance: *d.Balance, Cashback: d.Cashback, Currency: d.Currency, Response: cl.response(out.RequestID)}, nil
}
