package sms

import (
	"bytes"
	"cmp"
	"encoding/json"
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

// RateLimit is a request quota, as the X-RateLimit-* headers state it, or the IETF draft's
// RateLimit-* (RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset), RateLimit
// (limit=, remaining=, reset=; or r= and t=, the limit then in RateLimit-Policy's q=).
type RateLimit struct {
	Limit     int // requests allowed in the window (X-RateLimit-Limit)
	Remaining int // requests left in the window (X-RateLimit-Remaining)
	// Reset is when the window ends (X-RateLimit-Reset, RateLimit-Reset or the RateLimit
	// field's reset), read as a Unix time in seconds or milliseconds or as a number of
	// seconds from the answer, whichever the value is; zero when not sent.
	Reset time.Time
}

// envelope holds the members every answer may carry besides its data; the wire structs of
// the answers embed it. Besides the request ID, it holds the members that say an answer is an
// error whatever its status line (see failed), read in the same pass as the data.
type envelope struct {
	RequestID     text     `json:"requestId"`
	Status        text     `json:"status"`
	StatusCode    text     `json:"statusCode"`
	Success       text     `json:"success"`
	Error         presence `json:"error"`
	Errors        presence `json:"errors"`
	Code          text     `json:"code"`
	ResponseCode  text     `json:"responseCode"`
	ResponseCode2 text     `json:"response_code"`
	Timezone      text     `json:"timezone"`
	Msg           presence `json:"msg"`
	Message       presence `json:"message"`
	SMSStatus     presence `json:"smsStatus"`
}

// env returns the envelope, so that the one request path finds it in any wire struct that
// embeds it.
func (e *envelope) env() *envelope { return e }

// failed is the one rule that tells an answer's body is an error, before its members are
// read, whatever the call (a read, a write, sms doctor):
//
//   - a status member "error", "fail", "failed" or "failure" (JSend's and many PHP and Node
//     back ends'), or false (the convention of Nigerian payment APIs: {"status": false,
//     "message": ..., "data": []}), or a number of 400 to 599 ("401"), unless an smsStatus
//     beside it makes it the provider's report of an OTP send, which OTP.Send reads;
//   - success false;
//   - an error member that says something (not null, false, 0, "", {} or []), an errors
//     member that is not empty;
//   - a statusCode of 400 to 599 (NestJS's);
//   - a responseCode (response_code) that is a number other than 0 and 200 to 299 (NIBSS's
//     "00" is success, "99" an error);
//   - a code that is a number other than 0 and 200 to 299, or a word other than a word of
//     success (ok, success, ...) when a msg or message comes with it ({"code": "E01",
//     "msg": ...}).
func (e *envelope) failed() bool {
	status := e.Status.s
	return errorWord(status) || strings.EqualFold(status, "false") ||
		(!e.SMSStatus.set && errorStatus(status) != 0) ||
		strings.EqualFold(e.Success.s, "false") || e.Error.set || e.Errors.set ||
		e.StatusCode.s != "" && errorStatus(e.StatusCode.s) != 0 ||
		failedCode(cmp.Or(e.ResponseCode.s, e.ResponseCode2.s), false) ||
		failedCode(e.Code.s, e.Msg.set || e.Message.set)
}

// failedCode reports whether code, a code member of a whole answer, says it failed: a number
// other than 0 and 200 to 299, or, when words says a message comes with it, a word other than
// one of success.
func failedCode(code string, words bool) bool {
	code = strings.TrimSpace(code)
	if code == "" {
		return false
	}
	if n, err := strconv.Atoi(code); err == nil {
		return n != 0 && (n < 200 || n > 299)
	}
	if !words || code == "true" || code == "false" {
		return false
	}
	switch strings.ToLower(code) {
	case "ok", "success", "successful", "succeeded", "done", "accepted", "sent":
		return false
	}
	return true
}

// errorWord reports whether s is a status word of failure of a whole answer.
func errorWord(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error", "fail", "failed", "failure":
		return true
	}
	return false
}

// enveloped is a wire struct that embeds envelope.
type enveloped interface{ env() *envelope }

