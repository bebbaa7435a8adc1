package store

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// CampaignStatus is where a campaign stands with the provider.
type CampaignStatus uint8

// Campaign statuses.
const (
	CampaignProcessing CampaignStatus = iota
	CampaignSent
	CampaignFailed
)

// CampaignStatusNames are the statuses as the API writes them.
var CampaignStatusNames = [...]string{"processing", "sent", "failed"}

func (s CampaignStatus) String() string { return CampaignStatusNames[s] }

// RecipientStatus is where one recipient's message stands.
type RecipientStatus uint8

// Recipient statuses, kept in the top byte of recipient.packed.
const (
	RecipientSent RecipientStatus = iota
	RecipientDelivered
	RecipientFailed
	RecipientDND
)

// RecipientStatusNames are the statuses as the API writes them.
var RecipientStatusNames = [...]string{"sent", "delivered", "failed", "dnd"}

func (s RecipientStatus) String() string { return RecipientStatusNames[s] }

// Channel is the route a campaign went by: generic, or dnd (which reaches numbers on the
// Do-Not-Disturb register, at another price).
type Channel uint8

// The channels.
const (
	Generic Channel = iota
	DND
)

// ChannelNames are the channels as the API writes them.
var ChannelNames = [...]string{"generic", "dnd"}

func (c Channel) String() string { return ChannelNames[c] }

// processingDelay is how long a campaign of more than processingThreshold recipients stays
// processing; processingThreshold is the number of recipients above which a campaign is
// accepted as processing and sent a second later.
const (
	processingDelay     = time.Second
	processingThreshold = 100
)

// Campaign is a campaign as the store hands it out: everything but its recipients and
// messages. The stored campaign embeds it, so that listing copies it as it is.
type Campaign struct {
	ID        ids.ID
	Channel   Channel
	Status    CampaignStatus
	Parts     uint8 // of the longest message
	personal  bool  // {{name}} is filled per recipient (kept here, in what would be padding)
	SenderID  string
	Reference string
	CreatedAt int64    // unix nanoseconds
	Amount    int64    // kobo charged; 0 once refunded
	Counts    [4]int32 // recipients by status
	template  string   // the message as sent; "" once its messages are forgotten
}

// Text is the message as sent, {{name}} unfilled; "" once its messages are forgotten.
func (c *Campaign) Text() string { return c.template }

// HasMessageID reports whether the provider gave the campaign a message ID: once it is sent.
func (c *Campaign) HasMessageID() bool { return c.Status == CampaignSent }

// MessageID is the provider's message ID of a sent campaign.
func (c *Campaign) MessageID() string { return c.ID.MessageID() }

// Total is the number of recipients, whatever their status.
func (c *Campaign) Total() int {
	n := 0
	for _, k := range c.Counts {
		n += int(k)
	}
	return n
}

// Rollup is the delivery status of the whole campaign: sent while any recipient is,
// delivered when all are, partially_delivered when some are, failed when none is.
func (c *Campaign) Rollup() string {
	switch {
	case c.Counts[RecipientSent] > 0:
		return "sent"
	case int(c.Counts[RecipientDelivered]) == c.Total():
		return "delivered"
	case c.Counts[RecipientDelivered] > 0:
		return "partially_delivered"
	}
	return "failed"
}

// recipient is one number of a campaign in 16 bytes: the phone's digits as an integer with the
// status in the top byte, and when the status last changed. Where its name ends in the
// campaign's names is kept apart, in campaign.nameEnds, by personalised campaigns only.
type recipient struct {
	packed    uint64
	updatedAt int64
}

// movedBit marks, in the top byte, a recipient whose status changed after the send: its
// history is then the status at the send and this one (see History).
const movedBit = 1 << 62

func (r recipient) phone() uint64           { return r.packed & (1<<56 - 1) }
func (r recipient) status() RecipientStatus { return RecipientStatus(r.packed >> 56 & 3) }
func (r recipient) moved() bool             { return r.packed&movedBit != 0 }
func (r *recipient) set(s RecipientStatus, at int64) {
	r.packed = r.packed&(1<<56-1) | uint64(s)<<56
	r.updatedAt = at
}

// move changes the status of a recipient after the send.
func (r *recipient) move(s RecipientStatus, at int64) {
	r.set(s, at)
	r.packed |= movedBit
}

// Recipient is one recipient of a campaign as its delivery status lists it.
type Recipient struct {
	Phone     uint64 // the number's digits
	Status    RecipientStatus
	UpdatedAt int64 // unix nanoseconds
}

