package sms

import (
	"bytes"
	"cmp"
	"encoding/json"
	"encoding/xml"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/internal/safetext"
)

// Sentinel errors. Every *Error (and *ScopeError) matches, with errors.Is, the sentinel of its
// HTTP status; a *ValidationError matches ErrInvalidParams (and no status's sentinel); an
// error whose request may or may not have taken effect matches ErrOutcomeUnknown.
var (
	// ErrInvalidParams matches a *ValidationError: a parameter the SDK refused before sending
	// any request. Nothing was sent and nothing was used up (no OTP attempt, no money). It is
	// deliberately not ErrBadRequest, which only a server's answer matches, so that a
	// handler can tell its own bad input from a server's refusal.
	ErrInvalidParams = errors.New("sms: invalid parameters")
	// ErrBadRequest matches a 400, and any other 4xx without a sentinel of its own (405, 413,
	// 415): the server refused the request as invalid and it had no effect. A
	// *ValidationError, found before any request, does not match it: see ErrInvalidParams.
	ErrBadRequest = errors.New("sms: bad request")
	// ErrUnauthorized matches a 401: missing, invalid, revoked or expired credentials.
	ErrUnauthorized = errors.New("sms: unauthorized")
	// ErrInsufficientBalance matches a 402: the wallet cannot pay; nothing was sent or charged.
	ErrInsufficientBalance = errors.New("sms: insufficient balance")
	// ErrInsufficientScope matches a 403 insufficient_scope: the API key lacks the scope (see
	// *ScopeError).
	ErrInsufficientScope = errors.New("sms: insufficient scope")
	// ErrForbidden matches any other 403, such as the mock server's refusal of a request whose
	// Host is not loopback or whose Origin is another site's: no scope would help.
	ErrForbidden = errors.New("sms: forbidden")
	// ErrNotFound matches a 404: an unknown id, or one of another workspace.
	ErrNotFound = errors.New("sms: not found")
	// ErrConflict matches a 409: a reference reused for a different request, or a duplicate
	// sender ID.
	ErrConflict = errors.New("sms: conflict")
	// ErrRateLimited matches a 429; Error.RetryAfter says when to try again.
	ErrRateLimited = errors.New("sms: rate limited")
	// ErrServer matches any 5xx.
	ErrServer = errors.New("sms: server error")
	// ErrOutcomeUnknown matches an error after which a request that changes something may or
	// may not have taken effect, or did: an attempt failed once a byte of it may have been
	// written (a dropped connection, a malformed TLS record, a timeout), the server answered a
	// 5xx other than 501 and 505 (it may have done part of the work), the context ended while
	// waiting for the answer or while reading it, the server answered a 2xx whose result
	// cannot be built (it accepted the request: a send was sent and charged), or a 3xx, which
	// is not followed. Such an error is an *OutcomeError. GETs never return it.
	//
	// Calls that are not retried after such a failure return it so that the caller decides:
	// OTP.Send, OTP.Verify, Keys.Create and Revoke, SenderIDs.Request, and by default
	// SMS.Send and Campaigns.Create too (see WithReferenceDeduplication). With
	// WithReferenceDeduplication, SMS.Send and Campaigns.Create return it only when every
	// retry failed; they may then be called again with the same Reference. The error of a
	// send names its Reference.
	ErrOutcomeUnknown = errors.New("sms: outcome unknown")
)

