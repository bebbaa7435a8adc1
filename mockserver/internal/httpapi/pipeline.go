package httpapi

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// This file is the one path every request takes: request ID -> recover -> record -> Host and
// where a browser says it came from (403, guard.go) -> faults -> route (404/405) -> credentials (401) -> scope (403) ->
// rate limit (429) -> Content-Type (415) -> body size (413) -> what automatic delivery has
// due (but for sends, see route.unsettled) -> idempotency (409, replay) -> handler. Handlers
// only do their work.

// request is what the pipeline learns about one request on its way to the handler.
type request struct {
	r               *http.Request
	st              *state
	id              string
	now             time.Time
	param           string // the {id} of the path
	body            []byte
	caller          store.Caller // who the request acts for, once authenticated
	providerFailure bool
	bodyRead        bool             // the body was read (or failed to be), under the read deadline
	send            *wire.SendFields // a send or campaign body, decoded by the idempotency check
	documented      bool             // answer as the live docs show (the documented profile, /v1 only)
	leads           bool             // the request leads a reference: its answer is kept for replays
	idHeader        [1]string        // the X-Request-Id header's value
	sw              statusWriter     // the response writer the pipeline hands on
}

func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := a.state.Load()
	rq := &request{r: r, st: st, id: a.ids.Next().RequestID(), now: a.clock.Now()}
	rq.idHeader[0] = rq.id
	w.Header()["X-Request-Id"] = rq.idHeader[:] // as Set does, without making the slice
	// The writer that remembers the status is allocated with the request.
	sw := &rq.sw
	sw.ResponseWriter = w
	control := strings.HasPrefix(r.URL.Path, "/_mock/") || r.URL.Path == "/" // the inbox page is a control
	rq.documented = a.cfg.Documented && !control
	var start time.Time
	if a.cfg.Logger != nil { // the duration is only logged
		start = time.Now()
	}
	defer func() {
		v := recover()
		if v != nil && v != http.ErrAbortHandler {
			if a.cfg.Logger != nil {
				a.cfg.Logger.Error("mockserver: panic", "path", r.URL.Path, "requestId", rq.id, "panic", v)
			}
			if sw.status == 0 {
				rq.fail(sw, newError(http.StatusInternalServerError, "Internal server error."))
			}
		}
		if !control {
			st.log.Add(r, rq.id, rq.now, rq.body, sw.status)
		}
		if r.ContentLength != 0 && !rq.bodyRead && a.cfg.ReadTimeout > 0 {
			// net/http reads what is left of a body the route never read after the handler;
			// a client that drips it must not hold the connection.
			_ = http.NewResponseController(sw).SetReadDeadline(time.Now().Add(a.cfg.ReadTimeout))
		}
		if a.cfg.Logger != nil {
			a.cfg.Logger.Info("mockserver", "method", r.Method, "path", r.URL.Path, "status", sw.status,
				"requestId", rq.id, "duration", time.Since(start))
		}
		if v == http.ErrAbortHandler {
			panic(v)
		}
	}()
	if e := a.guard(r, control); e != nil {
		rq.fail(sw, e)
		return
	}
	var out http.ResponseWriter = sw
	drop := false
	if !control {
		if f, ok := st.faults.Match(r.Method, r.URL.EscapedPath(), func() string { return a.requestWorkspace(rq) }); ok {
			if f.Latency > 0 {
				t := time.NewTimer(f.Latency)
				select {
				case <-t.C:
				case <-r.Context().Done():
					t.Stop()
					return
				}
			}
			if f.Status != 0 {
				e := newError(f.Status, "Injected fault.")
				e.retryAfter = f.RetryAfter
				if f.Status == http.StatusTooManyRequests {
					e.retryAfter = max(f.RetryAfter, 1)
				}
				rq.fail(sw, e)
				return
			}
			rq.providerFailure = f.ProviderFailure
			if f.Drop {
				drop = true
				out = &captureWriter{header: http.Header{}, sw: sw}
			}
		}
	}
	a.dispatch(out, rq)
	if drop {
		// The request was processed and committed; the client never hears of it.
		panic(http.ErrAbortHandler)
	}
}

// requestWorkspace is the id of the workspace a request acts for, as the fault rules of one
// workspace match it before the request is authenticated: its X-API-Key's (whatever the
// secret), else its dashboard token's; "" when it names none.
func (a *API) requestWorkspace(rq *request) string {
	if public := header(rq.r, hdrAPIKey); public != "" {
		if id, ok := rq.st.store.KeyWorkspace(public); ok {
			return id.String()
		}
		return ""
	}
	if rq.r.Header.Get("Authorization") == "" {
		return ""
	}
	if c, e := a.authenticateJWT(rq); e == nil {
		return c.Workspace.String()
	}
	return ""
}

