package mockserver

import (
	"encoding/json"
	"time"
)

// RecordedRequest is a request the mock received, as GET /_mock/requests shows it. Secrets
// are replaced by "[REDACTED]" wherever they are: the values of X-API-Secret, Authorization,
// Proxy-Authorization, Cookie and any other header whose name says it holds a secret; any
// path segment, query parameter name or value, header name or value, and any string of the
// body (message text included) holding something shaped like a secret or a token (an
// sk_live_ or sk_test_ secret, a Bearer or Basic credential, a JWT or a segment of one) or the
// request's own X-API-Secret or Authorization credential (of 8 bytes or more, whatever its
// shape: whole, without its sk_ prefix, or a piece of 8 characters or more); and the whole
// value of a body member or query parameter whose name says it holds a secret or a pin
// (api_secret, api_key, token, pin, otp_code, pinCode, ...). docs/api.md lists the rule.
// Headers beyond 8 KiB in all are left out, with HeadersTruncated set.
type RecordedRequest struct {
	Method           string              `json:"method"`                     // as sent
	Path             string              `json:"path"`                       // decoded, as the route reads it
	Query            string              `json:"query"`                      // the raw query, without "?"
	Status           int                 `json:"status"`                     // of the answer
	RequestID        string              `json:"requestId"`                  // the answer's X-Request-Id
	Time             time.Time           `json:"time"`                       // when it arrived, on the mock's clock
	Headers          map[string][]string `json:"headers"`                    // canonical names
	HeadersTruncated bool                `json:"headersTruncated,omitempty"` // headers beyond 8 KiB were left out
	Body             json.RawMessage     `json:"body,omitempty"`             // JSON; absent when the request had none
}

// Requests returns the /v1 requests received (the newest 1,000), oldest first, with secrets
// and pins redacted.
func (s *Server) Requests() []RecordedRequest {
	list := s.api.Requests()
	out := make([]RecordedRequest, len(list))
	for i, r := range list {
		out[i] = RecordedRequest(r) // the same fields: a field added to one only does not compile
	}
	return out
}
