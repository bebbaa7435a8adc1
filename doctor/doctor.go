// Package doctor checks a deployment of the SMS API, read-only: it tells whether a base URL and
// a key pair work with this SDK, before any money is at stake.
//
// Run checks, in this order of report lines:
//
//   - the credentials: the key pair is accepted (a 401 stops the checks that need it);
//   - each scope of the key: sms, otp, campaigns, sender_ids, balance;
//   - every read endpoint, read with the SDK (package sms): the balance, the active sender IDs,
//     the campaign list, the delivery status of the first listed campaign (when there is one),
//     and, given a dashboard token, the API key list.
//
// With Config.SaveDir set, Run also writes every answer it got, redacted, to that directory
// (see "Saved answers" below).
//
// For each request a check reports whether it was answered (status and latency), whether the
// answer decodes as JSON and with the SDK, which members the SDK expected and did not get, and
// which members it got and does not know (objects are compared member by member, arrays by
// their first item).
//
// # Nothing is sent, nothing is charged
//
// By default Run sends GET requests only. A scope is read from the GET that needs it (balance,
// sender_ids, and campaigns from the campaign list): a success means granted, a 403
// insufficient_scope missing. With a dashboard token, the key's scopes are also read from the
// key list (GET /v1/keys, the item whose publicKey is the key), which is how the write scopes
// that no GET shows, sms and otp, are checked. Without a token they are reported as not
// checked (LevelSkip; a failure for a scope in Config.RequireScopes), with the two ways to check
// them: a dashboard token, or Config.ProbeWrites (sms doctor --probe-writes).
//
// Config.ProbeWrites opts into an inference that POSTs: for each of sms, otp and campaigns
// that no read settled, one POST of an empty JSON object, {}, to the endpoint that needs the
// scope: POST /v1/sms/send, /v1/otp/send and /v1/sms/campaigns. Such a body lacks every
// required member, so no server should act on it. The check relies on the order in which the
// mock admits a request: credentials (401), then scope (403 insufficient_scope), then the body
// (400). So a 403 insufficient_scope means the scope is missing and a 400 that it is granted.
// The service's pages list those statuses without saying in which order it checks: a server
// that validated the body before the scope would answer 400 whatever the scope, and Run would
// report a missing scope as granted, which is why the report calls that result inferred. Any
// other answer is reported as "could not tell" (a warning; a failure for a scope in
// Config.RequireScopes), except that a 2xx, a server that accepted an empty write instead of
// refusing it, is a failure, and stops the probes: none is sent after it. Requests are never
// retried.
//
// # Saved answers
//
// With Config.SaveDir (sms doctor --save DIR), Run writes one file per request it sent, in the
// order sent, named by that order and the endpoint: 01-get-v1-balance.json,
// 02-get-v1-sender-ids.json, 03-get-v1-sms-campaigns.json,
// 04-get-v1-sms-campaigns-id-status.json, 05-get-v1-keys.json, then, with ProbeWrites,
// 06-post-v1-sms-send.json and so on (files of the same names are replaced). Each is a JSON
// object:
//
//	{"request": {"method", "url", "headers"},
//	 "response": {"status", "headers", "body"},   // null when no answer came
//	 "error": "..."}                              // why no answer came, or could not be read
//
// where body is the answer's JSON as it came (members in their order, compacted), or a JSON
// string holding a body that is not JSON. Everything is redacted before it is written, by the
// rule the SDK's errors follow: [REDACTED] replaces the X-API-Secret, Authorization,
// Proxy-Authorization, Cookie and Set-Cookie headers; any member whose name says it holds a
// secret or a pin (secret, api_secret, api_key, token, accessToken, password, pin, otp,
// otp_code, pinCode, ..., whatever the case) and its whole value; anything shaped like an API
// secret (sk_live_, sk_test_), a Bearer or Basic credential or a JWT; the configuration's own
// secret and token wherever they appear, also without the sk_ prefix or in pieces of 8
// characters or more; and pins in words ("your code is 482913"). Phone numbers are masked
// (234802****695) in the URL, in headers, in strings and numbers, in every form (+234...,
// 234..., 0803..., spaced, dashed, next to "_"), and any value of a member named to, msisdn,
// phone, phone_number, mobile or recipient(s), whatever its length. The files are
// for a bug report or new test fixtures: read them before sharing them.
//
// # Levels
//
// Each check is LevelOK, LevelWarn (it works, but deserves a look: members missing or unknown,
// a scope the key lacks, an endpoint this project assumes and the server does not have),
// LevelFail (the SDK cannot work with the deployment: no answer, credentials refused, an answer
// the SDK cannot read, a server error, a documented endpoint missing), or LevelSkip (not
// checked, and why).
// Report.Failed reports whether any check failed; warnings alone are not a failure.
//
// The report holds no secret: not the API secret, not the dashboard token, not the answers'
// bodies (SaveDir's files hold the bodies, redacted). Text that comes from the server (error messages, member names, request IDs) is made
// printable and bounded.
package doctor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/internal/safetext"
)