func (a *API) dispatch(w http.ResponseWriter, rq *request) {
	// Routes match the path as sent: an escaped slash (%2F) inside a segment is part of that
	// segment, never a separator.
	pr, param := a.match(rq.r.URL.EscapedPath())
	if strings.IndexByte(param, '%') >= 0 {
		p, err := url.PathUnescape(param)
		if err != nil {
			pr = nil
		}
		param = p
	}
	if pr == nil {
		rq.fail(w, newError(http.StatusNotFound, "No route for "+rq.r.Method+" "+rq.r.URL.Path+"."))
		return
	}
	var rt *route
	for _, c := range pr.routes {
		if c.method == rq.r.Method {
			rt = c
		}
	}
	if rt == nil {
		w.Header().Set("Allow", pr.allow)
		rq.fail(w, newError(http.StatusMethodNotAllowed, "Method "+rq.r.Method+" is not allowed here."))
		return
	}
	rq.param = param
	if e := a.admit(w, rq, rt); e != nil {
		rq.fail(w, e)
		return
	}
	if !rt.unsettled {
		a.settle(rq.st.store, rq.now.UnixNano()) // what automatic delivery has due, before the route reads it
	}
	if rt.stream != nil {
		rt.stream(a, w, rq)
		return
	}
	if rt.idempotent {
		a.serveIdempotent(w, rq, rt)
		return
	}
	a.run(w, rq, rt)
}

// streamer is a handler's answer too large to build in memory: it writes itself, a JSON
// object with requestId as its last member.
type streamer interface {
	stream(w http.ResponseWriter, status int, requestID string)
}

// run calls the handler and writes its answer. For a request that leads a reference it
// returns what was written, to be replayed.
func (a *API) run(w http.ResponseWriter, rq *request, rt *route) (int, []byte) {
	status, v, err := rt.handle(a, rq)
	if err != nil {
		e := apiErrorOf(err)
		rq.fail(w, e)
		return e.status, nil
	}
	if rq.documented {
		status = documentedStatus(status)
		if b, ok := v.(bare); ok {
			writeBare(w, status, b.v)
			return status, nil
		}
	}
	if st, ok := v.(streamer); ok && !rt.idempotent {
		st.stream(w, status, rq.id)
		return status, nil
	}
	p := wire.Buffer()
	defer wire.Release(p)
	body, err := wire.Append((*p)[:0], v)
	*p = body
	if err != nil {
		e := newError(http.StatusInternalServerError, "Could not encode the response.")
		rq.fail(w, e)
		return e.status, nil
	}
	var replay []byte
	if rq.leads {
		replay = bytes.Clone(body) // before requestId is added to body in place
	}
	wire.WriteBuffer(w, status, rq.id, p)
	return status, replay
}

// Request headers the pipeline reads, as net/http keeps them (canonical): Header.Get would
// canonicalize "X-API-Key" again on each request, and allocate doing it.
const (
	hdrAPIKey      = "X-Api-Key"
	hdrAPISecret   = "X-Api-Secret"
	hdrContentType = "Content-Type"
)

