package store

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// Automatic delivery: DeliveryDelay after a campaign is sent, its recipients still sent move
// to delivered, or to failed by the magic numbers' rules. A send puts its campaign in the
// store's due queue at the time its recipients fall due; Settle takes from the queue only
// what is due by then, so that a request that finds nothing due pays one atomic read, however
// many campaigns wait (see Due).

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

// MaxDeliveryDelay is the longest delay of automatic delivery: 3,650 days, like a key's
// longest lifetime, so that a campaign sent at the latest time the mock's clock reaches
// (2200-01-01) still falls due inside the range of the times the store keeps (year 2262).
const MaxDeliveryDelay = 3650 * 24 * time.Hour

// never is the due queue's earliest time when it is empty.
const never = math.MaxInt64

// dueEntry is a campaign awaiting automatic delivery: at is when its next pass falls due (its
// recipients but MagicSlow, then MagicSlow).
type dueEntry struct {
	at int64
	c  *campaign
	w  *workspace
}

// dueQueue orders the campaigns awaiting automatic delivery, over every workspace of the
// store, by the time their next pass falls due (then by id). Most campaigns are queued in that
// order already (one delay for all, sent one after the other), so they go to a run: a ring of
// entries in order, where queueing and taking the first cost O(1) and touch no other campaign.
// A campaign that would break the run's order (MagicSlow's later pass, a campaign still
// processing, sends that raced, a clock moved back) goes to a binary min-heap instead. The
// first entry is the earlier of the run's and the heap's. Each entry is 24 bytes; neither
// array is ever more than four times as large as its entries need past 64 of them, and each
// is halved when it is; the campaign's place in either takes no room of its own in the
// campaign. A campaign leaves the queue when settled, delivered by DeliverAll or forgotten
// (in the run, its entry becomes a hole that the head skips); a Reset drops the store and
// its queue.
//
// earliest mirrors the time of the first entry (never when empty) for the requests' one
// atomic read. A send lowers it; only a settle, which holds settling throughout, raises it,
// after it has settled everything due before it, so that a request that reads a time still
// to come finds nothing due unsettled.
//
// Lock order: settling, then a workspace's lock, then mu; nothing is taken under mu.
type dueQueue struct {
	settling sync.Mutex
	mu       sync.Mutex // guards h, run and every campaign's dueIdx
	h        []dueEntry
	run      dueRun
	earliest atomic.Int64
	visits   atomic.Int64 // campaigns visited by Settle, for tests
}

// dueRun is the queue's entries that came in order: a ring of n slots from head, holes
// (entries whose campaign left) included, but never a hole at either end. The ring, past 64
// slots, is never more than four times as large as its live entries: it is halved, its holes
// dropped, when they are fewer, so that a first entry that waits long, behind which campaigns
// come and leave, keeps no more than that. lastAt and lastID are those of the entry queued
// last (it may have left since): a new entry must not come before it.
type dueRun struct {
	ring   []dueEntry
	head   int
	n      int // slots in use from head
	live   int // entries in them
	lastAt int64
	lastID ids.ID
}

func (q *dueQueue) init() { q.earliest.Store(never) }

// Values of campaign.dueIdx besides a place: a heap index plus one (> 0), or a run slot s as
// -(s + 2) (< -1).
const (
	notQueued = 0
	forgotten = -1 // never queued again
)

// push queues c of w at at, unless it is forgotten, and reports whether at is now the
// earliest; w.mu must be held.
func (q *dueQueue) push(w *workspace, c *campaign, at int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if c.dueIdx == forgotten {
		return false
	}
	if r := &q.run; r.n == 0 || r.lastAt < at || r.lastAt == at && r.lastID.Less(c.ID) {
		r.add(dueEntry{at, c, w})
	} else {
		c.dueIdx = int32(len(q.h)) + 1
		q.h = append(q.h, dueEntry{at, c, w})
		q.up(len(q.h) - 1)
	}
	if at < q.earliest.Load() {
		q.earliest.Store(at)
		return true
	}
	return false
}

// add appends e to the run, after every entry in it; the queue's mu must be held.
func (r *dueRun) add(e dueEntry) {
	if r.n == len(r.ring) { // full, or holes: twice its live entries, without them
		r.resize(max(64, 2*r.live))
	}
	slot := (r.head + r.n) % len(r.ring)
	r.ring[slot] = e
	e.c.dueIdx = -int32(slot) - 2
	r.n++
	r.live++
	r.lastAt, r.lastID = e.at, e.c.ID
}

