package store

import (
	"crypto/sha256"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/fifo"
	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// MaxBalance is the highest wallet balance, in kobo (40,000,000,000,000,000.00 NGN): far above
// any real wallet (tests use huge ones so as never to run dry), and with MaxPrice low enough
// that no balance plus a charge or refund can overflow int64.
const MaxBalance = 4_000_000_000_000_000_000

// MaxPrice is the highest price of one SMS part, in kobo (10,000.00 NGN).
const MaxPrice = rules.MaxPrice

// DefaultSenderID is the active sender ID every workspace starts with.
const DefaultSenderID = "MOCKSMS"

// workspace holds everything of one workspace; mu guards all of it but the keys' atomics.
type workspace struct {
	id      ids.ID
	country string

	mu        sync.Mutex
	modes     [2]modeData
	senderIDs []*senderID // creation order
	keys      []*apiKey   // creation order
	gone      bool        // deleted: nothing more is added to it
}

// modeData is the part of a workspace that live and test keep apart.
type modeData struct {
	balance   int64       // kobo
	campaigns []*campaign // creation order, so ids ascend
	msgFrom   int         // campaigns[msgFrom:] are kept as messages; older ones' were cleared
	otpMsgs   []*otpMessage
	otps      map[string]*otp
	otpOrder  fifo.Queue[*otp]   // otps in the order sent, to forget them otpRetention later
	pending   map[string]*otp    // newest pending pin per phone
	otpSends  map[string][]int64 // send times per phone inside the limit window
}

// Credentials are what a test needs to talk to one workspace, but the URL and the dashboard
// token, which the HTTP layer adds.
type Credentials struct {
	WorkspaceID string
	LiveKey     string
	LiveSecret  string
	TestKey     string
	TestSecret  string
	SenderID    string
}

// MaxCountryLen is the longest country name, in characters, of a workspace.
const MaxCountryLen = 100

// ValidCountry reports whether s can be a workspace's country: 1 to MaxCountryLen characters.
func ValidCountry(s string) bool {
	return s != "" && utf8.RuneCountInString(s) <= MaxCountryLen
}

// WorkspaceParams configures NewWorkspace. Nil balances take the store's defaults; an empty
// Country takes the store's.
type WorkspaceParams struct {
	LiveBalance, TestBalance *int64 // kobo
	Country                  string
}

// NewWorkspace creates a workspace like the default one: a live and a test key with every
// scope, the active sender ID MOCKSMS, and funded wallets. Past the workspace limit it
// returns a *ConflictError and creates nothing.
func (st *Store) NewWorkspace(p WorkspaceParams, now int64) (Credentials, error) {
	live, test, country := st.cfg.LiveBalance, st.cfg.TestBalance, st.cfg.Country
	if p.LiveBalance != nil {
		live = *p.LiveBalance
	}
	if p.TestBalance != nil {
		test = *p.TestBalance
	}
	if p.Country != "" {
		if country = p.Country; !ValidCountry(country) {
			return Credentials{}, fieldError("country", "country must be 1 to %d characters.", MaxCountryLen)
		}
	}
	if err := checkBalance("liveBalance", live); err != nil {
		return Credentials{}, err
	}
	if err := checkBalance("testBalance", test); err != nil {
		return Credentials{}, err
	}
	creds, err := st.createWorkspace(country, live, test, Credentials{}, now)
	if err != nil {
		return Credentials{}, err
	}
	st.publish("workspace.created", struct {
		WorkspaceID string `json:"workspaceId"`
	}{creds.WorkspaceID})
	return creds, nil
}

// createWorkspace adds a workspace with a live and a test key of every scope and the active
// sender ID MOCKSMS. When seed holds credentials, the workspace reuses its id and keys.
func (st *Store) createWorkspace(country string, live, test int64, seed Credentials, now int64) (Credentials, error) {
	creds := seed
	id, ok := ids.Parse(creds.WorkspaceID)
	if !ok {
		id = st.cfg.IDs.Next()
		creds.WorkspaceID = id.String()
	}
	w := &workspace{id: id, country: country}
	w.modes[Live].balance, w.modes[Test].balance = live, test
	for i := range w.modes {
		w.modes[i].otps = make(map[string]*otp)
		w.modes[i].pending = make(map[string]*otp)
		w.modes[i].otpSends = make(map[string][]int64)
	}
	st.mu.Lock()
	if len(st.workspaces) >= st.cfg.MaxWorkspaces {
		st.mu.Unlock()
		return Credentials{}, conflict("The mock holds %d workspaces, its limit; reset it (POST /_mock/reset) or start it with a higher limit.", st.cfg.MaxWorkspaces)
	}
	st.workspaces[id] = w
	st.mu.Unlock()
	lk, ls := st.newKey("Default live key", "pk_live", AllScopes, now, 0, creds.LiveKey, creds.LiveSecret)
	tk, ts := st.newKey("Default test key", "pk_test", AllScopes, now, 0, creds.TestKey, creds.TestSecret)
	st.addKey(w, lk)
	st.addKey(w, tk)
	creds.LiveKey, creds.LiveSecret, creds.TestKey, creds.TestSecret = lk.public, ls, tk.public, ts
	_, _ = w.requestSenderID(&senderID{
		id: st.cfg.IDs.Next(), title: DefaultSenderID, status: SenderActive,
		usecase: "Mock server default sender ID", company: "Mock", createdAt: now,
	})
	creds.SenderID = DefaultSenderID
	return creds, nil
}

// WorkspaceInfo is a workspace as the inbox page lists it: no credentials.
type WorkspaceInfo struct {
	ID                       ids.ID
	Country                  string
	LiveBalance, TestBalance int64 // kobo
}

// Workspaces lists every workspace, oldest first.
func (st *Store) Workspaces() []WorkspaceInfo {
	all := st.allWorkspaces()
	slices.SortFunc(all, func(a, b *workspace) int {
		if a.id.Less(b.id) {
			return -1
		}
		return 1
	})
	out := make([]WorkspaceInfo, len(all))
	for i, w := range all {
		w.mu.Lock()
		out[i] = WorkspaceInfo{ID: w.id, Country: w.country, LiveBalance: w.modes[Live].balance, TestBalance: w.modes[Test].balance}
		w.mu.Unlock()
	}
	return out
}

// Balance returns the caller's wallet, in kobo.
func (st *Store) Balance(c Caller) int64 {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	return c.w.modes[c.Mode].balance
}

// WalletBalance returns a wallet of a workspace, in kobo.
func (st *Store) WalletBalance(workspaceID string, mode Mode) (int64, error) {
	w, err := st.workspaceByID(workspaceID)
	if err != nil {
		return 0, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.modes[mode].balance, nil
}

// SetBalance sets a wallet of a workspace, in kobo: from 0 to MaxBalance.
func (st *Store) SetBalance(workspaceID string, mode Mode, kobo int64) error {
	if err := checkBalance("balance", kobo); err != nil {
		return err
	}
	w, err := st.workspaceByID(workspaceID)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.modes[mode].balance = kobo
	w.mu.Unlock()
	st.walletMoved(w.id, mode, kobo)
	return nil
}

// checkBalance holds a wallet balance to 0..MaxBalance kobo.
func checkBalance(field string, kobo int64) error {
	if kobo < 0 || kobo > MaxBalance {
		return fieldError(field, "%s must be from 0.00 to %s NGN.", field, rules.FormatNaira(MaxBalance))
	}
	return nil
}

// hashSecret is how a key's secret is kept.
func hashSecret(secret string) [32]byte {
	var buf [64]byte // a secret of the mock's own length is hashed without a copy on the heap
	if len(secret) <= len(buf) {
		return sha256.Sum256(append(buf[:0], secret...))
	}
	return sha256.Sum256([]byte(secret))
}