// header is r.Header.Get(key) for a key already canonical.
func header(r *http.Request, key string) string {
	if vs := r.Header[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// admit runs the checks every route shares, in the documented order, and reads the body.
func (a *API) admit(w http.ResponseWriter, rq *request, rt *route) *apiError {
	r := rq.r
	switch rt.auth {
	case authKey:
		public, secret := header(r, hdrAPIKey), header(r, hdrAPISecret)
		if public == "" || secret == "" {
			return newError(http.StatusUnauthorized, "Missing X-API-Key or X-API-Secret header.")
		}
		c, err := rq.st.store.Authenticate(public, secret, rq.now.UnixNano())
		if err != nil {
			return apiErrorOf(err)
		}
		rq.caller = c
	case authJWT:
		c, e := a.authenticateJWT(rq)
		if e != nil {
			return e
		}
		rq.caller = c
	}
	if rt.scope != 0 && rq.caller.Scopes&rt.scope == 0 {
		name := rt.scope.Name()
		e := newError(http.StatusForbidden, "This API key lacks the "+name+" scope.")
		e.scope = name
		return e
	}
	if rq.caller.HasKey && a.cfg.RateLimit > 0 {
		if e := a.rateLimit(w, rq); e != nil {
			return e
		}
	}
	if rt.body {
		ct := header(r, hdrContentType)
		switch {
		case isJSON(ct):
		case rt.auth != authNone:
			return newError(http.StatusUnsupportedMediaType, "Content-Type must be application/json.")
		case ct != "" || r.ContentLength != 0:
			// A control with a body; only a bodiless POST (curl -X POST) may omit the type.
			return newError(http.StatusUnsupportedMediaType, "Content-Type must be application/json (a control request without a body may omit it).")
		}
		if r.ContentLength > rules.MaxBodyBytes {
			a.drainTooLarge(w, rq)
			return newError(http.StatusRequestEntityTooLarge, "Request body is larger than 1 MiB.")
		}
		b, e := a.readBody(w, rq)
		if e != nil {
			return e
		}
		if e := wire.CheckBody(b); e != nil {
			return apiErrorOf(e)
		}
		rq.body = b
	}
	return nil
}

// readBody reads the whole body, at most 1 MiB, within the read timeout: a client that stalls
// or drips its body gets a 400 and loses the connection instead of holding it.
func (a *API) readBody(w http.ResponseWriter, rq *request) ([]byte, *apiError) {
	var rc *http.ResponseController
	if a.cfg.ReadTimeout > 0 && rq.r.ContentLength != 0 {
		rc = http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(a.cfg.ReadTimeout)) // ErrNotSupported in-process
	}
	b, err := readAtMost(rq.r.Body, rq.r.ContentLength, rules.MaxBodyBytes+1)
	rq.bodyRead = true
	if err == nil && len(b) > rules.MaxBodyBytes {
		a.drainTooLarge(w, rq)
		return nil, newError(http.StatusRequestEntityTooLarge, "Request body is larger than 1 MiB.")
	}
	if err != nil && rc != nil {
		// Nothing more will be read: net/http must not wait for the rest of the body.
		_ = rc.SetReadDeadline(time.Now())
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, badRequest("", "The request body did not arrive within the read timeout (%s).", a.cfg.ReadTimeout)
	case err != nil:
		return nil, badRequest("", "Could not read the request body.")
	}
	// The deadline stays: net/http's read for the next request, which starts once the body
	// is read, would end the request's context at it, but no route that reads a body waits
	// (a fault's latency is served before the body is read; long polls and streams are GETs),
	// and net/http replaces it once the answer is written.
	return b, nil
}

// readAtMost reads r to its end or to max bytes, whichever comes first. With a declared
// length (n >= 0) within max, the buffer is sized once; otherwise it grows as io.ReadAll's.
func readAtMost(r io.Reader, n, max int64) ([]byte, error) {
	if n < 0 || n >= max {
		return io.ReadAll(io.LimitReader(r, max))
	}
	// One byte more than declared, so that reading to EOF needs no growth.
	b, lr := make([]byte, 0, n+1), io.LimitedReader{R: r, N: max}
	for {
		if len(b) == cap(b) { // the body is longer than declared
			b = append(b, 0)[:len(b)]
		}
		m, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// maxDrain is how much of a body over the limit the mock reads and discards before its 413,
// so that a client still writing gets the answer instead of a connection reset.
const maxDrain = 4 << 20

// drainTooLarge reads and discards what is left of a body over the limit, at most maxDrain
// bytes and within the read timeout, and marks the connection to be closed after the 413: a
// client that writes its whole body before reading then reads the 413, where closing at once
// would reset the connection under its writes.
func (a *API) drainTooLarge(w http.ResponseWriter, rq *request) {
	rq.bodyRead = true
	w.Header().Set("Connection", "close")
	rc := http.NewResponseController(w)
	if a.cfg.ReadTimeout > 0 {
		_ = rc.SetReadDeadline(time.Now().Add(a.cfg.ReadTimeout))
	}
	_, _ = io.CopyN(io.Discard, rq.r.Body, maxDrain)
	_ = rc.SetReadDeadline(time.Now()) // nothing more will be read
}

func isJSON(contentType string) bool {
	if contentType == "application/json" { // what clients send: no parameters to parse
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// captureWriter swallows a response that will never be sent (a dropped connection), keeping
// its status for the request log.
type captureWriter struct {
	header http.Header
	sw     *statusWriter
}

func (w *captureWriter) Header() http.Header { return w.header }

func (w *captureWriter) WriteHeader(code int) {
	if w.sw.status == 0 {
		w.sw.status = code
	}
}

func (w *captureWriter) Write(b []byte) (int, error) { return len(b), nil }

// Unwrap lets http.ResponseController reach the connection (read deadlines).
func (w *captureWriter) Unwrap() http.ResponseWriter { return w.sw }
