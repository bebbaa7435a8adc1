package store

import (
	"context"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// The message index: the inbox's lists are paged from it, so that a first page costs the page,
// not the store. Every campaign and OTP message kept as messages has one entry, in id order
// (creation order over the server), in the list of the whole server and in the list of its
// workspace; each list also keeps how many messages it holds and its conversations
// (one per number: how many messages and the newest), newest conversation first. A send adds
// its entry as it is accepted; a trim or a clear takes entries out as they forget messages.
//
// Locks: the index's lock is taken before a workspace's, never inside it (a large send takes
// the index's large lock before both). Readers hold it (for reading) only to copy walkChunk
// entries or one page of conversations, never while they match texts, so a send waits on a
// reader for at most one chunk.
//
// Memory: an entry is 48 bytes (a campaign's inside the campaign, an OTP message's apart) and
// 16 more for its places in the two lists; a conversation is about 79 bytes (its 32-byte node,
// its map slot, its slot in the order, which holds at most twice the conversations) in each
// of the two lists: about 64 bytes per campaign or OTP message and 158 per number per
// workspace (docs/benchmarks.md).

// walkChunk is how many entries a reader copies under the index's lock at a time.
const walkChunk = 256

// MaxSearches is how many reads that must scan the store (a filter by number, sender, text,
// time, mode or kind) run at once; more wait for a turn or are refused.
const MaxSearches = 2

// entry is one campaign or OTP message of the index. All but dead is set before it is
// published and never changes; dead is guarded by the index's lock.
type entry struct {
	id   ids.ID
	w    *workspace
	c    *campaign   // or
	o    *otpMessage // one of them
	n    int32       // messages: recipients, or 1
	mode Mode
	dead bool
}

// kind is 0 for an SMS (a campaign's), 1 for an OTP message.
func (e *entry) kind() int {
	if e.o != nil {
		return 1
	}
	return 0
}

// conv is one number's conversation in a list: how many messages and the newest, which is
// message i of latest, and its slot in the list's order.
type conv struct {
	phone  uint64
	count  int32
	i      int32
	latest *entry
	slot   int32
}

// convBlock is how many slots of a list's conversation order one count of live conversations
// covers: a page finds its first conversation by these counts, not by walking those before it.
const convBlock = 256

// scope is the index of one list: the server's or one workspace's. Its counts of messages by
// mode and kind are not kept: a filter by them scans.
//
// Entries arrive in id order (the store takes a campaign's or OTP message's id under the
// index's lock, see lockSend), so an entry is appended to list and each of its messages makes
// its number's conversation the newest: the conversation leaves its slot in order (a hole) and
// takes the next one at the end, O(1) whatever the arrival order of the sends.
type scope struct {
	list  []*entry // id order, oldest first; dead entries wait there until compacted
	dead  int      // dead entries in list
	msgs  int      // messages of the live entries
	convs map[uint64]*conv
	order []*conv // the conversations by their newest message, oldest first; nil: a hole
	holes int     // nil slots in order
	live  []int32 // live conversations in each convBlock slots of order
}

func newScope() *scope { return &scope{convs: make(map[uint64]*conv)} }

// msgIndex is the message index of a store.
type msgIndex struct {
	mu   sync.RWMutex
	all  *scope
	byWS map[*workspace]*scope

	large sync.Mutex // taken by a send of more than largeSend messages before mu
	turns turns      // the scans' turns

	steps atomic.Int64 // slots and entries moved or visited: the tests' measure of the work
}

func newIndex() *msgIndex {
	x := &msgIndex{all: newScope(), byWS: make(map[*workspace]*scope)}
	x.turns.free = MaxSearches
	return x
}

// scope is the list of w, or of the server when w is nil; nil when w has none. x.mu must be held.
func (x *msgIndex) scope(w *workspace) *scope {
	if w == nil {
		return x.all
	}
	return x.byWS[w]
}

// largeSend is the most recipients of a send that waits for the index's lock with the others;
// a larger one first waits for the large sends before it.
const largeSend = 100

// lockSend takes the index's lock, then w's, for a send of n messages: a send takes its id and
// is indexed under both, so that the index adds entries in id order. A large send first takes
// the large sends' turn, so that at most one of them waits for the index's lock and a small
// send waits for one large send's indexing, not for every large send in flight.
func (x *msgIndex) lockSend(w *workspace, n int) {
	if n > largeSend {
		x.large.Lock()
	}
	x.mu.Lock()
	w.mu.Lock()
}

// unlockSend releases what lockSend took.
func (x *msgIndex) unlockSend(w *workspace, n int) {
	w.mu.Unlock()
	x.mu.Unlock()
	if n > largeSend {
		x.large.Unlock()
	}
}

// indexCampaign adds c's messages; x.mu and w.mu must be held since c took its id.
func (st *Store) indexCampaign(w *workspace, mode Mode, c *campaign) {
	c.ix = entry{id: c.ID, w: w, c: c, n: int32(len(c.recipients)), mode: mode}
	st.idx.add(&c.ix)
}

// indexOTP adds an OTP message; x.mu and w.mu must be held since o took its id.
func (st *Store) indexOTP(w *workspace, mode Mode, o *otpMessage) {
	st.idx.add(&entry{id: o.id, w: w, o: o, n: 1, mode: mode})
}

// add puts e, newer than every entry indexed, in the server's list and its workspace's, and
// counts each of its messages in its phone's conversation; x.mu and e.w.mu must be held.
func (x *msgIndex) add(e *entry) {
	ws := x.byWS[e.w]
	if ws == nil {
		ws = newScope()
		x.byWS[e.w] = ws
	}
	steps := 0
	for _, sc := range [...]*scope{x.all, ws} {
		sc.list = append(sc.list, e)
		sc.msgs += int(e.n)
		if e.o != nil {
			steps += sc.arrive(e.o.phone, e, 0)
			continue
		}
		for i, r := range e.c.recipients {
			steps += sc.arrive(r.phone(), e, int32(i))
		}
	}
	x.steps.Add(int64(steps))
}

// arrive counts message i of e, the newest entry, in the conversation of phone, which it
// makes the newest. It returns the slots it moved.
func (sc *scope) arrive(phone uint64, e *entry, i int32) int {
	cv := sc.convs[phone]
	if cv == nil {
		cv = &conv{phone: phone}
		sc.convs[phone] = cv
	} else {
		sc.vacate(cv)
	}
	cv.count++
	cv.latest, cv.i = e, i
	cv.slot = int32(len(sc.order))
	if len(sc.order)%convBlock == 0 {
		sc.live = append(sc.live, 0)
	}
	sc.order = append(sc.order, cv)
	sc.live[len(sc.live)-1]++
	return 1 + sc.compactConvs()
}

// vacate leaves a hole in cv's slot.
func (sc *scope) vacate(cv *conv) {
	sc.order[cv.slot] = nil
	sc.live[cv.slot/convBlock]--
	sc.holes++
}

// compactConvs closes the holes of the conversation order once they are half of it, so that
// it holds at most twice the conversations, and returns the slots it moved: each slot moved
// was paid for by a hole made since the last compaction, O(1) a message.
func (sc *scope) compactConvs() int {
	if sc.holes*2 <= len(sc.order) {
		return 0
	}
	order := make([]*conv, 0, 2*(len(sc.order)-sc.holes))
	sc.live = sc.live[:0]
	for _, cv := range sc.order {
		if cv == nil {
			continue
		}
		cv.slot = int32(len(order))
		if len(order)%convBlock == 0 {
			sc.live = append(sc.live, 0)
		}
		order = append(order, cv)
		sc.live[len(sc.live)-1]++
	}
	sc.order, sc.holes = order, 0
	return len(order)
}

// leave uncounts a forgotten message of phone's conversation, which goes with its last one.
// Messages are forgotten oldest first, so the newest goes last.
func (sc *scope) leave(phone uint64) {
	cv := sc.convs[phone]
	if cv == nil {
		return
	}
	if cv.count--; cv.count <= 0 {
		sc.vacate(cv)
		delete(sc.convs, phone)
		sc.compactConvs()
	}
}

// forget takes out the entry of campaign c or OTP message o of w, just forgotten by a trim;
// x.mu and w.mu must be held.
func (x *msgIndex) forget(w *workspace, c *campaign, o *otpMessage) {
	e := x.all.find(c.idOr(o))
	if e == nil {
		return // never indexed, or forgotten already
	}
	e.dead = true
	for _, sc := range [...]*scope{x.all, x.byWS[w]} {
		sc.dead++
		sc.msgs -= int(e.n)
		if o != nil {
			sc.leave(o.phone)
		} else {
			for _, r := range c.recipients {
				sc.leave(r.phone())
			}
		}
		sc.compact()
	}
	if len(x.byWS[w].list) == 0 {
		delete(x.byWS, w)
	}
}

// compact drops the dead entries at the head of the list, and every dead entry once they are
// half of it, so that a list holds at most twice its live entries.
func (sc *scope) compact() {
	k := 0
	for k < len(sc.list) && sc.list[k].dead {
		sc.list[k] = nil
		k++
	}
	sc.list, sc.dead = sc.list[k:], sc.dead-k
	if sc.dead*2 <= len(sc.list) {
		return
	}
	live := make([]*entry, 0, len(sc.list)-sc.dead)
	for _, e := range sc.list {
		if !e.dead {
			live = append(live, e)
		}
	}
	sc.list, sc.dead = live, 0
}

// reset empties the index: a clear forgot every message. x.mu must be held.
func (x *msgIndex) reset() {
	x.all, x.byWS = newScope(), make(map[*workspace]*scope)
}

// idOr is the id of c, or of o when c is nil.
func (c *campaign) idOr(o *otpMessage) ids.ID {
	if c == nil {
		return o.id
	}
	return c.ID
}

// walk calls fn with the live entries of w's list (the server's when w is nil), newest first,
// until fn returns false. It copies walkChunk entries at a time under the index's read lock
// and calls fn outside it; between chunks it finds its place again by id, so that entries
// added or dropped meanwhile move nothing it has yet to see.
func (x *msgIndex) walk(w *workspace, fn func(*entry) bool) {
	var buf [walkChunk]*entry
	var below ids.ID // the oldest id seen so far
	started := false
	for {
		n, more := 0, false
		x.mu.RLock()
		if sc := x.scope(w); sc != nil {
			list := sc.list
			k := len(list)
			if started {
				k = sort.Search(len(list), func(k int) bool { return !list[k].id.Less(below) })
			}
			for ; k > 0 && n < len(buf); k-- {
				if e := list[k-1]; !e.dead {
					buf[n] = e
					n++
				}
				below = list[k-1].id
			}
			more = k > 0
		}
		x.mu.RUnlock()
		started = true
		for _, e := range buf[:n] {
			if !fn(e) {
				return
			}
		}
		if !more {
			return
		}
		runtime.Gosched() // a long walk lets sends run between chunks
	}
}

// count is how many messages w's list holds (the server's when w is nil).
func (x *msgIndex) count(w *workspace) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if sc := x.scope(w); sc != nil {
		return sc.msgs
	}
	return 0
}

