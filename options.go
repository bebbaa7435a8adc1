package sms

import (
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// Defaults of a new client.
const (
	DefaultMaxRetries   = 3
	defaultRetryWaitMin = time.Second
	defaultRetryWaitMax = 30 * time.Second
	// DefaultTimeout bounds one attempt of a request when WithHTTPClient is not used.
	DefaultTimeout = 30 * time.Second
)

// BaseURLEnv is the environment variable read for the base URL when WithBaseURL is not given.
const BaseURLEnv = "SMS_BASE_URL"

// Option configures a Client or a DashboardClient.
type Option func(*config)

type config struct {
	baseURL    string
	httpClient *http.Client
	maxRetries int
	waitMin    time.Duration
	waitMax    time.Duration
	logger     *slog.Logger
	userAgent  string
	insecure   bool
	dedup      bool
	zone       *time.Location
	errs       []error
}

func newConfig(opts []Option) (*config, error) {
	cfg := &config{maxRetries: DefaultMaxRetries, waitMin: defaultRetryWaitMin, waitMax: defaultRetryWaitMax}
	for _, o := range opts {
		if o != nil {
			o(cfg)
		}
	}
	return cfg, errors.Join(cfg.errs...)
}

// WithBaseURL sets the API's base URL, such as "https://api.example.com". A path prefix is
// kept: with "https://host/sms", requests go to "https://host/sms/v1/...". It is required
// unless the environment variable SMS_BASE_URL is set. Plain http:// is refused for hosts
// other than loopback (127.0.0.0/8, ::1, localhost) unless WithInsecureHTTP is given.
func WithBaseURL(baseURL string) Option { return func(c *config) { c.baseURL = baseURL } }

// WithHTTPClient sets the *http.Client requests are sent with (nil: a pooled client with a
// 30-second timeout per attempt). The client is copied, and the copy never follows redirects,
// so that credentials are never sent to another host.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithMaxRetries sets how many times a failed request may be retried after the first attempt
// (default 3). 0 turns retries off.
func WithMaxRetries(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.errs = append(c.errs, errors.New("sms: WithMaxRetries: the number of retries cannot be negative"))
			return
		}
		c.maxRetries = n
	}
}

// WithRetryWait sets the bounds of the wait between attempts (default 1s and 30s). Waits grow
// exponentially from min, with jitter, up to max. A Retry-After from the server is honoured
// when it is at most max; a longer one (a locked OTP pin, a per-number limit) ends the call at
// once with the error, whose RetryAfter says how long to wait. When the context ends during a
// wait, the error matches both the context's error and the error that caused the retry.
func WithRetryWait(min, max time.Duration) Option {
	return func(c *config) {
		if min < 0 || max < min {
			c.errs = append(c.errs, errors.New("sms: WithRetryWait: want 0 <= min <= max"))
			return
		}
		c.waitMin, c.waitMax = min, max
	}
}

// WithLogger sets a logger for one debug line per attempt: method, path, status, request ID,
// duration and whether it will be retried. Credentials, pins and message bodies are never
// logged, and phone numbers are masked. Nil, the default, logs nothing.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithUserAgent sets the User-Agent header (default "sms-go/" + Version()).
func WithUserAgent(ua string) Option { return func(c *config) { c.userAgent = ua } }

// DefaultTimeZone is the zone of a time an answer writes without one ("2025-05-12 10:20:27")
// when the answer states no "timezone": West Africa Time, UTC+1 all year, Lagos's. The
// service is in Lagos and its provider's pages show such times, zone-less, from a Lagos
// company; neither says which zone they are in. WithTimeZone changes it.
var DefaultTimeZone = time.FixedZone("WAT", 60*60)

// WithTimeZone sets the zone of the times an answer writes without a zone when the answer
// does not state one in a "timezone" member (default DefaultTimeZone, UTC+1): time.UTC for a
// server that writes UTC. A nil loc is an error.
func WithTimeZone(loc *time.Location) Option {
	return func(c *config) {
		if loc == nil {
			c.errs = append(c.errs, errors.New("sms: WithTimeZone: the location is nil"))
			return
		}
		c.zone = loc
	}
}

// WithInsecureHTTP allows a plain http:// base URL to a host that is not loopback. Credentials
// then cross the network in clear text: use it only on networks you control.
func WithInsecureHTTP() Option { return func(c *config) { c.insecure = true } }

// WithReferenceDeduplication declares that the server deduplicates the Reference of a send:
// that a send repeated with the same reference and the same parameters within 24 hours is
// answered from the first one, without sending or charging again (Idempotent-Replayed: true),
// as this module's mock server does.
//
// The service's own pages call reference "your idempotency or business reference" but never
// show deduplication, so the SDK does not assume it: money and messages are at stake, and a
// retry on an unconfirmed assumption could send and charge twice. By default SMS.Send,
// Campaigns.Create and the batches of bulk.Send are retried only when the request cannot have
// been processed (no byte of it was written, or a 429), like OTPService's calls; after an
// ambiguous failure (a connection dropped after sending, a timeout, a 5xx) they return an
// error matching ErrOutcomeUnknown that names the Reference, to be repeated only once you
// know the server deduplicates it.
//
// With this option, those sends are also retried after ambiguous failures (connection
// errors, 500, 502, 503, 504), every attempt carrying the same Reference. Give it only for a
// server known to deduplicate references, such as the mock server or a service whose
// provider confirmed it.
func WithReferenceDeduplication() Option { return func(c *config) { c.dedup = true } }
