package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/faults"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// codeForbidden is the code of the guard's refusals (guard.go): where a request came from.
const codeForbidden = rules.CodeForbidden

// apiError is an error the mock answers with: a status, the contract's code and message, and
// the optional field, scope and Retry-After.
type apiError struct {
	status     int
	code       string
	message    string
	field      string
	scope      string
	retryAfter int // seconds; 0 = no header
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.message) }

func newError(status int, message string) *apiError {
	return &apiError{status: status, code: rules.CodeFor(status), message: message}
}

func badRequest(field, format string, args ...any) *apiError {
	e := newError(http.StatusBadRequest, fmt.Sprintf(format, args...))
	e.field = field
	return e
}

func notFound(what string) *apiError {
	return newError(http.StatusNotFound, what+" not found.")
}

func conflict(format string, args ...any) *apiError {
	return newError(http.StatusConflict, fmt.Sprintf(format, args...))
}

func rateLimited(message string, retryAfter int) *apiError {
	e := newError(http.StatusTooManyRequests, message)
	e.retryAfter = max(retryAfter, 1)
	return e
}

// apiErrorOf is the one place where an error becomes the API's: the domain errors of the
// store and the fault list by their kind, the API's own as they are, anything else a 500.
func apiErrorOf(err error) *apiError {
	var (
		api   *apiError
		field *store.FieldError
		nf    *store.NotFoundError
		cf    *store.ConflictError
		rl    *store.RateLimitError
		auth  *store.AuthError
		fl    *faults.LimitError
		we    *wire.Error
	)
	switch {
	case errors.As(err, &api):
		return api
	case errors.As(err, &field):
		return badRequest(field.Field, "%s", field.Message)
	case errors.As(err, &we):
		return badRequest(we.Field, "%s", we.Message)
	case errors.As(err, &nf):
		return newError(http.StatusNotFound, nf.Error())
	case errors.Is(err, store.ErrInsufficientBalance):
		return newError(http.StatusPaymentRequired, "Insufficient wallet balance.")
	case errors.As(err, &cf):
		return newError(http.StatusConflict, cf.Message)
	case errors.As(err, &rl):
		return rateLimited(rl.Message, rl.RetryAfter)
	case errors.As(err, &auth):
		return newError(http.StatusUnauthorized, auth.Message)
	case errors.As(err, &fl):
		return badRequest("rules", "%s", fl.Error())
	}
	return newError(http.StatusInternalServerError, "Internal server error.")
}

// errorBody is the wire form of an error, without requestId (added when written).
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field,omitempty"`
		Scope   string `json:"scope,omitempty"`
	} `json:"error"`
}

func (e *apiError) body() errorBody {
	var b errorBody
	b.Error.Code, b.Error.Message, b.Error.Field, b.Error.Scope = e.code, e.message, e.field, e.scope
	return b
}

// writeError writes e as the contract's error body, with Retry-After when e has one.
func writeError(w http.ResponseWriter, requestID string, e *apiError) {
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	wire.WriteJSON(w, e.status, requestID, e.body())
}