// DefaultTimeout bounds each request of Run when Config.Timeout is 0.
const DefaultTimeout = 10 * time.Second

// userAgent names Run's requests in the server's logs.
var userAgent = "sms-go-doctor/" + sms.Version()

// Config is the deployment Run checks, and how.
type Config struct {
	// BaseURL is the API's base URL, such as "https://api.example.com". It is required.
	BaseURL string
	// APIKey (pk_live_... or pk_test_...) and APISecret are the key pair to check. Both are
	// required.
	APIKey    string
	APISecret string
	// DashboardToken is a dashboard user's JWT. When set, GET /v1/keys is checked with it, and
	// the key's scopes are read from that list; when empty, that check is skipped.
	DashboardToken string
	// ProbeWrites opts into the empty-POST inference of the scopes that no read settled (see
	// "Nothing is sent, nothing is charged"): up to three POSTs of {}, none after one that a
	// server accepted. When false, Run sends GET requests only.
	ProbeWrites bool
	// SaveDir, when set, is a directory (created if need be) where Run writes every answer it
	// got, redacted (see "Saved answers").
	SaveDir string
	// HTTPClient sends the requests (nil: a client of Run's own, whose connections are closed
	// when Run returns). It is copied; the copy's transport records each answer, and the copy
	// never follows a redirect, so that credentials never go to another host.
	HTTPClient *http.Client
	// Timeout bounds each request (0: DefaultTimeout).
	Timeout time.Duration
	// InsecureHTTP allows a plain http:// base URL to a host that is not loopback, as
	// sms.WithInsecureHTTP does.
	InsecureHTTP bool
	// RequireScopes are the scopes the key must have: one that is missing, or that could not
	// be confirmed, fails its check instead of warning.
	RequireScopes sms.Scopes
}

// String describes the configuration without the secret and the token.
func (c Config) String() string {
	return fmt.Sprintf("doctor.Config{BaseURL: %q, APIKey: %q, APISecret: %s, DashboardToken: %s, ProbeWrites: %t, SaveDir: %q, Timeout: %v, RequireScopes: %v}",
		c.BaseURL, c.APIKey, redact(c.APISecret), redact(c.DashboardToken), c.ProbeWrites, c.SaveDir, c.Timeout, []sms.Scope(c.RequireScopes))
}

// Format prints the configuration without the secret and the token, whatever the verb.
func (c Config) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// LogValue logs the configuration without the secret and the token.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

func redact(s string) string {
	if s == "" {
		return `""`
	}
	return "[REDACTED]"
}

// Level is the outcome of a check.
type Level string

// The levels of a check, from best to worst; LevelSkip is a check that was not made.
const (
	LevelOK   Level = "ok"   // works as the SDK expects
	LevelWarn Level = "warn" // works, but deserves a look
	LevelFail Level = "fail" // the SDK cannot work with it
	LevelSkip Level = "skip" // not checked; the detail says why
)

// The names of the checks, as in Check.Name. The scopes' checks are named by ScopeCheck.
const (
	CheckCredentials    = "credentials"
	CheckBalance        = "balance"
	CheckSenderIDs      = "sender_ids"
	CheckCampaigns      = "campaigns"
	CheckCampaignStatus = "campaign_status"
	CheckKeys           = "keys"
)

// ScopeCheck returns the name of the check of scope s, such as "scope.sms".
func ScopeCheck(s sms.Scope) string { return "scope." + string(s) }

// Check is one line of a report.
type Check struct {
	// Name says what is checked: CheckCredentials, ScopeCheck(scope), CheckBalance...
	Name  string `json:"name"`
	Level Level  `json:"level"`
	// Detail explains the level in one line for people.
	Detail string `json:"detail"`
	// Endpoint is the request the check rests on, such as "GET /v1/balance".
	Endpoint string `json:"endpoint"`
	// Documented reports whether the service's own pages document the endpoint; the others
	// are this project's assumptions, and missing them is a warning, not a failure.
	Documented bool `json:"documented"`
	// Status is the answer's HTTP status; 0 when no request was made or no answer came.
	Status int `json:"status,omitempty"`
	// Latency is the time from sending the request to the end of the answer (the time waited
	// when no answer came).
	Latency time.Duration `json:"-"`
	// RequestID is the server's ID of the request (X-Request-Id, else the body's requestId).
	RequestID string `json:"requestId,omitempty"`
	// Decode is how a read's successful answer decoded; nil for other checks and answers.
	Decode *Decode `json:"decode,omitempty"`
}

