package mockserver

import (
	"encoding/json"
	"time"
)

// RecordedRequest is a request the mock received, as GET /_mock/requests shows it. Secrets
// are replaced by "[REDACTED]" wherever they are: the values of X-API-Secret, Authorization,
// Proxy-Authorization and Cookie; any path segment, query parameter name or value, header
// name or value holding something shaped like a secret or a token (an sk_live_ or sk_test_
// secret, a Bearer or Basic credential, a JWT) or the request's own X-API-Secret or
// Authorization credential (of 8 bytes or more, whatever its shape); and OTP pins and secrets
// in bodies. Headers beyond 8 KiB in all are left out, with HeadersTruncated set.
type RecordedRequest struct {
	Method           string              `json:"method"`
	Path             string              `json:"path"`
	Query            string              `json:"query"`
	Status           int                 `json:"status"`
	RequestID        string              `json:"requestId"`
	Time             time.Time           `json:"time"`
	Headers          map[string][]string `json:"headers"`
	HeadersTruncated bool                `json:"headersTruncated,omitempty"`
	Body             json.RawMessage     `json:"body,omitempty"`
}

// Requests returns the /v1 requests received (the newest 1,000), oldest first, with secrets
// and pins redacted.
func (s *Server) Requests() []RecordedRequest {
	recs := s.api.Requests()
	out := make([]RecordedRequest, len(recs))
	for i, r := range recs {
		out[i] = RecordedRequest(r)
	}
	return out
}
