package httpapi

import (
	"net/http"

	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

type balanceJSON struct {
	Balance  wire.Naira `json:"balance"`
	Cashback wire.Naira `json:"cashback"`
	Currency string     `json:"currency"`
}

// getBalance is GET /v1/balance.
func getBalance(_ *API, rq *request) (int, any, error) {
	return http.StatusOK, wire.Data{Data: balanceJSON{Balance: wire.Naira(rq.st.store.Balance(rq.caller)), Currency: "NGN"}}, nil
}
