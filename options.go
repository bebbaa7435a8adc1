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
	DefaultRetryWaitMin = time.Second
	DefaultRetryWaitMax = 30 * time.Second
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
	errs       []error
}

func newConfig(opts []Option) (*config, error) {
	cfg := &config{maxRetries: DefaultMaxRetries, waitMin: DefaultRetryWaitMin, waitMax: DefaultRetryWaitMax}
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

// WithUserAgent sets the User-Agent header (default "sms-go/" + Version).
func WithUserAgent(ua string) Option { return func(c *config) { c.userAgent = ua } }

// WithInsecureHTTP allows a plain http:// base URL to a host that is not loopback. Credentials
// then cross the network in clear text: use it only on networks you control.
func WithInsecureHTTP() Option { return func(c *config) { c.insecure = true } }
