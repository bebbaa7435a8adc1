package store

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
	Reference   string // the campaign's
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

// The times a Filter's Since may hold: those of nanoseconds since 1970 in an int64, as the
// store keeps times.
var (
	MinSince = time.Unix(0, math.MinInt64).UTC()
	MaxSince = time.Unix(0, math.MaxInt64).UTC()
)

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
		if f.Since.Before(MinSince) || f.Since.After(MaxSince) {
			return Query{}, fieldError("since", "since must be a time from %s to %s.", MinSince.Format(time.RFC3339), MaxSince.Format(time.RFC3339))
		}
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

// containsLower reports whether s, in lower case, contains sub (lower case already), without
// a lower-case copy of s when s is ASCII: a scan asks it of every kept message.
func containsLower(s, sub string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), sub)
		}
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && lowerASCII(s[i+j]) == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// addCampaign appends the messages of c that q selects; w.mu must be held.
func (q *Query) addCampaign(refs []msgRef, w *workspace, mode Mode, c *campaign) []msgRef {
	if c.CreatedAt < q.since || q.hasCamp && c.ID != q.campaign || q.from != "" && !strings.EqualFold(q.from, c.SenderID) {
		return refs
	}
	whole := q.contains == "" || !c.personal && containsLower(c.template, q.contains)
	if q.contains != "" && !whole && !c.personal {
		return refs // the same text for every recipient, and it does not match
	}
	for i, r := range c.recipients {
		to := r.phone()
		if q.to != 0 && to != q.to {
			continue
		}
		if !whole && !containsLower(c.text(i), q.contains) {
			continue
		}
		refs = append(refs, msgRef{w: w, c: c, to: to, i: int32(i), mode: mode})
	}
	return refs
}

// addOTP appends o if q selects it; w.mu must be held.
func (q *Query) addOTP(refs []msgRef, w *workspace, mode Mode, o *otpMessage) []msgRef {
	if o.createdAt < q.since || q.from != "" && !strings.EqualFold(q.from, o.senderID) ||
		q.to != 0 && o.phone != q.to || q.contains != "" && !containsLower(o.text, q.contains) {
		return refs
	}
	return append(refs, msgRef{w: w, o: o, to: o.phone, mode: mode})
}

