package mockserver

import "github.com/seedsms/sms-go/mockserver/internal/reqlog"

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
//
// Its fields, as JSON shows them: Method, Path, Query (raw) string; Status int; RequestID
// string; Time time.Time; Headers map[string][]string; HeadersTruncated bool; Body
// json.RawMessage (absent when the request had none).
type RecordedRequest = reqlog.Record

// Requests returns the /v1 requests received (the newest 1,000), oldest first, with secrets
// and pins redacted.
func (s *Server) Requests() []RecordedRequest { return s.api.Requests() }
