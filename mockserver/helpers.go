package mockserver

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/httpapi"
	"github.com/seedsms/sms-go/mockserver/internal/reqlog"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// Money in the Go API is always an int64 of kobo (100 kobo to the naira), in parameters,
// results and fields named for it: SetBalance's kobo, Balance's result,
// WorkspaceParams.LiveBalanceKobo and TestBalanceKobo, Message.CostKobo, Campaign.AmountKobo,
// WithBalances and WithPrices. The HTTP controls write it in naira with two decimals, as
// /v1 does.

// Kind is what a message is: an SMS of a send or campaign, or an OTP's.
type Kind string

// The kinds of message.
const (
	KindSMS Kind = "sms"
	KindOTP Kind = "otp"
)

// Status is a recipient's (a message's) delivery status.
type Status string

// The delivery statuses of a recipient.
const (
	StatusSent      Status = "sent"
	StatusDelivered Status = "delivered"
	StatusFailed    Status = "failed"
	StatusDND       Status = "dnd"
)

// CampaignStatus is where a campaign stands with the provider: processing, then sent, or
// failed (refused by the provider and refunded). Its words are the SDK's (sms.CampaignStatus)
// and the wire's.
type CampaignStatus string

// The campaign statuses.
const (
	CampaignStatusProcessing CampaignStatus = "processing"
	CampaignStatusSent       CampaignStatus = "sent"
	CampaignStatusFailed     CampaignStatus = "failed"
)

// Scope is what an API key may do. Its words are the SDK's (sms.Scope) and the wire's.
type Scope string

// The scopes of a key, each the constant of the same name of the SDK.
const (
	ScopeSMS       Scope = "sms"        // POST /v1/sms/send
	ScopeOTP       Scope = "otp"        // /v1/otp/...
	ScopeCampaigns Scope = "campaigns"  // /v1/sms/campaigns...
	ScopeSenderIDs Scope = "sender_ids" // /v1/sender-ids...
	ScopeBalance   Scope = "balance"    // GET /v1/balance
)

// KeyOptions configures NewKey.
type KeyOptions struct {
	Name   string        // shown in GET /v1/keys ("" is allowed)
	Mode   Mode          // ModeLive (the default) or ModeTest
	Scopes []Scope       // nil: every scope; an empty non-nil slice: none
	TTL    time.Duration // of the mock's clock; 0: the key never expires
}

// Key is an API key made by NewKey; its fields are named as the SDK's sms.Key names them.
// Printed (with any fmt verb) or logged with log/slog, it hides the secret.
type Key struct {
	ID        string // the key's id, as GET /v1/keys lists it
	PublicKey string // pk_live_... or pk_test_..., sent as X-API-Key
	Secret    string // sk_live_... or sk_test_..., sent as X-API-Secret
	Mode      Mode   // ModeLive or ModeTest
}

// String hides the secret.
func (k Key) String() string {
	return fmt.Sprintf("Key{ID: %s, PublicKey: %s, Mode: %s}", k.ID, k.PublicKey, k.Mode)
}

// Format writes String for every verb, so that no verb (%d, %t, %x, ...) reaches the secret.
func (k Key) Format(f fmt.State, verb rune) { reqlog.FormatRedacted(f, verb, k.String()) }

// LogValue is what log/slog writes: the key without its secret.
func (k Key) LogValue() slog.Value { return slog.StringValue(k.String()) }

// NewKey makes an API key of a workspace with the chosen mode and scopes in one call, as
// POST /v1/keys does for a dashboard. An unknown workspace, mode or scope, or a negative
// TTL, is an error and makes nothing.
func (s *Server) NewKey(workspaceID string, o KeyOptions) (Key, error) {
	c, err := s.api.Store().Workspace(workspaceID)
	if err != nil {
		return Key{}, httpapi.Err(err)
	}
	mode := o.Mode
	if mode == "" {
		mode = ModeLive
	}
	if _, ok := store.ParseMode(string(mode)); !ok {
		return Key{}, fmt.Errorf("mockserver: NewKey: mode %q is neither live nor test", mode)
	}
	scopes := store.AllScopes
	if o.Scopes != nil {
		scopes = 0
		for _, sc := range o.Scopes {
			bit := store.ScopeOf(string(sc))
			if bit == 0 {
				return Key{}, fmt.Errorf("mockserver: NewKey: unknown scope %q", sc)
			}
			scopes |= bit
		}
	}
	if o.TTL < 0 {
		return Key{}, fmt.Errorf("mockserver: NewKey: the TTL cannot be negative")
	}
	now := s.api.Now()
	var expires int64
	if o.TTL > 0 {
		expires = now.Add(o.TTL).UnixNano()
	}
	k, secret, err := s.api.Store().CreateKey(c, store.KeyParams{Name: o.Name, Prefix: "pk_" + string(mode), Scopes: scopes, ExpiresAt: expires}, now.UnixNano())
	if err != nil {
		return Key{}, httpapi.Err(err)
	}
	return Key{ID: k.ID.String(), PublicKey: k.Public, Secret: secret, Mode: mode}, nil
}

// Campaign is a campaign as a test reads it back: what it cost and where its recipients stand.
type Campaign struct {
	ID         string
	Status     CampaignStatus // CampaignStatusProcessing, CampaignStatusSent or CampaignStatusFailed (refused by the provider, refunded)
	Delivery   string         // "sent" while any recipient is, then "delivered", "partially_delivered" or "failed"
	SenderID   string
	Reference  string // "" when none was given
	Channel    string // "generic" or "dnd"
	Text       string // the message as sent, {{name}} unfilled; "" once its messages are forgotten
	Recipients int
	Counts     DeliverCounts // recipients delivered, failed and dnd
	Sent       int           // recipients still sent
	AmountKobo int64         // kobo charged; 0 when refunded
	CreatedAt  time.Time
}

// Campaigns returns the campaigns of a workspace in one mode, newest first.
func (s *Server) Campaigns(workspaceID string, mode Mode) ([]Campaign, error) {
	c, err := s.api.Store().Workspace(workspaceID)
	if err != nil {
		return nil, httpapi.Err(err)
	}
	m, ok := store.ParseMode(string(mode))
	if !ok {
		return nil, fmt.Errorf("mockserver: Campaigns: mode %q is neither live nor test", mode)
	}
	c.Mode = m
	now := s.api.Now().UnixNano()
	_, total := s.api.Store().Campaigns(c, 1, 1, now)
	list, _ := s.api.Store().Campaigns(c, 1, max(total, 1), now)
	out := make([]Campaign, len(list))
	for i := range list {
		cp := &list[i]
		counts := store.CountsOf(cp)
		out[i] = Campaign{
			ID: cp.ID.String(), Status: CampaignStatus(cp.Status.String()), Delivery: cp.Rollup(), SenderID: cp.SenderID,
			Reference: cp.Reference, Channel: cp.Channel.String(), Text: cp.Text(), Recipients: cp.Total(),
			Counts: DeliverCounts{Delivered: counts.Delivered, Failed: counts.Failed, DND: counts.DND},
			Sent:   counts.Sent, AmountKobo: cp.Amount, CreatedAt: time.Unix(0, cp.CreatedAt).UTC(),
		}
	}
	return out, nil
}