// campaign is one accepted send and its recipients, in 176 bytes plus 16 per recipient, and 4
// more per recipient (plus the names' bytes) when {{name}} is filled per recipient. Its
// messages are rendered on read from template and names: the text is stored once, not per
// recipient.
type campaign struct {
	Campaign
	requestID  ids.ID   // of the request that sent it
	dueIdx     int32    // its index in the store's due queue plus one, notQueued or forgotten; the queue's mu guards it
	names      string   // every recipient's {{name}}, one after another
	nameEnds   []uint32 // where recipient i's name ends in names; nil unless personal
	recipients []recipient
	one        [1]recipient // recipients of a campaign of one, most sends: no array of its own
	ix         entry        // its entry in the message index, allocated with it
}

// settle moves a processing campaign to sent once its time has come; w.mu must be held.
func (c *campaign) settle(now int64) {
	if c.Status == CampaignProcessing && now >= c.CreatedAt+int64(processingDelay) {
		c.Status = CampaignSent
	}
}

// text is what recipient i's phone shows; w.mu must be held.
func (c *campaign) text(i int) string {
	if !c.personal {
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

// Target is one recipient of a send: a normalized number, the name {{name}} is filled with,
// and its index in the request's to (for errors).
type Target struct {
	Phone uint64
	Name  string
	Index int
}

// SendParams is a send checked for its form: the sender ID's shape, a message, a channel, a
// reference and numbers that are numbers. Its strings may be views of a request's body: Send
// copies what it keeps.
type SendParams struct {
	From            string
	Message         string
	Channel         Channel
	Reference       string
	Personalize     bool     // a campaign: {{name}} is filled per recipient
	Targets         []Target // distinct numbers
	ProviderFailure bool     // a fault rule makes the provider refuse it
	RequestID       ids.ID   // of the request, for the message's details
}

// Accepted is a campaign as a send accepted it, copied under the workspace's lock: the stored
// campaign moves on afterwards (a listing settles it, a delivery moves its recipients).
type Accepted struct {
	Campaign
	Recipients int // how many
}

// Send prices the message per recipient, then debits the caller's wallet and creates the
// campaign in one step: either both happen or neither. Recipients on the Do-Not-Disturb
// register (and MagicDND) get the status dnd on the generic channel. A campaign of more than
// 100 recipients is processing for a second; one the provider refuses (a fault, or
// MagicRefused among the recipients) is failed and refunded.
func (st *Store) Send(c Caller, p SendParams, now time.Time) (Accepted, error) {
	price := st.cfg.GenericPrice
	if p.Channel == DND {
		price = st.cfg.DNDPrice
	}
	msg := p.Message
	personal := p.Personalize && strings.Contains(msg, "{{name}}")
	if personal { // too long with no name at all: the message is at fault, not a recipient
		if parts, _ := rules.CountParts(strings.ReplaceAll(msg, "{{name}}", "")); parts > rules.MaxParts {
			return Accepted{}, fieldError("message", "The message is %d parts long; at most %d are allowed.", parts, rules.MaxParts)
		}
	}
	cp := &campaign{}
	recipients := cp.one[:]
	if len(p.Targets) != 1 {
		recipients = make([]recipient, len(p.Targets))
	}
	var nameEnds []uint32
	if personal {
		nameEnds = make([]uint32, len(p.Targets))
	}
	var names strings.Builder
	partsByName := map[string]int{}
	refused := false // MagicRefused is a recipient
	maxParts, totalParts := 0, int64(0)
	for i, t := range p.Targets {
		name := ""
		if personal {
			name = t.Name
		}
		parts, seen := partsByName[name]
		if !seen {
			if personal {
				parts, _ = rules.CountPartsWith(msg, "{{name}}", name)
			} else {
				parts, _ = rules.CountParts(msg) // a send's {{name}} is text like any other
			}
			partsByName[name] = parts
		}
		if parts == 0 || parts > rules.MaxParts {
			field := "message"
			if name != "" {
				field = "to[" + strconv.Itoa(t.Index) + "].name"
			}
			if parts == 0 {
				return Accepted{}, fieldError(field, "The message is empty once {{name}} is filled for to[%d].", t.Index)
			}
			return Accepted{}, fieldError(field, "The message is %d parts long; at most %d are allowed.", parts, rules.MaxParts)
		}
		maxParts = max(maxParts, parts)
		totalParts += int64(parts)
		status, refuses := st.atSend(t.Phone, p.Channel)
		refused = refused || refuses
		recipients[i] = recipient{packed: t.Phone | uint64(status)<<56}
		if personal {
			names.WriteString(name)
			nameEnds[i] = uint32(names.Len())
		}
	}
	cp.Campaign = Campaign{SenderID: p.From, Reference: strings.Clone(p.Reference), Channel: p.Channel,
		Parts: uint8(maxParts), Status: CampaignSent, personal: personal, template: msg}
	cp.recipients, cp.requestID = recipients, p.RequestID
	if personal {
		cp.names, cp.nameEnds = names.String(), nameEnds
	}
	st.idx.lockSend(c.w, len(cp.recipients))
	a, to, balance, first, err := c.w.send(st, c.Mode, cp, totalParts*price, p.ProviderFailure || refused, now.UnixNano())
	if err == nil {
		st.indexCampaign(c.w, c.Mode, cp)
	}
	st.idx.unlockSend(c.w, len(cp.recipients))
	if err != nil {
		return Accepted{}, err
	}
	if first && st.cfg.Due != nil {
		st.cfg.Due(cp.dueAt(int64(st.cfg.DeliveryDelay)))
	}
	st.keep(a.Recipients)
	st.arrivedCampaign(c.w, c.Mode, cp)
	st.sent(c, a, to, balance)
	return a, nil
}

// send debits the wallet and stores c in one step; the campaign's id is taken under the
// index's lock and w's (see lockSend, which the caller holds), so that a mode's campaigns and
// the index's entries stay in id order. It returns the campaign as accepted, its first 20
// numbers (for the event), the balance left, and whether its delivery falls due before
// anything else queued for automatic delivery.
func (w *workspace) send(st *Store, mode Mode, c *campaign, amount int64, providerFailure bool, now int64) (Accepted, []string, int64, bool, error) {
	title, ok := w.activeSender(c.SenderID)
	if !ok {
		return Accepted{}, nil, 0, false, errSenderNotActive(c.SenderID)
	}
	md := &w.modes[mode]
	if md.balance < amount {
		return Accepted{}, nil, 0, false, ErrInsufficientBalance
	}
	// The request's strings may be views of its body: the campaign keeps copies, and shares
	// the sender ID and, when it is the same, the text of the campaign before it.
	c.SenderID, c.template = title, md.sameText(c.template)
	c.ID, c.CreatedAt, c.Amount = st.cfg.IDs.Next(), now, amount
	md.balance -= amount
	for i := range c.recipients {
		c.recipients[i].updatedAt = now
		c.Counts[c.recipients[i].status()]++
	}
	switch {
	case providerFailure:
		md.balance += amount // the provider refused: refund at once
		c.Amount = 0
		c.Status = CampaignFailed
		for i := range c.recipients {
			c.recipients[i].set(RecipientFailed, now)
		}
		c.Counts = [4]int32{RecipientFailed: int32(len(c.recipients))}
	case len(c.recipients) > processingThreshold:
		c.Status = CampaignProcessing
	}
	md.campaigns = append(md.campaigns, c)
	first := st.queue(w, c)
	return Accepted{Campaign: c.Campaign, Recipients: len(c.recipients)}, firstPhones(c.recipients, 20), md.balance, first, nil
}

// sameText returns the text of the mode's newest campaign when it is s (most services send
// the same text again and again), or else a copy of s; w.mu must be held.
func (md *modeData) sameText(s string) string {
	if n := len(md.campaigns); n > 0 && md.campaigns[n-1].template == s {
		return md.campaigns[n-1].template
	}
	return strings.Clone(s)
}

// Campaigns returns one page of the caller's campaigns, newest first (limit per page, pages
// from 1), and how many there are.
func (st *Store) Campaigns(c Caller, page, limit int, now int64) ([]Campaign, int) {
	return c.w.campaigns(c.Mode, page, limit, now)
}

func (w *workspace) campaigns(mode Mode, page, limit int, now int64) (list []Campaign, total int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	all := w.modes[mode].campaigns
	total = len(all)
	if page < 1 || page-1 >= (total+limit-1)/limit { // past the end, without overflow
		return []Campaign{}, total
	}
	start := (page - 1) * limit // offset from the newest
	end := min(start+limit, total)
	list = make([]Campaign, 0, end-start)
	for i := total - 1 - start; i > total-1-end; i-- {
		c := all[i]
		c.settle(now)
		list = append(list, c.Campaign)
	}
	return list, total
}

// findCampaign returns the campaign with id in the mode's list; w.mu must be held.
func (md *modeData) findCampaign(id ids.ID) *campaign {
	i := sort.Search(len(md.campaigns), func(i int) bool { return !md.campaigns[i].ID.Less(id) })
	if i < len(md.campaigns) && md.campaigns[i].ID == id {
		return md.campaigns[i]
	}
	return nil
}

// CampaignStatus returns a campaign of the caller and the recipients of one page of it. A
// processing campaign has none yet: the provider has none to report.
func (st *Store) CampaignStatus(c Caller, id string, page, limit int, now int64) (Campaign, []Recipient, error) {
	cid, ok := ids.Parse(id)
	if !ok {
		return Campaign{}, nil, notFound("Campaign")
	}
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	cp := w.modes[c.Mode].findCampaign(cid)
	if cp == nil {
		return Campaign{}, nil, notFound("Campaign")
	}
	cp.settle(now)
	if cp.Status == CampaignProcessing || page-1 >= (len(cp.recipients)+limit-1)/limit {
		return cp.Campaign, []Recipient{}, nil
	}
	start := (page - 1) * limit
	page1 := cp.recipients[start:min(start+limit, len(cp.recipients))]
	out := make([]Recipient, len(page1))
	for i, r := range page1 {
		out[i] = Recipient{Phone: r.phone(), Status: r.status(), UpdatedAt: r.updatedAt}
	}
	return cp.Campaign, out, nil
}

// DeliverCounts says how many of a campaign's sent recipients Deliver moves to each status.
type DeliverCounts struct {
	Delivered, Failed, DND int
}

// Deliver moves a campaign's sent recipients, of whichever workspace, in request order: the
// first n.Delivered to delivered, the next n.Failed to failed, the next n.DND to dnd; a nil n
// delivers them all. Counts past what is still sent settle what is, in that order.
func (st *Store) Deliver(id string, n *DeliverCounts, now int64) (Campaign, error) {
	cid, ok := ids.Parse(id)
	if !ok {
		return Campaign{}, notFound("Campaign")
	}
	if n != nil {
		// A campaign has at most MaxCampaignRecipients: bounding each count keeps their sum
		// exact, so nothing moves unless all of them can.
		for _, c := range [...]struct {
			field string
			n     int
		}{{"delivered", n.Delivered}, {"failed", n.Failed}, {"dnd", n.DND}} {
			if c.n < 0 || c.n > rules.MaxCampaignRecipients {
				return Campaign{}, fieldError(c.field, "%s must be from 0 to %d.", c.field, rules.MaxCampaignRecipients)
			}
		}
	}
	for _, w := range st.allWorkspaces() {
		if v, found, err := w.deliver(cid, n, now); found {
			if err != nil {
				return Campaign{}, err
			}
			st.delivered(w.id, v)
			return v, nil
		}
	}
	return Campaign{}, notFound("Campaign")
}

func (w *workspace) deliver(id ids.ID, n *DeliverCounts, now int64) (Campaign, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for m := range w.modes {
		c := w.modes[m].findCampaign(id)
		if c == nil {
			continue
		}
		c.settle(now)
		if !c.HasMessageID() {
			return Campaign{}, true, conflict("Campaign is %s and has no provider message ID yet.", c.Status)
		}
		counts := DeliverCounts{Delivered: int(c.Counts[RecipientSent])} // nil: every sent recipient
		if n != nil {
			counts = *n
		}
		// Counts past what is still sent settle what is: each move takes what is left.
		left := int(c.Counts[RecipientSent])
		counts.Delivered = min(counts.Delivered, left)
		counts.Failed = min(counts.Failed, left-counts.Delivered)
		counts.DND = min(counts.DND, left-counts.Delivered-counts.Failed)
		moves := [...]struct {
			n  int
			to RecipientStatus
		}{{counts.Delivered, RecipientDelivered}, {counts.Failed, RecipientFailed}, {counts.DND, RecipientDND}}
		i := 0
		for _, mv := range moves {
			for left := mv.n; left > 0; i++ {
				if c.recipients[i].status() == RecipientSent {
					c.recipients[i].move(mv.to, now)
					c.Counts[RecipientSent]--
					c.Counts[mv.to]++
					left--
				}
			}
		}
		return c.Campaign, true, nil
	}
	return Campaign{}, false, nil
}

// firstPhones are the first n numbers of recipients, written.
func firstPhones(rs []recipient, n int) []string {
	out := make([]string, 0, min(len(rs), n))
	for _, r := range rs[:cap(out)] {
		out = append(out, strconv.FormatUint(r.phone(), 10))
	}
	return out
}