// MarshalJSON writes the check with its latency in milliseconds, as "latencyMs".
func (c Check) MarshalJSON() ([]byte, error) {
	type plain Check
	return json.Marshal(struct {
		plain
		LatencyMS float64 `json:"latencyMs"`
	}{plain(c), math.Round(float64(c.Latency)/1e3) / 1e3})
}

// Decode is how a successful answer decoded.
type Decode struct {
	// JSON reports whether the body is a JSON object.
	JSON bool `json:"json"`
	// SDK reports whether the SDK read the answer; SDKError says why not.
	SDK      bool   `json:"sdk"`
	SDKError string `json:"sdkError,omitempty"`
	// Missing are the members the SDK expected and did not get, Unknown the members it got
	// and does not know, as paths such as "data[0]._id" (arrays are compared by their first
	// item).
	Missing []string `json:"missing,omitempty"`
	Unknown []string `json:"unknown,omitempty"`
}

// Report is the outcome of Run: one check per line, in a fixed order.
type Report struct {
	BaseURL string  `json:"baseUrl"`
	Mode    string  `json:"mode"` // the key's: "live" or "test"
	Checks  []Check `json:"checks"`
}

// Failed reports whether any check failed.
func (r *Report) Failed() bool { return r.Count(LevelFail) > 0 }

// Count returns the number of checks at level l.
func (r *Report) Count(l Level) int {
	n := 0
	for _, c := range r.Checks {
		if c.Level == l {
			n++
		}
	}
	return n
}

// Find returns the check named name.
func (r *Report) Find(name string) (Check, bool) {
	i := slices.IndexFunc(r.Checks, func(c Check) bool { return c.Name == name })
	if i < 0 {
		return Check{}, false
	}
	return r.Checks[i], true
}

// MarshalJSON writes the report with "passed" (no check failed) and the count of each level.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		plain
		Passed bool          `json:"passed"`
		Counts map[Level]int `json:"counts"`
	}{plain(r), !r.Failed(), map[Level]int{LevelOK: r.Count(LevelOK), LevelWarn: r.Count(LevelWarn), LevelFail: r.Count(LevelFail), LevelSkip: r.Count(LevelSkip)}})
}

// Run checks the deployment that cfg names and returns the report. It returns an error, and no
// report, only when cfg cannot be used (a missing or malformed base URL, key pair or token, an
// unknown scope in RequireScopes, a SaveDir that cannot be created) or when ctx ends; whatever
// the server answers is in the report. When the answers cannot be written to SaveDir, it
// returns the report and that error.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	d, err := newDoctor(cfg)
	if err != nil {
		return nil, err
	}
	defer d.close()
	r, err := d.run(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.SaveDir != "" {
		if err := d.save(cfg.SaveDir); err != nil {
			return r, fmt.Errorf("doctor: saving the answers: %w", err)
		}
	}
	return r, nil
}

// doctor is one run.
type doctor struct {
	cfg     Config
	base    string // without a trailing slash
	mode    string
	timeout time.Duration
	hc      *http.Client // records every answer, never follows redirects
	own     bool         // hc is Run's own: close its connections at the end
	client  *sms.Client
	dash    *sms.DashboardClient // nil without a token
	sent    []*answer            // every request, in the order sent, for SaveDir
}

func newDoctor(cfg Config) (*doctor, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, errors.New("doctor: no base URL")
	}
	if cfg.Timeout < 0 {
		return nil, errors.New("doctor: the timeout cannot be negative")
	}
	for _, s := range cfg.RequireScopes {
		if !sms.AllScopes().Has(s) {
			return nil, fmt.Errorf("doctor: unknown scope %q; scopes are sms, otp, campaigns, sender_ids and balance", printable(string(s)))
		}
	}
	if cfg.SaveDir != "" {
		if err := os.MkdirAll(cfg.SaveDir, 0o700); err != nil {
			return nil, fmt.Errorf("doctor: the directory for the answers: %w", err)
		}
	}
	d := &doctor{cfg: cfg, base: strings.TrimRight(cfg.BaseURL, "/"), timeout: cmp.Or(cfg.Timeout, DefaultTimeout), mode: "live"}
	if strings.HasPrefix(cfg.APIKey, "pk_test_") {
		d.mode = "test"
	}
	var hc http.Client
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	} else {
		hc, d.own = http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}, true
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = recorder{base: base}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	d.hc = &hc
	opts := []sms.Option{sms.WithBaseURL(cfg.BaseURL), sms.WithHTTPClient(d.hc), sms.WithMaxRetries(0), sms.WithUserAgent(userAgent)}
	if cfg.InsecureHTTP {
		opts = append(opts, sms.WithInsecureHTTP())
	}
	var err error
	if d.client, err = sms.NewClient(cfg.APIKey, cfg.APISecret, opts...); err != nil {
		d.close()
		return nil, err
	}
	if cfg.DashboardToken != "" {
		if d.dash, err = sms.NewDashboardClient(cfg.DashboardToken, opts...); err != nil {
			d.close()
			return nil, err
		}
	}
	return d, nil
}