// Error is an error answered by the API: under an error status, or under a 2xx whose body
// says it is an error ({"status": "error"}, {"success": false}, an error or errors member; see
// docs/api.md, "Answers the pages don't show"), which a read returns as an *Error and a call
// that changes something as an *OutcomeError wrapping one.
type Error struct {
	// StatusCode is the HTTP status, such as 402; a 2xx for an error in a 2xx body.
	StatusCode int
	// Code is the API's error code, such as "insufficient_balance"; when the body could not
	// be read, the code of the status. For an error in a 2xx body without a code, the code
	// of the status its body or words name, or empty.
	Code string
	// Message is the API's human-readable explanation.
	Message string
	// Field names the offending input on a 400, in the wire's spelling (such as "to[3]").
	Field string
	// RequestID identifies the request; quote it when asking for support.
	RequestID string
	// RetryAfter is the wait the server asked for with Retry-After (mostly on a 429), or 0.
	RetryAfter time.Duration
	// Snippet is the start of a body that was not the API's error (such as the HTML page of
	// a gateway or a firewall), printable and cut at 120 bytes as in Error.Error; empty when
	// the body was the API's error, or empty.
	Snippet string

	notAPI bool // the body was not the API's error: the status alone speaks
	inBody bool // a 2xx answer whose body says it is an error (see bodyFailed)
	// named is the status the error stands for when it is not StatusCode: the 4xx or 5xx a
	// 2xx error body names (a statusCode member, a numeric code, or words; see namedStatus),
	// or 0.
	named int
}

// status is the status whose sentinel the error matches: the one its body names when the
// status line was a 2xx, else the status line's.
func (e *Error) status() int {
	if e.named != 0 {
		return e.named
	}
	return e.StatusCode
}

// Error returns a one-line description: status, code, message, field and request ID. The
// server's text is shown printable and bounded: control characters (newlines, terminal escape
// sequences) are escaped as in Go strings, invalid UTF-8 becomes U+FFFD, and each member is cut
// at 200 bytes with an ellipsis. The fields keep the full text.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("sms: ")
	b.WriteString(strconv.Itoa(e.StatusCode))
	if e.inBody {
		b.WriteString(" with an error body:")
	}
	if e.Code != "" {
		b.WriteByte(' ')
		b.WriteString(printable(e.Code))
	}
	switch {
	case e.Message != "":
		if e.Code != "" {
			b.WriteByte(':')
		}
		b.WriteByte(' ')
		b.WriteString(printable(e.Message))
	case e.inBody:
		b.WriteString(" the server gave no reason")
	}
	if e.Field != "" {
		b.WriteString(" (field ")
		b.WriteString(printable(e.Field))
		b.WriteByte(')')
	}
	if e.Snippet != "" {
		b.WriteString(" (body ")
		b.WriteString(strconv.Quote(printable(e.Snippet)))
		b.WriteByte(')')
	}
	if e.RequestID != "" {
		b.WriteString(" [request ")
		b.WriteString(printable(e.RequestID))
		b.WriteByte(']')
	}
	return b.String()
}

// maxErrorText bounds, in bytes, each piece of server text in an error string.
const maxErrorText = 200

// printable returns server text escaped and cut at maxErrorText bytes (see safetext.Printable).
func printable(s string) string { return safetext.Printable(s, maxErrorText) }

// Is reports whether target is the sentinel of e's code when the code names one (a 400 whose
// code is insufficient_balance is ErrInsufficientBalance), else of its status, such as
// ErrNotFound for a 404. A 403 is ErrInsufficientScope only with the code
// insufficient_scope, else ErrForbidden. Whatever the code, a 429 is also ErrRateLimited and
// a 5xx ErrServer: they say to try again later.
//
// An error in the body of a 2xx answer matches the sentinel of the status its body names (a
// statusCode member or a numeric code of 400 to 599) or, when it names none, of the few
// words it is read for (see docs/api.md, "Answers the pages don't show"); else only the
// sentinel of its code, if any.
func (e *Error) Is(target error) bool {
	status := e.status()
	switch {
	case target == ErrRateLimited && status == http.StatusTooManyRequests,
		target == ErrServer && status >= 500:
		return true
	}
	if s := sentinelOfCode(e.Code); s != nil {
		return s == target
	}
	if status == http.StatusForbidden {
		return target == ErrForbidden
	}
	s := sentinelFor(status)
	return s != nil && s == target
}

