package sms

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// retryPolicy says which failures of a call may be retried.
type retryPolicy uint8

const (
	// retryIdempotent is for calls that may run twice without harm: GETs, and sends that
	// carry a reference the server deduplicates. Connection errors, 429, 500, 502, 503 and
	// 504 are retried.
	retryIdempotent retryPolicy = iota
	// retryUnsent is for calls that must not run twice: they are retried only when the
	// request cannot have been processed (the connection could not be made) or on a 429.
	retryUnsent
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
			cl.attempt, cl.start = i+1, time.Now()
		}
	}
	return rc
}

// httpClient copies hc (or makes a pooled client) and makes the copy refuse redirects: a
// redirect would forward the credential headers to wherever it points.
func httpClient(hc *http.Client) *http.Client {
	var out http.Client
	if hc != nil {
		out = *hc
	} else {
		out = http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: DefaultTimeout}
	}
	out.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &out
}

// checkRetry is the client's CheckRetry: it records the attempt's outcome in the call (reading
// the body, so that the last error body is kept), logs it, and applies the call's policy.
func (c *core) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	cl := callFrom(ctx)
	if cl == nil {
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	cl.record(resp, err)
	if cl.observe != nil {
		cl.observe(cl)
	}
	retry := ctx.Err() == nil && cl.retryable(ctx)
	c.logAttempt(ctx, cl, retry)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return retry, nil
}

// record keeps the outcome of one attempt: status, headers and body, or the error.
func (cl *call) record(resp *http.Response, err error) {
	cl.status, cl.header, cl.data, cl.err = 0, nil, nil, err
	if err != nil || resp == nil {
		if err == nil {
			cl.err = errors.New("no response")
		}
		if !unsent(cl.err) {
			cl.maybeDone = true
		}
		return
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	limit := int64(maxErrorBody)
	if ok {
		limit = maxBody
	}
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	_ = resp.Body.Close()
	resp.Body = http.NoBody
	cl.status, cl.header = resp.StatusCode, resp.Header
	switch {
	case !ok: // an error is typed by its status even when its body is cut short
		cl.data = data[:min(int64(len(data)), limit)]
	case rerr != nil:
		cl.err, cl.maybeDone = fmt.Errorf("reading the %d response: %w", resp.StatusCode, rerr), true
	case int64(len(data)) > limit:
		cl.err, cl.maybeDone = fmt.Errorf("the %d response is larger than %d bytes", resp.StatusCode, limit), true
	default:
		cl.data = data
	}
}

// retryable applies the call's policy to the latest attempt.
func (cl *call) retryable(ctx context.Context) bool {
	if cl.err != nil {
		// DefaultRetryPolicy refuses errors that a retry cannot fix (bad TLS certificate,
		// redirect loops, invalid headers).
		fixable, _ := retryablehttp.DefaultRetryPolicy(ctx, nil, cl.err)
		return fixable && (cl.policy == retryIdempotent || unsent(cl.err))
	}
	switch cl.status {
	case http.StatusTooManyRequests:
		return true // refused before processing, whatever the call
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return cl.policy == retryIdempotent
	}
	return false
}

// unsent reports whether err proves that the request never reached the server: the connection
// could not be made, or its TLS handshake failed.
func unsent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var (
		dns      *net.DNSError
		verify   *tls.CertificateVerificationError
		record   tls.RecordHeaderError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		badCert  x509.CertificateInvalidError
	)
	return errors.As(err, &dns) || errors.As(err, &verify) || errors.As(err, &record) ||
		errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &badCert)
}

// backoff is the client's Backoff: the server's Retry-After when there is one, capped at hi;
// otherwise a wait drawn uniformly between lo and a ceiling that doubles with each attempt,
// from lo up to hi.
func backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := retryAfter(resp.Header, time.Now()); ok {
			return clamp(d, 0, hi)
		}
	}
	ceil := lo
	for i := 0; i < attempt && ceil > 0 && ceil < hi; i++ {
		ceil *= 2
	}
	ceil = clamp(ceil, lo, hi)
	if ceil <= lo {
		return lo
	}
	return lo + rand.N(ceil-lo+1)
}

func clamp(d, lo, hi time.Duration) time.Duration { return max(lo, min(d, hi)) }

// maxRetryAfter bounds a Retry-After in seconds before it becomes a Duration.
const maxRetryAfter = 1 << 31

// retryAfter reads a Retry-After header: a number of seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
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

// logAttempt writes one debug line about an attempt. It never logs headers or bodies.
func (c *core) logAttempt(ctx context.Context, cl *call, retry bool) {
	if c.logger == nil || !c.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := make([]slog.Attr, 0, 8+len(cl.attrs))
	attrs = append(attrs, slog.String("method", cl.method), slog.String("path", cl.path), slog.Int("attempt", cl.attempt))
	if cl.status != 0 {
		attrs = append(attrs, slog.Int("status", cl.status), slog.String("requestId", cl.header.Get("X-Request-Id")))
	}
	attrs = append(attrs, slog.Duration("duration", time.Since(cl.start)))
	if cl.err != nil {
		attrs = append(attrs, slog.String("error", cl.err.Error()))
	}
	attrs = append(attrs, slog.Bool("retry", retry))
	attrs = append(attrs, cl.attrs...)
	c.logger.LogAttrs(ctx, slog.LevelDebug, "sms: request", attrs...)
}
