package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/reqlog"

	"github.com/seedsms/sms-go/mockserver/internal/events"

	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
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
const DefaultMaxMessages = 1_000_000

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

// Flags of a campaign.
const (
	msgOTP      uint8 = 1 << iota // an OTP, not a campaign
	msgPersonal                   // {{name}} is filled per recipient
	msgVerified                   // an OTP whose pin was verified
)

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

// matcher is a checked Filter.
type matcher struct {
	ws, campaign   ids.ID
	hasWS, hasCamp bool
	mode           int // -1 any
	kind           int // -1 any, 0 sms, 1 otp
	to             uint64
	from           string
	contains       string // lower case
	since          int64
}

func compileFilter(f Filter) (*matcher, *apiError) {
	m := &matcher{mode: -1, kind: -1, from: f.From, contains: strings.ToLower(f.Contains)}
	if f.To != "" {
		p, e := phone("to", f.To)
		if e != nil {
			return nil, e
		}
		m.to = p
	}
	if f.CampaignID != "" {
		if m.campaign, m.hasCamp = ids.Parse(f.CampaignID); !m.hasCamp {
			return nil, badRequest("campaignId", "campaignId must be a campaign id (24 hex characters).")
		}
	}
	if f.WorkspaceID != "" {
		if m.ws, m.hasWS = ids.Parse(f.WorkspaceID); !m.hasWS {
			return nil, badRequest("workspaceId", "workspaceId must be a workspace id (24 hex characters).")
		}
	}
	switch f.Kind {
	case "":
	case "sms":
		m.kind = 0
	case "otp":
		m.kind = 1
	default:
		return nil, badRequest("kind", "kind must be sms or otp.")
	}
	switch f.Mode {
	case "":
	case Live, Test:
		m.mode = f.Mode.index()
	default:
		return nil, badRequest("mode", "mode must be live or test.")
	}
	if !f.Since.IsZero() {
		m.since = f.Since.UnixNano()
	}
	return m, nil
}

// msgRef points at one message: recipient i of campaign c, of a workspace and mode.
type msgRef struct {
	w    *workspace
	c    *campaign
	to   uint64
	i    int32
	mode uint8
}

// text is what recipient i's phone shows; w.mu must be held.
func (c *campaign) text(i int) string {
	if c.flags&msgPersonal == 0 {
		return c.template
	}
	start := uint32(0)
	if i > 0 {
		start = c.nameEnds[i-1]
	}
	return strings.ReplaceAll(c.template, "{{name}}", c.names[start:c.nameEnds[i]])
}

// forget drops what only the campaign's messages need: its text and names.
func (c *campaign) forget() { c.template, c.names, c.nameEnds = "", "", nil }

// add appends the messages of c that m selects; w.mu must be held.
func (m *matcher) add(refs []msgRef, w *workspace, mode int, c *campaign) []msgRef {
	if c.createdAt < m.since || m.hasCamp && c.id != m.campaign || m.from != "" && !strings.EqualFold(m.from, c.senderID) {
		return refs
	}
	whole := m.contains == "" || c.flags&msgPersonal == 0 && strings.Contains(strings.ToLower(c.template), m.contains)
	if m.contains != "" && !whole && c.flags&msgPersonal == 0 {
		return refs // the same text for every recipient, and it does not match
	}
	for i, r := range c.recipients {
		to := r.packed & (1<<56 - 1)
		if m.to != 0 && to != m.to {
			continue
		}
		if !whole && !strings.Contains(strings.ToLower(c.text(i)), m.contains) {
			continue
		}
		refs = append(refs, msgRef{w: w, c: c, to: to, i: int32(i), mode: uint8(mode)})
	}
	return refs
}

// collect returns the messages m selects, newest first: ids are issued in creation order over
// the whole server, so sorting by campaign id and then index orders them.
func (st *store) collect(m *matcher) []msgRef {
	var refs []msgRef
	for _, w := range st.allWorkspaces() {
		if m.hasWS && w.id != m.ws {
			continue
		}
		w.mu.Lock()
		for mi := range w.modes {
			if m.mode >= 0 && mi != m.mode {
				continue
			}
			md := &w.modes[mi]
			if m.kind != 1 {
				if m.hasCamp {
					if c := md.findCampaign(m.campaign); c != nil && c.template != "" { // "": forgotten
						refs = m.add(refs, w, mi, c)
					}
				} else {
					for _, c := range md.campaigns[md.msgFrom:] {
						refs = m.add(refs, w, mi, c)
					}
				}
			}
			if m.kind != 0 && !m.hasCamp {
				for _, c := range md.otpMsgs {
					refs = m.add(refs, w, mi, c)
				}
			}
		}
		w.mu.Unlock()
	}
	slices.SortFunc(refs, func(a, b msgRef) int {
		switch {
		case a.c == b.c:
			return int(b.i - a.i)
		case a.c.id.Less(b.c.id):
			return 1
		}
		return -1
	})
	return refs
}

