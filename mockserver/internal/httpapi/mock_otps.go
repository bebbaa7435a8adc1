package httpapi

import (
	"net/http"
	"strings"
)

// ctlLatestOTP is GET /_mock/otps/latest.
func ctlLatestOTP(_ *API, rq *request) (int, any, error) {
	to := rq.r.URL.Query().Get("to")
	if rest, ok := strings.CutPrefix(to, " "); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		to = "+" + rest // ?to=+234...: a query decodes an unencoded + as a space
	}
	pinID, pin, err := rq.st.store.LatestPin(to)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, struct {
		PinID string `json:"pinId"`
		Pin   string `json:"pin"`
	}{pinID, pin}, nil
}
