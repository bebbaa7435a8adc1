// Package mockserver is an in-memory server that speaks the whole /v1 contract of the SMS API,
// so that applications can be tested without sending a real SMS or spending money.
//
// It is a real net/http server over an in-memory store: API keys with scopes and live/test
// modes, wallets in integer kobo, sender IDs, campaigns with per-recipient delivery state,
// OTPs, idempotency by reference (or none: WithReferenceDeduplication) and optional rate
// limits. Test controls, as HTTP routes under /_mock/ and as methods on Server, move sender
// IDs and deliveries along, set balances, move the clock and inject faults.
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
	"github.com/seedsms/sms-go/mockserver/internal/httpapi"
	"github.com/seedsms/sms-go/mockserver/internal/store"

	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Mode is a key's mode: live and test keys of one workspace use separate wallets and data.
type Mode string

// The two modes.
const (
	ModeLive Mode = "live"
	ModeTest Mode = "test"
)

// modeOf is a store mode as a Mode.
func modeOf(m store.Mode) Mode { return Mode(m.String()) }

// Workspace is what a test needs to talk to one workspace: its credentials and active sender
// ID. Printed (with any fmt verb), logged with log/slog or marshalled to JSON, it hides the
// secrets and the dashboard token; read the fields to use them, or Credentials for a form
// whose JSON shows them (what POST /_mock/workspaces answers).
type Workspace struct {
	URL            string `json:"url"`            // the server's base URL; "" before it listens
	WorkspaceID    string `json:"workspaceId"`    // 24 hexadecimal digits
	DashboardToken string `json:"dashboardToken"` // a dashboard JWT for /v1/keys, valid a year of the mock's clock
	LiveKey        string `json:"liveKey"`        // the live key's public part, pk_live_...
	LiveSecret     string `json:"liveSecret"`     // the live key's secret, sk_live_...
	TestKey        string `json:"testKey"`        // the test key's public part, pk_test_...
	TestSecret     string `json:"testSecret"`     // the test key's secret, sk_test_...
	SenderID       string `json:"senderId"`       // an active sender ID (MOCKSMS)
}

// The facade's Workspace and the HTTP layer's have the same fields: one converts to the other,
// so that a field added to one and not the other does not compile, and its methods are the
// HTTP layer's (TestPublicTypesJSON holds their JSON equal).

// workspaceOf is the HTTP layer's workspace as a Workspace.
func workspaceOf(w httpapi.Workspace) Workspace { return Workspace(w) }

// Credentials returns w in the form that shows its secrets and token.
func (w Workspace) Credentials() Credentials { return Credentials(w) }

// String hides the secrets and the token.
func (w Workspace) String() string { return httpapi.Workspace(w).String() }

// Format writes String for every verb, so that no verb (%d, %t, %x, ...) reaches the secrets.
func (w Workspace) Format(f fmt.State, verb rune) { httpapi.Workspace(w).Format(f, verb) }

// LogValue is what log/slog writes: the workspace without its secrets and token.
func (w Workspace) LogValue() slog.Value { return httpapi.Workspace(w).LogValue() }

// MarshalJSON writes the workspace with the secrets and the token replaced by "[REDACTED]".
func (w Workspace) MarshalJSON() ([]byte, error) { return httpapi.Workspace(w).MarshalJSON() }

// Credentials is a Workspace, its fields and JSON members, without Workspace's methods: its
// printed and JSON forms show the secrets and the token, for where they are meant to be read
// (Workspace.Credentials returns it): the JSON of POST /_mock/workspaces, and the mock
// binary's startup line.
type Credentials Workspace

// Server is the mock. Create it with New, then Start it, or serve Handler yourself. All its
// methods are safe for concurrent use.
type Server struct {
	cfg config
	api *httpapi.API

	mu  sync.Mutex
	ln  net.Listener
	hs  *http.Server
	url string
}