func (d *doctor) close() {
	if d.own {
		d.hc.CloseIdleConnections()
	}
}

// answer is one request of a run and what came of it.
type answer struct {
	endpoint   string // "GET /v1/balance"
	documented bool   // the service's pages document the endpoint
	probe      bool   // an empty POST that checks a scope
	ex         *exchange
	sdkErr     error // a read's error from the SDK; nil when it read the answer
	// From the answer's body and headers, printable.
	code, message, requestID string
	// What the SDK read, for people, and a reason to warn about it.
	read, concern string
	// failed says why a read answered with a 2xx is no success: its body says it is an
	// error ({"status": "error"}, {"success": false}, ...), with the server's words, or it is
	// not JSON (a maintenance page). Empty otherwise.
	failed string
	// refused is set when such a body says the credentials were refused (the SDK reads it as
	// sms.ErrUnauthorized).
	refused bool
}

// success reports whether the answer is a 2xx that is what it says: not a body that says it
// is an error, nor a page that is not JSON.
func (a *answer) success() bool { return a.ex.status/100 == 2 && a.failed == "" }

// judge sets failed and refused for a read answered with a 2xx, from the body and the SDK's
// error.
func (a *answer) judge() {
	if a.ex.status/100 != 2 || a.ex.err != nil {
		return
	}
	var e *sms.Error
	switch {
	case errors.As(a.sdkErr, &e) && e.StatusCode/100 == 2:
		a.failed = "the answer says it failed: " + sdkText(e)
		a.refused = errors.Is(e, sms.ErrUnauthorized)
	case !json.Valid(a.ex.body):
		ct := a.ex.header.Get("Content-Type")
		a.failed = fmt.Sprintf("the answer is not JSON (%s): %q", printable(cmp.Or(ct, "no Content-Type")),
			printable(string(a.ex.body[:min(len(a.ex.body), 120)])))
	}
}

// The read endpoints.
const (
	getBalance        = "GET /v1/balance"
	getSenderIDs      = "GET /v1/sender-ids?status=active"
	getCampaigns      = "GET /v1/sms/campaigns"
	getCampaignStatus = "GET /v1/sms/campaigns/{id}/status"
	getKeys           = "GET /v1/keys"
)

// probes are the empty POSTs that check the scopes no documented GET shows.
var probes = []struct {
	scope sms.Scope
	path  string
}{
	{sms.ScopeSMS, "/v1/sms/send"},
	{sms.ScopeOTP, "/v1/otp/send"},
	{sms.ScopeCampaigns, "/v1/sms/campaigns"},
}

// Reasons a check was not made.
const (
	noAnswer = "not checked: the server did not answer"
	refused  = "not checked: the credentials were refused"
)

// answers is what the requests of a run gave; nil for a request not made.
type answers struct {
	balance, senderIDs, campaigns, status, keys *answer
	probes                                      map[sms.Scope]*answer
	stop                                        string // why the key's requests stopped after the first
	// listed is the key as the key list shows it; nil when the list was not read or does not
	// hold the key.
	listed *sms.Key
	// accepted is the probe a server accepted (2xx): no probe is sent after it.
	accepted *answer
}

func (d *doctor) run(ctx context.Context) (*Report, error) {
	as, err := d.ask(ctx)
	if err != nil {
		return nil, fmt.Errorf("doctor: %w", err)
	}
	return d.report(as), nil
}