// find is the live entry of id, or nil.
func (x *msgIndex) find(id ids.ID) *entry {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.all.find(id)
}

// find is the live entry of id in the list, or nil; the index's lock must be held. The
// oldest, which a trim asks for, is found at once.
func (sc *scope) find(id ids.ID) *entry {
	list := sc.list
	if len(list) > 0 && list[0].id == id {
		return list[0] // never dead: compact drops dead heads
	}
	k := sort.Search(len(list), func(k int) bool { return !list[k].id.Less(id) })
	if k < len(list) && list[k].id == id && !list[k].dead {
		return list[k]
	}
	return nil
}

// convPage is the conversations of w's list (the server's when w is nil) from offset on, at
// most limit of them, as their counts and newest messages, and how many there are. It finds
// the page by the blocks' counts of live conversations: it costs the page and a count per
// convBlock conversations, never a walk of those before it.
func (x *msgIndex) convPage(w *workspace, offset, limit int) ([]int32, []msgRef, int) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	sc := x.scope(w)
	if sc == nil {
		return nil, nil, 0
	}
	if offset >= len(sc.convs) {
		return nil, nil, len(sc.convs) // past the end: no walk
	}
	var counts []int32
	var refs []msgRef
	steps := 0
	b := len(sc.live) - 1 // newest first: from the last block
	for ; b >= 0 && offset >= int(sc.live[b]); b-- {
		offset -= int(sc.live[b])
		steps++
	}
	for ; b >= 0 && len(refs) < limit; b-- {
		if sc.live[b] == 0 {
			steps++
			continue
		}
		for k := min((b+1)*convBlock, len(sc.order)) - 1; k >= b*convBlock && len(refs) < limit; k-- {
			steps++
			cv := sc.order[k]
			if cv == nil {
				continue
			}
			if offset > 0 {
				offset--
				continue
			}
			counts = append(counts, cv.count)
			refs = append(refs, cv.latest.ref(cv.i, cv.phone))
		}
	}
	x.steps.Add(int64(steps))
	return counts, refs, len(sc.convs)
}

