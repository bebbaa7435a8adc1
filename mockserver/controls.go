package mockserver

import (
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/httpapi"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// The test controls as Go methods; each does what its /_mock/ route does, and fails the same
// way: its error reads as the route's answer would ("400 bad_request: ...").

// WorkspaceParams configures NewWorkspace. Nil balances take the server's defaults; an empty
// Country takes the server's.
type WorkspaceParams struct {
	LiveBalanceKobo *int64 // the live wallet, in kobo
	TestBalanceKobo *int64 // the test wallet, in kobo
	Country         string // of the workspace and its sender IDs
}

// NewWorkspace creates a workspace like the default one: a live and a test key with every
// scope, the active sender ID MOCKSMS, and funded wallets. Past WithWorkspaceLimit it returns
// an error and creates nothing.
func (s *Server) NewWorkspace(p WorkspaceParams) (Workspace, error) {
	ws, err := s.api.NewWorkspace(store.WorkspaceParams{LiveBalance: p.LiveBalanceKobo, TestBalance: p.TestBalanceKobo, Country: p.Country})
	return workspaceOf(ws), err
}

// DeleteWorkspace forgets a workspace made by NewWorkspace and everything of it, leaving the
// others untouched: its keys (which then answer 401), wallets, sender IDs, campaigns, OTPs,
// messages and the fault rules that name it; it is what DELETE /_mock/workspaces/{id} does.
// What is server-wide stays: the clock, the Do-Not-Disturb register, the request log and
// the event stream. The default workspace cannot be deleted (Reset starts it anew); an
// unknown id is an error.
func (s *Server) DeleteWorkspace(workspaceID string) error {
	_, err := s.api.DeleteWorkspace(workspaceID)
	return err
}

// SetBalance sets a wallet of a workspace, in kobo.
func (s *Server) SetBalance(workspaceID string, mode Mode, kobo int64) error {
	return s.api.SetBalance(workspaceID, string(mode), kobo)
}

// Balance returns a wallet of a workspace, in kobo.
func (s *Server) Balance(workspaceID string, mode Mode) (int64, error) {
	m, _ := store.ParseMode(string(mode)) // anything but ModeTest is the live wallet
	kobo, err := s.api.Store().WalletBalance(workspaceID, m)
	return kobo, httpapi.Err(err)
}

// ApproveSenderID makes a pending sender ID active.
func (s *Server) ApproveSenderID(id string) error {
	_, err := s.api.Store().MoveSenderID(id, store.SenderActive)
	return httpapi.Err(err)
}

// BlockSenderID makes a pending sender ID blocked.
func (s *Server) BlockSenderID(id string) error {
	_, err := s.api.Store().MoveSenderID(id, store.SenderBlocked)
	return httpapi.Err(err)
}

// DeliverCounts says how many of a campaign's sent recipients Deliver moves to each status.
type DeliverCounts struct {
	Delivered int `json:"delivered"`
	Failed    int `json:"failed"`
	DND       int `json:"dnd"`
}

// Deliver moves a campaign's sent recipients, in request order: the first c.Delivered to
// delivered, the next c.Failed to failed, the next c.DND to dnd. A nil c delivers them all;
// counts past what is still sent settle what is, in that order.
func (s *Server) Deliver(campaignID string, c *DeliverCounts) error {
	_, err := s.api.Store().Deliver(campaignID, (*store.DeliverCounts)(c), s.api.Now().UnixNano())
	return httpapi.Err(err)
}

// DeliverAll settles every recipient still sent, of every campaign of every workspace, by
// the rules of automatic delivery (see WithAutoDelivery): MagicSlow is delivered at once,
// MagicPending stays sent, and a campaign still processing is sent first. It returns how
// many campaigns changed; it is what POST /_mock/deliver does.
func (s *Server) DeliverAll() int { return s.api.DeliverAll() }

// The magic test numbers: sends to them behave as WithAutoDelivery's table says, in every
// workspace. They sit in a reserved-looking range (0700 000 000X); keep them out of other
// test data.
const (
	MagicFailed  = "2347000000001" // always failed
	MagicPending = "2347000000002" // stays sent
	MagicDND     = "2347000000003" // dnd on the generic channel
	MagicRefused = "2347000000004" // the whole campaign is refused: failed and refunded
	MagicSlow    = "2347000000005" // delivered after SlowDeliveryDelay
)

// SlowDeliveryDelay is how long after its send MagicSlow is delivered automatically.
const SlowDeliveryDelay = 10 * time.Minute

// AddDND puts numbers on the Do-Not-Disturb register: sends to them on the generic channel
// get the recipient status dnd.
func (s *Server) AddDND(numbers ...string) error {
	_, err := s.api.Store().AddDND(numbers...)
	return httpapi.Err(err)
}

// LatestOTP returns the newest pin sent to a number, as the phone received it. A pin the
// provider refused (MagicRefused, a ProviderFailure fault) was never sent, and is not one.
func (s *Server) LatestOTP(to string) (pinID, pin string, err error) {
	pinID, pin, err = s.api.Store().LatestPin(to)
	return pinID, pin, httpapi.Err(err)
}

// Advance moves the mock's clock forward by d: pins and keys expire, idempotency and
// rate-limit windows pass, processing campaigns are sent, automatic delivery (see
// WithAutoDelivery) delivers what falls due. A negative d, or one that would
// take the clock past 2200-01-01T00:00:00Z, is an error and the clock does not move.
func (s *Server) Advance(d time.Duration) error { return s.api.Advance(d) }