// ask sends the requests of a run. The first, the balance, tells whether the server answers
// and takes the key: if not, the key's other requests are not sent. It returns an error only
// when ctx ends.
func (d *doctor) ask(ctx context.Context) (*answers, error) {
	as := &answers{probes: map[sms.Scope]*answer{}}
	as.balance = d.read(ctx, getBalance, true, func(ctx context.Context, a *answer) error {
		b, err := d.client.Balance.Get(ctx, nil)
		if err == nil {
			a.read = b.Balance.String() + " " + printable(b.Currency)
		}
		return err
	})
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case as.balance.ex.status == 0:
		as.stop = noAnswer
	case as.balance.ex.status == http.StatusUnauthorized, as.balance.refused:
		as.stop = refused
	}
	if as.stop == "" {
		as.senderIDs = d.read(ctx, getSenderIDs, true, func(ctx context.Context, a *answer) error {
			list, err := d.client.SenderIDs.List(ctx, &sms.ListSenderIDsParams{Status: sms.SenderIDStatusActive})
			if err == nil {
				a.read = plural(len(list.Items), "active sender ID", "active sender IDs")
				if len(list.Items) == 0 {
					a.concern = "no active sender ID: nothing can be sent until one is approved"
				}
			}
			return err
		})
		var first string
		as.campaigns = d.read(ctx, getCampaigns, false, func(ctx context.Context, a *answer) error {
			page, err := d.client.Campaigns.List(ctx, nil)
			if err == nil {
				a.read = plural(len(page.Items), "campaign", "campaigns") + " on the first page"
				if len(page.Items) > 0 {
					first = page.Items[0].ID
				}
			}
			return err
		})
		if first == "" && as.campaigns.success() {
			first = firstListed(as.campaigns.ex.body) // the SDK could not read the list
		}
		if first != "" {
			as.status = d.read(ctx, getCampaignStatus, false, func(ctx context.Context, a *answer) error {
				st, err := d.client.Campaigns.Delivery(ctx, first, nil)
				if err == nil {
					a.read = "campaign " + printable(first) + ": " + printable(string(st.Status))
				}
				return err
			})
		}
	}
	if d.dash != nil && as.stop != noAnswer {
		as.keys = d.read(ctx, getKeys, false, func(ctx context.Context, a *answer) error {
			list, err := d.dash.Keys.List(ctx, nil)
			if err == nil {
				a.read = plural(len(list.Items), "key", "keys")
				if i := slices.IndexFunc(list.Items, func(k sms.Key) bool { return k.PublicKey == d.cfg.APIKey }); i >= 0 {
					as.listed = &list.Items[i]
				}
			}
			return err
		})
	}
	if as.stop == "" && d.cfg.ProbeWrites {
		for _, p := range probes {
			if as.accepted != nil || ctx.Err() != nil {
				break
			}
			if as.settled(p.scope) {
				continue // a read told: no need to write
			}
			a := d.probe(ctx, p.path)
			as.probes[p.scope] = a
			if a.ex.status/100 == 2 {
				as.accepted = a
			}
		}
	}
	return as, ctx.Err()
}

// reader is the answer of the GET that needs scope s; nil for a scope no GET needs.
func (as *answers) reader(s sms.Scope) *answer {
	switch s {
	case sms.ScopeBalance:
		return as.balance
	case sms.ScopeSenderIDs:
		return as.senderIDs
	case sms.ScopeCampaigns:
		return as.campaigns
	}
	return nil
}

// settled reports whether a read told whether the key has scope s: the GET that needs it was
// answered with a success or a 403 insufficient_scope, or the key list shows the key.
func (as *answers) settled(s sms.Scope) bool {
	if r := as.reader(s); r != nil && (r.success() || r.scopeMissing()) {
		return true
	}
	return as.listed != nil
}

// report turns the answers into the checks.
func (d *doctor) report(as *answers) *Report {
	r := &Report{BaseURL: d.base, Mode: d.mode}
	add := func(c Check) { r.Checks = append(r.Checks, c) }
	add(d.credentials(as.balance, as.senderIDs, as.campaigns, as.status, as.probes[sms.ScopeSMS], as.probes[sms.ScopeOTP], as.probes[sms.ScopeCampaigns]))
	for _, s := range sms.AllScopes() {
		add(d.scope(s, as))
	}

	add(d.readCheck(CheckBalance, getBalance, true, sms.ScopeBalance, as.balance, as.stop, balanceMembers))
	add(d.readCheck(CheckSenderIDs, getSenderIDs, true, sms.ScopeSenderIDs, as.senderIDs, as.stop, senderIDsMembers))
	add(d.readCheck(CheckCampaigns, getCampaigns, false, sms.ScopeCampaigns, as.campaigns, as.stop, campaignsMembers))
	why := as.stop
	switch {
	case why != "" || as.status != nil:
	case as.campaigns.scopeMissing():
		why = "not checked: the key lacks the campaigns scope"
	case as.campaigns.ex.status/100 != 2:
		why = "not checked: the campaign list could not be read"
	default:
		why = "not checked: no campaign listed"
	}
	add(d.readCheck(CheckCampaignStatus, getCampaignStatus, false, sms.ScopeCampaigns, as.status, why, campaignStatusMembers))
	why = noAnswer
	if d.dash == nil {
		why = "not checked: no dashboard token given"
	}
	add(d.readCheck(CheckKeys, getKeys, false, "", as.keys, why, keysMembers))
	return r
}

// read sends one read with the SDK (fn, which may describe what it read in a) and records it.
func (d *doctor) read(ctx context.Context, endpoint string, documented bool, fn func(context.Context, *answer) error) *answer {
	a := &answer{endpoint: endpoint, documented: documented}
	a.ex, a.sdkErr = record(ctx, d.timeout, func(ctx context.Context) error { return fn(ctx, a) })
	a.parse()
	a.judge()
	d.sent = append(d.sent, a)
	return a
}

