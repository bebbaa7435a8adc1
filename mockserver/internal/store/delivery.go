package store

import (
	"sync"
	"time"
)

// Automatic delivery: DeliveryDelay after a campaign is sent, its recipients still sent move
// to delivered, or to failed by the magic numbers' rules. Nothing runs in the store for it:
// every campaign's time is due from its creation, so Settle moves whatever is due whenever
// it is called (on each request, on Advance, by the HTTP layer's one timer), and each mode
// walks its campaigns, in creation order, from the first not yet settled.

// The magic test numbers: sends to them behave as the table of docs/api.md says, whatever the
// workspace. They sit in a reserved-looking range (0700 000 000X) that test data should not
// use for anything else.
const (
	MagicFailed  uint64 = 2347000000001 // always failed
	MagicPending uint64 = 2347000000002 // stays sent: never delivered automatically, nor by DeliverAll
	MagicDND     uint64 = 2347000000003 // on the Do-Not-Disturb register: dnd on the generic channel
	MagicRefused uint64 = 2347000000004 // the provider refuses the whole campaign: failed and refunded at send
	MagicSlow    uint64 = 2347000000005 // delivered SlowDeliveryDelay after the send
)

// SlowDeliveryDelay is when MagicSlow is delivered after its send: this, or the delivery
// delay when that is longer.
const SlowDeliveryDelay = 10 * time.Minute

// Auto-delivery flags of a campaign (campaign.auto).
const (
	autoDone uint8 = 1 << iota // its recipients but MagicSlow are settled
	slowDone                   // its MagicSlow recipient is settled
)

// dueQueue is the set of workspaces with campaigns awaiting automatic delivery. Its lock is
// taken under a workspace's, and nothing is taken under it.
type dueQueue struct {
	mu sync.Mutex
	ws map[*workspace]struct{}
}

// add marks w as having campaigns to settle; w.mu must be held.
func (q *dueQueue) add(w *workspace) {
	q.mu.Lock()
	if q.ws == nil {
		q.ws = make(map[*workspace]struct{})
	}
	q.ws[w] = struct{}{}
	q.mu.Unlock()
}

// remove unmarks w; w.mu must be held, so that no send marks it meanwhile.
func (q *dueQueue) remove(w *workspace) {
	q.mu.Lock()
	delete(q.ws, w)
	q.mu.Unlock()
}

func (q *dueQueue) list() []*workspace {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]*workspace, 0, len(q.ws))
	for w := range q.ws {
		out = append(out, w)
	}
	return out
}

// autoStatus is what automatic delivery (or DeliverAll) moves a sent recipient to, or false
// when it leaves it sent; slow says whether MagicSlow's time has come.
func autoStatus(phone uint64, slow bool) (RecipientStatus, bool) {
	switch phone {
	case MagicPending:
		return RecipientSent, false
	case MagicFailed:
		return RecipientFailed, true
	case MagicSlow:
		return RecipientDelivered, slow
	}
	return RecipientDelivered, true
}

// deliverAuto moves c's sent recipients by the rules of automatic delivery at time at, the
// slow one only when slow (and only it when onlySlow), and reports whether any moved; w.mu
// must be held.
func (c *campaign) deliverAuto(at int64, slow, onlySlow bool) bool {
	moved := false
	for i := range c.recipients {
		r := &c.recipients[i]
		if r.status() != RecipientSent || onlySlow && r.phone() != MagicSlow {
			continue
		}
		to, ok := autoStatus(r.phone(), slow)
		if !ok {
			continue
		}
		r.move(to, at)
		c.Counts[RecipientSent]--
		c.Counts[to]++
		moved = true
	}
	return moved
}

// dueAt is when c's recipients are delivered after delay: counted from the send, and never
// before a processing campaign is sent.
func (c *campaign) dueAt(delay int64) int64 {
	at := c.CreatedAt + delay
	if len(c.recipients) > processingThreshold {
		at = max(at, c.CreatedAt+int64(processingDelay))
	}
	return at
}

