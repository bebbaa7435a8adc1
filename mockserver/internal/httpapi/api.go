package httpapi

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seedsms/sms-go/mockserver/internal/clock"
	"github.com/seedsms/sms-go/mockserver/internal/events"
	"github.com/seedsms/sms-go/mockserver/internal/faults"
	"github.com/seedsms/sms-go/mockserver/internal/idem"
	"github.com/seedsms/sms-go/mockserver/internal/ids"
	"github.com/seedsms/sms-go/mockserver/internal/reqlog"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// Config is what an API is made with: the mockserver facade fills it from its options,
// checked.
type Config struct {
	GenericPrice, DNDPrice   int64  // kobo per part
	LiveBalance, TestBalance int64  // kobo
	Country                  string // of new workspaces
	RateLimit                int    // requests per key per minute; 0: none
	JWTSecret                []byte // signs dashboard tokens; empty: random
	Now                      func() time.Time
	Logger                   *slog.Logger // one line per request; nil: none
	RequestLogSize           int
	ReadTimeout              time.Duration // of a request body; 0: none
	AllowedHosts             []string      // besides loopback ones
	IdempotencyLimit         int           // references per workspace
	IdempotencyTotalLimit    int           // references in all workspaces
	MaxMessages              int
	MaxWorkspaces            int
	MaxDND                   int
	DeliveryDelay            time.Duration // of automatic delivery; 0: none
	URL                      func() string // the server's base URL, "" before it listens
	Documented               bool          // /v1 answers only what the live docs show
	DeduplicateReferences    bool          // a send's reference replays (or conflicts with) an earlier send
}

// API serves the mock's routes. Its methods are safe for concurrent use.
type API struct {
	cfg    Config
	clock  *clock.Clock
	ids    *ids.Gen
	routes []*pathRoute
	state  atomic.Pointer[state]

	// What outlives Reset: the event stream and the waiters for new messages.
	bus      *events.Bus
	watchers store.Watchers
	waiting  atomic.Int32 // long polls in progress

	delivery deliveryTimer          // of automatic delivery
	lastHost atomic.Pointer[string] // the last Host header allowed (see hostAllowed)

	mu   sync.Mutex
	seed Workspace // credentials of the default workspace, kept across Reset
}

// state is everything Reset forgets.
type state struct {
	store  *store.Store
	idem   *idem.Table
	faults *faults.List
	log    *reqlog.Log
}

// Workspace is what a test needs to talk to one workspace: the facade's mockserver.Workspace,
// which documents it. Printed (with any fmt verb), logged with log/slog or marshalled to JSON,
// it hides the secrets and the dashboard token; Credentials shows them.
type Workspace struct {
	URL            string `json:"url"` // "" before the server listens
	WorkspaceID    string `json:"workspaceId"`
	DashboardToken string `json:"dashboardToken"`
	LiveKey        string `json:"liveKey"`
	LiveSecret     string `json:"liveSecret"`
	TestKey        string `json:"testKey"`
	TestSecret     string `json:"testSecret"`
	SenderID       string `json:"senderId"` // active
}

// Credentials is a Workspace whose printed and JSON forms show the secrets and the token: the
// answer of POST /_mock/workspaces, and the mock binary's startup line.
type Credentials Workspace

// Credentials returns w in the form that shows its secrets and token.
func (w Workspace) Credentials() Credentials { return Credentials(w) }

// String hides the secrets and the token.
func (w Workspace) String() string {
	return fmt.Sprintf("Workspace{ID: %s, LiveKey: %s, TestKey: %s, SenderID: %s}", w.WorkspaceID, w.LiveKey, w.TestKey, w.SenderID)
}

// GoString hides the secrets and the token from %#v.
func (w Workspace) GoString() string { return w.String() }

// Format writes String for every verb, so that no verb (%d, %t, %x, ...) reaches the secrets.
func (w Workspace) Format(f fmt.State, verb rune) { reqlog.FormatRedacted(f, verb, w.String()) }

// LogValue is what log/slog writes: the workspace without its secrets and token.
func (w Workspace) LogValue() slog.Value {
	return slog.GroupValue(slog.String("workspaceId", w.WorkspaceID), slog.String("url", w.URL),
		slog.String("liveKey", w.LiveKey), slog.String("testKey", w.TestKey), slog.String("senderId", w.SenderID))
}

// MarshalJSON writes the workspace with the secrets and the token replaced by "[REDACTED]".
func (w Workspace) MarshalJSON() ([]byte, error) {
	c := w.Credentials()
	c.LiveSecret, c.TestSecret, c.DashboardToken = reqlog.Redact(c.LiveSecret), reqlog.Redact(c.TestSecret), reqlog.Redact(c.DashboardToken)
	return json.Marshal(c)
}

