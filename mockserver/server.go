// Package mockserver is an in-memory server that speaks the whole /v1 contract of the SMS API,
// so that applications can be tested without sending a real SMS or spending money.
//
// It is a real net/http server over an in-memory store: API keys with scopes and live/test
// modes, wallets in integer kobo, sender IDs, campaigns with per-recipient delivery state,
// OTPs, idempotency by reference and optional rate limits. Test controls, as HTTP routes under
// /_mock/ and as methods on Server, move sender IDs and deliveries along, set balances, move
// the clock and inject faults.
//
// Every SMS it accepts is kept as a message, as the phone would show it: tests read them with
// Messages or wait for one with WaitMessage (GET /_mock/messages?wait=10s from any language),
// GET /_mock/events streams every change, and GET / in a browser is a live inbox page of the
// messages per phone number, with the test controls.
//
// From a test, one line starts a server on a free loopback port and closes it when the test
// ends:
//
//	srv := mockserver.NewTest(t)
//	ws := srv.Default() // keys with every scope, an active sender ID, funded wallets
package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/store"

	"github.com/seedsms/sms-go/mockserver/internal/idem"

	"github.com/seedsms/sms-go/mockserver/internal/reqlog"

	"github.com/seedsms/sms-go/mockserver/internal/faults"

	"github.com/seedsms/sms-go/mockserver/internal/events"

	"github.com/seedsms/sms-go/mockserver/internal/clock"

	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Defaults of a new server.
const (
	DefaultGenericPrice = 320       // kobo per part on the generic channel (3.20 NGN)
	DefaultDNDPrice     = 450       // kobo per part on the dnd channel (4.50 NGN)
	DefaultBalance      = 1_000_000 // kobo in each wallet of a new workspace (10,000.00 NGN)
	DefaultSenderID     = store.DefaultSenderID
	DefaultCountry      = "Nigeria"
	DefaultAddr         = "127.0.0.1:0"

	// DefaultReadTimeout bounds how long reading a request body may take, so that a client
	// that stalls or drips its body cannot hold a connection (slowloris).
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds a whole response, from the end of the request headers to
	// the last byte written: longer than a body read plus the longest latency fault (1m).
	// A long-polling or streaming handler extends its own deadlines with
	// http.ResponseController (SetReadDeadline, SetWriteDeadline) for as long as it waits.
	DefaultWriteTimeout = 2 * time.Minute

	// MaxPrice is the highest price of one SMS part, in kobo (10,000.00 NGN).
	MaxPrice = store.MaxPrice
	// MaxBalance is the highest wallet balance, in kobo (40,000,000,000,000,000.00 NGN): far
	// above any real wallet (tests use huge ones so as never to run dry), and with
	// MaxPrice low enough that no balance plus a charge or refund can overflow int64.
	MaxBalance = store.MaxBalance
)

// Option configures a Server.
type Option func(*config)

type config struct {
	addr           string
	genericPrice   int64
	dndPrice       int64
	liveBalance    int64
	testBalance    int64
	country        string
	rateLimit      int
	jwtSecret      []byte
	now            func() time.Time
	logger         *slog.Logger
	requestLogSize int
	readTimeout    time.Duration
	writeTimeout   time.Duration
	allowedHosts   []string
	idemLimit      int
	maxMessages    int
	maxWorkspaces  int
	maxDND         int
}

// check reports the first option out of its documented range.
func (c *config) check() error {
	switch {
	case c.genericPrice < 0 || c.genericPrice > MaxPrice || c.dndPrice < 0 || c.dndPrice > MaxPrice:
		return fmt.Errorf("mockserver: WithPrices: prices must be from 0 to %d kobo", MaxPrice)
	case c.liveBalance < 0 || c.liveBalance > MaxBalance || c.testBalance < 0 || c.testBalance > MaxBalance:
		return fmt.Errorf("mockserver: WithBalances: balances must be from 0 to %d kobo", MaxBalance)
	case c.rateLimit < 0:
		return errors.New("mockserver: WithRateLimit: the limit cannot be negative")
	case c.readTimeout < 0 || c.writeTimeout < 0:
		return errors.New("mockserver: timeouts cannot be negative")
	}
	for _, h := range c.allowedHosts {
		if h == "" || strings.ContainsAny(h, "/ ") {
			return fmt.Errorf("mockserver: WithAllowedHosts: %q is not a host name", h)
		}
	}
	return nil
}

