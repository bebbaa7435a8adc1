package store

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/events"
	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// Mode is a key's mode: live and test keys of one workspace use separate wallets and data.
type Mode uint8

// The two modes.
const (
	Live Mode = iota
	Test
)

var modeNames = [...]string{"live", "test"}

// String is "live" or "test".
func (m Mode) String() string { return modeNames[m] }

// ParseMode reads "live" or "test".
func ParseMode(s string) (Mode, bool) {
	switch s {
	case "live":
		return Live, true
	case "test":
		return Test, true
	}
	return 0, false
}

// Scopes is a set of a key's scopes, one bit per name of rules.ScopeNames, in that order.
type Scopes uint8

// The scopes.
const (
	ScopeSMS Scopes = 1 << iota
	ScopeOTP
	ScopeCampaigns
	ScopeSenderIDs
	ScopeBalance

	AllScopes = ScopeSMS | ScopeOTP | ScopeCampaigns | ScopeSenderIDs | ScopeBalance
)

// ScopeOf is the scope of a name of rules.ScopeNames, or 0.
func ScopeOf(name string) Scopes {
	if i := slices.Index(rules.ScopeNames[:], name); i >= 0 {
		return 1 << i
	}
	return 0
}

// Name is the name of a single scope, or "".
func (s Scopes) Name() string {
	for i, name := range rules.ScopeNames {
		if s == 1<<i {
			return name
		}
	}
	return ""
}

// Config is what a store is made with.
type Config struct {
	GenericPrice, DNDPrice   int64  // kobo per part
	LiveBalance, TestBalance int64  // kobo: the default workspace's, and new ones' by default
	Country                  string // of new workspaces and their sender IDs
	MaxWorkspaces            int    // the default one included
	MaxDND                   int    // numbers on the register
	MaxMessages              int    // recipients of campaigns and OTP messages kept

	// DeliveryDelay is how long after its send a campaign's recipients are delivered by
	// themselves (see Settle); 0: never.
	DeliveryDelay time.Duration
	// Due, when set, is told the time a send's recipients fall due when that comes before
	// anything else queued for automatic delivery, so that someone calls Settle then.
	Due func(at int64)
	// Now, when set, is the mock's clock, for what a read derives from time (a slow OTP's
	// delivery); unset, such a time never comes.
	Now func() int64

	IDs      *ids.Gen    // shared by every store of a server, so ids never repeat
	Events   *events.Bus // where changes are published
	Watchers *Watchers   // who waits for new messages, shared by every store of a server; nil: no one
}

// Store is the whole state of one server between resets. It is safe for concurrent use.
type Store struct {
	cfg Config

	mu         sync.RWMutex
	workspaces map[ids.ID]*workspace
	keys       map[string]*apiKey // by public key

	dndMu sync.RWMutex
	dnd   map[uint64]struct{}

	latestPins LatestPins

	due dueQueue // campaigns awaiting automatic delivery, by due time

	idx *msgIndex // the messages, for the inbox's lists

	madeKeys      quota // keys made through CreateKey
	madeSenderIDs quota // sender IDs requested through RequestSenderID

	stored atomic.Int64 // recipients of campaigns and OTP messages kept, over every workspace and mode (see keep)
	trimMu sync.Mutex   // one trim of the oldest campaigns at a time
}

// New returns a store holding one workspace, the default one, made from seed's credentials
// when it has them (see NewWorkspace).
func New(cfg Config, seed Credentials, now int64) (*Store, Credentials) {
	st := &Store{
		cfg:        cfg,
		workspaces: make(map[ids.ID]*workspace),
		keys:       make(map[string]*apiKey),
		dnd:        make(map[uint64]struct{}),
		idx:        newIndex(),
	}
	st.due.init()
	creds, _ := st.createWorkspace(cfg.Country, cfg.LiveBalance, cfg.TestBalance, seed, now) // the first: within any limit
	return st, creds
}

// now is the mock's clock, or 0 without one.
func (st *Store) now() int64 {
	if st.cfg.Now == nil {
		return 0
	}
	return st.cfg.Now()
}

// Caller is who a request acts for: a workspace, and when an API key authenticated it, the
// key's mode and scopes. The store hands it out (Authenticate, Dashboard) and takes it back.
type Caller struct {
	Workspace ids.ID
	Mode      Mode
	Scopes    Scopes
	HasKey    bool // authenticated by an API key, not a dashboard token

	w *workspace
	k *apiKey
}

func (st *Store) workspace(id ids.ID) *workspace {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.workspaces[id]
}

// workspaceByID finds a workspace by its written id.
func (st *Store) workspaceByID(id string) (*workspace, error) {
	wid, ok := ids.Parse(id)
	if !ok {
		return nil, notFound("Workspace")
	}
	w := st.workspace(wid)
	if w == nil {
		return nil, notFound("Workspace")
	}
	return w, nil
}

func (st *Store) allWorkspaces() []*workspace {
	st.mu.RLock()
	defer st.mu.RUnlock()
	out := make([]*workspace, 0, len(st.workspaces))
	for _, w := range st.workspaces {
		out = append(out, w)
	}
	return out
}

// Dashboard is the caller of a dashboard token naming workspace id, or false when there is no
// such workspace.
func (st *Store) Dashboard(id ids.ID) (Caller, bool) {
	w := st.workspace(id)
	if w == nil {
		return Caller{}, false
	}
	return Caller{Workspace: id, w: w}, true
}

// Workspace is a caller acting for a workspace named by id, in the live mode, as the mock's
// controls do.
func (st *Store) Workspace(id string) (Caller, error) {
	w, err := st.workspaceByID(id)
	if err != nil {
		return Caller{}, err
	}
	return Caller{Workspace: w.id, w: w}, nil
}

// parsePhone normalizes a number as the API accepts it into its digits as an integer, or
// says why not with field in the error.
func parsePhone(field, s string) (uint64, error) {
	n, err := rules.NormalizePhone(s)
	if err != nil {
		return 0, fieldError(field, "%s: %v.", field, err)
	}
	return parseDigits(n), nil
}

// ParsePhone is parsePhone for callers outside the store (filters, send bodies).
func ParsePhone(field, s string) (uint64, error) { return parsePhone(field, s) }

func parseDigits(n string) uint64 {
	var p uint64
	for i := 0; i < len(n); i++ {
		p = p*10 + uint64(n[i]-'0')
	}
	return p
}
