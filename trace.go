package sms

import (
	"context"
	"net/http"
)

// Trace holds functions the client calls as a call runs, for metrics, logs or tools built
// over the client (package bulk pauses all its workers when any request is answered 429).
// Attach one to a context with ContextWithTrace: every call made with that context reports to
// it. A nil function is not called. The functions may be called from several goroutines at
// once, one per call in flight, and must not block.
type Trace struct {
	// Attempt is called after each attempt of a call, answered or not, before the client
	// decides whether to retry it.
	Attempt func(Attempt)
}

// Attempt is one HTTP attempt of a call, as a Trace sees it.
type Attempt struct {
	// Op is the call, such as "POST /v1/sms/campaigns".
	Op string
	// Number is 1 for the first attempt of the call, 2 for its first retry, and so on.
	Number int
	// StatusCode is the HTTP status of the answer, or 0 when none arrived.
	StatusCode int
	// Err is the typed error of a 4xx or 5xx answer (an *Error, or a *ScopeError), as the
	// call would return it, with RetryAfter set when the answer asked for a wait; or the
	// transport error when no answer arrived; nil for a 1xx, 2xx or 3xx answer.
	Err error
	// MaybeProcessed reports that the server may have processed this attempt of a call that
	// changes something without the client knowing what it did: the request was written and
	// no answer arrived, or the answer was a 5xx other than 501 and 505, or a 2xx that could
	// not be read whole. It is false for a GET. A later call with the same Reference that is
	// answered as a replay may be answering this attempt: SendResult.Replayed is false then
	// within one call, and a tool that repeats a call by its reference decides the same.
	MaybeProcessed bool
}

type traceKey struct{}

// ContextWithTrace returns a copy of ctx with t attached: the calls made with it report
// their attempts to t. It replaces any trace ctx holds already; a nil t removes it.
func ContextWithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// traceFrom returns the trace attached to ctx, or nil.
func traceFrom(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}

// traceAttempt reports the latest attempt of cl to the trace of ctx, if any.
func traceAttempt(ctx context.Context, cl *call) {
	t := traceFrom(ctx)
	if t == nil || t.Attempt == nil {
		return
	}
	a := Attempt{Op: cl.op(), Number: cl.attempt, StatusCode: cl.status, MaybeProcessed: cl.lastMaybe && cl.method != http.MethodGet}
	switch {
	case cl.status >= 400:
		a.Err = cl.apiError()
	case cl.status == 0:
		a.Err = cl.redactError(cl.err)
	}
	t.Attempt(a)
}
