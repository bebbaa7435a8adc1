package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"github.com/seedsms/sms-go/mockserver/internal/fifo"

	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
)

// Mode is a key's mode: live and test keys of one workspace use separate wallets and data.
type Mode string

// The two modes.
const (
	Live Mode = "live"
	Test Mode = "test"
)

func (m Mode) index() int {
	if m == Test {
		return 1
	}
	return 0
}

func modeOf(prefix string) Mode {
	if prefix == "pk_test" {
		return Test
	}
	return Live
}

// Scope bits of a key.
const (
	scopeSMS uint8 = 1 << iota
	scopeOTP
	scopeCampaigns
	scopeSenderIDs
	scopeBalance
)

func scopeBit(name string) uint8 {
	for i, s := range rules.ScopeNames {
		if s == name {
			return 1 << i
		}
	}
	return 0
}

// store is the mock's whole state. Lock order: a workspace's mu is never held while taking
// store.mu, dndMu or inboxMu, and those three are never held together.
type store struct {
	mu            sync.RWMutex
	workspaces    map[ids.ID]*workspace
	keys          map[string]*apiKey // by public key
	maxWorkspaces int

	dndMu  sync.RWMutex
	dnd    map[uint64]struct{}
	maxDND int

	inboxMu    sync.Mutex
	inbox      map[string]pinMessage // the newest OTP each phone received, for /_mock/otps/latest
	inboxOrder fifo.Queue[pinSent]   // every pin of inbox and older ones, in the order sent

	madeKeys      quota // keys made through POST /v1/keys
	madeSenderIDs quota // sender IDs requested through POST /v1/sender-ids

	stored atomic.Int64 // recipients of campaigns and OTP messages stored, over every workspace and mode (see keep)
	trimMu sync.Mutex   // one trim of the oldest campaigns at a time
}

type pinMessage struct{ pinID, pin string }

// pinSent is a pin delivered to a phone at a time, for forgetting it from store.inbox.
type pinSent struct {
	phone, pinID string
	at           int64
}

func newStore(maxWorkspaces, maxDND int) *store {
	return &store{
		workspaces:    make(map[ids.ID]*workspace),
		keys:          make(map[string]*apiKey),
		maxWorkspaces: maxWorkspaces,
		dnd:           make(map[uint64]struct{}),
		maxDND:        maxDND,
		inbox:         make(map[string]pinMessage),
	}
}

// workspace holds everything of one workspace; mu guards all of it but the keys' atomics.
type workspace struct {
	id      ids.ID
	country string

	mu        sync.Mutex
	modes     [2]modeData
	senderIDs []*senderID // creation order
	keys      []*apiKey   // creation order
}

// modeData is the part of a workspace that live and test keep apart.
type modeData struct {
	balance   int64       // kobo
	campaigns []*campaign // creation order, so ids ascend
	msgFrom   int         // campaigns[msgFrom:] are kept as messages; older ones' were cleared
	otpMsgs   []*campaign // OTP messages kept, creation order
	otps      map[string]*otp
	otpOrder  fifo.Queue[*otp]   // otps in the order sent, to forget them otpRetention later
	pending   map[string]*otp    // newest pending pin per phone
	otpSends  map[string][]int64 // send times per phone inside the limit window
}

type apiKey struct {
	id         ids.ID
	ws         *workspace
	name       string
	prefix     string
	public     string
	secretHash [32]byte
	scopes     uint8
	createdAt  int64 // unix nanoseconds
	expiresAt  int64 // 0 = never
	revokedAt  atomic.Int64
	lastUsedAt atomic.Int64

	rlMu     sync.Mutex
	rlWindow int64 // start of the current rate-limit window, unix seconds
	rlCount  int
}

// Sender ID statuses.
const (
	senderPending uint8 = iota
	senderActive
	senderBlocked
)

var senderStatusNames = [...]string{"pending", "active", "blocked"}

type senderID struct {
	id        ids.ID
	title     string
	status    uint8
	country   string
	usecase   string
	company   string
	createdAt int64
}

// Campaign statuses.
const (
	campaignProcessing uint8 = iota
	campaignSent
	campaignFailed
)

var campaignStatusNames = [...]string{"processing", "sent", "failed"}

