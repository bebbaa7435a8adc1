package sms

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/seedsms/sms-go/internal/safetext"
)

// OutcomeError is the error of a call that changes something (a send, an OTP, a sender ID
// request, a key) when the request may have taken effect, or did, without the SDK being able
// to say what it did. It matches ErrOutcomeUnknown, and unwraps to its cause and, when the
// context ended, to the context's error.
//
// It is returned when:
//   - an attempt failed once a byte of it may have been written (a dropped connection, a
//     timeout) or the context ended while waiting for the answer: StatusCode is 0;
//   - the server answered a 5xx other than 501 and 505: StatusCode is the 5xx, and the cause
//     is the *Error;
//   - the server answered a 2xx (it accepted the request: a send was sent and charged) whose
//     result cannot be built: an empty body, a 204, a page that is not JSON, a required member
//     missing or unreadable, a negative amount, or a body cut short, also by the context
//     ending after the status line arrived;
//   - the server answered a 2xx whose body says it is an error ({"status": "error"},
//     {"success": false}, an error or errors member): the cause is the *Error with the
//     server's words;
//   - the server answered a 3xx redirect, which the SDK never follows for such a call: the
//     server may have processed the request (a 303 See Other says it did).
//
// When the whole 2xx answer was read and its result built, the call returns the result even
// if the context ended meanwhile.
type OutcomeError struct {
	// Op is the call, such as "POST /v1/sms/send".
	Op string
	// StatusCode is the HTTP status of the latest answer, or 0 when none arrived.
	StatusCode int
	// RequestID identifies the request: the X-Request-Id header, or else the body's
	// requestId; empty when the server sent neither.
	RequestID string
	// Reference is the reference of a send (SMS.Send, Campaigns.Create, a batch of
	// bulk.Send), to repeat it with or to find its campaign by; empty for other calls.
	Reference string
	// Body is the start of the answer's body, made printable and bounded as the server's
	// text is in Error.Error, with secrets and pins redacted and phone numbers masked; empty
	// when there was none.
	Body string
	// Err is the cause: a transport or read error, the *Error of a 5xx, or why the 2xx
	// answer cannot be read.
	Err error

	ctx  error  // the context's error, when it ended before the answer was read whole
	hint string // what the caller may do, or ""
}

// Error describes the call, its status, request ID and the start of the body, then the
// cause and how the call may be repeated.
func (e *OutcomeError) Error() string {
	var b strings.Builder
	b.WriteString("sms: ")
	b.WriteString(e.Op)
	b.WriteString(": outcome unknown, ")
	switch s := e.StatusCode; {
	case s >= 200 && s <= 299 && inBody(e.Err):
		b.WriteString("the server answered ")
		b.WriteString(statusLine(s))
		b.WriteString(" but its body says the request failed, which it may have processed all the same")
	case s >= 200 && s <= 299:
		b.WriteString("the server accepted the request (")
		b.WriteString(statusLine(s))
		b.WriteString(") but its answer cannot be read")
	case s >= 300 && s <= 399:
		b.WriteString("the server redirected the request (")
		b.WriteString(statusLine(s))
		b.WriteString("), which may have been processed; redirects are not followed")
	default:
		b.WriteString("the request may have been processed")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "sms: "))
	}
	if e.ctx != nil && !errors.Is(e.Err, e.ctx) {
		b.WriteString(" (")
		b.WriteString(e.ctx.Error())
		b.WriteByte(')')
	}
	if e.RequestID != "" && !errors.As(e.Err, new(*Error)) { // an *Error names it already
		b.WriteString(" [request ")
		b.WriteString(printable(e.RequestID))
		b.WriteByte(']')
	}
	if e.Body != "" {
		b.WriteString(" (body: ")
		b.WriteString(strconv.Quote(e.Body))
		b.WriteByte(')')
	}
	if e.hint != "" {
		b.WriteString("; ")
		b.WriteString(e.hint)
	}
	return b.String()
}

// inBody reports whether err is the *Error of a 2xx body that says it is an error.
func inBody(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.inBody
}

// statusLine is "202 Accepted", or the number alone for a status net/http does not name.
func statusLine(status int) string {
	if text := http.StatusText(status); text != "" {
		return strconv.Itoa(status) + " " + text
	}
	return strconv.Itoa(status)
}