// WithAddr sets the address Start listens on (default 127.0.0.1:0, a free loopback port).
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithPrices sets the price of one SMS part, in kobo, on the generic and dnd channels: from 0
// to MaxPrice.
func WithPrices(generic, dnd int64) Option {
	return func(c *config) { c.genericPrice, c.dndPrice = generic, dnd }
}

// WithBalances sets the starting live and test wallet balances, in kobo, of the default
// workspace and of workspaces created without balances: from 0 to MaxBalance.
func WithBalances(live, test int64) Option {
	return func(c *config) { c.liveBalance, c.testBalance = live, test }
}

// WithCountry sets the country of new workspaces and their sender IDs (default Nigeria).
func WithCountry(country string) Option { return func(c *config) { c.country = country } }

// WithRateLimit limits each API key to n requests per minute of the mock's clock; 0 (the
// default) means no limit.
func WithRateLimit(n int) Option { return func(c *config) { c.rateLimit = n } }

// WithJWTSecret sets the HS256 secret dashboard JWTs are signed with (default: random).
func WithJWTSecret(secret []byte) Option {
	return func(c *config) { c.jwtSecret = append([]byte(nil), secret...) }
}

// WithClock sets the base clock (default time.Now); Advance moves the mock's time past it.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithReadTimeout bounds how long reading one request body may take (default
// DefaultReadTimeout; 0 means no limit). A body still unread by then fails and its
// connection is closed.
func WithReadTimeout(d time.Duration) Option { return func(c *config) { c.readTimeout = d } }

// WithWriteTimeout bounds each response of a server started with Start or Serve, from the
// end of the request headers to the last byte written (default DefaultWriteTimeout; 0 means
// no limit). Handlers that wait on purpose extend it with http.ResponseController.
func WithWriteTimeout(d time.Duration) Option { return func(c *config) { c.writeTimeout = d } }

// WithAllowedHosts adds host names (without port) that requests may name in their Host
// header, besides the loopback names and addresses (localhost, 127.0.0.0/8, ::1), which are
// always allowed. Requests that arrive over a connection naming any other host are answered
// 403: a web page cannot reach the mock through DNS rebinding. Use it when the mock is
// reached by another name, such as a container's.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *config) { c.allowedHosts = append(c.allowedHosts, hosts...) }
}

// WithLogger logs one line per request (method, path, status, request ID; never a secret).
// Nil, the default, logs nothing.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithIdempotencyLimit sets how many references each workspace remembers at most (default
// DefaultIdempotencyLimit). Past it, the oldest answered reference is forgotten first, even
// inside its 24-hour window.
func WithIdempotencyLimit(n int) Option { return func(c *config) { c.idemLimit = n } }

// Mode is a key's mode: live and test keys of one workspace use separate wallets and data.
type Mode string

// The two modes.
const (
	Live Mode = "live"
	Test Mode = "test"
)

// storeMode is m in the store's terms, or false when m is neither Live nor Test.
func (m Mode) storeMode() (store.Mode, bool) { return store.ParseMode(string(m)) }

// modeOf is a store mode as a Mode.
func modeOf(m store.Mode) Mode { return Mode(m.String()) }

// Workspace is what a test needs to talk to one workspace: its credentials and active sender
// ID. Its JSON form is the mock binary's startup line.
type Workspace struct {
	URL            string `json:"url"`
	WorkspaceID    string `json:"workspaceId"`
	DashboardToken string `json:"dashboardToken"`
	LiveKey        string `json:"liveKey"`
	LiveSecret     string `json:"liveSecret"`
	TestKey        string `json:"testKey"`
	TestSecret     string `json:"testSecret"`
	SenderID       string `json:"senderId"`
}

