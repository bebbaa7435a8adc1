package store

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// The store as the phones' inboxes: every recipient of every accepted send, campaign and OTP
// is a message. Messages are not stored one by one: a campaign keeps its template once and
// its recipients' names in one string, and a message is rendered from them when it is read.
// Its id is the campaign's (or OTP message's) id and the recipient's index.

// Message is one SMS as the phone received it; mockserver.Message documents its fields.
type Message struct {
	ID          string
	To          string
	From        string
	Text        string
	Kind        string
	Channel     string
	Parts       int
	Encoding    string
	CampaignID  string
	Status      string
	Cost        int64
	PinID       string
	Pin         string
	Verified    bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
	WorkspaceID string
	Mode        Mode
	PinState    string    // an OTP's: pending, verified, replaced, locked or failed (expiry is the reader's, by ExpiresAt)
	ExpiresAt   time.Time // an OTP's pin's
}

// pinStateNames are otpMessage.pinState as a message writes it.
var pinStateNames = [...]string{otpPending: "pending", otpVerified: "verified", otpVoided: "replaced", otpLocked: "locked", otpFailed: "failed"}

// Filter selects messages; its zero value selects all. Every field set must match.
type Filter struct {
	To          string // the number, in any form a send accepts
	From        string // the sender ID, in any case
	CampaignID  string
	Kind        string // "sms" or "otp"
	Contains    string // text the message contains, in any case
	Since       time.Time
	WorkspaceID string
	Mode        string // "live" or "test"
}

// Query is a checked Filter.
type Query struct {
	ws, campaign   ids.ID
	hasWS, hasCamp bool
	mode           int // -1 any
	kind           int // -1 any, 0 sms, 1 otp
	to             uint64
	from           string
	contains       string // lower case
	since          int64
}

// NewQuery checks a filter: a malformed number or id, an unknown kind or mode is a
// *FieldError naming the filter's member.
func NewQuery(f Filter) (Query, error) {
	q := Query{mode: -1, kind: -1, from: f.From, contains: strings.ToLower(f.Contains)}
	if f.To != "" {
		p, err := parsePhone("to", f.To)
		if err != nil {
			return Query{}, err
		}
		q.to = p
	}
	if f.CampaignID != "" {
		if q.campaign, q.hasCamp = ids.Parse(f.CampaignID); !q.hasCamp {
			return Query{}, fieldError("campaignId", "campaignId must be a campaign id (24 hex characters).")
		}
	}
	if f.WorkspaceID != "" {
		if q.ws, q.hasWS = ids.Parse(f.WorkspaceID); !q.hasWS {
			return Query{}, fieldError("workspaceId", "workspaceId must be a workspace id (24 hex characters).")
		}
	}
	switch f.Kind {
	case "":
	case "sms":
		q.kind = 0
	case "otp":
		q.kind = 1
	default:
		return Query{}, fieldError("kind", "kind must be sms or otp.")
	}
	if f.Mode != "" {
		m, ok := ParseMode(f.Mode)
		if !ok {
			return Query{}, fieldError("mode", "mode must be live or test.")
		}
		q.mode = int(m)
	}
	if !f.Since.IsZero() {
		q.since = f.Since.UnixNano()
	}
	return q, nil
}

// msgRef points at one message: recipient i of campaign c, or OTP message o, of a workspace
// and mode.
type msgRef struct {
	w    *workspace
	c    *campaign
	o    *otpMessage
	to   uint64
	i    int32
	mode Mode
}

func (r *msgRef) id() ids.ID {
	if r.o != nil {
		return r.o.id
	}
	return r.c.ID
}

// addCampaign appends the messages of c that q selects; w.mu must be held.
func (q *Query) addCampaign(refs []msgRef, w *workspace, mode Mode, c *campaign) []msgRef {
	if c.CreatedAt < q.since || q.hasCamp && c.ID != q.campaign || q.from != "" && !strings.EqualFold(q.from, c.SenderID) {
		return refs
	}
	whole := q.contains == "" || !c.personal && strings.Contains(strings.ToLower(c.template), q.contains)
	if q.contains != "" && !whole && !c.personal {
		return refs // the same text for every recipient, and it does not match
	}
	for i, r := range c.recipients {
		to := r.phone()
		if q.to != 0 && to != q.to {
			continue
		}
		if !whole && !strings.Contains(strings.ToLower(c.text(i)), q.contains) {
			continue
		}
		refs = append(refs, msgRef{w: w, c: c, to: to, i: int32(i), mode: mode})
	}
	return refs
}

// addOTP appends o if q selects it; w.mu must be held.
func (q *Query) addOTP(refs []msgRef, w *workspace, mode Mode, o *otpMessage) []msgRef {
	if o.createdAt < q.since || q.from != "" && !strings.EqualFold(q.from, o.senderID) ||
		q.to != 0 && o.phone != q.to || q.contains != "" && !strings.Contains(strings.ToLower(o.text), q.contains) {
		return refs
	}
	return append(refs, msgRef{w: w, o: o, to: o.phone, mode: mode})
}