// Is reports whether target is ErrOutcomeUnknown.
func (e *OutcomeError) Is(target error) bool { return target == ErrOutcomeUnknown }

// Unwrap returns the cause and, when the context ended, its error.
func (e *OutcomeError) Unwrap() []error {
	switch {
	case e.Err == nil && e.ctx == nil:
		return nil
	case e.ctx == nil:
		return []error{e.Err}
	case e.Err == nil:
		return []error{e.ctx}
	}
	return []error{e.Err, e.ctx}
}

// accepted reports whether the latest answer says the server took the request: a 2xx, or a
// 3xx, which the client does not follow.
func (cl *call) accepted() bool { return cl.status >= 200 && cl.status <= 399 }

// unbuildable is the one place that decides what an error met while building the result of
// a call is: cause, unprefixed, says why its answer cannot be read. For a call that changes
// something (any method but GET), the server may have done it, and did when it answered a
// 2xx: the error is an *OutcomeError. For a GET, it is a plain error naming the call. A nil
// cause gives nil.
func (cl *call) unbuildable(cause error) error {
	if cause == nil {
		return nil
	}
	if oe := (*OutcomeError)(nil); errors.As(cause, &oe) {
		return cause // decided already
	}
	if cl.method == http.MethodGet {
		return fmt.Errorf("sms: %s: %w", cl.op(), cause)
	}
	return cl.outcome(nil, cause)
}

// redirectError is the cause of an *OutcomeError for a 3xx answer, naming where it pointed.
func redirectError(h http.Header) error {
	if loc := header(h, "Location"); loc != "" {
		return errors.New("the answer redirects to " + strconv.Quote(printable(loc)))
	}
	return errors.New("the answer is a redirect")
}

// outcome returns the *OutcomeError of the latest attempt, whose cause is cause; ctxErr,
// when not nil, is the error of the call's context, which it then matches too.
func (cl *call) outcome(ctxErr, cause error) *OutcomeError {
	e := &OutcomeError{Op: cl.op(), StatusCode: cl.status, Reference: cl.ref, Err: cause, ctx: ctxErr}
	if cl.ref != "" {
		e.hint = repeatHint(cl.dedup, cl.ref)
	}
	if cl.status == 0 {
		return e
	}
	e.RequestID = header(cl.header, "X-Request-Id")
	if e.RequestID == "" {
		var env envelope
		if json.Unmarshal(cl.data, &env) == nil {
			e.RequestID = env.RequestID.s
		}
	}
	r := cl.redactor()
	e.RequestID = r.Secrets(e.RequestID)
	if cl.accepted() {
		e.Body = snippet(cl.data, r)
	}
	return e
}

// maxSnippetScan is how much of a body is redacted and made printable for an error.
const maxSnippetScan = 4 * maxErrorText

// snippet returns the start of body for an error: redacted by r (see internal/safetext: a
// member whose name says it holds a secret or a pin, whole; the call's own credentials and
// pins, anything shaped like a secret or a JWT, and pins in words, wherever they are; phone
// numbers masked, in every form), printable and bounded.
func snippet(body []byte, r *safetext.Redactor) string {
	if len(body) == 0 {
		return ""
	}
	return printable(string(r.JSON(body[:min(len(body), maxSnippetScan)])))
}

// sent builds the result of a send's 2xx answer (SMS.Send, Campaigns.Create and each batch
// of bulk.Send): any error, a required member missing or a negative amount, is an
// *OutcomeError, as the send was accepted.
func (cl *call) sent(w *wireSent, from string, ch Channel, ref string) (*SendResult, error) {
	r, err := w.result(cl, from, ch, ref)
	if err == nil {
		err = checkAmount(cl, "campaign.amount", r.Campaign.Amount)
	}
	if err != nil {
		return nil, cl.unbuildable(err)
	}
	return r, nil
}

// checkAmount refuses a negative amount in an accepted answer: a charge cannot be negative.
func checkAmount(cl *call, member string, a *Amount) error {
	if a != nil && a.Kobo() < 0 {
		return fmt.Errorf("decoding the %d response: the member %q is negative, %s", cl.status, member, a)
	}
	return nil
}