// sentinelOfCode returns the sentinel of an API error code (compared ignoring case), or nil
// for a code that names none.
func sentinelOfCode(code string) error {
	for _, c := range codeSentinels {
		if strings.EqualFold(code, c.code) {
			return c.err
		}
	}
	return nil
}

// codeSentinels are the API error codes that name a sentinel.
var codeSentinels = [...]struct {
	code string
	err  error
}{
	{rules.CodeBadRequest, ErrBadRequest}, {rules.CodeUnauthorized, ErrUnauthorized},
	{rules.CodeInsufficientBalance, ErrInsufficientBalance}, {rules.CodeInsufficientScope, ErrInsufficientScope},
	{rules.CodeForbidden, ErrForbidden}, {rules.CodeNotFound, ErrNotFound}, {rules.CodeConflict, ErrConflict},
	{rules.CodeRateLimited, ErrRateLimited}, {rules.CodeServerError, ErrServer},
}

func sentinelFor(status int) error {
	switch {
	case status == http.StatusUnauthorized:
		return ErrUnauthorized
	case status == http.StatusPaymentRequired:
		return ErrInsufficientBalance
	case status == http.StatusForbidden:
		return ErrInsufficientScope
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusConflict:
		return ErrConflict
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status >= 400 && status < 500:
		return ErrBadRequest
	case status >= 500:
		return ErrServer
	}
	return nil
}

// ScopeError is the error of a 403 insufficient_scope: the API key lacks Scope (any other 403
// matches ErrForbidden). It unwraps to the *Error, so errors.As(err, &apiErr) and
// errors.Is(err, ErrInsufficientScope) both work.
type ScopeError struct {
	// Scope is the scope the key lacks: as named by the server, or when its answer names
	// none, the scope of the endpoint called (ScopeOTP for OTP.Verify, for example).
	Scope Scope
	// Err is the API error, with the status, message and request ID.
	Err *Error
}

// Error names the missing scope, printable and bounded as in Error.Error.
func (e *ScopeError) Error() string {
	msg := "sms: 403 insufficient_scope: the API key lacks the " + strconv.Quote(printable(string(e.Scope))) + " scope"
	if e.Err != nil && e.Err.RequestID != "" {
		msg += " [request " + printable(e.Err.RequestID) + "]"
	}
	return msg
}

// Unwrap returns the *Error.
func (e *ScopeError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}

// ValidationError reports a parameter that the API would refuse, found before any request was
// sent. It matches ErrInvalidParams, not ErrBadRequest.
type ValidationError struct {
	// Field names the parameter as spelled in Go, such as "To[3]" or "PinLength".
	Field string
	// Reason says what is wrong. It never repeats the value.
	Reason string
}

// Error returns "sms: invalid <Field>: <Reason>".
func (e *ValidationError) Error() string { return "sms: invalid " + e.Field + ": " + e.Reason }

// Is reports whether target is ErrInvalidParams.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidParams }

func invalid(field, reason string) *ValidationError {
	return &ValidationError{Field: field, Reason: reason}
}

// waitError is the error of a call whose context ended while it waited to retry: it matches
// both the context's error and the last attempt's (such as an *Error of a 429 or a 503).
type waitError struct {
	ctx  error // context.Canceled or context.DeadlineExceeded
	last error
}

func (e *waitError) Error() string {
	return e.ctx.Error() + " while waiting to retry after: " + strings.TrimPrefix(e.last.Error(), "sms: ")
}

func (e *waitError) Unwrap() []error { return []error{e.ctx, e.last} }

// maxErrorBody is how much of an error response is read.
const maxErrorBody = 1 << 20