// probe sends an empty JSON object to path, which needs a scope, and records the answer.
func (d *doctor) probe(ctx context.Context, path string) *answer {
	a := &answer{endpoint: "POST " + path, documented: true, probe: true}
	a.ex, _ = record(ctx, d.timeout, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.base+path, strings.NewReader("{}"))
		if err != nil {
			return err
		}
		req.Header.Set("X-API-Key", d.cfg.APIKey)
		req.Header.Set("X-API-Secret", d.cfg.APISecret)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", userAgent)
		resp, err := d.hc.Do(req)
		if err != nil {
			return err
		}
		return resp.Body.Close() // read already, by the recorder
	})
	a.parse()
	a.judge()
	d.sent = append(d.sent, a)
	return a
}

// parse reads the request ID and, on an error, the API's code and message.
func (a *answer) parse() {
	ex := a.ex
	if ex.status == 0 {
		return
	}
	var body struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		RequestID string `json:"requestId"`
	}
	_ = json.Unmarshal(ex.body, &body) // anything else is looked at by its check
	a.requestID = printable(ex.header.Get("X-Request-Id"))
	if a.requestID == "" {
		a.requestID = printable(body.RequestID)
	}
	if ex.status/100 == 2 {
		return
	}
	if body.Error != nil {
		a.code, a.message = printable(body.Error.Code), printable(body.Error.Message)
	}
	var e *sms.Error // the SDK's reading keeps the server's words in the other shapes too
	if a.message == "" && errors.As(a.sdkErr, &e) && e.StatusCode == ex.status && !strings.EqualFold(e.Message, http.StatusText(ex.status)) {
		a.code, a.message = cmp.Or(a.code, printable(e.Code)), printable(e.Message)
	}
	if a.code == "" {
		a.code = strings.ToLower(strings.ReplaceAll(http.StatusText(ex.status), " ", "_"))
	}
}

// scopeMissing reports whether the answer is the API's 403 for a scope the key lacks.
func (a *answer) scopeMissing() bool {
	return a.ex.status == http.StatusForbidden && a.code == "insufficient_scope"
}

// errorText is an error answer in a few words: "not_found: No route for GET /v1/x.".
func (a *answer) errorText() string {
	if a.message == "" {
		return a.code
	}
	return a.code + ": " + a.message
}

// noAnswerText says why no answer came.
func (d *doctor) noAnswerText(a *answer) string {
	if errors.Is(a.ex.err, context.DeadlineExceeded) {
		return "no answer within " + d.timeout.String()
	}
	return "no answer: " + printable(a.ex.err.Error())
}

// trouble is the level and detail of an answer that is not a success, for the check that
// made the request. scope is the scope the endpoint needs.
func (d *doctor) trouble(a *answer, scope sms.Scope) (Level, string) {
	s := a.ex.status
	switch {
	case s == 0:
		return LevelFail, d.noAnswerText(a)
	case s == http.StatusUnauthorized:
		return LevelFail, "refused: " + a.errorText()
	case a.scopeMissing() && scope != "":
		return LevelSkip, "not checked: the key lacks the " + string(scope) + " scope"
	case s/100 == 3:
		return LevelFail, fmt.Sprintf("redirected to %q, which is not followed: is the base URL right?", printable(a.ex.header.Get("Location")))
	case s == http.StatusNotFound || s == http.StatusMethodNotAllowed || s == http.StatusNotImplemented:
		if !a.documented {
			return LevelWarn, "not available here (" + a.errorText() + "): the service does not document this endpoint; this project assumes it"
		}
		return LevelFail, a.errorText() + ": the service documents this endpoint; is the base URL right?"
	case s == http.StatusTooManyRequests:
		return LevelWarn, "rate limited, not checked: " + a.errorText()
	case s >= 500:
		return LevelFail, "server error: " + a.errorText()
	}
	return LevelFail, "unexpected answer: " + a.errorText()
}

// broken reports whether an answer's status says that the endpoint itself does not work: no
// answer, a redirect, no such endpoint or method, a server error.
func broken(status int) bool {
	switch {
	case status == 0, status/100 == 3, status >= 500:
		return true
	}
	return status == http.StatusNotFound || status == http.StatusMethodNotAllowed
}

// check starts the check of answer a (nil: no request was made).
func check(name, endpoint string, documented bool, a *answer) Check {
	c := Check{Name: name, Endpoint: endpoint, Documented: documented}
	if a != nil {
		c.Endpoint, c.Documented = a.endpoint, a.documented
		c.Status, c.Latency, c.RequestID = a.ex.status, a.ex.latency, a.requestID
	}
	return c
}

