package httpapi

import "net/http"

// ctlReset is POST /_mock/reset.
func ctlReset(a *API, _ *request) (int, any, error) {
	a.Reset()
	return http.StatusOK, struct {
		Reset bool `json:"reset"`
	}{true}, nil
}
