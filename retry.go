package sms

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	jitter "github.com/seedsms/sms-go/internal/backoff"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// retryPolicy says which failures of a call may be retried.
type retryPolicy uint8

const (
	// retryIdempotent is for calls that may run twice without harm: GETs, and sends when the
	// server deduplicates references. Connection errors, 429, 500, 502, 503 and 504 are
	// retried.
	retryIdempotent retryPolicy = iota
	// retryUnsent is for calls that must not run twice: they are retried only when the
	// request cannot have been processed (no byte of it was written; see unsent) or on a 429.
	retryUnsent
	// retrySend is the policy of every send that carries a reference (SMS.Send,
	// Campaigns.Create, bulk.Send's batches). The core resolves it, in one place (see
	// core.policy): retryIdempotent when the client was told that the server deduplicates
	// references (WithReferenceDeduplication), retryUnsent otherwise.
	retrySend
)

// newRetryClient builds the retrying HTTP client: the retry policy, the backoff and the error
// handler are all retryablehttp's hooks, configured here.
func newRetryClient(cfg *config, check retryablehttp.CheckRetry) *retryablehttp.Client {
	rc := retryablehttp.NewClient()
	rc.Logger = nil // it would log full URLs to stderr; the SDK logs through WithLogger
	rc.HTTPClient = httpClient(cfg.httpClient)
	rc.RetryMax = cfg.maxRetries
	rc.RetryWaitMin, rc.RetryWaitMax = cfg.waitMin, cfg.waitMax
	rc.CheckRetry = check
	rc.Backoff = backoff
	// Keep the last response, so that the final error is the API's, not "giving up".
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	rc.RequestLogHook = func(_ retryablehttp.Logger, r *http.Request, i int) {
		if cl := callFrom(r.Context()); cl != nil {
			cl.attempt, cl.start, cl.trace = i+1, time.Now(), nil
		}
	}
	return rc
}

// httpClient copies hc (or makes a pooled client) and makes the copy refuse redirects: a
// redirect would forward the credential headers to wherever it points. Its transport is
// wrapped to trace what each attempt wrote.
func httpClient(hc *http.Client) *http.Client {
	var out http.Client
	if hc != nil {
		out = *hc
	} else {
		out = http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: DefaultTimeout}
	}
	base := out.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = &tracingTransport{base: base}
	out.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &out
}

// attemptTrace is what net/http reported about one attempt through httptrace. The hooks may
// run after the attempt has returned (the request can still be written while the answer is
// read), hence the atomics.
type attemptTrace struct {
	traced  atomic.Bool // the transport reports through httptrace: it asked for a connection
	gotConn atomic.Bool // a connection was ready: dialled, TLS handshake done
	wrote   atomic.Bool // some of the request may have been written
}

// tracingTransport gives each attempt of a call that changes something an attemptTrace
// (about 0.6 KB and 9 allocations). GETs are not traced: whether they were sent changes
// neither their retries nor their errors.
type tracingTransport struct{ base http.RoundTripper }

func (t *tracingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	cl := callFrom(req.Context())
	if cl == nil || cl.method == http.MethodGet {
		return t.base.RoundTrip(req)
	}
	at := &attemptTrace{}
	cl.trace = at
	wrote := func() { at.wrote.Store(true) }
	ctx := httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GetConn:          func(string) { at.traced.Store(true) },
		GotConn:          func(httptrace.GotConnInfo) { at.gotConn.Store(true) },
		WroteHeaderField: func(string, []string) { wrote() },
		WroteHeaders:     wrote,
		Wait100Continue:  wrote,
		WroteRequest:     func(httptrace.WroteRequestInfo) { wrote() },
	})
	return t.base.RoundTrip(req.WithContext(ctx))
}