// New returns an API with a default workspace.
func New(cfg Config) *API {
	if len(cfg.JWTSecret) == 0 {
		cfg.JWTSecret = make([]byte, 32)
		_, _ = rand.Read(cfg.JWTSecret)
	}
	if cfg.URL == nil {
		cfg.URL = func() string { return "" }
	}
	a := &API{cfg: cfg, clock: clock.New(cfg.Now), ids: ids.NewGen(), bus: events.NewBus(events.RingSize)}
	a.routes = buildRoutes()
	a.Reset()
	return a
}

// Reset forgets everything: workspaces, campaigns, OTPs, faults, recorded requests and clock
// moves. The default workspace comes back with the same credentials.
func (a *API) Reset() {
	a.clock.Reset()
	a.mu.Lock()
	seed := a.seed
	a.mu.Unlock()
	st := &state{idem: idem.NewTotal(a.cfg.IdempotencyLimit, a.cfg.IdempotencyTotalLimit), faults: &faults.List{}, log: reqlog.New(a.cfg.RequestLogSize)}
	var creds store.Credentials
	st.store, creds = store.New(store.Config{
		GenericPrice: a.cfg.GenericPrice, DNDPrice: a.cfg.DNDPrice,
		LiveBalance: a.cfg.LiveBalance, TestBalance: a.cfg.TestBalance, Country: a.cfg.Country,
		MaxWorkspaces: a.cfg.MaxWorkspaces, MaxDND: a.cfg.MaxDND, MaxMessages: a.cfg.MaxMessages,
		IDs: a.ids, Events: a.bus, Watchers: &a.watchers, DeliveryDelay: a.cfg.DeliveryDelay, Due: a.due,
		Now: func() int64 { return a.clock.Now().UnixNano() },
	}, store.Credentials{WorkspaceID: seed.WorkspaceID, LiveKey: seed.LiveKey, LiveSecret: seed.LiveSecret,
		TestKey: seed.TestKey, TestSecret: seed.TestSecret}, a.clock.Now().UnixNano())
	ws := a.workspaceOf(creds, seed.DashboardToken)
	a.mu.Lock()
	a.seed = ws
	a.mu.Unlock()
	if old := a.state.Swap(st); old != nil {
		a.bus.Publish("reset", struct{}{})
	}
}

// Store is the store of the moment: Reset replaces it.
func (a *API) Store() *store.Store { return a.state.Load().store }

// Watch registers a wait for the first messages q selects among those sent from now on, in
// this store or the next (Reset); store.Watchers.Watch documents it. Stop must follow.
func (a *API) Watch(q store.Query, offset, limit int) *store.Watch {
	return a.watchers.Watch(q, offset, limit)
}

// Stop ends the event streams and long polls: the server is shutting down.
func (a *API) Stop() { a.bus.Stop() }

// Now is the mock's time.
func (a *API) Now() time.Time { return a.clock.Now() }

// Default is the default workspace's credentials, with the server's URL.
func (a *API) Default() Workspace {
	a.mu.Lock()
	ws := a.seed
	a.mu.Unlock()
	ws.URL = a.cfg.URL()
	return ws
}

// dashboardTokenTTL is how long the dashboard token of a new workspace lasts.
const dashboardTokenTTL = 365 * 24 * time.Hour

// workspaceOf is the Workspace of credentials the store made, with the URL and token, or a new
// dashboard token when token is empty.
func (a *API) workspaceOf(c store.Credentials, token string) Workspace {
	if token == "" {
		token = a.DashboardToken(c.WorkspaceID, dashboardTokenTTL)
	}
	return Workspace{
		URL: a.cfg.URL(), WorkspaceID: c.WorkspaceID, DashboardToken: token,
		LiveKey: c.LiveKey, LiveSecret: c.LiveSecret, TestKey: c.TestKey, TestSecret: c.TestSecret, SenderID: c.SenderID,
	}
}

// dashboardClaims are the claims of a dashboard JWT.
type dashboardClaims struct {
	WID string `json:"wid"`
	jwt.RegisteredClaims
}

// DashboardToken returns a dashboard JWT (HS256) for the workspace, valid for ttl of the mock's
// clock.
func (a *API) DashboardToken(workspaceID string, ttl time.Duration) string {
	now := a.clock.Now()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, dashboardClaims{
		WID: workspaceID,
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   "user_" + workspaceID,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		},
	})
	signed, err := tok.SignedString(a.cfg.JWTSecret)
	if err != nil {
		panic("mockserver: signing a JWT: " + err.Error()) // HS256 with a []byte key cannot fail
	}
	return signed
}

// Err is the error a Go control returns for err: the API's error, as the same control over
// HTTP answers it ("400 bad_request: ..."), or nil.
func Err(err error) error {
	if err == nil {
		return nil
	}
	return apiErrorOf(err)
}