// wireError is an error body in the shapes servers write: the service's
// {"error": {"code", "message", "field", "scope"}}, {"error": "text"}, {"message": "text"}
// (with a "code" beside it, or not), NestJS's {"statusCode", "message": ["text", ...],
// "error": "Bad Request"}, RFC 7807's {"type", "title", "status", "detail"}, OAuth's
// {"error", "error_description"}, and {"errors": [...]} of strings or of objects like the
// service's error or JSON:API's {"status", "title", "detail"} (or Laravel's object of fields,
// each an array of messages).
type wireError struct {
	Error        json.RawMessage `json:"error"`
	Errors       json.RawMessage `json:"errors"`
	Message      json.RawMessage `json:"message"`
	Msg          json.RawMessage `json:"msg"`
	Title        text            `json:"title"`
	Detail       text            `json:"detail"`
	Description  text            `json:"error_description"`
	RespMessage  text            `json:"responseMessage"`
	RespMessage2 text            `json:"response_message"`
	RespDesc     text            `json:"responseDescription"`
	Code         text            `json:"code"`
	Field        text            `json:"field"`
	RequestID    text            `json:"requestId"`
	Status       text            `json:"status"`
	StatusCode   text            `json:"statusCode"`
	StatusCode2  text            `json:"status_code"`
}

// errorItem is one error as an object: the service's, or a member of "errors" (Spring Boot's
// validation errors write their words as defaultMessage).
type errorItem struct {
	Code           text            `json:"code"`
	Message        json.RawMessage `json:"message"`
	Msg            json.RawMessage `json:"msg"`
	DefaultMessage text            `json:"defaultMessage"`
	Title          text            `json:"title"`
	Detail         text            `json:"detail"`
	Field          text            `json:"field"`
	Scope          text            `json:"scope"`
	Status         text            `json:"status"`

	texts []string // the words of Message, Msg, DefaultMessage, Title and Detail, in that order
}

// read reads raw, a string or an errorItem object, into it; it reports whether raw was one.
func (it *errorItem) read(raw json.RawMessage) bool {
	switch {
	case len(raw) == 0:
		return false
	case raw[0] == '"':
		s, _ := readText(raw)
		*it = errorItem{texts: nonEmpty(s)}
		return true
	case raw[0] == '{':
		if json.Unmarshal(raw, it) != nil {
			return false
		}
		it.texts = append(append(append(append(messages(it.Message), messages(it.Msg)...), nonEmpty(it.DefaultMessage.s)...),
			nonEmpty(it.Title.s)...), nonEmpty(it.Detail.s)...)
		return true
	}
	return false
}

// empty reports whether the item says nothing: no code, field or words.
func (it *errorItem) empty() bool { return it.Code.s == "" && it.Field.s == "" && len(it.texts) == 0 }

// nonEmpty returns s as a list of one, or none when s is only white space.
func nonEmpty(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []string{s}
}

// messages reads a message member: a string, or an array of strings (NestJS's validation
// errors), or of values that are read as text.
func messages(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	if raw[0] != '[' {
		s, _ := readText(raw)
		return nonEmpty(s)
	}
	var items []text
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []string
	for _, t := range items {
		out = append(out, nonEmpty(t.s)...)
	}
	return out
}