// ref is message i of e, to phone.
func (e *entry) ref(i int32, phone uint64) msgRef {
	return msgRef{w: e.w, c: e.c, o: e.o, to: phone, i: i, mode: e.mode}
}

// turnFor takes a turn (see turn) for a read of q that scans: every read but one of a
// campaign with no other filter, bounded by the campaign's recipients, whose release does
// nothing.
func (x *msgIndex) turnFor(ctx context.Context, q *Query, queue bool) (func(), error) {
	if q.hasCamp && !q.search() {
		return func() {}, nil
	}
	return x.turn(ctx, queue)
}

// turn waits for one of MaxSearches turns to scan, in the order the turns were asked for,
// until ctx is done (ctx.Err()). Without queue (every HTTP read, long polls included), a read
// past MaxQueuedSearches others waiting without queue is refused at once (a
// *RateLimitError); with queue (the Go controls, in-process calls that cannot be answered
// 429) it waits whatever the queue holds. The release it returns gives the turn back, to the
// first waiting if any.
func (x *msgIndex) turn(ctx context.Context, queue bool) (func(), error) {
	if err := x.turns.take(ctx, queue); err != nil {
		return nil, err
	}
	return x.turns.give, nil
}

// MaxQueuedSearches is how many HTTP reads that scan wait for a turn at once, long polls
// included (their first look is a read like any); past them a read is refused (429 with
// Retry-After: 1). A waiting read holds its request and about 120 bytes of the queue.
const MaxQueuedSearches = 16

