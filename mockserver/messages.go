package mockserver

import (
	"encoding/json"
	"log/slog"
	"math"

	"github.com/seedsms/sms-go/mockserver/internal/httpapi"
	"github.com/seedsms/sms-go/mockserver/internal/reqlog"
	"github.com/seedsms/sms-go/mockserver/internal/store"

	"context"
	"fmt"
	"strings"
	"time"
)

// The mock as a phone's inbox: every recipient of every accepted send, campaign and OTP is a
// message. Messages are not stored one by one: a campaign keeps its template once and its
// recipients' names in one string, and a message is rendered from them when it is read. Its id
// is the campaign's id and the recipient's index.

// Message is one SMS as the phone received it.
type Message struct {
	ID          string    // the campaign's (or OTP's) id, "-" and the recipient's index
	To          string    // normalized, digits only
	From        string    // the sender ID
	Text        string    // as the phone shows it: {{name}} filled, an OTP's pin in place
	Kind        Kind      // KindSMS or KindOTP
	Channel     string    // "generic" or "dnd"
	Parts       int       // SMS parts of Text
	Encoding    string    // "GSM-7" or "UCS-2"
	CampaignID  string    // "" for an OTP
	Reference   string    // the campaign's reference; "" when it had none, and for an OTP
	Status      Status    // StatusSent, StatusDelivered, StatusFailed or StatusDND
	CostKobo    int64     // kobo charged for this message; 0 when refunded
	PinID       string    // an OTP's pin ID
	Pin         string    // an OTP's pin
	Verified    bool      // an OTP's pin was verified
	CreatedAt   time.Time // when it was sent
	UpdatedAt   time.Time // when Status last changed
	WorkspaceID string    // the workspace of the key that sent it
	Mode        Mode      // the mode of the key that sent it
}

// String describes the message with an OTP's pin hidden, in its text too, so that a test log
// printing a message with %v or %+v does not spread the pin.
func (m Message) String() string {
	r := m.redacted()
	return fmt.Sprintf("Message{ID: %s, Kind: %s, To: %s, From: %s, Text: %q, Status: %s, Pin: %s, Verified: %t, Mode: %s}",
		r.ID, r.Kind, r.To, r.From, r.Text, r.Status, r.Pin, r.Verified, r.Mode)
}

// Format writes String for every verb, so that no verb (%d, %t, %x, ...) reaches the pin.
func (m Message) Format(f fmt.State, verb rune) { reqlog.FormatRedacted(f, verb, m.String()) }

// LogValue is what log/slog writes: the message with an OTP's pin hidden, in its text too.
func (m Message) LogValue() slog.Value {
	r := m.redacted()
	return slog.GroupValue(slog.String("id", r.ID), slog.String("kind", string(r.Kind)), slog.String("to", r.To),
		slog.String("from", r.From), slog.String("text", r.Text), slog.String("status", string(r.Status)),
		slog.String("pin", r.Pin), slog.Bool("verified", r.Verified), slog.String("mode", string(r.Mode)))
}

// MarshalJSON writes every field, with an OTP's pin replaced by "[REDACTED]", in the text too.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message // without the methods
	return json.Marshal(plain(m.redacted()))
}

// redacted is m with an OTP's pin hidden, in its text too.
func (m Message) redacted() Message {
	if m.Pin != "" {
		m.Text, m.Pin = strings.ReplaceAll(m.Text, m.Pin, reqlog.Redacted), reqlog.Redacted
	}
	return m
}

// Filter selects messages; its zero value selects all of them. Every field set must match.
type Filter struct {
	To          string    // the number, in any form a send accepts
	From        string    // the sender ID, in any case
	CampaignID  string    // the campaign
	Kind        Kind      // KindSMS or KindOTP
	Contains    string    // text that Text contains, in any case
	Since       time.Time // created at or after
	WorkspaceID string    // the workspace
	Mode        Mode      // ModeLive or ModeTest
}

// storeFilter is f in the store's terms.
func storeFilter(f Filter) (store.Query, error) {
	return store.NewQuery(store.Filter{To: f.To, From: f.From, CampaignID: f.CampaignID, Kind: string(f.Kind),
		Contains: f.Contains, Since: f.Since, WorkspaceID: f.WorkspaceID, Mode: string(f.Mode)})
}

// messageOf is a stored message as a Message.
func messageOf(m store.Message) Message {
	return Message{ID: m.ID, To: m.To, From: m.From, Text: m.Text, Kind: Kind(m.Kind), Channel: m.Channel,
		Parts: m.Parts, Encoding: m.Encoding, CampaignID: m.CampaignID, Reference: m.Reference, Status: Status(m.Status), CostKobo: m.Cost,
		PinID: m.PinID, Pin: m.Pin, Verified: m.Verified, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		WorkspaceID: m.WorkspaceID, Mode: modeOf(m.Mode)}
}

// Messages returns the messages f selects, newest first. A filter with a value that cannot
// match (a malformed number or id, an unknown kind or mode) selects none.
func (s *Server) Messages(f Filter) []Message {
	q, err := storeFilter(f)
	if err != nil {
		return []Message{}
	}
	list, _ := s.api.Store().Messages(q, 0, math.MaxInt)
	out := make([]Message, len(list))
	for i, m := range list {
		out[i] = messageOf(m)
	}
	return out
}

// WaitMessage returns the newest message f selects, waiting until one arrives or ctx is done.
// A message that is already there returns at once; set Filter.Since to wait for a new one.
func (s *Server) WaitMessage(ctx context.Context, f Filter) (Message, error) {
	q, err := storeFilter(f)
	if err != nil {
		return Message{}, httpapi.Err(err)
	}
	for {
		// Watched before the look, so that nothing sent meanwhile is missed.
		w := s.api.Watch(q, 0, 1)
		if m, ok := s.api.Store().FirstMessage(q); ok {
			w.Stop()
			return messageOf(m), nil
		}
		select {
		case <-w.Done():
			if list, _ := w.Messages(); len(list) > 0 {
				return messageOf(list[0]), nil
			}
			// forgotten (a clear, a trim) before it could be read: wait on
		case <-ctx.Done():
			w.Stop()
			return Message{}, ctx.Err()
		}
	}
}

// ClearMessages forgets every message and returns how many there were. Campaigns, OTPs and
// wallets stay.
func (s *Server) ClearMessages() int { return s.api.Store().ClearMessages() }