// New returns a server with a default workspace: a live and a test key with every scope, the
// active sender ID MOCKSMS, and both wallets funded. An option out of its documented range is
// an error naming the option, and no server. New without options cannot fail.
func New(opts ...Option) (*Server, error) {
	s := &Server{cfg: defaults()}
	for _, o := range opts {
		o(&s.cfg)
	}
	if err := s.cfg.check(); err != nil {
		return nil, err
	}
	s.api = httpapi.New(s.cfg.api(s.URL))
	return s, nil
}

// Reset forgets everything: workspaces, campaigns, OTPs, faults, recorded requests and clock
// moves. The default workspace comes back with the same credentials.
func (s *Server) Reset() { s.api.Reset() }

// Handler returns the server's http.Handler, for serving it in your own http.Server or calling
// it in-process. It bounds each body read by the read timeout itself; requests that arrive
// over a connection must name a loopback or allowed Host (see WithAllowedHosts), and
// cross-site state-changing requests are refused, however it is served. The request log
// keeps each request's header map as it came (see Requests): when calling ServeHTTP yourself,
// do not change a request's headers once it has been served.
func (s *Server) Handler() http.Handler { return s.api }

// Start listens on the configured address and serves in the background.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return errors.New("mockserver: already started")
	}
	ln, err := net.Listen("tcp", s.cfg.addr)
	if err != nil {
		return fmt.Errorf("mockserver: listen: %w", err)
	}
	hs := s.serveOn(ln)
	go func() { _ = hs.Serve(ln) }()
	return nil
}

// Serve serves on ln until Shutdown or Close; it is what Start does, for callers that need the
// listener in hand (the mock binary prints its startup line once ln accepts).
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.ln != nil {
		s.mu.Unlock()
		return errors.New("mockserver: already started")
	}
	hs := s.serveOn(ln)
	s.mu.Unlock()
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// serveOn makes the http.Server of ln; s.mu must be held. Headers must arrive within 10 s;
// the body read deadline is set per request (see Handler), so that it also holds when Handler
// is served by another http.Server.
func (s *Server) serveOn(ln net.Listener) *http.Server {
	s.api.ResumeDelivery() // after a Close
	s.ln = ln
	s.url = "http://" + dialAddr(ln.Addr())
	s.hs = &http.Server{
		Handler:           s.api,
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      s.cfg.writeTimeout,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	s.hs.RegisterOnShutdown(s.api.Stop) // event streams and long polls end
	return s.hs
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
	s.api.StopDelivery()
	return err
}

// dialAddr is the host:port a client on this machine dials to reach a listener on a: the
// listener's own address, but 127.0.0.1 for one on all interfaces (0.0.0.0 or ::), which
// the mock answers and a browser may name.
func dialAddr(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port))
	}
	return a.String()
}

// URL is the base URL of a started server, such as http://127.0.0.1:41234 ("" before Start).
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Default returns the default workspace's credentials, with URL set once the server started.
func (s *Server) Default() Workspace { return workspaceOf(s.api.Default()) }

// Now returns the mock's current time.
func (s *Server) Now() time.Time { return s.api.Now() }

// TB is the part of testing.TB that NewTest uses.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// NewTest starts a server on a free loopback port and closes it when the test ends; an option
// out of its range fails the test, as New would return it. Like New,
// it delivers nothing by itself unless WithAutoDelivery is among opts: recipients stay sent
// until the test moves them (Deliver, DeliverAll), or Advance passes the delay it chose.
func NewTest(t TB, opts ...Option) *Server {
	t.Helper()
	s, err := New(opts...)
	if err == nil {
		err = s.Start()
	}
	if err != nil {
		t.Fatalf("mockserver: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// DashboardToken returns a dashboard JWT (HS256) for the workspace, valid for ttl of the mock's
// clock.
func (s *Server) DashboardToken(workspaceID string, ttl time.Duration) string {
	return s.api.DashboardToken(workspaceID, ttl)
}