// resize moves the run to a ring of size slots (more than its live entries), its holes
// dropped.
func (r *dueRun) resize(size int) {
	ring := make([]dueEntry, size)
	n := 0
	for i := range r.n {
		e := r.ring[(r.head+i)%len(r.ring)]
		if e.c == nil {
			continue
		}
		ring[n] = e
		e.c.dueIdx = -int32(n) - 2
		n++
	}
	r.ring, r.head, r.n = ring, 0, n
}

// first is the run's first entry; r.n must be > 0.
func (r *dueRun) first() *dueEntry { return &r.ring[r.head] }

// remove takes the entry of slot out of the run, leaving a hole unless it is at either end;
// the queue's mu must be held.
func (r *dueRun) remove(slot int) {
	r.ring[slot].c.dueIdx = notQueued
	r.ring[slot] = dueEntry{}
	r.live--
	for r.n > 0 && r.ring[r.head].c == nil {
		r.head = (r.head + 1) % len(r.ring)
		r.n--
	}
	for r.n > 0 && r.ring[(r.head+r.n-1)%len(r.ring)].c == nil {
		r.n--
	}
	if r.n == 0 {
		r.head = 0
	}
	size := len(r.ring)
	for size > 64 && r.live < size/4 {
		size /= 2
	}
	if size < len(r.ring) {
		r.resize(size)
	}
}

// remove takes c out of the queue; the queue's mu must be held.
func (q *dueQueue) remove(c *campaign) {
	switch {
	case c.dueIdx > 0:
		q.delete(int(c.dueIdx) - 1)
	case c.dueIdx < forgotten:
		q.run.remove(int(-c.dueIdx - 2))
	}
}

// forget unqueues c for good: it is forgotten. w.mu of its workspace must be held. It leaves
// earliest as it is: a settle puts it right.
func (q *dueQueue) forget(c *campaign) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.remove(c)
	c.dueIdx = forgotten
}

// forgot reports whether c is forgotten; w.mu of its workspace must be held.
func (q *dueQueue) forgot(c *campaign) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return c.dueIdx == forgotten
}

// top is the queue's first entry, from the run or the heap, or nil when it is empty; q.mu
// must be held.
func (q *dueQueue) top() *dueEntry {
	var e *dueEntry
	if q.run.n > 0 {
		e = q.run.first()
	}
	if len(q.h) > 0 && (e == nil || before(&q.h[0], e)) {
		e = &q.h[0]
	}
	return e
}

// popDue takes the first entry due by now, or reports false and sets earliest to the time of
// the first one left; q.settling must be held.
func (q *dueQueue) popDue(now int64) (dueEntry, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.top()
	if e == nil || e.at > now {
		q.mark()
		return dueEntry{}, false
	}
	out := *e
	q.remove(out.c)
	return out, true
}

// mark sets earliest to the time of the first entry; q.mu must be held, and q.settling.
func (q *dueQueue) mark() {
	next := int64(never)
	if e := q.top(); e != nil {
		next = e.at
	}
	q.earliest.Store(next)
}

// delete removes the heap's entry at i; q.mu must be held.
func (q *dueQueue) delete(i int) {
	last := len(q.h) - 1
	q.h[i].c.dueIdx = notQueued
	if i != last {
		q.h[i] = q.h[last]
		q.h[i].c.dueIdx = int32(i) + 1
	}
	q.h[last] = dueEntry{}
	q.h = q.h[:last]
	if i != last {
		q.down(i)
		q.up(i)
	}
	if cap(q.h) > 64 && len(q.h) < cap(q.h)/4 {
		q.h = append(make([]dueEntry, 0, cap(q.h)/2), q.h...)
	}
}

// before orders entries by due time, then by id.
func before(a, b *dueEntry) bool {
	return a.at < b.at || a.at == b.at && a.c.ID.Less(b.c.ID)
}

func (q *dueQueue) less(i, j int) bool { return before(&q.h[i], &q.h[j]) }

func (q *dueQueue) swap(i, j int) {
	q.h[i], q.h[j] = q.h[j], q.h[i]
	q.h[i].c.dueIdx, q.h[j].c.dueIdx = int32(i)+1, int32(j)+1
}

