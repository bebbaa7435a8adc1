package httpapi

import (
	"net/http"

	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// ctlMoveSender(status) is POST /_mock/sender-ids/{id}/approve (active) and .../block
// (blocked).
func ctlMoveSender(status store.SenderStatus) handlerFunc {
	return func(_ *API, rq *request) (int, any, error) {
		sid, err := rq.st.store.MoveSenderID(rq.param, status)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, senderOut(&sid), nil
	}
}
