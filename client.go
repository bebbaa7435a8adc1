package sms

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-querystring/query"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/seedsms/sms-go/internal/safetext"
)

// version is the SDK's release, without its "v".
const version = "0.1.0"

// Version returns the SDK's version, without its "v" ("0.1.0"), as the default User-Agent
// sends it ("sms-go/0.1.0"). It changes with every release; the function does not.
func Version() string { return version }

// Client calls the developer endpoints with an API key pair. Its fields group the endpoints by
// resource, one method per endpoint, each making one request (the iterators, All and
// AllRecipients, one per page); package bulk holds the jobs that make many over it. Create
// it with NewClient; it is safe for concurrent use, so create one and reuse it.
type Client struct {
	SMS       *SMSService       // POST /v1/sms/send
	Campaigns *CampaignsService // /v1/sms/campaigns
	OTP       *OTPService       // /v1/otp
	Balance   *BalanceService   // /v1/balance
	SenderIDs *SenderIDsService // /v1/sender-ids

	c *core
}

// NewClient returns a Client that authenticates with apiKey (pk_live_... or pk_test_...) and
// the matching apiSecret (sk_live_... or sk_test_...). A live key uses the live wallet and
// data, a test key the test wallet and data. Malformed credentials, a missing base URL (see
// WithBaseURL) and invalid options are reported here, before any request.
func NewClient(apiKey, apiSecret string, opts ...Option) (*Client, error) {
	mode, err := checkKeyPair(apiKey, apiSecret)
	if err != nil {
		return nil, err
	}
	c, err := newCore(opts, mode, func(h http.Header) {
		h.Set("X-API-Key", apiKey)
		h.Set("X-API-Secret", apiSecret)
	})
	if err != nil {
		return nil, err
	}
	c.key = keyFingerprint(apiKey)
	return &Client{
		SMS:       &SMSService{c: c},
		Campaigns: &CampaignsService{c: c},
		OTP:       &OTPService{c: c},
		Balance:   &BalanceService{c: c},
		SenderIDs: &SenderIDsService{c: c},
		c:         c,
	}, nil
}

// CloseIdleConnections closes the connections that the client keeps open, idle, for later
// requests, and so ends their goroutines. Call it when done with a client, such as one made
// for a single task; the client stays usable and opens connections again as needed. With
// WithHTTPClient, it closes the idle connections of that client's transport.
func (c *Client) CloseIdleConnections() {
	if c != nil {
		c.c.closeIdleConnections()
	}
}

// String describes the client without its credentials.
func (c Client) String() string { return c.c.describe("Client") }