// apiErrorOf reads the error of body: its code, message, field, scope and request ID, the
// status the body names (statusCode, a numeric status or code of 400 to 599; else 0), and
// whether the body was an error the API wrote in one of wireError's shapes at all.
func apiErrorOf(body []byte) (e Error, scope string, named int, ok bool) {
	var w wireError
	if fault := soapFault(body); fault != "" {
		return Error{Message: fault}, "", 0, true
	}
	if len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &w) != nil {
		return Error{}, "", 0, false
	}
	var first errorItem
	var texts []string
	add := func(ss ...string) {
		for _, s := range ss {
			if s != "" && !slices.Contains(texts, s) {
				texts = append(texts, s)
			}
		}
	}
	if first.read(w.Error) {
		add(first.texts...)
	}
	add(messages(w.Message)...)
	add(messages(w.Msg)...)
	add(w.Title.s, w.Detail.s, w.Description.s, w.RespMessage.s, w.RespMessage2.s, w.RespDesc.s)
	if len(w.Errors) > 0 {
		var items []json.RawMessage
		var fields map[string]json.RawMessage
		switch {
		case json.Unmarshal(w.Errors, &items) == nil:
			for _, raw := range items {
				var it errorItem
				if it.read(raw) {
					add(it.texts...)
					switch {
					case first.empty():
						first = it
					case first.Field.s == "": // beside Spring Boot's "error": "Bad Request"
						first.Field = it.Field
					}
				}
			}
		case json.Unmarshal(w.Errors, &fields) == nil: // Laravel: {"to": ["The to field is required."]}
			for _, name := range slices.Sorted(maps.Keys(fields)) {
				msgs := messages(fields[name])
				if len(msgs) == 0 {
					continue
				}
				add(msgs...)
				if first.Field.s == "" {
					first.Field.s = name
				}
			}
		}
	}
	if len(texts) == 0 && len(w.Errors) == 0 {
		// Django REST's field errors: {"to": ["This field is required."]}, and its
		// non_field_errors.
		field, words := fieldErrors(body)
		add(words...)
		if first.Field.s == "" && field != "non_field_errors" {
			first.Field.s = field
		}
	}
	if len(texts) > 1 { // NestJS's and RFC 7807's status text says less than the rest
		texts = slices.DeleteFunc(texts, isStatusText)
	}
	code := cmp.Or(first.Code.s, w.Code.s)
	named = errorStatus(w.StatusCode.s, w.StatusCode2.s, w.Status.s, code, first.Status.s)
	if _, err := strconv.Atoi(code); err == nil {
		code = "" // a number is a status, not a code
	}
	e = Error{
		Code:      code,
		Message:   strings.Join(texts, "; "),
		Field:     cmp.Or(first.Field.s, w.Field.s),
		RequestID: w.RequestID.s,
	}
	return e, first.Scope.s, named, e.Code != "" || e.Message != "" || named != 0
}

// fieldErrors reads an error body whose members are the fields in error, each an array of
// messages (Django REST's validation errors): it returns the first field, in the order of
// their names, and every message. Members of other forms are skipped.
func fieldErrors(body []byte) (string, []string) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return "", nil
	}
	var first string
	var words []string
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		raw := fields[name]
		if strings.EqualFold(name, "data") || len(raw) == 0 || raw[0] != '[' { // data is the answer's, not a field
			continue
		}
		var items []string // strings only: an array of numbers or objects is no message
		if json.Unmarshal(raw, &items) != nil {
			continue
		}
		for _, it := range items {
			if strings.TrimSpace(it) != "" {
				words = append(words, it)
				if first == "" {
					first = name
				}
			}
		}
	}
	return first, words
}

// maxFault bounds, in bytes, the XML body searched for a SOAP fault's words.
const maxFault = 64 << 10

// soapFault returns the words of a SOAP fault (SOAP 1.1's faultstring, SOAP 1.2's Reason's
// Text) in body, an XML document, whitespace collapsed and entities decoded; or "". A
// gateway's fault says more than the start of its envelope, which Error.Snippet keeps.
func soapFault(body []byte) string {
	body = bytes.TrimSpace(bytes.TrimPrefix(body, utf8BOM))
	if len(body) == 0 || body[0] != '<' || !bytes.Contains(body[:min(len(body), maxFault)], []byte("Fault")) {
		return ""
	}
	d := xml.NewDecoder(bytes.NewReader(body[:min(len(body), maxFault)]))
	d.Strict = false
	var in string // the element whose text is the words: faultstring, or Text inside Reason
	reason := false
	for {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Local == "faultstring", reason && t.Name.Local == "Text":
				in = t.Name.Local
			case t.Name.Local == "Reason":
				reason = true
			}
		case xml.CharData:
			if in != "" {
				if s := strings.Join(strings.Fields(string(t)), " "); s != "" {
					return s
				}
			}
		case xml.EndElement:
			if t.Name.Local == in {
				in = ""
			}
		}
	}
}