// Recipient statuses, kept in the top byte of recipient.packed.
const (
	rcptSent uint8 = iota
	rcptDelivered
	rcptFailed
	rcptDND
)

var recipientStatusNames = [...]string{"sent", "delivered", "failed", "dnd"}

// recipient is one number of a campaign in 16 bytes: the phone's digits as an integer with the
// status in the top byte, and when the status last changed. Where its name ends in the
// campaign's names is kept apart, in campaign.nameEnds, by personalised campaigns only.
type recipient struct {
	packed    uint64
	updatedAt int64
}

func (r recipient) phone() string { return strconv.FormatUint(r.packed&(1<<56-1), 10) }
func (r recipient) status() uint8 { return uint8(r.packed >> 56) }
func (r *recipient) set(s uint8, at int64) {
	r.packed = r.packed&(1<<56-1) | uint64(s)<<56
	r.updatedAt = at
}

// campaign is one accepted send and its recipients, in 160 bytes plus 16 per recipient, and 4
// more per recipient (plus the names' bytes) when {{name}} is filled per recipient. Its
// messages are rendered on read from template and names: the text is stored once, not per
// recipient. An OTP is kept as a campaign of one recipient outside the campaign list (flags has
// msgOTP): its template is the text with the pin in place, names the pin and reference the pin ID.
type campaign struct {
	id         ids.ID
	channel    uint8 // 0 generic, 1 dnd
	status     uint8
	parts      uint8
	flags      uint8 // msgOTP, msgPersonal
	senderID   string
	reference  string
	template   string   // the message as sent; "" once its messages are forgotten
	names      string   // every recipient's {{name}}, one after another
	nameEnds   []uint32 // where recipient i's name ends in names; nil unless msgPersonal
	createdAt  int64    // unix nanoseconds
	amount     int64    // kobo actually charged
	recipients []recipient
	counts     [4]int32 // by recipient status
}

func (c *campaign) hasMessageID() bool { return c.status == campaignSent }
func (c *campaign) messageID() string  { return "msg_" + c.id.String() }

// processingDelay is how long a campaign of more than processingThreshold recipients stays
// processing.
const processingDelay = time.Second

// settle moves a processing campaign to sent once its time has come.
func (c *campaign) settle(now int64) {
	if c.status == campaignProcessing && now >= c.createdAt+int64(processingDelay) {
		c.status = campaignSent
	}
}

// total is the number of recipients, whatever their status.
func (c *campaign) total() int {
	return int(c.counts[rcptSent] + c.counts[rcptDelivered] + c.counts[rcptFailed] + c.counts[rcptDND])
}

// rollup is the delivery status of the whole campaign.
func (c *campaign) rollup() string {
	switch {
	case c.counts[rcptSent] > 0:
		return "sent"
	case int(c.counts[rcptDelivered]) == c.total():
		return "delivered"
	case c.counts[rcptDelivered] > 0:
		return "partially_delivered"
	}
	return "failed"
}

// OTP states.
const (
	otpPending uint8 = iota
	otpVerified
	otpVoided
)

type otp struct {
	pinID     string
	phone     string
	hash      [32]byte  // sha256(pinID + ":" + pin)
	msg       *campaign // the OTP's message, which also says when it was sent
	expiresAt int64
	attempts  int
	state     uint8
}

func pinHash(pinID, pin string) [32]byte { return sha256.Sum256([]byte(pinID + ":" + pin)) }

// --- lookups ---------------------------------------------------------------------------------

func (st *store) workspace(id ids.ID) *workspace {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.workspaces[id]
}

func (st *store) allWorkspaces() []*workspace {
	st.mu.RLock()
	defer st.mu.RUnlock()
	out := make([]*workspace, 0, len(st.workspaces))
	for _, w := range st.workspaces {
		out = append(out, w)
	}
	return out
}

// dummyHash is compared against when a public key is unknown, so that an unknown key and a
// wrong secret take the same time.
var dummyHash = sha256.Sum256([]byte("no such key"))

