package httpapi

import (
	"net/http"
	"strconv"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// The documented profile answers /v1 with only the members and statuses the live service's
// pages show (docs/api.md, "The mock's profiles"). The handlers of the documented endpoints
// shape their answers themselves when rq.documented is set; what every route shares is here:
// the statuses the docs' table lacks and the error body.

// bare is an answer written without requestId (the docs' OTP and sender-ID samples have none).
type bare struct{ v any }

// documentedStatus is the status the documented profile answers with instead of one the
// docs' table (200, 202, 400, 401, 402, 403, 404, 429, 5xx) does not list. A 201 (a key
// created) becomes the table's 200: the key exists and works at once. (A sender-ID request,
// which waits for an approval, answers 202 in this profile: its handler says so.)
func documentedStatus(status int) int {
	switch status {
	case http.StatusCreated:
		return http.StatusOK
	case http.StatusMethodNotAllowed:
		return http.StatusNotFound
	case http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		return http.StatusBadRequest
	}
	return status
}

// fail writes e as the error answer of rq: in the documented profile with a documented
// status, its code, and neither field nor scope (the docs' error sample has only code and
// message).
func (rq *request) fail(w http.ResponseWriter, e *apiError) {
	if rq.documented {
		d := &apiError{status: documentedStatus(e.status), code: e.code, message: e.message, retryAfter: e.retryAfter}
		if d.status != e.status {
			d.code = rules.CodeFor(d.status)
		}
		e = d
	}
	writeError(w, rq.id, e)
}

// writeBare writes v without requestId.
func writeBare(w http.ResponseWriter, status int, v any) {
	p := wire.Buffer()
	defer wire.Release(p)
	body, err := wire.Append((*p)[:0], v)
	*p = body
	if err != nil {
		writeError(w, "", newError(http.StatusInternalServerError, "Could not encode the response."))
		return
	}
	body = append(body, '\n')
	*p = body
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body))) // no chunks, whatever its length
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
