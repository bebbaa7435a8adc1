package rules

// The API's error codes (the "code" of an error body).
const (
	CodeBadRequest           = "bad_request"
	CodeUnauthorized         = "unauthorized"
	CodeInsufficientBalance  = "insufficient_balance"
	CodeInsufficientScope    = "insufficient_scope"
	CodeForbidden            = "forbidden"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeConflict             = "conflict"
	CodePayloadTooLarge      = "payload_too_large"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeRateLimited          = "rate_limited"
	CodeServerError          = "server_error"
	// CodeUnexpectedStatus is what a client calls an answer below 400 that is no success.
	CodeUnexpectedStatus = "unexpected_status"
)

// CodeFor is the API's error code for an HTTP status, as the mock answers it and as the SDK
// reads an error whose body does not say: a 403 is insufficient_scope (the mock's forbidden
// Host or Origin refusal names its code itself), another 4xx bad_request, a 5xx server_error.
// The statuses are written as numbers so that this package needs no net/http.
func CodeFor(status int) string {
	switch status {
	case 400:
		return CodeBadRequest
	case 401:
		return CodeUnauthorized
	case 402:
		return CodeInsufficientBalance
	case 403:
		return CodeInsufficientScope
	case 404:
		return CodeNotFound
	case 405:
		return CodeMethodNotAllowed
	case 409:
		return CodeConflict
	case 413:
		return CodePayloadTooLarge
	case 415:
		return CodeUnsupportedMediaType
	case 429:
		return CodeRateLimited
	}
	switch {
	case status >= 500:
		return CodeServerError
	case status >= 400:
		return CodeBadRequest
	}
	return CodeUnexpectedStatus
}