// authenticate returns the key whose public part and secret match, or errUnauthorized. Secrets
// are compared as SHA-256 hashes in constant time.
func (st *store) authenticate(public, secret string, now int64) (*apiKey, *apiError) {
	st.mu.RLock()
	k := st.keys[public]
	st.mu.RUnlock()
	want := dummyHash
	if k != nil {
		want = k.secretHash
	}
	got := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 || k == nil {
		return nil, errUnauthorized
	}
	if k.revokedAt.Load() != 0 {
		return nil, newError(http.StatusUnauthorized, "This API key has been revoked.")
	}
	if k.expiresAt != 0 && now >= k.expiresAt {
		return nil, newError(http.StatusUnauthorized, "This API key has expired.")
	}
	k.lastUsedAt.Store(now)
	return k, nil
}

func (st *store) onDND(phone uint64) bool {
	st.dndMu.RLock()
	defer st.dndMu.RUnlock()
	_, ok := st.dnd[phone]
	return ok
}

// deliverPin is the phone receiving its OTP at now (unix nanoseconds): the newest pin per
// number, for LatestOTP. Pins sent otpRetention ago or more are forgotten, and the oldest
// past maxLatestPins, a few at each delivery.
func (st *store) deliverPin(phone, pinID, pin string, now int64) {
	st.inboxMu.Lock()
	defer st.inboxMu.Unlock()
	for q := &st.inboxOrder; q.Len() > 0 && (q.Front().at <= now-int64(otpRetention) || q.Len() >= maxLatestPins); q.Pop() {
		if old := q.Front(); st.inbox[old.phone].pinID == old.pinID {
			delete(st.inbox, old.phone)
		}
	}
	st.inbox[phone] = pinMessage{pinID: pinID, pin: pin}
	st.inboxOrder.Push(pinSent{phone: phone, pinID: pinID, at: now})
}

func (st *store) latestPin(phone string) (pinMessage, bool) {
	st.inboxMu.Lock()
	defer st.inboxMu.Unlock()
	m, ok := st.inbox[phone]
	return m, ok
}

// addDND puts phones on the register and returns how many numbers it holds, or adds none
// when that would take it past its limit.
func (st *store) addDND(phones []uint64) (int, *apiError) {
	st.dndMu.Lock()
	defer st.dndMu.Unlock()
	if len(st.dnd)+len(phones) > st.maxDND { // maybe: count the numbers not on it yet
		fresh := make(map[uint64]struct{}, min(len(phones), st.maxDND+1))
		for _, p := range phones {
			if _, on := st.dnd[p]; !on {
				fresh[p] = struct{}{}
				if len(st.dnd)+len(fresh) > st.maxDND {
					return 0, errDNDLimit(st.maxDND, len(st.dnd))
				}
			}
		}
	}
	for _, p := range phones {
		st.dnd[p] = struct{}{}
	}
	return len(st.dnd), nil
}

// --- workspaces and keys ---------------------------------------------------------------------

// addWorkspace adds a workspace, or returns nil when the store holds its limit of them.
func (st *store) addWorkspace(id ids.ID, country string, live, test int64) *workspace {
	w := &workspace{id: id, country: country}
	w.modes[0].balance, w.modes[1].balance = live, test
	for i := range w.modes {
		w.modes[i].otps = make(map[string]*otp)
		w.modes[i].pending = make(map[string]*otp)
		w.modes[i].otpSends = make(map[string][]int64)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.workspaces) >= st.maxWorkspaces {
		return nil
	}
	st.workspaces[id] = w
	return w
}

func (st *store) addKey(w *workspace, k *apiKey) {
	k.ws = w
	w.mu.Lock()
	w.keys = append(w.keys, k)
	w.mu.Unlock()
	st.mu.Lock()
	st.keys[k.public] = k
	st.mu.Unlock()
}

func (w *workspace) listKeys() []*apiKey {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := slices.Clone(w.keys)
	slices.Reverse(out)
	return out
}

func (w *workspace) revokeKey(id ids.ID, now int64) (*apiKey, *apiError) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, k := range w.keys {
		if k.id == id {
			k.revokedAt.CompareAndSwap(0, now)
			return k, nil
		}
	}
	return nil, notFound("Key")
}

// --- sender IDs ------------------------------------------------------------------------------

