package httpapi

import "net/http"

func ctlReset(a *API, _ *request) (int, any, error) {
	a.Reset()
	return http.StatusOK, struct {
		Reset bool `json:"reset"`
	}{true}, nil
}