// CloseIdleConnections closes the idle connections of the wrapped transport, when it keeps
// any.
func (t *tracingTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// checkRetry is the client's CheckRetry: it records the attempt's outcome in the call (reading
// the body, so that the last error body is kept), logs it, and applies the call's policy.
func (c *core) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	cl := callFrom(ctx)
	if cl == nil {
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	cl.record(resp, err)
	traceAttempt(ctx, cl)
	retry := ctx.Err() == nil && cl.retryable(ctx, c.http.RetryWaitMax)
	c.logAttempt(ctx, cl, retry)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return retry, nil
}

// utf8BOM is the byte order mark that may start a UTF-8 body.
var utf8BOM = []byte("\ufeff")

// record keeps the outcome of one attempt: status, headers and body, or the error.
func (cl *call) record(resp *http.Response, err error) {
	cl.status, cl.header, cl.data, cl.err, cl.lastMaybe = 0, nil, nil, err, false
	defer func() { cl.maybeDone = cl.maybeDone || cl.lastMaybe }()
	if err != nil || resp == nil {
		if err == nil {
			cl.err = errors.New("no response")
		}
		if !unsent(cl.err, cl.trace) {
			cl.lastMaybe = true
		}
		return
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	if cl.method != http.MethodGet && ambiguousStatus(resp.StatusCode) {
		cl.lastMaybe = true
	}
	limit := int64(maxErrorBody)
	if ok {
		limit = maxBody
	}
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	data = bytes.TrimPrefix(data, utf8BOM) // some servers start JSON with one; JSON forbids it
	_ = resp.Body.Close()
	resp.Body = http.NoBody
	cl.status, cl.header = resp.StatusCode, resp.Header
	switch {
	case !ok: // an error is typed by its status even when its body is cut short
		cl.data = data[:min(int64(len(data)), limit)]
	case rerr != nil: // what was read is kept for the error's snippet
		cl.data, cl.err, cl.lastMaybe = data, fmt.Errorf("reading the %d response: %w", resp.StatusCode, rerr), true
	case int64(len(data)) > limit:
		cl.err, cl.lastMaybe = fmt.Errorf("the %d response is larger than %d bytes", resp.StatusCode, limit), true
	default:
		cl.data = data
	}
}

// retryable applies the call's policy to the latest attempt; maxWait is the longest wait
// between attempts.
func (cl *call) retryable(ctx context.Context, maxWait time.Duration) bool {
	if cl.err != nil {
		// DefaultRetryPolicy refuses errors that a retry cannot fix (bad TLS certificate,
		// redirect loops, invalid headers).
		fixable, _ := retryablehttp.DefaultRetryPolicy(ctx, nil, cl.err)
		return fixable && (cl.policy == retryIdempotent || unsent(cl.err, cl.trace))
	}
	var retry bool
	switch cl.status {
	case http.StatusTooManyRequests:
		retry = true // refused before processing, whatever the call
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		retry = cl.policy == retryIdempotent
	}
	// A server that asks for a longer wait than the client's maximum would refuse an earlier
	// retry too: the caller gets the error, and its RetryAfter, at once.
	if d, ok := retryAfter(cl.header, time.Now()); ok && retry && d > maxWait {
		return false
	}
	return retry
}

// ambiguousStatus reports whether an answer of this status leaves it open whether a request
// that changes something took effect: every 5xx (the server, or a gateway in front of it, may
// have failed after doing part of the work) except 501 and 505, which refuse the request as
// such.
func ambiguousStatus(status int) bool {
	return status >= 500 && status <= 599 && status != http.StatusNotImplemented && status != http.StatusHTTPVersionNotSupported
}

// unsent reports whether the failed attempt certainly wrote no byte of its request, so that
// the server cannot have processed it. When the transport reports through httptrace (as
// net/http's does), the attempt is unsent only if nothing was written and either no
// connection was ready or the error is one of connection set-up. Otherwise only an error of
// connection set-up proves it: a failed dial or DNS lookup, or a certificate refused during
// the TLS handshake. A malformed TLS record proves nothing: it may come after the request was
// written.
func unsent(err error, at *attemptTrace) bool {
	if at != nil && at.traced.Load() {
		if at.wrote.Load() {
			return false
		}
		if !at.gotConn.Load() {
			return true // the connection was never ready: nothing could be written
		}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var (
		dns      *net.DNSError
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		badCert  x509.CertificateInvalidError
	)
	return errors.As(err, &dns) || errors.As(err, &verify) ||
		errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &badCert)
}

// backoff is the client's Backoff: the server's Retry-After when there is one, capped at hi
// (a longer one is not retried: see retryable);
// otherwise a wait drawn uniformly between lo and a ceiling that doubles with each attempt,
// from lo up to hi.
func backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := retryAfter(resp.Header, time.Now()); ok {
			return clamp(d, 0, hi)
		}
	}
	return jitter.Jitter(lo, hi, attempt)
}

func clamp(d, lo, hi time.Duration) time.Duration { return max(lo, min(d, hi)) }

// maxRetryAfter bounds a Retry-After in seconds before it becomes a Duration.
const maxRetryAfter = 1 << 31