// message renders a message, or reports false when it was forgotten since it was collected.
func (s *Server) message(r msgRef) (Message, bool) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	c, rc := r.c, r.c.recipients[r.i]
	if c.template == "" {
		return Message{}, false
	}
	text := c.text(int(r.i))
	parts, enc := rules.CountParts(text)
	m := Message{
		ID: c.id.String() + "-" + strconv.Itoa(int(r.i)), To: rc.phone(), From: c.senderID, Text: text,
		Kind: "sms", Channel: channelNames[c.channel], Parts: parts, Encoding: enc.String(),
		Status: recipientStatusNames[rc.status()], CreatedAt: timeOf(c.createdAt), UpdatedAt: timeOf(rc.updatedAt),
		WorkspaceID: r.w.id.String(), Mode: Live,
	}
	if r.mode == 1 {
		m.Mode = Test
	}
	if c.amount > 0 {
		m.Cost = int64(parts) * s.cfg.genericPrice
		if c.channel == 1 {
			m.Cost = int64(parts) * s.cfg.dndPrice
		}
	}
	if c.flags&msgOTP != 0 {
		m.Kind, m.PinID, m.Pin, m.Cost = "otp", c.reference, c.names, c.amount
		m.Verified = c.flags&msgVerified != 0
	} else {
		m.CampaignID = c.id.String()
	}
	return m, true
}

// Messages returns the messages f selects, newest first. A filter with a value that cannot
// match (a malformed number or id, an unknown kind or mode) selects none.
func (s *Server) Messages(f Filter) []Message {
	m, e := compileFilter(f)
	if e != nil {
		return []Message{}
	}
	refs := s.state.Load().store.collect(m)
	out := make([]Message, 0, len(refs))
	for _, r := range refs {
		if msg, ok := s.message(r); ok {
			out = append(out, msg)
		}
	}
	return out
}