// Format prints the client without its credentials, whatever the verb.
func (c Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// LogValue logs the client without its credentials, whatever the slog handler.
func (c Client) LogValue() slog.Value { return slog.StringValue(c.String()) }

// DashboardClient manages API keys with a dashboard user's JWT. Create it with
// NewDashboardClient; it is safe for concurrent use.
type DashboardClient struct {
	Keys *KeysService // /v1/keys

	c *core
}

// NewDashboardClient returns a DashboardClient that authenticates with jwt, a dashboard user's
// token (three dot-separated parts), sent as "Authorization: Bearer <jwt>". A malformed token,
// a missing base URL and invalid options are reported here, before any request.
func NewDashboardClient(jwt string, opts ...Option) (*DashboardClient, error) {
	if err := checkJWT(jwt); err != nil {
		return nil, err
	}
	c, err := newCore(opts, "", func(h http.Header) {
		h.Set("Authorization", "Bearer "+jwt)
	})
	if err != nil {
		return nil, err
	}
	return &DashboardClient{Keys: &KeysService{c: c}, c: c}, nil
}

// CloseIdleConnections closes the connections that the client keeps open, idle, for later
// requests, and so ends their goroutines. Call it when done with a client; the client stays
// usable and opens connections again as needed. With WithHTTPClient, it closes the idle
// connections of that client's transport.
func (c *DashboardClient) CloseIdleConnections() {
	if c != nil {
		c.c.closeIdleConnections()
	}
}

// String describes the client without its token.
func (c DashboardClient) String() string { return c.c.describe("DashboardClient") }

// Format prints the client without its token, whatever the verb.
func (c DashboardClient) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// LogValue logs the client without its token, whatever the slog handler.
func (c DashboardClient) LogValue() slog.Value { return slog.StringValue(c.String()) }

// checkKeyPair checks the shape of a key pair and returns its mode, "live" or "test". Errors
// never repeat the credentials.
//
// The service's pages show keys only as "pk_live_xxxxxxxxx" and never state the alphabet of
// what follows the prefix. What is checked is an assumption of this project: the key starts
// with pk_live_ or pk_test_, the secret with sk_ and the same mode (sk_live_ with pk_live_),
// and after the prefix each is one or more printable characters, none of them a space, a
// control character or other invisible text (a key pasted with a newline or a tab), which
// cannot be sent in a header as it was meant. Any other character is accepted ("_", "-", "=",
// ...).
func checkKeyPair(key, secret string) (string, error) {
	var mode string
	switch {
	case key == "":
		return "", errors.New("sms: the API key is empty")
	case strings.HasPrefix(key, "pk_live_"):
		mode = "live"
	case strings.HasPrefix(key, "pk_test_"):
		mode = "test"
	default:
		return "", errors.New("sms: the API key must start with pk_live_ or pk_test_")
	}
	if why := credentialText(key[len("pk_live_"):]); why != "" {
		return "", errors.New("sms: the API key must be pk_" + mode + "_ followed by " + why)
	}
	prefix := "sk_" + mode + "_"
	switch {
	case secret == "":
		return "", errors.New("sms: the API secret is empty")
	case !strings.HasPrefix(secret, prefix):
		return "", errors.New("sms: the API secret must start with " + prefix + " to match the pk_" + mode + "_ key")
	}
	if why := credentialText(secret[len(prefix):]); why != "" {
		return "", errors.New("sms: the API secret must be " + prefix + " followed by " + why)
	}
	return mode, nil
}

// credentialText returns what is wrong with s, the part of a credential after its prefix,
// as the end of a sentence, or "" when it is one or more printable characters without
// spaces: see checkKeyPair.
func credentialText(s string) string {
	if s == "" {
		return "at least one character"
	}
	if !utf8.ValidString(s) {
		return "valid UTF-8 text"
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return "printable characters without spaces or control characters (trim what was pasted)"
		}
	}
	return ""
}

// checkJWT checks that jwt is three non-empty dot-separated base64url parts.
func checkJWT(jwt string) error {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return errors.New("sms: the dashboard token must be a JWT: three dot-separated parts")
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return errors.New("sms: the dashboard token must be a JWT: three dot-separated base64url parts")
		}
	}
	return nil
}

// core is what both clients share: the base URL, the HTTP client with the retry policy, and
// the one request path, do.
type core struct {
	mode      string // "live", "test" or "" (dashboard)
	base      string // scheme://host/prefix, without a trailing slash
	http      *retryablehttp.Client
	userAgent string
	logger    *slog.Logger
	auth      func(http.Header)
	dedup     bool           // the server deduplicates references: see WithReferenceDeduplication
	zone      *time.Location // of the times an answer writes without a zone: see WithTimeZone
	key       string         // the API key's fingerprint (keyFingerprint); "" for a dashboard client
}

func newCore(opts []Option, mode string, auth func(http.Header)) (*core, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	raw := cfg.baseURL
	if raw == "" {
		raw = os.Getenv(BaseURLEnv)
	}
	base, err := parseBaseURL(raw, cfg.insecure)
	if err != nil {
		return nil, err
	}
	c := &core{mode: mode, base: base, userAgent: cfg.userAgent, logger: cfg.logger, auth: auth, dedup: cfg.dedup, zone: cmp.Or(cfg.zone, DefaultTimeZone)}
	if c.userAgent == "" {
		c.userAgent = "sms-go/" + version
	}
	c.http = newRetryClient(cfg, c.checkRetry)
	return c, nil
}