// isStatusText reports whether s is only the text of an HTTP error status, such as
// "Bad Request".
func isStatusText(s string) bool {
	for status := 400; status <= 599; status++ {
		if t := http.StatusText(status); t != "" && strings.EqualFold(strings.TrimSpace(s), t) {
			return true
		}
	}
	return false
}

// errorStatus returns the first of ss that is an HTTP error status, 400 to 599, or 0.
func errorStatus(ss ...string) int {
	for _, s := range ss {
		s = strings.TrimSpace(s)
		if len(s) != 3 || !digits(s) { // without strconv's error (an allocation) for "" or a word
			continue
		}
		if n, err := strconv.Atoi(s); err == nil && n >= 400 && n <= 599 {
			return n
		}
	}
	return 0
}

// statusOfWords returns the status that the words of an error in a 2xx body stand for, when
// they say it plainly, or 0. The list is kept short: words that could mean something else
// name nothing.
func statusOfWords(msg string) int {
	m := strings.ToLower(msg)
	has := func(words ...string) bool {
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(m, w) })
	}
	switch {
	case has("unauthorized", "unauthorised", "unauthenticated", "invalid api key", "invalid api secret",
		"invalid credentials", "authentication failed", "api key is invalid", "api key not found"):
		return http.StatusUnauthorized
	case has("insufficient balance", "insufficient wallet balance", "insufficient funds", "insufficient credit"):
		return http.StatusPaymentRequired
	case has("rate limit", "too many requests"):
		return http.StatusTooManyRequests
	}
	return 0
}

// maxSnippet bounds, in bytes, the start of a body that is not the API's error, kept in
// Error.Snippet.
const maxSnippet = 120

// apiError builds the typed error of a non-2xx response, or of a 2xx one whose body says it
// is an error (see bodyFailed). A body that is not the API's error in one of wireError's
// shapes still gives an *Error, with the code of the status (forbidden for a 403: no scope
// would help), its text as the message, and the start of the body in Snippet. A 403 is a
// *ScopeError only when its code is insufficient_scope: a 403 whose body has no code (an
// allow-list's "IP address not whitelisted.") is ErrForbidden, with the server's words.
func apiError(status int, header http.Header, body []byte) error {
	w, scope, named, ok := apiErrorOf(body)
	e := &w
	e.StatusCode = status
	e.RequestID = cmp.Or(e.RequestID, header.Get("X-Request-Id")) // the body's first, as the service writes both
	if !ok {
		e.notAPI = true
		if len(bytes.TrimSpace(body)) > 0 {
			e.Snippet = safetext.Printable(string(body[:min(len(body), 4*maxSnippet)]), maxSnippet)
		}
	}
	if status >= 200 && status <= 299 {
		e.inBody = true
		if sentinelOfCode(e.Code) == nil {
			e.named = cmp.Or(named, statusOfWords(e.Message))
		}
		if e.Code == "" && e.named != 0 {
			e.Code = rules.CodeFor(e.named)
			if e.named == http.StatusForbidden {
				e.Code = rules.CodeForbidden
			}
		}
	} else {
		if e.Code == "" {
			e.Code = rules.CodeFor(status)
			if status == http.StatusForbidden && scope == "" {
				e.Code = rules.CodeForbidden
			}
		}
		if e.Message == "" {
			e.Message = http.StatusText(status)
		}
	}
	if d, ok := retryAfter(header, time.Now()); ok {
		e.RetryAfter = d
	}
	if e.status() == http.StatusForbidden && strings.EqualFold(e.Code, rules.CodeInsufficientScope) {
		return &ScopeError{Scope: Scope(scope), Err: e}
	}
	return e
}
