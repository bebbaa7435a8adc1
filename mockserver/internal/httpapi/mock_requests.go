package httpapi

import (
	"net/http"

	"github.com/seedsms/sms-go/mockserver/internal/reqlog"
)

// requestsBody is the answer of GET /_mock/requests, written as a stream (see streamer).
type requestsBody []reqlog.Record

func (b requestsBody) stream(w http.ResponseWriter, status int, requestID string) {
	reqlog.WriteJSON(w, status, requestID, b)
}

// ctlRequests is GET /_mock/requests.
func ctlRequests(a *API, _ *request) (int, any, error) {
	return http.StatusOK, requestsBody(a.state.Load().log.Snapshot()), nil
}

// Requests returns the /v1 requests received, oldest first, redacted.
func (a *API) Requests() []reqlog.Record { return a.state.Load().log.All() }