// String hides the secrets and the token.
func (w Workspace) String() string {
	return fmt.Sprintf("Workspace{ID: %s, LiveKey: %s, TestKey: %s, SenderID: %s}", w.WorkspaceID, w.LiveKey, w.TestKey, w.SenderID)
}

// GoString hides the secrets and the token from %#v.
func (w Workspace) GoString() string { return w.String() }

// Server is the mock. Create it with New, then Start it, or serve Handler yourself. All its
// methods are safe for concurrent use.
type Server struct {
	cfg    config
	cfgErr error // an option out of range: Start and Serve fail, requests get 500
	clock  *clock.Clock
	ids    *ids.Gen
	routes []*pathRoute
	state  atomic.Pointer[state]
	seed   Workspace  // credentials of the default workspace, kept across Reset
	inbox  inboxState // event stream and message waiters: they outlive Reset

	mu  sync.Mutex
	ln  net.Listener
	hs  *http.Server
	url string
}

// state is everything Reset forgets.
type state struct {
	store  *store.Store
	idem   *idem.Table
	faults *faults.List
	log    *reqlog.Log
}

// New returns a server with a default workspace: a live and a test key with every scope, the
// active sender ID MOCKSMS, and both wallets funded. An option out of its documented range
// makes Start and Serve return an error saying which.
func New(opts ...Option) *Server {
	s := &Server{cfg: config{
		addr: DefaultAddr, genericPrice: DefaultGenericPrice, dndPrice: DefaultDNDPrice,
		liveBalance: DefaultBalance, testBalance: DefaultBalance, country: DefaultCountry,
		now: time.Now, requestLogSize: reqlog.DefaultSize, maxMessages: DefaultMaxMessages,
		maxWorkspaces: DefaultMaxWorkspaces, maxDND: DefaultMaxDND,
		readTimeout: DefaultReadTimeout, writeTimeout: DefaultWriteTimeout,
	}}
	for _, o := range opts {
		o(&s.cfg)
	}
	s.cfgErr = s.cfg.check()
	if len(s.cfg.jwtSecret) == 0 {
		s.cfg.jwtSecret = make([]byte, 32)
		_, _ = rand.Read(s.cfg.jwtSecret)
	}
	s.clock = clock.New(s.cfg.now)
	s.ids = ids.NewGen()
	s.inbox.events = events.NewBus(events.RingSize)
	s.routes = s.buildRoutes()
	s.Reset()
	return s
}

// Reset forgets everything: workspaces, campaigns, OTPs, faults, recorded requests and clock
// moves. The default workspace comes back with the same credentials.
func (s *Server) Reset() {
	s.clock.Reset()
	s.mu.Lock()
	seed := s.seed
	s.mu.Unlock()
	st := &state{idem: idem.New(s.cfg.idemLimit), faults: &faults.List{}, log: reqlog.New(s.cfg.requestLogSize)}
	var creds store.Credentials
	st.store, creds = store.New(store.Config{
		GenericPrice: s.cfg.genericPrice, DNDPrice: s.cfg.dndPrice,
		LiveBalance: s.cfg.liveBalance, TestBalance: s.cfg.testBalance, Country: s.cfg.country,
		MaxWorkspaces: s.cfg.maxWorkspaces, MaxDND: s.cfg.maxDND, MaxMessages: s.cfg.maxMessages,
		IDs: s.ids, Events: s.inbox.events, Arrived: &s.inbox.arrived,
	}, store.Credentials{WorkspaceID: seed.WorkspaceID, LiveKey: seed.LiveKey, LiveSecret: seed.LiveSecret,
		TestKey: seed.TestKey, TestSecret: seed.TestSecret}, s.clock.Now().UnixNano())
	ws := s.workspaceOf(creds, seed.DashboardToken)
	s.mu.Lock()
	s.seed = ws
	s.mu.Unlock()
	old := s.state.Swap(st)
	if old != nil {
		s.publish("reset", struct{}{})
		s.inbox.arrived.Broadcast()
	}
}

// dashboardTokenTTL is how long the dashboard token of a new workspace lasts.
const dashboardTokenTTL = 365 * 24 * time.Hour

