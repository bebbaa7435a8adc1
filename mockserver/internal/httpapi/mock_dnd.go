package httpapi

import (
	"net/http"

	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// ctlDND is POST /_mock/dnd.
func ctlDND(_ *API, rq *request) (int, any, error) {
	var in struct {
		Numbers []string `json:"numbers"`
	}
	if e := wire.Decode(rq.body, &in); e != nil {
		return 0, nil, e
	}
	if in.Numbers == nil {
		return 0, nil, badRequest("numbers", "numbers is required: an array of phone numbers.")
	}
	n, err := rq.st.store.AddDND(in.Numbers...)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, struct {
		Count int `json:"count"`
	}{n}, nil
}