// bodyFailed reports whether body is a JSON object that says it is an error, by the rule of
// envelope.failed: the classifier for a body that was not decoded into a wire struct (one
// that did not decode, or a call without a result).
func bodyFailed(body []byte) bool {
	var e envelope
	body = bytes.TrimPrefix(body, utf8BOM)
	if len(body) == 0 || body[0] != '{' {
		return false
	}
	_ = json.Unmarshal(body, &e) // a member of another type is left unset
	return e.failed()
}

// presence is a member whose mere value matters: whether it says something. null, false, 0,
// "", {} and [] (with any white space) say nothing; any other value does.
type presence struct{ set bool }

// UnmarshalJSON reads the value; it never fails.
func (p *presence) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case 'n', 'f': // null, false
		p.set = false
	case 't':
		p.set = true
	case '"':
		s, _ := readText(b)
		p.set = strings.TrimSpace(s) != ""
	case '{', '[':
		p.set = len(bytes.TrimSpace(b[1:len(b)-1])) > 0
	default: // a number: 0 says nothing
		f, err := strconv.ParseFloat(string(b), 64)
		p.set = err != nil || f != 0
	}
	return nil
}

// responseOf returns the Response of the latest attempt, whose body's envelope was e and whose
// unreadable members are bad (see Response.Unreadable): with its timezone when it names a
// zone the SDK cannot read (see zoneOf).
func (cl *call) responseOf(e envelope, bad []string) *Response {
	r := cl.response(e.RequestID.s)
	r.Unreadable = unreadable(bad, "", flaw{"requestId", e.RequestID.bad},
		flaw{"timezone", e.Timezone.bad || e.Timezone.s != "" && cl.zoneOf(&e) == nil})
	return r
}

// zoneOf returns the zone of the times the answer of envelope e writes without one: the zone
// its timezone member names (see loadZone), else the client's (WithTimeZone); nil when the
// member names a zone the SDK cannot read, whose zone-less times are then not read.
func (cl *call) zoneOf(e *envelope) *time.Location {
	if e.Timezone.s == "" {
		return cmp.Or(cl.zone, DefaultTimeZone)
	}
	return loadZone(e.Timezone.s)
}

// loadZone reads a zone as an answer names it: UTC (GMT, Z), West Africa Time (WAT,
// Africa/Lagos, read without the system's time zone database), an offset (+01:00, +0100,
// UTC+1, GMT+01:00), or an IANA name that the system's database holds; nil otherwise.
func loadZone(s string) *time.Location {
	s = strings.TrimSpace(s)
	switch strings.ToUpper(s) {
	case "UTC", "GMT", "Z", "ETC/UTC", "ETC/GMT":
		return time.UTC
	case "WAT", "AFRICA/LAGOS":
		return DefaultTimeZone
	}
	off := s
	for _, p := range [...]string{"UTC", "GMT"} {
		if len(off) > len(p) && strings.EqualFold(off[:len(p)], p) {
			off = off[len(p):]
		}
	}
	if len(off) > 1 && (off[0] == '+' || off[0] == '-') {
		hm := strings.ReplaceAll(off[1:], ":", "")
		if !digits(hm) || len(hm) == 3 || len(hm) > 4 {
			return nil
		}
		hours, _ := strconv.Atoi(hm[:min(2, len(hm))])
		mins := 0
		if len(hm) == 4 {
			mins, _ = strconv.Atoi(hm[2:])
		}
		if hours > 14 || mins >= 60 {
			return nil
		}
		sec := hours*3600 + mins*60
		if off[0] == '-' {
			sec = -sec
		}
		return time.FixedZone(s, sec)
	}
	if !strings.Contains(s, "/") { // "Local", "", or an abbreviation other than WAT: not guessed
		return nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil
	}
	return loc
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

// rateLimitOf reads the rate-limit headers (X-RateLimit-*, or the IETF draft's RateLimit-*,
// RateLimit and RateLimit-Policy; see rateLimitLimit, rateLimitRemaining, rateLimitReset): nil
// unless the limit and the remaining count are both non-negative integers.
func rateLimitOf(h http.Header) *RateLimit {
	limit, ok1 := rateLimitLimit(h)
	if !ok1 {
		return nil
	}
	left, ok2 := rateLimitRemaining(h)
	if !ok2 {
		return nil
	}
	rl := &RateLimit{Limit: limit, Remaining: left}
	if at, ok := rateLimitReset(h, time.Now()); ok {
		rl.Reset = at
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