// settlePass settles the campaigns of md whose time has come, from *from on, for the normal
// recipients (flag autoDone) or the slow one (slowDone) after delay. It appends the
// campaigns that changed to changed, and returns the next due time, if any is left.
func (md *modeData) settlePass(now, delay int64, flag uint8, from *int, changed []Campaign) ([]Campaign, int64, bool) {
	next, more := int64(0), false
	contiguous := true
	for i := *from; i < len(md.campaigns); i++ {
		c := md.campaigns[i]
		if c.CreatedAt+delay > now { // campaigns are in creation order: none after is due
			if !more || c.CreatedAt+delay < next {
				next = c.CreatedAt + delay
			}
			more = true
			break
		}
		if c.auto&flag == 0 {
			due := c.dueAt(delay)
			if due > now {
				if !more || due < next {
					next = due
				}
				more, contiguous = true, false
				continue
			}
			c.settle(due)
			slow := flag == slowDone
			if c.deliverAuto(due, slow, slow) {
				changed = append(changed, c.Campaign)
			}
			c.auto |= flag
		}
		if contiguous {
			*from = i + 1
		}
	}
	return changed, next, more
}

// slowDelay is when MagicSlow is delivered after its send.
func (st *Store) slowDelay() int64 { return int64(max(SlowDeliveryDelay, st.cfg.DeliveryDelay)) }

// Settle delivers every recipient whose time has come by the rules of automatic delivery,
// publishes what changed, and returns the next time something is due, if anything is left.
// It does nothing when automatic delivery is off.
func (st *Store) Settle(now int64) (next int64, more bool) {
	if st.cfg.DeliveryDelay <= 0 {
		return 0, false
	}
	moved := false
	for _, w := range st.due.list() {
		changed, n, m := w.settleDue(st, now)
		for _, c := range changed {
			st.delivered(w.id, c)
		}
		moved = moved || len(changed) > 0
		if m && (!more || n < next) {
			next, more = n, true
		}
	}
	return next, more
}

func (w *workspace) settleDue(st *Store, now int64) (changed []Campaign, next int64, more bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delay, slow := int64(st.cfg.DeliveryDelay), st.slowDelay()
	for mi := range w.modes {
		md := &w.modes[mi]
		for _, pass := range [...]struct {
			delay int64
			flag  uint8
			from  *int
		}{{delay, autoDone, &md.autoFrom}, {slow, slowDone, &md.slowFrom}} {
			var n int64
			var m bool
			changed, n, m = md.settlePass(now, pass.delay, pass.flag, pass.from, changed)
			if m && (!more || n < next) {
				next, more = n, true
			}
		}
	}
	if !more {
		st.due.remove(w)
	}
	return changed, next, more
}

// DeliverAll settles every recipient still sent, in every workspace and mode, by the rules of
// automatic delivery, at once: MagicSlow is delivered too, MagicPending stays sent, and a
// campaign still processing is sent first. It returns how many campaigns changed.
func (st *Store) DeliverAll(now int64) int {
	n := 0
	for _, w := range st.allWorkspaces() {
		changed := w.deliverAll(now)
		for _, c := range changed {
			st.delivered(w.id, c)
		}
		n += len(changed)
	}
	return n
}

func (w *workspace) deliverAll(now int64) []Campaign {
	w.mu.Lock()
	defer w.mu.Unlock()
	var changed []Campaign
	for mi := range w.modes {
		w.modes[mi].deliverOTPs(now)
		for _, c := range w.modes[mi].campaigns {
			if c.Counts[RecipientSent] == 0 {
				continue
			}
			if c.Status == CampaignProcessing {
				c.Status = CampaignSent
			}
			if c.deliverAuto(now, true, false) {
				changed = append(changed, c.Campaign)
			}
		}
	}
	return changed
}