// collect returns the messages q selects, newest first: ids are issued in creation order over
// the whole server, so sorting by id and then index orders them.
func (st *Store) collect(q *Query) []msgRef {
	var refs []msgRef
	for _, w := range st.allWorkspaces() {
		if q.hasWS && w.id != q.ws {
			continue
		}
		w.mu.Lock()
		for mi := range w.modes {
			if q.mode >= 0 && mi != q.mode {
				continue
			}
			md, mode := &w.modes[mi], Mode(mi)
			if q.kind != 1 {
				if q.hasCamp {
					if c := md.findCampaign(q.campaign); c != nil && c.template != "" { // "": forgotten
						refs = q.addCampaign(refs, w, mode, c)
					}
				} else {
					for _, c := range md.campaigns[md.msgFrom:] {
						refs = q.addCampaign(refs, w, mode, c)
					}
				}
			}
			if q.kind != 0 && !q.hasCamp {
				for _, o := range md.otpMsgs {
					refs = q.addOTP(refs, w, mode, o)
				}
			}
		}
		w.mu.Unlock()
	}
	slices.SortFunc(refs, func(a, b msgRef) int {
		switch ai, bi := a.id(), b.id(); {
		case ai == bi:
			return int(b.i - a.i)
		case ai.Less(bi):
			return 1
		}
		return -1
	})
	return refs
}

// render renders a message, or reports false when it was forgotten since it was collected.
func (st *Store) render(r msgRef) (Message, bool) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	m := Message{WorkspaceID: r.w.id.String(), Mode: r.mode, To: strconv.FormatUint(r.to, 10)}
	if o := r.o; o != nil {
		parts, enc := rules.CountParts(o.text)
		m.ID, m.From, m.Text, m.Kind, m.Channel = o.id.String()+"-0", o.senderID, o.text, "otp", ChannelNames[Generic]
		status, at := o.statusAt(st.now())
		m.Parts, m.Encoding, m.Status, m.Cost = parts, enc.String(), RecipientStatusNames[status], o.amount
		m.PinID, m.Pin, m.Verified = o.pinID, o.pin, o.verified
		m.CreatedAt, m.UpdatedAt = time.Unix(0, o.createdAt).UTC(), time.Unix(0, at).UTC()
		m.PinState, m.ExpiresAt = pinStateNames[o.pinState], time.Unix(0, o.expiresAt).UTC()
		return m, true
	}
	c, rc := r.c, r.c.recipients[r.i]
	if c.template == "" {
		return Message{}, false
	}
	text := c.text(int(r.i))
	parts, enc := rules.CountParts(text)
	m.ID, m.From, m.Text, m.Kind, m.Channel = c.ID.String()+"-"+strconv.Itoa(int(r.i)), c.SenderID, text, "sms", c.Channel.String()
	m.Parts, m.Encoding, m.Status, m.CampaignID = parts, enc.String(), rc.status().String(), c.ID.String()
	m.CreatedAt, m.UpdatedAt = time.Unix(0, c.CreatedAt).UTC(), time.Unix(0, rc.updatedAt).UTC()
	if c.Amount > 0 {
		price := st.cfg.GenericPrice
		if c.Channel == DND {
			price = st.cfg.DNDPrice
		}
		m.Cost = int64(parts) * price
	}
	return m, true
}

// Messages returns the messages q selects, newest first, from offset on, at most limit of
// them (fewer when some are forgotten while they are rendered), and how many q selects.
func (st *Store) Messages(q Query, offset, limit int) ([]Message, int) {
	refs := st.collect(&q)
	out := []Message{}
	if offset >= 0 && offset < len(refs) {
		for _, r := range refs[offset:min(offset+max(limit, 0), len(refs))] {
			if m, ok := st.render(r); ok {
				out = append(out, m)
			}
		}
	}
	return out, len(refs)
}

// FirstMessage returns the newest message q selects, if any.
func (st *Store) FirstMessage(q Query) (Message, bool) {
	for _, r := range st.collect(&q) {
		if m, ok := st.render(r); ok {
			return m, true
		}
	}
	return Message{}, false
}

// Conversation is one phone number's messages in brief: how many and the newest.
type Conversation struct {
	Count  int
	Latest Message
}

// Conversations returns the numbers the messages q selects went to, the newest conversation
// first, from offset on, at most limit of them, and how many there are.
func (st *Store) Conversations(q Query, offset, limit int) ([]Conversation, int) {
	refs := st.collect(&q)
	type conv struct {
		latest msgRef
		count  int
	}
	var order []uint64
	byPhone := map[uint64]*conv{}
	for _, r := range refs {
		cv := byPhone[r.to]
		if cv == nil {
			cv = &conv{latest: r}
			byPhone[r.to] = cv
			order = append(order, r.to)
		}
		cv.count++
	}
	out := []Conversation{}
	if offset >= 0 && offset < len(order) {
		for _, p := range order[offset:min(offset+max(limit, 0), len(order))] {
			cv := byPhone[p]
			if m, ok := st.render(cv.latest); ok { // not forgotten meanwhile
				out = append(out, Conversation{Count: cv.count, Latest: m})
			}
		}
	}
	return out, len(order)
}

// ClearMessages forgets every message and returns how many there were. Campaigns, OTPs and
// wallets stay; a campaign's recipients still count in the message limit.
func (st *Store) ClearMessages() int {
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
	st.publish("messages.cleared", struct {
		Count int `json:"count"`
	}{n})
	return n
}
