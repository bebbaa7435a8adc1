package sms

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Response is the HTTP answer a result was read from, as go-github's Response and
// stripe-go's LastResponse are: quote its RequestID when asking the provider's support. Every
// result of a successful call carries one in its Response field; a list's Page carries one
// for the page, and its items none. The iterators (All, AllRecipients) yield items without it:
// use the List or Campaigns.Delivery of a page for its Response. An error answered by the API carries its request ID in Error.RequestID.
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
	// Unreadable names the members of the answer that were present in a form the SDK cannot
	// read, such as "data[3].createdAt" or "campaign.amount": the result holds them as absent
	// (nil, or empty), rather than failing the call. Nil when every member was read.
	Unreadable []string
}

// RateLimit is a request quota, as the X-RateLimit-* headers state it.
type RateLimit struct {
	Limit     int       // requests allowed in the window (X-RateLimit-Limit)
	Remaining int       // requests left in the window (X-RateLimit-Remaining)
	Reset     time.Time // when the window ends (X-RateLimit-Reset, Unix seconds); zero when not sent
}

// envelope holds the members every answer may carry besides its data; the wire structs of
// the answers embed it.
type envelope struct {
	RequestID text `json:"requestId"`
}

// responseOf returns the Response of the latest attempt, whose body's envelope was e and whose
// unreadable members are bad (see Response.Unreadable).
func (cl *call) responseOf(e envelope, bad []string) *Response {
	r := cl.response(e.RequestID.s)
	r.Unreadable = unreadable(bad, "", flaw{"requestId", e.RequestID.bad})
	return r
}

// response returns the Response of the latest attempt, whose body's requestId was bodyID.
func (cl *call) response(bodyID string) *Response {
	r := &Response{StatusCode: cl.status, Header: cl.header, RequestID: header(cl.header, "X-Request-Id")}
	if r.RequestID == "" {
		r.RequestID = bodyID
	}
	r.RateLimit = rateLimitOf(cl.header)
	return r
}

// rateLimitOf reads the X-RateLimit-* headers: nil unless the limit and the remaining count
// are both non-negative integers.
func rateLimitOf(h http.Header) *RateLimit {
	// The keys in canonical form, so that reading them allocates nothing.
	limitText, leftText := header(h, "X-Ratelimit-Limit"), header(h, "X-Ratelimit-Remaining")
	if limitText == "" || leftText == "" {
		return nil
	}
	limit, err1 := strconv.Atoi(limitText)
	left, err2 := strconv.Atoi(leftText)
	if err1 != nil || err2 != nil || limit < 0 || left < 0 {
		return nil
	}
	rl := &RateLimit{Limit: limit, Remaining: left}
	if s, err := strconv.ParseInt(header(h, "X-Ratelimit-Reset"), 10, 64); err == nil && s > 0 {
		rl.Reset = time.Unix(s, 0).UTC()
	}
	return rl
}

// header returns the first value of the header named by canonical key, trimmed.
func header(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return strings.TrimSpace(v[0])
	}
	return ""
}