// WaitMessage returns the newest message f selects, waiting until one arrives or ctx is done.
// A message that is already there returns at once; set Filter.Since to wait for a new one.
func (s *Server) WaitMessage(ctx context.Context, f Filter) (Message, error) {
	m, e := compileFilter(f)
	if e != nil {
		return Message{}, e
	}
	for {
		arrived := s.inbox.arrived.Wait()
		for _, r := range s.state.Load().store.collect(m) {
			if msg, ok := s.message(r); ok {
				return msg, nil
			}
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
func (s *Server) ClearMessages() int {
	st := s.state.Load().store
	n, otps := 0, 0
	for _, w := range st.allWorkspaces() {
		w.mu.Lock()
		for mi := range w.modes {
			md := &w.modes[mi]
			for _, c := range md.campaigns[md.msgFrom:] {
				n += len(c.recipients)
				c.forget()
			}
			md.msgFrom = len(md.campaigns)
			n += len(md.otpMsgs)
			otps += len(md.otpMsgs)
			md.otpMsgs = nil
		}
		w.mu.Unlock()
	}
	st.stored.Add(-int64(otps))
	s.publish("messages.cleared", struct {
		Count int `json:"count"`
	}{n})
	s.inbox.arrived.Broadcast()
	return n
}

// keep counts n new messages and, past the limit, forgets the oldest campaigns and OTP
// messages until trimTarget are left. One caller trims at a time; the others go on, and the
// trimmer forgets for them too if need be.
func (s *Server) keep(st *store, n int) {
	limit := int64(s.cfg.maxMessages)
	if st.stored.Add(int64(n)) <= limit || !st.trimMu.TryLock() {
		return
	}
	defer st.trimMu.Unlock()
	st.trim(trimTarget(limit))
}

// --- HTTP ------------------------------------------------------------------------------------

// messageJSON is a Message on the wire.
type messageJSON struct {
	ID          string    `json:"id"`
	To          string    `json:"to"`
	From        string    `json:"from"`
	Text        string    `json:"text"`
	Kind        string    `json:"kind"`
	Channel     string    `json:"channel"`
	Parts       int       `json:"parts"`
	Encoding    string    `json:"encoding"`
	CampaignID  *string   `json:"campaignId"`
	Status      string    `json:"status"`
	Cost        naira     `json:"cost"`
	Currency    string    `json:"currency"`
	PinID       string    `json:"pinId,omitempty"`
	Pin         string    `json:"pin,omitempty"`
	Verified    *bool     `json:"verified,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	WorkspaceID string    `json:"workspaceId"`
	Mode        Mode      `json:"mode"`
}

func messageOut(m *Message) messageJSON {
	out := messageJSON{
		ID: m.ID, To: m.To, From: m.From, Text: m.Text, Kind: m.Kind, Channel: m.Channel, Parts: m.Parts,
		Encoding: m.Encoding, CampaignID: optString(m.CampaignID), Status: m.Status, Cost: naira(m.Cost),
		Currency: "NGN", PinID: m.PinID, Pin: m.Pin, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		WorkspaceID: m.WorkspaceID, Mode: m.Mode,
	}
	if m.Kind == "otp" {
		out.Verified = &m.Verified
	}
	return out
}

// filterFromQuery reads the filters of GET /_mock/messages and /_mock/conversations.
func filterFromQuery(q url.Values) (*matcher, *apiError) {
	f := Filter{To: q.Get("to"), From: q.Get("from"), CampaignID: q.Get("campaignId"), Kind: q.Get("kind"),
		Contains: q.Get("contains"), WorkspaceID: q.Get("workspaceId"), Mode: Mode(q.Get("mode"))}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return nil, badRequest("since", "since must be an RFC 3339 time such as 2026-03-04T05:06:07Z.")
		}
		f.Since = t
	}
	return compileFilter(f)
}

// ctlMessages is GET /_mock/messages: the messages the filters select, newest first, paged;
// with wait, a long poll until at least one is there.
func ctlMessages(s *Server, w http.ResponseWriter, rq *request) {
	q := rq.r.URL.Query()
	m, e := filterFromQuery(q)
	if e != nil {
		writeError(w, rq.id, e)
		return
	}
	page, limit, e := pageParams(q)
	if e != nil {
		writeError(w, rq.id, e)
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
	st := s.state.Load().store
	refs := st.collect(m)
	if len(refs) == 0 && wait > 0 {
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
		for len(refs) == 0 {
			arrived := s.inbox.arrived.Wait()
			if refs = s.state.Load().store.collect(m); len(refs) > 0 {
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
	out := []messageJSON{}
	if start := (page - 1) * limit; page-1 < (len(refs)+limit-1)/limit {
		for _, r := range refs[start:min(start+limit, len(refs))] {
			if msg, ok := s.message(r); ok { // not forgotten meanwhile
				out = append(out, messageOut(&msg))
			}
		}
	}
	writeJSON(w, http.StatusOK, rq.id, pageBody{out, pagination{page, limit, len(refs)}})
}

func ctlClearMessages(s *Server, _ *request) (int, any, *apiError) {
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
func ctlConversations(s *Server, rq *request) (int, any, *apiError) {
	q := rq.r.URL.Query()
	m, e := filterFromQuery(q)
	if e != nil {
		return 0, nil, e
	}
	page, limit, e := pageParams(q)
	if e != nil {
		return 0, nil, e
	}
	refs := s.state.Load().store.collect(m)
	type conv struct {
		latest msgRef
		count  int
	}
	var order []uint64
	byPhone := map[uint64]*conv{}
	for _, r := range refs {
		p := r.to
		cv := byPhone[p]
		if cv == nil {
			cv = &conv{latest: r}
			byPhone[p] = cv
			order = append(order, p)
		}
		cv.count++
	}
	out := []conversationJSON{}
	if start := (page - 1) * limit; page-1 < (len(order)+limit-1)/limit {
		for _, p := range order[start:min(start+limit, len(order))] {
			cv := byPhone[p]
			if msg, ok := s.message(cv.latest); ok { // not forgotten meanwhile
				out = append(out, conversationJSON{To: msg.To, Count: cv.count, Latest: messageOut(&msg)})
			}
		}
	}
	return http.StatusOK, pageBody{out, pagination{page, limit, len(order)}}, nil
}