// retryAfter reads the wait an answer asks for: its Retry-After header, a number of seconds
// or an HTTP date; else, when the answer states no remaining quota or a remaining quota of 0,
// the end of its rate-limit window (see rateLimitReset): X-RateLimit-Reset, RateLimit-Reset,
// or the IETF RateLimit field's reset (t or reset). A server that says only when its window
// ends says when a retry can succeed: never a wait of 0.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := header(h, "Retry-After")
	if v == "" {
		if left, ok := rateLimitRemaining(h); ok && left > 0 {
			return 0, false // the quota is not spent: its window says nothing of this answer
		}
		if at, ok := rateLimitReset(h, now); ok {
			return min(max(at.Sub(now), 0), maxRetryAfter*time.Second), true
		}
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		return time.Duration(min(n, maxRetryAfter)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Unix times from which a reset is read as a time rather than a number of seconds from now,
// and in milliseconds rather than seconds: 10^8 seconds is more than 3 years (no window is
// that long) and 1973 as a time; 10^11 seconds is past the year 5000, and 1973 in
// milliseconds (as epochMillis reads a timestamp).
const (
	resetEpoch       = 1e8
	resetEpochMillis = epochMillis
)

// rateLimitReset returns when the rate-limit window of an answer ends, read from its
// headers: X-RateLimit-Reset (GitHub's and the mock's), RateLimit-Reset (the IETF draft's
// separate fields), or the reset of the IETF RateLimit field (reset=, or t= of the later
// drafts). The value is a number of seconds from now, or a Unix time in seconds or
// milliseconds (see resetEpoch): whichever it is, never read as 1970 nor as a year past 50,000.
// ok is false when no header states it as a number of 0 or more.
func rateLimitReset(h http.Header, now time.Time) (time.Time, bool) {
	v := cmp.Or(header(h, "X-Ratelimit-Reset"), header(h, "Ratelimit-Reset"))
	if v == "" {
		v = rateLimitParam(header(h, "Ratelimit"), "reset", "t")
	}
	if v == "" {
		return time.Time{}, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return time.Time{}, false
	}
	switch {
	case f >= resetEpochMillis:
		if f > 1e14 { // past the year 5000 even in milliseconds: no time
			return time.Time{}, false
		}
		return time.UnixMilli(int64(f)).UTC(), true
	case f >= resetEpoch:
		return time.Unix(int64(f), 0).UTC(), true
	}
	return now.Add(time.Duration(f * float64(time.Second))).UTC(), true
}

// rateLimitRemaining returns the requests left in the window, as X-RateLimit-Remaining,
// RateLimit-Remaining or the IETF RateLimit field (remaining=, or r=) states it.
func rateLimitRemaining(h http.Header) (int, bool) {
	v := cmp.Or(header(h, "X-Ratelimit-Remaining"), header(h, "Ratelimit-Remaining"))
	if v == "" {
		v = rateLimitParam(header(h, "Ratelimit"), "remaining", "r")
	}
	if v == "" { // the common case, without strconv's error (an allocation)
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 0
}

// rateLimitLimit returns the requests allowed in the window, as X-RateLimit-Limit,
// RateLimit-Limit, the IETF RateLimit field (limit=) or RateLimit-Policy (q=) states it.
func rateLimitLimit(h http.Header) (int, bool) {
	v := cmp.Or(header(h, "X-Ratelimit-Limit"), header(h, "Ratelimit-Limit"))
	if v == "" {
		v = rateLimitParam(header(h, "Ratelimit"), "limit", "")
	}
	if v == "" {
		v = rateLimitParam(header(h, "Ratelimit-Policy"), "q", "")
	}
	if i := strings.IndexAny(v, ",;"); i >= 0 { // RateLimit-Limit: 100, 100;w=60 (a policy after it)
		v = strings.TrimSpace(v[:i])
	}
	if v == "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 0
}

// rateLimitParam returns the value of the parameter named name (or alt, when not empty) in
// an IETF RateLimit field: `limit=100, remaining=0, reset=30` (the early drafts) or
// `"default";r=0;t=30` (the later ones); "" when absent.
func rateLimitParam(field, name, alt string) string {
	for field != "" {
		var p string
		if i := strings.IndexAny(field, ",;"); i >= 0 {
			p, field = field[:i], field[i+1:]
		} else {
			p, field = field, ""
		}
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && (strings.EqualFold(k, name) || alt != "" && strings.EqualFold(k, alt)) {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// logAttempt writes one debug line about an attempt. It never logs headers or bodies.
func (c *core) logAttempt(ctx context.Context, cl *call, retry bool) {
	if c.logger == nil || !c.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := make([]slog.Attr, 0, 8+len(cl.attrs))
	attrs = append(attrs, slog.String("method", cl.method), slog.String("path", cl.path), slog.Int("attempt", cl.attempt))
	r := cl.redactor() // the server's text: its request ID, and what a transport error quotes of it
	if cl.status != 0 {
		attrs = append(attrs, slog.Int("status", cl.status), slog.String("requestId", r.Secrets(cl.header.Get("X-Request-Id"))))
	}
	attrs = append(attrs, slog.Duration("duration", time.Since(cl.start)))
	if cl.err != nil {
		attrs = append(attrs, slog.String("error", r.Text(cl.err.Error())))
	}
	attrs = append(attrs, slog.Bool("retry", retry))
	attrs = append(attrs, cl.attrs...)
	c.logger.LogAttrs(ctx, slog.LevelDebug, "sms: request", attrs...)
}
