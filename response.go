package sms

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Response is the HTTP answer a result was read from, as go-github's Response and
// stripe-go's LastResponse are: quote its RequestID when asking the provider's support. Every
// result of a successful call carries one in its Response field; the items of
// SenderIDs.List and Keys.List share the list's. The iterators Campaigns.All and
// Campaigns.Recipients yield items without it: use Campaigns.List or Campaigns.Status for a
// page's Response. An error answered by the API carries its request ID in Error.RequestID.
type Response struct {
	// StatusCode is the HTTP status, such as 200 or 202.
	StatusCode int
	// RequestID identifies the request: the X-Request-Id header, or else the body's
	// requestId. It is empty when the server sent neither (the service's OTP answers show
	// no requestId).
	RequestID string
	// RateLimit is the request quota stated by the X-RateLimit-* headers, or nil when the
	// answer had none (the service documents no such headers; the mock server sends them
	// when its rate limit is on).
	RateLimit *RateLimit
	// Header holds the answer's headers.
	Header http.Header
}

// RateLimit is a request quota, as the X-RateLimit-* headers state it.
type RateLimit struct {
	Limit     int       // requests allowed in the window (X-RateLimit-Limit)
	Remaining int       // requests left in the window (X-RateLimit-Remaining)
	Reset     time.Time // when the window ends (X-RateLimit-Reset, Unix seconds); zero when not sent
}

// response returns the Response of the latest attempt.
func (cl *call) response() *Response {
	r := &Response{StatusCode: cl.status, Header: cl.header, RequestID: cl.header.Get("X-Request-Id")}
	if r.RequestID == "" && len(cl.data) > 0 {
		var w struct {
			RequestID string `json:"requestId"`
		}
		if json.Unmarshal(cl.data, &w) == nil {
			r.RequestID = w.RequestID
		}
	}
	r.RateLimit = rateLimitOf(cl.header)
	return r
}

// rateLimitOf reads the X-RateLimit-* headers: nil unless the limit and the remaining count
// are both non-negative integers.
func rateLimitOf(h http.Header) *RateLimit {
	limit, err1 := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit-Limit")))
	left, err2 := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit-Remaining")))
	if err1 != nil || err2 != nil || limit < 0 || left < 0 {
		return nil
	}
	rl := &RateLimit{Limit: limit, Remaining: left}
	if s, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-RateLimit-Reset")), 10, 64); err == nil && s > 0 {
		rl.Reset = time.Unix(s, 0).UTC()
	}
	return rl
}