// credentials is the check of the key pair: the first answer that proves something decides.
func (d *doctor) credentials(answers ...*answer) Check {
	kind := "a " + d.mode + " key (" + d.mode + " wallet and data)"
	var first *answer
	for _, a := range answers {
		if a == nil {
			continue
		}
		if first == nil {
			first = a
		}
		s := a.ex.status
		switch {
		case s == http.StatusUnauthorized:
			c := check(CheckCredentials, a.endpoint, a.documented, a)
			c.Level, c.Detail = LevelFail, "refused: "+a.errorText()
			return c
		case a.refused:
			c := check(CheckCredentials, a.endpoint, a.documented, a)
			c.Level, c.Detail = LevelFail, "refused: "+a.failed
			return c
		case a.failed != "":
			continue // proves nothing
		case s/100 == 2 || a.scopeMissing() || a.probe && s == http.StatusBadRequest:
			c := check(CheckCredentials, a.endpoint, a.documented, a)
			c.Level, c.Detail = LevelOK, "accepted: "+kind
			return c
		}
	}
	c := check(CheckCredentials, getBalance, true, first)
	c.Level = LevelFail
	if first != nil && first.ex.status == 0 {
		c.Detail = d.noAnswerText(first)
	} else {
		c.Detail = "not confirmed: no answer proved them (see the other checks)"
	}
	return c
}

// notChecked is why a write scope was not checked, and how to check it.
const notChecked = "no GET shows it; a dashboard token (the key list) or --probe-writes (an empty POST) checks it"

// scope is the check of scope s: from the GET that needs it when that tells, else from the key
// list, else from the empty POST when one was sent.
func (d *doctor) scope(s sms.Scope, as *answers) Check {
	c := d.scopeFrom(s, as)
	if d.cfg.RequireScopes.Has(s) && c.Level != LevelOK && !(c.Level == LevelSkip && (c.Detail == refused || c.Detail == as.stop)) {
		c.Level, c.Detail = LevelFail, "required: "+c.Detail
	}
	return c
}

func (d *doctor) scopeFrom(s sms.Scope, as *answers) Check {
	read, probe := as.reader(s), as.probes[s]
	endpoint := "POST " + probePath(s)
	if read != nil {
		endpoint = read.endpoint
	}
	switch {
	case read != nil && read.ex.status == http.StatusUnauthorized:
		c := check(ScopeCheck(s), endpoint, true, read)
		c.Level, c.Detail = LevelSkip, refused
		return c
	case read != nil && read.scopeMissing():
		c := check(ScopeCheck(s), endpoint, true, read)
		c.Level, c.Detail = LevelWarn, "missing: the key lacks the "+string(s)+" scope"
		return c
	case read != nil && read.refused:
		c := check(ScopeCheck(s), endpoint, true, read)
		c.Level, c.Detail = LevelSkip, refused
		return c
	case read != nil && read.success():
		c := check(ScopeCheck(s), endpoint, true, read)
		c.Level, c.Detail = LevelOK, "granted"
		return c
	case as.stop != "" && read == nil:
		c := check(ScopeCheck(s), endpoint, true, nil)
		c.Level, c.Detail = LevelSkip, as.stop
		return c
	case as.listed != nil:
		c := check(ScopeCheck(s), getKeys, false, as.keys)
		if as.listed.Scopes.Has(s) {
			c.Level, c.Detail = LevelOK, "granted (the key list shows it)"
		} else {
			c.Level, c.Detail = LevelWarn, "missing: the key lacks the "+string(s)+" scope (the key list shows it)"
		}
		return c
	case probe != nil:
		return d.probeScope(s, probe)
	case as.accepted != nil && probePath(s) != "":
		c := check(ScopeCheck(s), endpoint, true, nil)
		c.Level, c.Detail = LevelSkip, "not checked: the server accepted an empty write to "+as.accepted.endpoint+"; no other was sent"
		return c
	case read != nil:
		c := check(ScopeCheck(s), endpoint, true, read)
		c.Level, c.Detail = LevelWarn, "could not tell: "+read.endpoint+" was not answered with a success (see its check)"
		return c
	}
	c := check(ScopeCheck(s), endpoint, true, nil)
	c.Level = LevelSkip
	switch {
	case as.keys != nil && as.keys.ex.status/100 != 2:
		c.Detail = "not checked: the key list could not be read (see its check); " + notChecked
	case as.keys != nil:
		c.Detail = "not checked: the key list does not show this key; " + notChecked
	default:
		c.Detail = "not checked: " + notChecked
	}
	return c
}

// probePath is the endpoint that the empty POST for scope s goes to.
func probePath(s sms.Scope) string {
	for _, p := range probes {
		if p.scope == s {
			return p.path
		}
	}
	return ""
}

