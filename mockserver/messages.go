package mockserver

import (
	"math"

	"github.com/seedsms/sms-go/mockserver/internal/reqlog"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"

	"github.com/seedsms/sms-go/mockserver/internal/events"

	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// The mock as a phone's inbox: every recipient of every accepted send, campaign and OTP is a
// message. Messages are not stored one by one: a campaign keeps its template once and its
// recipients' names in one string, and a message is rendered from them when it is read. Its id
// is the campaign's id and the recipient's index.

// DefaultMaxMessages is how many recipients of campaigns and OTP messages a server stores
// unless WithMessageLimit says otherwise: the bound of the campaign store. Past it the oldest
// campaigns are forgotten entirely, with their messages. A stored recipient costs 16 bytes
// beyond its campaign (20 plus the bytes of its name when the campaign is personalised), a
// campaign about 185 bytes, and an OTP message about 220 (docs/benchmarks.md), so a full store
// of campaigns of many recipients takes about 18 MB, and of one-recipient campaigns about
// 200 MB.
const DefaultMaxMessages = store.DefaultMaxMessages

// WithMessageLimit stores at most n recipients of campaigns and OTP messages, over every
// workspace and mode (default DefaultMaxMessages; n < 1 keeps the default). When a send takes
// the total past n, the oldest campaigns and OTP messages are forgotten entirely until at most
// n − n/64 are left (n itself under 64), so that a full store is not trimmed at every send: a
// forgotten campaign leaves the campaign list, and its status and delivery controls answer
// 404. A campaign alone larger than n is forgotten as soon as it is accepted.
// DELETE /_mock/messages forgets messages but not campaigns: their recipients still count.
func WithMessageLimit(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxMessages = n
		}
	}
}

// Bounds of waiting for messages over HTTP.
const (
	maxWaiting = 256              // long polls at once; more are 429
	maxWait    = 60 * time.Second // the longest wait= a long poll takes
)

// inboxState is what outlives Reset: the event stream and the waiters for new messages.
type inboxState struct {
	events  *events.Bus
	arrived events.Signal // broadcast whenever messages arrive (or go)
	waiting atomic.Int32  // long polls in progress
}

// Message is one SMS as the phone received it.
type Message struct {
	ID          string    // the campaign's (or OTP's) id, "-" and the recipient's index
	To          string    // normalized, digits only
	From        string    // the sender ID
	Text        string    // as the phone shows it: {{name}} filled, an OTP's pin in place
	Kind        string    // "sms" or "otp"
	Channel     string    // "generic" or "dnd"
	Parts       int       // SMS parts of Text
	Encoding    string    // "GSM-7" or "UCS-2"
	CampaignID  string    // "" for an OTP
	Status      string    // "sent", "delivered", "failed" or "dnd"
	Cost        int64     // kobo charged for this message; 0 when refunded
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
	text, pin := m.Text, ""
	if m.Pin != "" {
		text, pin = strings.ReplaceAll(m.Text, m.Pin, reqlog.Redacted), reqlog.Redacted
	}
	return fmt.Sprintf("Message{ID: %s, Kind: %s, To: %s, From: %s, Text: %q, Status: %s, Pin: %s, Verified: %t, Mode: %s}",
		m.ID, m.Kind, m.To, m.From, text, m.Status, pin, m.Verified, m.Mode)
}

// GoString hides an OTP's pin from %#v as String does.
func (m Message) GoString() string { return m.String() }

// Filter selects messages; its zero value selects all of them. Every field set must match.
type Filter struct {
	To          string    // the number, in any form a send accepts
	From        string    // the sender ID, in any case
	CampaignID  string    // the campaign
	Kind        string    // "sms" or "otp"
	Contains    string    // text that Text contains, in any case
	Since       time.Time // created at or after
	WorkspaceID string    // the workspace
	Mode        Mode      // Live or Test
}

// storeFilter is f in the store's terms.
func storeFilter(f Filter) (store.Query, error) {
	return store.NewQuery(store.Filter{To: f.To, From: f.From, CampaignID: f.CampaignID, Kind: f.Kind,
		Contains: f.Contains, Since: f.Since, WorkspaceID: f.WorkspaceID, Mode: string(f.Mode)})
}