// render renders a message, or reports false when it was forgotten since it was collected.
func (st *Store) render(r msgRef) (Message, bool) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	m := Message{WorkspaceID: r.w.id.String(), Mode: r.mode}
	if o := r.o; o != nil {
		if o.forgotten {
			return Message{}, false
		}
		m.To = strconv.FormatUint(o.phone, 10)
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
	m.To = strconv.FormatUint(rc.phone(), 10)
	text := c.text(int(r.i))
	parts, enc := rules.CountParts(text)
	m.ID, m.From, m.Text, m.Kind, m.Channel = c.ID.String()+"-"+strconv.Itoa(int(r.i)), c.SenderID, text, "sms", c.Channel.String()
	m.Parts, m.Encoding, m.Status, m.CampaignID = parts, enc.String(), rc.status().String(), c.ID.String()
	m.Reference = c.Reference
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

// search reports whether q filters on more than a workspace or a campaign: the index keeps no
// list for it, so reading it scans, in one of MaxSearches turns.
func (q *Query) search() bool {
	return q.to != 0 || q.contains != "" || q.from != "" || q.since != 0 || q.mode >= 0 || q.kind >= 0
}

// selectsEntry reports whether q may select messages of e, by its mode and kind.
func (q *Query) selectsEntry(e *entry) bool {
	return (q.mode < 0 || int(e.mode) == q.mode) && (q.kind < 0 || e.kind() == q.kind)
}

// match appends the messages of e that q selects, oldest first; e.w.mu must be held.
func (q *Query) match(refs []msgRef, e *entry) []msgRef {
	if e.o != nil {
		if e.o.forgotten {
			return refs
		}
		return q.addOTP(refs, e.w, e.mode, e.o)
	}
	if e.c.template == "" {
		return refs
	}
	return q.addCampaign(refs, e.w, e.mode, e.c)
}

// scopeOf is the workspace q selects (nil: every one), or false when there is no such
// workspace.
func (st *Store) scopeOf(q *Query) (*workspace, bool) {
	if !q.hasWS {
		return nil, true
	}
	w := st.workspace(q.ws)
	return w, w != nil
}

// each calls fn with the messages q selects, newest first, until fn returns false. It holds
// a workspace's lock only to match one campaign or OTP message, and the index's only to copy
// a chunk of entries.
func (st *Store) each(q *Query, fn func(msgRef) bool) {
	if q.hasCamp {
		e := st.idx.find(q.campaign)
		if e == nil || e.c == nil || q.hasWS && e.w.id != q.ws || !q.selectsEntry(e) {
			return
		}
		e.w.mu.Lock()
		refs := q.match(nil, e)
		e.w.mu.Unlock()
		for k := len(refs) - 1; k >= 0 && fn(refs[k]); k-- {
		}
		return
	}
	w, ok := st.scopeOf(q)
	if !ok {
		return
	}
	var buf []msgRef
	st.idx.walk(w, func(e *entry) bool {
		if !q.selectsEntry(e) {
			return true
		}
		e.w.mu.Lock()
		buf = q.match(buf[:0], e)
		e.w.mu.Unlock()
		for k := len(buf) - 1; k >= 0; k-- {
			if !fn(buf[k]) {
				return false
			}
		}
		return true
	})
}

// window is the messages from offset to end (exclusive) of a page of limit from offset.
func window(offset, limit int) (int, int) {
	offset, limit = max(offset, 0), max(limit, 0)
	if limit > math.MaxInt-offset {
		return offset, math.MaxInt
	}
	return offset, offset + limit
}

// page is the messages of w's list (the server's when w is nil) from offset to end, newest
// first, found by counting whole campaigns: it costs the campaigns before the page, never
// their messages.
func (st *Store) page(w *workspace, offset, end int) []msgRef {
	var refs []msgRef
	n := 0
	st.idx.walk(w, func(e *entry) bool {
		k := int(e.n)
		for j := max(offset-n, 0); j < k && n+j < end; j++ {
			refs = append(refs, e.ref(int32(k-1-j), 0)) // render reads the number
		}
		n += k
		return n < end
	})
	return refs
}

// ReadMessages returns the messages q selects, newest first, from offset on, at most limit of
// them (fewer when some are forgotten while they are rendered), and how many q selects. A
// filter by workspace or campaign alone reads the index: it costs the page. Any other filter
// scans the store, in one of MaxSearches turns: with queue it waits for one until ctx is done
// (ctx.Err()); without, it is a *RateLimitError when none is free.
func (st *Store) ReadMessages(ctx context.Context, q Query, offset, limit int, queue bool) ([]Message, int, error) {
	offset, end := window(offset, limit)
	var refs []msgRef
	total := 0
	if !q.hasCamp && !q.search() {
		w, ok := st.scopeOf(&q)
		if !ok {
			return []Message{}, 0, nil
		}
		total = st.idx.count(w)
		refs = st.page(w, offset, end)
	} else {
		release, err := st.idx.turnFor(ctx, &q, queue)
		if err != nil {
			return nil, 0, err
		}
		defer release()
		st.each(&q, func(r msgRef) bool {
			if total >= offset && total < end {
				refs = append(refs, r)
			}
			total++
			return true
		})
	}
	out := make([]Message, 0, len(refs))
	for _, r := range refs {
		if m, ok := st.render(r); ok {
			out = append(out, m)
		}
	}
	return out, total, nil
}

// Messages is ReadMessages for the Go controls: a search waits for its turn.
func (st *Store) Messages(q Query, offset, limit int) ([]Message, int) {
	out, total, _ := st.ReadMessages(context.Background(), q, offset, limit, true)
	return out, total
}

// FirstMessage returns the newest message q selects, if any.
func (st *Store) FirstMessage(q Query) (Message, bool) {
	if list, _ := st.Messages(q, 0, 1); len(list) > 0 {
		return list[0], true
	}
	return Message{}, false
}

// Conversation is one phone number's messages in brief: how many and the newest.
type Conversation struct {
	Count  int
	Latest Message
}

// Conversations returns the numbers the messages q selects went to, the newest conversation
// first, from offset on, at most limit of them, and how many there are. Unfiltered or by
// workspace it reads the index's conversations; any other filter scans, in a turn as
// ReadMessages takes one, and keeps a count per number it meets.
func (st *Store) Conversations(ctx context.Context, q Query, offset, limit int, queue bool) ([]Conversation, int, error) {
	offset, end := window(offset, limit)
	var counts []int32
	var refs []msgRef
	total := 0
	if !q.hasCamp && !q.search() {
		w, ok := st.scopeOf(&q)
		if !ok {
			return []Conversation{}, 0, nil
		}
		counts, refs, total = st.idx.convPage(w, offset, end-offset)
	} else {
		release, err := st.idx.turnFor(ctx, &q, queue)
		if err != nil {
			return nil, 0, err
		}
		defer release()
		seen := map[uint64]int32{}
		st.each(&q, func(r msgRef) bool {
			if _, ok := seen[r.to]; !ok && len(seen) >= offset && len(seen) < end {
				refs = append(refs, r)
			}
			seen[r.to]++
			return true
		})
		total = len(seen)
		counts = make([]int32, len(refs))
		for k, r := range refs {
			counts[k] = seen[r.to]
		}
	}
	out := make([]Conversation, 0, len(refs))
	for k, r := range refs {
		if m, ok := st.render(r); ok { // not forgotten meanwhile
			out = append(out, Conversation{Count: int(counts[k]), Latest: m})
		}
	}
	return out, total, nil
}

// ClearMessages forgets every message and returns how many there were. Campaigns, OTPs and
// wallets stay; a campaign's recipients still count in the message limit. It holds the index
// throughout, so that every message the index holds is forgotten and the index with them.
func (st *Store) ClearMessages() int {
	n, otps := 0, 0
	st.idx.mu.Lock()
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
			for _, o := range md.otpMsgs {
				o.forgotten = true
			}
			md.otpMsgs = nil
		}
		w.mu.Unlock()
	}
	st.idx.reset()
	st.idx.mu.Unlock()
	st.stored.Add(-int64(otps))
	st.publish("messages.cleared", struct {
		Count int `json:"count"`
	}{n})
	return n
}