// requestSenderID adds s unless a pending or active sender ID has its title (ignoring case),
// and returns a copy of it as stored.
func (w *workspace) requestSenderID(s *senderID) (senderID, *apiError) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range w.senderIDs {
		if o.status != senderBlocked && strings.EqualFold(o.title, s.title) {
			return senderID{}, conflict("Sender ID %q is already %s.", o.title, senderStatusNames[o.status])
		}
	}
	s.country = w.country
	w.senderIDs = append(w.senderIDs, s)
	return *s, nil
}

// listSenderIDs returns copies, newest first; status < 0 means every status.
func (w *workspace) listSenderIDs(status int) []senderID {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := []senderID{}
	for i := len(w.senderIDs) - 1; i >= 0; i-- {
		if s := w.senderIDs[i]; status < 0 || int(s.status) == status {
			out = append(out, *s)
		}
	}
	return out
}

// moveSenderID moves a pending sender ID to status.
func (w *workspace) moveSenderID(id ids.ID, status uint8) (senderID, bool, *apiError) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.senderIDs {
		if s.id == id {
			if s.status != senderPending {
				return *s, true, conflict("Sender ID is %s, not pending.", senderStatusNames[s.status])
			}
			s.status = status
			return *s, true, nil
		}
	}
	return senderID{}, false, nil
}

// activeSender reports whether title is an active sender ID; w.mu must be held.
func (w *workspace) activeSender(title string) bool {
	for _, s := range w.senderIDs {
		if s.status == senderActive && s.title == title {
			return true
		}
	}
	return false
}

func errSenderNotActive(title string) *apiError {
	return badRequest("from", "Sender ID %q is not active on this workspace.", title)
}

// --- sending ---------------------------------------------------------------------------------

// sendOp is a validated send: who, what it costs, and how it goes.
type sendOp struct {
	from            string
	reference       string
	template        string   // the message, {{name}} unfilled when personal
	names           string   // the recipients' names, one after another, when personal
	nameEnds        []uint32 // where each recipient's name ends in names, when personal
	personal        bool     // {{name}} is filled per recipient
	channel         uint8
	maxParts        int
	totalParts      int64       // parts summed over recipients
	recipients      []recipient // status sent or dnd
	providerFailure bool
}

// processingThreshold is the number of recipients above which a campaign is accepted as
// processing and sent a second later.
const processingThreshold = 100

// accepted is a campaign as a send accepted it, copied under the workspace's lock: the stored
// campaign moves on afterwards (a listing settles it, a delivery moves its recipients) and is
// never read without the lock.
type accepted struct {
	campaign            // without its recipients
	recipients int      // how many
	to         []string // the first 20 numbers, for the event
}

// send debits the wallet and creates the campaign in one step: either both happen or neither.
// The campaign's id is taken under the lock, so that a mode's campaigns stay in id order.
func (w *workspace) send(mode Mode, ids *ids.Gen, op *sendOp, price int64, now time.Time) (accepted, *apiError) {
	amount := op.totalParts * price
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.activeSender(op.from) {
		return accepted{}, errSenderNotActive(op.from)
	}
	md := &w.modes[mode.index()]
	if md.balance < amount {
		return accepted{}, newError(http.StatusPaymentRequired, "Insufficient wallet balance.")
	}
	ns := now.UnixNano()
	c := &campaign{
		id: ids.Next(), senderID: op.from, reference: op.reference, createdAt: ns,
		amount: amount, recipients: op.recipients, channel: op.channel, parts: uint8(op.maxParts),
		status: campaignSent, template: op.template,
	}
	if op.personal {
		c.flags |= msgPersonal
		c.names, c.nameEnds = op.names, op.nameEnds
	}
	md.balance -= amount
	for i := range c.recipients {
		c.recipients[i].updatedAt = ns
		c.counts[c.recipients[i].status()]++
	}
	switch {
	case op.providerFailure:
		md.balance += amount // the provider refused: refund at once
		c.amount = 0
		c.status = campaignFailed
		for i := range c.recipients {
			c.recipients[i].set(rcptFailed, ns)
		}
		c.counts = [4]int32{rcptFailed: int32(len(c.recipients))}
	case len(c.recipients) > processingThreshold:
		c.status = campaignProcessing
	}
	md.campaigns = append(md.campaigns, c)
	a := accepted{campaign: *c, recipients: len(c.recipients), to: make([]string, 0, min(len(c.recipients), 20))}
	a.campaign.recipients = nil
	for _, r := range c.recipients[:cap(a.to)] {
		a.to = append(a.to, r.phone())
	}
	return a, nil
}