// workspaceOf is the Workspace of credentials the store made, with the URL and token, or a new
// dashboard token when token is empty.
func (s *Server) workspaceOf(c store.Credentials, token string) Workspace {
	if token == "" {
		token = s.DashboardToken(c.WorkspaceID, dashboardTokenTTL)
	}
	return Workspace{
		URL: s.URL(), WorkspaceID: c.WorkspaceID, DashboardToken: token,
		LiveKey: c.LiveKey, LiveSecret: c.LiveSecret, TestKey: c.TestKey, TestSecret: c.TestSecret, SenderID: c.SenderID,
	}
}

// Handler returns the server's http.Handler, for serving it in your own http.Server or calling
// it in-process. It bounds each body read by the read timeout itself; requests that arrive
// over a connection must name a loopback or allowed Host (see WithAllowedHosts), and
// cross-site state-changing requests are refused, however it is served. The request log
// keeps each request's header map as it came (see Requests): when calling ServeHTTP yourself,
// do not change a request's headers once it has been served.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

// Start listens on the configured address and serves in the background.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfgErr != nil {
		return s.cfgErr
	}
	if s.ln != nil {
		return errors.New("mockserver: already started")
	}
	ln, err := net.Listen("tcp", s.cfg.addr)
	if err != nil {
		return fmt.Errorf("mockserver: listen: %w", err)
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	s.hs = s.httpServer()
	hs := s.hs
	hs.RegisterOnShutdown(s.inbox.events.Stop) // event streams and long polls end
	go func() { _ = hs.Serve(ln) }()
	return nil
}

// Serve serves on ln until Shutdown or Close; it is what Start does, for callers that need the
// listener in hand (the mock binary prints its startup line once ln accepts).
func (s *Server) Serve(ln net.Listener) error {
	if s.cfgErr != nil {
		return s.cfgErr
	}
	s.mu.Lock()
	if s.ln != nil {
		s.mu.Unlock()
		return errors.New("mockserver: already started")
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	s.hs = s.httpServer()
	hs := s.hs
	hs.RegisterOnShutdown(s.inbox.events.Stop) // event streams and long polls end
	s.mu.Unlock()
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// httpServer is the http.Server of Start and Serve. Headers must arrive within 10 s; the body
// read deadline is set per request (see readBody), so that it also holds when Handler is
// served by another http.Server.
func (s *Server) httpServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      s.cfg.writeTimeout,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

// Shutdown stops accepting connections and waits for requests in flight, until ctx is done.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	hs := s.hs
	s.mu.Unlock()
	if hs == nil {
		return nil
	}
	return hs.Shutdown(ctx)
}

// Close stops the server at once, closing every connection.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hs == nil {
		return nil
	}
	err := s.hs.Close()
	s.hs, s.ln = nil, nil
	return err
}

// URL is the base URL of a started server, such as http://127.0.0.1:41234 ("" before Start).
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Default returns the default workspace's credentials, with URL set once the server started.
func (s *Server) Default() Workspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.seed
	ws.URL = s.url
	return ws
}

// Now returns the mock's current time.
func (s *Server) Now() time.Time { return s.clock.Now() }

// TB is the part of testing.TB that NewTest uses.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// NewTest starts a server on a free loopback port and closes it when the test ends.
func NewTest(t TB, opts ...Option) *Server {
	t.Helper()
	s := New(opts...)
	if err := s.Start(); err != nil {
		t.Fatalf("mockserver: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// dashboardClaims are the claims of a dashboard JWT.
type dashboardClaims struct {
	WID string `json:"wid"`
	jwt.RegisteredClaims
}

// DashboardToken returns a dashboard JWT (HS256) for the workspace, valid for ttl of the mock's
// clock.
func (s *Server) DashboardToken(workspaceID string, ttl time.Duration) string {
	now := s.clock.Now()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, dashboardClaims{
		WID: workspaceID,
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   "user_" + workspaceID,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		},
	})
	signed, err := tok.SignedString(s.cfg.jwtSecret)
	if err != nil {
		panic("mockserver: signing a JWT: " + err.Error()) // HS256 with a []byte key cannot fail
	}
	return signed
}