func (q *dueQueue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q *dueQueue) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(q.h) {
			return
		}
		m := l
		if r := l + 1; r < len(q.h) && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			return
		}
		q.swap(i, m)
		i = m
	}
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
// slow one only when slow (and only it when onlySlow). It reports whether any moved, and
// whether MagicSlow is left sent; w.mu must be held.
func (c *campaign) deliverAuto(at int64, slow, onlySlow bool) (moved, slowLeft bool) {
	for i := range c.recipients {
		r := &c.recipients[i]
		if r.status() != RecipientSent || onlySlow && r.phone() != MagicSlow {
			continue
		}
		to, ok := autoStatus(r.phone(), slow)
		if !ok {
			slowLeft = slowLeft || r.phone() == MagicSlow
			continue
		}
		r.move(to, at)
		c.Counts[RecipientSent]--
		c.Counts[to]++
		moved = true
	}
	return moved, slowLeft
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

// slowDelay is when MagicSlow is delivered after its send.
func (st *Store) slowDelay() int64 { return int64(max(SlowDeliveryDelay, st.cfg.DeliveryDelay)) }

// queue puts c, just stored in w with recipients sent, in the due queue, and reports whether
// it falls due before anything queued; w.mu must be held.
func (st *Store) queue(w *workspace, c *campaign) bool {
	if st.cfg.DeliveryDelay <= 0 || c.Counts[RecipientSent] == 0 {
		return false
	}
	return st.due.push(w, c, c.dueAt(int64(st.cfg.DeliveryDelay)))
}

// Due reports whether automatic delivery has something due by now: one atomic read, for the
// way in of every request.
func (st *Store) Due(now int64) bool { return now >= st.due.earliest.Load() }

// Settle delivers every recipient whose time has come by the rules of automatic delivery,
// publishes what changed, and returns the next time something is due, if anything is left.
// It visits only the campaigns due by now; one Settle runs at a time, and a Settle that
// finds nothing due returns at once.
func (st *Store) Settle(now int64) (next int64, more bool) {
	q := &st.due
	if e := q.earliest.Load(); now < e {
		return e, e != never
	}
	q.settling.Lock()
	defer q.settling.Unlock()
	var buf [2]Campaign // a campaign changes at most twice in one settle: on the stack
	changed := buf[:0]
	for {
		e, ok := q.popDue(now)
		if !ok {
			next = q.earliest.Load()
			return next, next != never
		}
		changed = e.w.settleDue(st, e.c, now, changed[:0])
		for _, c := range changed {
			st.delivered(e.w.id, c)
		}
	}
}

// settleDue settles c, just taken from the due queue, as far as now allows: its recipients
// but MagicSlow (again, which moves nothing, when the entry was for MagicSlow), then MagicSlow,
// or it queues c again for MagicSlow's time. It appends c as it was after each pass that moved
// something to changed. A campaign forgotten or delivered by DeliverAll meanwhile is left
// alone, or has nothing left to move.
func (w *workspace) settleDue(st *Store, c *campaign, now int64, changed []Campaign) []Campaign {
	w.mu.Lock()
	defer w.mu.Unlock()
	st.due.visits.Add(1)
	if st.due.forgot(c) {
		return changed
	}
	due := c.dueAt(int64(st.cfg.DeliveryDelay))
	c.settle(due)
	moved, slowLeft := c.deliverAuto(due, false, false)
	if moved {
		changed = append(changed, c.Campaign)
	}
	if !slowLeft {
		return changed
	}
	if due = c.dueAt(st.slowDelay()); due > now {
		st.due.push(w, c, due)
		return changed
	}
	if moved, _ := c.deliverAuto(due, true, true); moved {
		changed = append(changed, c.Campaign)
	}
	return changed
}

// DeliverAll settles every recipient still sent, in every workspace and mode, by the rules of
// automatic delivery, at once: MagicSlow is delivered too, MagicPending stays sent, and a
// campaign still processing is sent first. It returns how many campaigns changed, and leaves
// the due queue empty of every campaign it visited.
func (st *Store) DeliverAll(now int64) int {
	n := 0
	for _, w := range st.allWorkspaces() {
		changed := w.deliverAll(st, now)
		for _, c := range changed {
			st.delivered(w.id, c)
		}
		n += len(changed)
	}
	// Put earliest right now, rather than on the next request's way in.
	q := &st.due
	q.settling.Lock()
	q.mu.Lock()
	q.mark()
	q.mu.Unlock()
	q.settling.Unlock()
	return n
}

func (w *workspace) deliverAll(st *Store, now int64) []Campaign {
	w.mu.Lock()
	defer w.mu.Unlock()
	q := &st.due
	q.mu.Lock()
	for mi := range w.modes {
		for _, c := range w.modes[mi].campaigns {
			q.remove(c)
		}
	}
	q.mu.Unlock()
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
			if moved, _ := c.deliverAuto(now, true, false); moved {
				changed = append(changed, c.Campaign)
			}
		}
	}
	return changed
}