func (w *workspace) listCampaigns(mode Mode, page, limit int, now int64) (views []campaign, total int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	all := w.modes[mode.index()].campaigns
	total = len(all)
	if page < 1 || page-1 >= (total+limit-1)/limit { // past the end, without overflow
		return []campaign{}, total
	}
	start := (page - 1) * limit // offset from the newest
	end := min(start+limit, total)
	views = make([]campaign, 0, end-start)
	for i := total - 1 - start; i > total-1-end; i-- {
		c := all[i]
		c.settle(now)
		v := *c
		v.recipients = nil
		views = append(views, v)
	}
	return views, total
}

// findCampaign returns the campaign with id in the mode's list; w.mu must be held.
func (md *modeData) findCampaign(id ids.ID) *campaign {
	i := sort.Search(len(md.campaigns), func(i int) bool { return !md.campaigns[i].id.Less(id) })
	if i < len(md.campaigns) && md.campaigns[i].id == id {
		return md.campaigns[i]
	}
	return nil
}

// deliveryStatus returns a copy of the campaign with the recipients of one page. A processing
// campaign is returned without recipients: the provider has none to report yet.
func (w *workspace) deliveryStatus(mode Mode, id ids.ID, page, limit int, now int64) (campaign, *apiError) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.modes[mode.index()].findCampaign(id)
	if c == nil {
		return campaign{}, notFound("Campaign")
	}
	c.settle(now)
	v := *c
	if c.status == campaignProcessing || page-1 >= (len(c.recipients)+limit-1)/limit {
		v.recipients = nil
	} else {
		start := (page - 1) * limit
		v.recipients = slices.Clone(c.recipients[start:min(start+limit, len(c.recipients))])
	}
	return v, nil
}

// deliver moves sent recipients, in request order: first n.Delivered to delivered, then
// n.Failed to failed, then n.DND to dnd.
func (w *workspace) deliver(id ids.ID, n DeliverCounts, now int64) (campaign, bool, *apiError) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for m := range w.modes {
		c := w.modes[m].findCampaign(id)
		if c == nil {
			continue
		}
		c.settle(now)
		if !c.hasMessageID() {
			return campaign{}, true, conflict("Campaign is %s and has no provider message ID yet.", campaignStatusNames[c.status])
		}
		if n.Delivered < 0 { // every sent recipient
			n = DeliverCounts{Delivered: int(c.counts[rcptSent])}
		}
		if int64(n.Delivered)+int64(n.Failed)+int64(n.DND) > int64(c.counts[rcptSent]) {
			return campaign{}, true, badRequest("", "Only %d recipients are still sent.", c.counts[rcptSent])
		}
		moves := [...]struct {
			n  int
			to uint8
		}{{n.Delivered, rcptDelivered}, {n.Failed, rcptFailed}, {n.DND, rcptDND}}
		i := 0
		for _, mv := range moves {
			for left := mv.n; left > 0; i++ {
				if c.recipients[i].status() == rcptSent {
					c.recipients[i].set(mv.to, now)
					c.counts[rcptSent]--
					c.counts[mv.to]++
					left--
				}
			}
		}
		v := *c
		v.recipients = nil
		return v, true, nil
	}
	return campaign{}, false, nil
}

// --- OTP -------------------------------------------------------------------------------------

// otpWindow and otpMaxSends bound OTP sends to one number.
const (
	otpWindow   = 10 * time.Minute
	otpMaxSends = 5
)

type otpOp struct {
	id    ids.ID // of the message
	from  string
	phone string
	text  string // as the phone shows it, the pin in place
	parts int
	ttl   time.Duration
	pin   string
}