// probeScope is the check of scope s from the answer to its empty POST.
func (d *doctor) probeScope(s sms.Scope, a *answer) Check {
	c := check(ScopeCheck(s), a.endpoint, true, a)
	switch {
	case a.ex.status == http.StatusUnauthorized:
		c.Level, c.Detail = LevelSkip, refused
	case a.scopeMissing():
		c.Level, c.Detail = LevelWarn, "missing: the key lacks the "+string(s)+" scope"
	case a.ex.status == http.StatusBadRequest:
		c.Level, c.Detail = LevelOK, "granted (inferred: the server checked the scope, then refused the empty body with 400)"
	case a.ex.status/100 == 2:
		c.Level, c.Detail = LevelFail, fmt.Sprintf("the server accepted an empty write (%d) instead of refusing it: check what it did; no other empty write was sent", a.ex.status)
	case broken(a.ex.status):
		c.Level, c.Detail = d.trouble(a, s)
	default:
		c.Level, c.Detail = LevelWarn, "could not tell: answered "+a.errorText()+"; this check expects 403 insufficient_scope or 400"
	}
	return c
}

// readCheck is the check of a read endpoint, which needs scope (none: the dashboard token's
// endpoint), from its answer a; stop says why a is nil.
func (d *doctor) readCheck(name, endpoint string, documented bool, scope sms.Scope, a *answer, stop string, m *members) Check {
	c := check(name, endpoint, documented, a)
	switch {
	case a == nil:
		c.Level, c.Detail = LevelSkip, stop
		return c
	case scope != "" && a.ex.status == http.StatusUnauthorized: // the credentials' check fails
		c.Level, c.Detail = LevelSkip, refused
		return c
	case a.ex.status/100 != 2:
		c.Level, c.Detail = d.trouble(a, scope)
		return c
	case a.ex.err != nil: // an answer too large to read
		c.Level, c.Detail = LevelFail, printable(a.ex.err.Error())
		return c
	}
	dec := &Decode{SDK: a.sdkErr == nil}
	c.Decode = dec
	var v any
	jsonErr := json.Unmarshal(a.ex.body, &v)
	obj, isObject := v.(map[string]any)
	dec.JSON = jsonErr == nil && isObject
	if dec.JSON {
		dec.Missing, dec.Unknown = m.compare(obj)
		for i, u := range dec.Unknown {
			dec.Unknown[i] = printable(u)
		}
	}
	if !dec.SDK {
		dec.SDKError = sdkText(a.sdkErr)
	}
	var parts []string
	switch {
	case a.failed != "":
		c.Level = LevelFail
		parts = append(parts, a.failed)
	case jsonErr != nil:
		c.Level = LevelFail
		parts = append(parts, "not JSON: "+printable(jsonErr.Error()))
	case !isObject:
		c.Level = LevelFail
		parts = append(parts, "not a JSON object")
	case !dec.SDK:
		c.Level = LevelFail
		parts = append(parts, "the SDK cannot read it: "+dec.SDKError)
	case len(dec.Missing) > 0 || len(dec.Unknown) > 0 || a.concern != "":
		c.Level = LevelWarn
	default:
		c.Level = LevelOK
	}
	if a.read != "" {
		parts = append(parts, a.read)
	}
	if a.concern != "" {
		parts = append(parts, a.concern)
	}
	if len(dec.Missing) > 0 {
		parts = append(parts, "missing "+list(dec.Missing))
	}
	if len(dec.Unknown) > 0 {
		parts = append(parts, "unknown "+list(dec.Unknown))
	}
	c.Detail = strings.Join(parts, "; ")
	return c
}

// sdkText is the SDK's error without the "sms: GET /v1/...: " it starts with.
func sdkText(err error) string {
	s := strings.TrimPrefix(err.Error(), "sms: ")
	if _, rest, ok := strings.Cut(s, ": "); ok && strings.HasPrefix(s, "GET /") {
		s = rest
	}
	return printable(s)
}

// list writes at most 10 names, and how many more there are.
func list(names []string) string {
	const shown = 10
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:shown], ", ") + ", and " + strconv.Itoa(len(names)-shown) + " more"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// firstListed returns the _id (or id) of the first item of a list's data, or "".
func firstListed(body []byte) string {
	var v struct {
		Data []struct {
			ID    string `json:"_id"`
			AltID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &v) != nil || len(v.Data) == 0 {
		return ""
	}
	return cmp.Or(v.Data[0].ID, v.Data[0].AltID)
}

// maxText bounds, in bytes, each piece of server text in a report.
const maxText = 200

// printable returns server text escaped and cut at maxText bytes (see safetext.Printable).
func printable(s string) string { return safetext.Printable(s, maxText) }