// SearchTurn waits for a scan turn as an HTTP read that scans does (see msgIndex.turn): in
// the order asked, counted against MaxQueuedSearches (a *RateLimitError past them), until ctx
// is done; it returns what gives the turn back. For work that must take its turn with the
// store's searches, such as a test holding every turn.
func (st *Store) SearchTurn(ctx context.Context) (func(), error) { return st.idx.turn(ctx, false) }

// SearchesWaiting is how many reads wait for a scan turn.
func (st *Store) SearchesWaiting() int {
	st.idx.turns.mu.Lock()
	defer st.idx.turns.mu.Unlock()
	return len(st.idx.turns.queue)
}

// turns hands out MaxSearches turns first come, first served: a turn given back goes to the
// oldest waiter, so that a reader who comes back after a refusal is served in its place in
// the queue, however often others ask.
type turns struct {
	mu     sync.Mutex
	free   int       // turns no one holds, while no one waits
	queue  []*waiter // oldest first
	capped int       // waiters counted against MaxQueuedSearches
}

// waiter is one read waiting for a turn; ready is closed when it has one.
type waiter struct {
	ready  chan struct{}
	capped bool
}

// take waits for a turn (see msgIndex.turn).
func (t *turns) take(ctx context.Context, queue bool) error {
	t.mu.Lock()
	if t.free > 0 && len(t.queue) == 0 {
		t.free--
		t.mu.Unlock()
		return nil
	}
	if !queue && t.capped >= MaxQueuedSearches {
		t.mu.Unlock()
		return rateLimited("Too many searches of the messages are waiting; try again in a second.", 1)
	}
	w := &waiter{ready: make(chan struct{}), capped: !queue}
	t.queue = append(t.queue, w)
	if w.capped {
		t.capped++
	}
	t.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	t.mu.Lock()
	if i := slices.Index(t.queue, w); i >= 0 {
		t.queue = slices.Delete(t.queue, i, i+1)
		if w.capped {
			t.capped--
		}
		t.mu.Unlock()
		return ctx.Err()
	}
	t.mu.Unlock()
	t.give() // given a turn as ctx ended: to the next
	return ctx.Err()
}

// give gives a turn back: to the oldest waiter, or free.
func (t *turns) give() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.queue) == 0 {
		t.free++
		return
	}
	w := t.queue[0]
	t.queue = slices.Delete(t.queue, 0, 1)
	if w.capped {
		t.capped--
	}
	close(w.ready)
}