// messageOf is a stored message as a Message.
func messageOf(m store.Message) Message {
	return Message{ID: m.ID, To: m.To, From: m.From, Text: m.Text, Kind: m.Kind, Channel: m.Channel,
		Parts: m.Parts, Encoding: m.Encoding, CampaignID: m.CampaignID, Status: m.Status, Cost: m.Cost,
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
	list, _ := s.state.Load().store.Messages(q, 0, math.MaxInt)
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
		return Message{}, apiErrorOf(err)
	}
	for {
		arrived := s.inbox.arrived.Wait()
		if m, ok := s.state.Load().store.FirstMessage(q); ok {
			return messageOf(m), nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
}

// ClearMessages forgets every message and returns how many there were. Campaigns, OTPs and
// wallets stay.
func (s *Server) ClearMessages() int { return s.state.Load().store.ClearMessages() }

// --- HTTP ------------------------------------------------------------------------------------

// messageJSON is a Message on the wire.
type messageJSON struct {
	ID          string     `json:"id"`
	To          string     `json:"to"`
	From        string     `json:"from"`
	Text        string     `json:"text"`
	Kind        string     `json:"kind"`
	Channel     string     `json:"channel"`
	Parts       int        `json:"parts"`
	Encoding    string     `json:"encoding"`
	CampaignID  *string    `json:"campaignId"`
	Status      string     `json:"status"`
	Cost        wire.Naira `json:"cost"`
	Currency    string     `json:"currency"`
	PinID       string     `json:"pinId,omitempty"`
	Pin         string     `json:"pin,omitempty"`
	Verified    *bool      `json:"verified,omitempty"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	WorkspaceID string     `json:"workspaceId"`
	Mode        Mode       `json:"mode"`
}

func messageOut(m *Message) messageJSON {
	out := messageJSON{
		ID: m.ID, To: m.To, From: m.From, Text: m.Text, Kind: m.Kind, Channel: m.Channel, Parts: m.Parts,
		Encoding: m.Encoding, CampaignID: wire.OptString(m.CampaignID), Status: m.Status, Cost: wire.Naira(m.Cost),
		Currency: "NGN", PinID: m.PinID, Pin: m.Pin, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		WorkspaceID: m.WorkspaceID, Mode: m.Mode,
	}
	if m.Kind == "otp" {
		out.Verified = &m.Verified
	}
	return out
}

// filterFromQuery reads the filters of GET /_mock/messages and /_mock/conversations.
func filterFromQuery(q url.Values) (store.Query, error) {
	f := Filter{To: q.Get("to"), From: q.Get("from"), CampaignID: q.Get("campaignId"), Kind: q.Get("kind"),
		Contains: q.Get("contains"), WorkspaceID: q.Get("workspaceId"), Mode: Mode(q.Get("mode"))}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return store.Query{}, badRequest("since", "since must be an RFC 3339 time such as 2026-03-04T05:06:07Z.")
		}
		f.Since = t
	}
	return storeFilter(f)
}

// ctlMessages is GET /_mock/messages: the messages the filters select, newest first, paged;
// with wait, a long poll until at least one is there.
func ctlMessages(s *Server, w http.ResponseWriter, rq *request) {
	q := rq.r.URL.Query()
	m, err := filterFromQuery(q)
	if err != nil {
		writeError(w, rq.id, apiErrorOf(err))
		return
	}
	page, limit, err := pageParams(q)
	if err != nil {
		writeError(w, rq.id, apiErrorOf(err))
		return
	}
	var wait time.Duration
	if v := q.Get("wait"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > maxWait {
			writeError(w, rq.id, badRequest("wait", "wait must be a Go duration from 0s to %s, such as 10s.", maxWait))
			return
		}
		wait = d
	}
	offset := pageOffset(page, limit)
	list, total := s.state.Load().store.Messages(m, offset, limit)
	if total == 0 && wait > 0 {
		if s.inbox.waiting.Add(1) > maxWaiting {
			s.inbox.waiting.Add(-1)
			writeError(w, rq.id, rateLimited("Too many requests are waiting for messages.", 1))
			return
		}
		defer s.inbox.waiting.Add(-1)
		// The server's write timeout, if any, must not cut the wait short.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(wait + 10*time.Second))
		timer := time.NewTimer(wait)
		defer timer.Stop()
	waiting:
		for total == 0 {
			arrived := s.inbox.arrived.Wait()
			if list, total = s.state.Load().store.Messages(m, offset, limit); total > 0 {
				break
			}
			select {
			case <-arrived:
			case <-timer.C:
				break waiting
			case <-s.inbox.events.Stopped():
				break waiting
			case <-rq.r.Context().Done():
				return
			}
		}
	}
	out := make([]messageJSON, len(list))
	for i := range list {
		msg := messageOf(list[i])
		out[i] = messageOut(&msg)
	}
	wire.WriteJSON(w, http.StatusOK, rq.id, wire.NewPage(out, page, limit, total))
}

func ctlClearMessages(s *Server, _ *request) (int, any, error) {
	return http.StatusOK, struct {
		Cleared int `json:"cleared"`
	}{s.ClearMessages()}, nil
}

// conversationJSON is one phone number's messages in brief: how many and the newest.
type conversationJSON struct {
	To     string      `json:"to"`
	Count  int         `json:"count"`
	Latest messageJSON `json:"latest"`
}

// ctlConversations is GET /_mock/conversations: the numbers the filtered messages went to,
// the newest conversation first, paged like the messages.
func ctlConversations(s *Server, rq *request) (int, any, error) {
	q := rq.r.URL.Query()
	m, err := filterFromQuery(q)
	if err != nil {
		return 0, nil, err
	}
	page, limit, err := pageParams(q)
	if err != nil {
		return 0, nil, err
	}
	list, total := s.state.Load().store.Conversations(m, pageOffset(page, limit), limit)
	out := make([]conversationJSON, len(list))
	for i, cv := range list {
		msg := messageOf(cv.Latest)
		out[i] = conversationJSON{To: msg.To, Count: cv.Count, Latest: messageOut(&msg)}
	}
	return http.StatusOK, wire.NewPage(out, page, limit, total), nil
}