// sendOTP charges one SMS and stores a new pin (as a hash), voiding older pending pins to the
// same number, within the per-number limit.
func (w *workspace) sendOTP(mode Mode, op *otpOp, price int64, now time.Time) (*otp, int64, *apiError) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.activeSender(op.from) {
		return nil, 0, errSenderNotActive(op.from)
	}
	md := &w.modes[mode.index()]
	ns := now.UnixNano()
	md.forgetOTPs(ns)
	sends := md.otpSends[op.phone]
	for len(sends) > 0 && sends[0] <= ns-int64(otpWindow) {
		sends = sends[1:]
	}
	if len(sends) >= otpMaxSends {
		wait := time.Duration(sends[0] + int64(otpWindow) - ns)
		return nil, 0, rateLimited("Too many OTPs sent to this number; try again later.", ceilSeconds(wait))
	}
	amount := int64(op.parts) * price
	if md.balance < amount {
		return nil, 0, newError(http.StatusPaymentRequired, "Insufficient wallet balance.")
	}
	md.balance -= amount
	md.otpSends[op.phone] = append(slices.Clip(sends), ns)
	if old := md.pending[op.phone]; old != nil && old.state == otpPending {
		old.state = otpVoided
	}
	o := &otp{pinID: ids.UUID(), phone: op.phone, expiresAt: ns + int64(op.ttl)}
	o.hash = pinHash(o.pinID, op.pin)
	md.otps[o.pinID] = o
	md.otpOrder.Push(o)
	md.pending[op.phone] = o
	p, _ := strconv.ParseUint(op.phone, 10, 64)
	o.msg = &campaign{
		id: op.id, parts: uint8(op.parts), flags: msgOTP, senderID: op.from, reference: o.pinID,
		template: op.text, names: op.pin, createdAt: ns, amount: amount, status: campaignSent,
		recipients: []recipient{{packed: p | uint64(rcptDelivered)<<56, updatedAt: ns}},
		counts:     [4]int32{rcptDelivered: 1},
	}
	md.otpMsgs = append(md.otpMsgs, o.msg)
	return o, amount, nil
}

// forgetOTPs drops the pin records sent otpRetention before now or earlier, with their
// pending entry and their number's send times once none is inside the limit window; w.mu
// must be held. Each record is dropped once, so the cost is amortised O(1) per OTP sent. The
// OTP's message stays until the message limit or a clear forgets it.
func (md *modeData) forgetOTPs(now int64) {
	for q := &md.otpOrder; q.Len() > 0 && q.Front().msg.createdAt <= now-int64(otpRetention); q.Pop() {
		o := q.Front()
		delete(md.otps, o.pinID)
		if md.pending[o.phone] == o {
			delete(md.pending, o.phone)
		}
		sends := md.otpSends[o.phone]
		for len(sends) > 0 && sends[0] <= now-int64(otpWindow) {
			sends = sends[1:]
		}
		if len(sends) == 0 {
			delete(md.otpSends, o.phone)
		} else {
			md.otpSends[o.phone] = sends
		}
		o.msg = nil
	}
}

// verifyOTP checks pin against the stored hash in constant time and consumes the pin on a
// match. It returns whether the pin matched and the attempts left.
func (w *workspace) verifyOTP(mode Mode, pinID, pin string, now time.Time) (o otp, ok bool, left int, e *apiError) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.modes[mode.index()].otps[pinID]
	if p == nil {
		return otp{}, false, 0, notFound("Pin")
	}
	ns := now.UnixNano()
	switch {
	case p.state == otpVerified:
		return otp{}, false, 0, badRequest("pin_id", "This pin was already verified.")
	case p.state == otpVoided:
		return otp{}, false, 0, badRequest("pin_id", "This pin was replaced by a newer one.")
	case ns >= p.expiresAt:
		return otp{}, false, 0, badRequest("pin_id", "This pin has expired.")
	case p.attempts >= rules.MaxPinAttempts:
		return otp{}, false, 0, rateLimited("Too many wrong attempts; this pin is locked.", ceilSeconds(time.Duration(p.expiresAt-ns)))
	}
	h := pinHash(pinID, pin)
	if subtle.ConstantTimeCompare(h[:], p.hash[:]) == 1 {
		p.state = otpVerified
		p.msg.flags |= msgVerified
		return *p, true, rules.MaxPinAttempts - p.attempts, nil
	}
	p.attempts++
	return *p, false, rules.MaxPinAttempts - p.attempts, nil
}

func ceilSeconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

// --- balance ---------------------------------------------------------------------------------

func (w *workspace) balance(mode Mode) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.modes[mode.index()].balance
}

func (w *workspace) setBalance(mode Mode, kobo int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.modes[mode.index()].balance = kobo
}