// closeIdleConnections closes the idle connections of the HTTP client's transport.
func (c *core) closeIdleConnections() {
	if c != nil {
		c.http.HTTPClient.CloseIdleConnections()
	}
}

// describe names a client of kind without its credentials.
func (c *core) describe(kind string) string {
	switch {
	case c == nil:
		return "sms." + kind + "{}"
	case c.mode == "":
		return fmt.Sprintf("sms.%s{BaseURL: %q}", kind, c.base)
	}
	return fmt.Sprintf("sms.%s{BaseURL: %q, Mode: %q}", kind, c.base, c.mode)
}

// parseBaseURL checks the base URL and returns it without a trailing slash. Error messages do
// not repeat the URL, which might hold credentials.
func parseBaseURL(raw string, insecure bool) (string, error) {
	if raw == "" {
		return "", errors.New("sms: no base URL: use WithBaseURL or set " + BaseURLEnv)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", errors.New("sms: the base URL must be an absolute http:// or https:// URL")
	}
	if u.User != nil {
		return "", errors.New("sms: the base URL must not hold credentials; they are sent in headers")
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", errors.New("sms: the base URL must not have a query or fragment")
	}
	if u.Scheme == "http" && !insecure && !isLoopback(u.Hostname()) {
		return "", errors.New("sms: refusing plain http:// to a host that is not loopback, as credentials would cross the network in clear text: use https:// or WithInsecureHTTP")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// call is one API call: what to send and how to retry it, then what the latest attempt gave.
type call struct {
	method string
	path   string // escaped, starting with /v1
	query  any    // a struct with url tags, or nil
	raw    string // the query as written in a next page's URL (see core.page), used when query is nil
	body   any    // marshalled to JSON once, or nil
	policy retryPolicy
	zone   *time.Location // of the times its answer writes without a zone (core.zone)
	ref    string         // the reference a send carries, named in an ErrOutcomeUnknown error
	dedup  bool           // the server deduplicates references: see WithReferenceDeduplication
	attrs  []slog.Attr    // extra debug-log attributes; never secrets, phone numbers masked
	// What was sent that the server's text must not repeat (see redactor): the request's
	// headers (its credentials) and body.
	sentHeader http.Header
	sentBody   []byte

	// Filled in while the call runs, by the retry policy.
	attempt   int           // 1-based number of the latest attempt
	start     time.Time     // when the latest attempt started
	status    int           // status of the latest response, 0 when none
	header    http.Header   // its headers
	data      []byte        // its body
	err       error         // transport or read error of the latest attempt
	trace     *attemptTrace // what the transport reported about the latest attempt
	maybeDone bool          // some attempt may have been processed without our knowing
	lastMaybe bool          // the latest attempt may have been processed without our knowing
}

func (cl *call) op() string { return cl.method + " " + cl.path }

// apiError is the typed error of the latest response. A *ScopeError whose body named no scope
// names the scope the endpoint needs: the live pages document the 403 but not its members.
func (cl *call) apiError() error {
	err := cl.redactError(apiError(cl.status, cl.header, cl.data))
	if se, ok := err.(*ScopeError); ok && se.Scope == "" {
		se.Scope = scopeOf(cl.path)
	}
	return err
}

type callKey struct{}

func callFrom(ctx context.Context) *call {
	cl, _ := ctx.Value(callKey{}).(*call)
	return cl
}

// maxBody is how much of a successful response is read; API pages are far smaller.
const maxBody = 16 << 20

// do is the one request path: it builds the URL and the body, sets the headers, sends with the
// retry policy, and decodes the JSON answer into out (when not nil) or returns the typed error.
func (c *core) do(ctx context.Context, cl *call, out any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sms: %s: %w", cl.op(), err)
	}
	cl.policy, cl.dedup, cl.zone = c.policy(cl.policy), c.dedup, c.zone
	target := c.base + cl.path
	if cl.query != nil {
		v, err := query.Values(cl.query)
		if err != nil {
			return fmt.Errorf("sms: %s: encoding the query: %w", cl.op(), err)
		}
		if q := v.Encode(); q != "" {
			target += "?" + q
		}
	} else if cl.raw != "" {
		target += "?" + cl.raw
	}
	var body any // nil or []byte, which retryablehttp replays on every attempt
	if cl.body != nil {
		b, err := json.Marshal(cl.body)
		if err != nil {
			return fmt.Errorf("sms: %s: encoding the body: %w", cl.op(), err)
		}
		body = b
	}
	req, err := retryablehttp.NewRequestWithContext(context.WithValue(ctx, callKey{}, cl), cl.method, target, body)
	if err != nil {
		return fmt.Errorf("sms: %s: %w", cl.op(), err)
	}
	c.auth(req.Header)
	cl.sentHeader = req.Header
	cl.sentBody, _ = body.([]byte)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if resp != nil {
		_ = resp.Body.Close() // already read by the retry policy
	}
	return cl.result(ctx, err, out)
}

// policy resolves retrySend, the one place where the reference-deduplication assumption
// decides how sends are retried; other policies are returned as they are.
func (c *core) policy(p retryPolicy) retryPolicy {
	if p != retrySend {
		return p
	}
	if c.dedup {
		return retryIdempotent
	}
	return retryUnsent
}

// repeatHint says how a send that ended with an unknown outcome may be repeated, when the
// server deduplicates references (dedup) or is not known to.
func repeatHint(dedup bool, ref string) string {
	if dedup {
		return "repeat it with the same Reference " + strconv.Quote(ref) + " within 24 hours of this attempt: the server deduplicates references, so it is not sent or charged twice"
	}
	return "it was not retried, as the server is not known to deduplicate references: repeat it with the same Reference " + strconv.Quote(ref) +
		" only if it does (see WithReferenceDeduplication); otherwise check the campaigns first, or risk sending and charging twice"
}

// result turns the latest attempt into the call's answer. A 2xx answer read whole is
// decoded even when the context ended meanwhile: the call reports what it knows. A call that
// changes something and got a 2xx or a 3xx that cannot be read (or whose reading the context
// cut short) returns an *OutcomeError (see unbuildable).
func (cl *call) result(ctx context.Context, doErr error, out any) error {
	var err error // unprefixed: a transport or context error, or the *Error of a response
	switch {
	case cl.attempt == 0: // nothing was sent
		if doErr == nil {
			doErr = errors.New("no request was sent")
		}
		return fmt.Errorf("sms: %s: %w", cl.op(), doErr)
	case cl.status >= 200 && cl.status <= 299 && cl.err == nil: // read whole
		if out == nil {
			if bodyFailed(cl.data) {
				return cl.failedBody()
			}
			return nil
		}
		err := json.Unmarshal(cl.data, out)
		var failed bool
		if e, ok := out.(enveloped); ok && err == nil {
			failed = e.env().failed() // read in the same pass as the data
		} else {
			failed = bodyFailed(cl.data)
		}
		switch {
		case failed:
			return cl.failedBody()
		case err != nil:
			return cl.unbuildable(cl.decodeError(err))
		}
		return nil
	case cl.accepted() && cl.method != http.MethodGet: // a 2xx cut short, or a 3xx
		if cl.err != nil {
			return cl.outcome(ctx.Err(), cl.err)
		}
		return cl.outcome(ctx.Err(), redirectError(cl.header))
	case ctx.Err() != nil && (doErr != nil || cl.err != nil):
		err = ctx.Err()
		// Ended while waiting to retry: keep the reason for the retry too.
		switch {
		case cl.err == nil && (cl.status < 200 || cl.status > 299):
			err = &waitError{ctx: err, last: cl.apiError()}
		case cl.err != nil && !errors.Is(cl.err, err):
			err = &waitError{ctx: err, last: cl.err}
		}
	case cl.err != nil:
		err = cl.err
	default:
		err = cl.apiError()
	}
	if cl.maybeDone && cl.method != http.MethodGet {
		return cl.outcome(ctx.Err(), err)
	}
	if cl.err == nil && ctx.Err() == nil {
		return err // the *Error names itself
	}
	return fmt.Errorf("sms: %s: %w", cl.op(), err)
}

// failedBody is the error of a 2xx answer whose body says it is an error (see
// envelope.failed): the *Error with the server's words, for a read; for a call that changes
// something, an *OutcomeError wrapping it, as the server may have done it all the same.
func (cl *call) failedBody() error {
	err := cl.apiError()
	if cl.method == http.MethodGet {
		return err
	}
	return cl.outcome(nil, err)
}

// decodeError is the error of a 2xx body that is not the JSON the call expects: for a read,
// with the start of the body, escaped, as an *Error's Snippet is (an *OutcomeError shows it
// in its Body).
func (cl *call) decodeError(err error) error {
	if cl.method != http.MethodGet || len(bytes.TrimSpace(cl.data)) == 0 {
		return fmt.Errorf("decoding the %d response: %w", cl.status, err)
	}
	body := safetext.Printable(cl.redactor().Text(string(cl.data[:min(len(cl.data), 4*maxSnippet)])), maxSnippet)
	return fmt.Errorf("decoding the %d response: %w (body %s)", cl.status, err, strconv.Quote(body))
}

// member is one member of a successful answer that callers rely on, and whether the answer
// has it (present, not null, not empty).
type member struct {
	name string // as spelled on the wire, such as "data.pinId"
	ok   bool
}

// need returns a decoding error naming the first of ms the answer lacks, or nil. Every
// service checks the members its result is built from (ids, status) with it, so that a
// success body missing them is an error rather than a result with empty ids.
func (cl *call) need(ms ...member) error {
	for _, m := range ms {
		if !m.ok {
			return cl.unbuildable(fmt.Errorf("decoding the %d response: the member %q is missing or empty", cl.status, m.name))
		}
	}
	return nil
}

// needIn is need for the members of item i of the list named list, such as "data": they are
// named "data[3]._id".
func (cl *call) needIn(list string, i int, ms ...member) error {
	for _, m := range ms {
		if !m.ok {
			return cl.need(member{name: list + "[" + strconv.Itoa(i) + "]." + m.name})
		}
	}
	return nil
}

// cursorQuery is the query of a page fetched by the cursor of the answer before.
type cursorQuery struct {
	Cursor string `url:"cursor"`
	Limit  int    `url:"limit,omitempty"`
}

// page makes cl fetch the page next names, when it names one: a cursor, sent as the query
// parameter cursor with the page size limit (0: none), whatever characters it holds; or a URL
// (absolute, or relative to the URL of the request it came from, such as "?cursor=abc" or
// "/v1/sms/campaigns?page=2"), which must be the same endpoint under the base URL (never
// another host, which would be sent the credentials).
func (c *core) page(cl *call, next nextRef, limit int) error {
	switch {
	case next.none():
		return nil
	case next.cursor != "":
		cl.query = cursorQuery{Cursor: next.cursor, Limit: limit}
		return nil
	}
	self, err := url.Parse(c.base + cl.path)
	if err != nil {
		return fmt.Errorf("sms: %s: %w", cl.op(), err)
	}
	u, err := self.Parse(next.url)
	if err != nil || u.Scheme != self.Scheme || u.Host != self.Host || u.EscapedPath() != self.EscapedPath() {
		return fmt.Errorf("sms: %s: the answer's next page %s is not this endpoint under the base URL: not followed", cl.op(), strconv.Quote(printable(next.url)))
	}
	cl.query, cl.raw = nil, u.RawQuery
	return nil
}

// pathID escapes one path segment, refusing ids that would change the path.
func pathID(field, id string) (string, error) {
	if id == "" || id == "." || id == ".." {
		return "", invalid(field, "an id is required")
	}
	if err := validateUTF8(field, id); err != nil {
		return "", err
	}
	return url.PathEscape(id), nil
}
