package store

import (
	"context"
	"runtime"
	"sort"
	"sync"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// The message index: the inbox's lists are paged from it, so that a first page costs the page,
// not the store. Every campaign and OTP message kept as messages has one entry, in id order
// (creation order over the server), in the list of the whole server and in the list of its
// workspace; each list also keeps how many messages it holds and its conversations
// (one per number: how many messages and the newest), newest conversation first. A send adds
// its entry as it is accepted; a trim or a clear takes entries out as they forget messages.
//
// Locks: the index's lock is taken before a workspace's, never inside it. Readers hold it (for
// reading) only to copy walkChunk entries or one page of conversations, never while they match
// texts, so a send waits on a reader for at most one chunk.
//
// Memory: an entry is 48 bytes (a campaign's inside the campaign, an OTP message's apart) and
// 16 more for its places in the two lists; a conversation is
// about 72 bytes (its node and its map slot) in each of the two lists: about 64 bytes per
// campaign or OTP message and 144 per number per workspace (docs/benchmarks.md).

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
// message i of latest.
type conv struct {
	phone      uint64
	count      int32
	i          int32
	latest     *entry
	prev, next *conv
}

// scope is the index of one list: the server's or one workspace's. Its counts of messages by
// mode and kind are not kept: a filter by them scans.
type scope struct {
	list  []*entry // id order, oldest first; dead entries wait there until compacted
	dead  int      // dead entries in list
	msgs  int      // messages of the live entries
	convs map[uint64]*conv
	front *conv // the newest conversation; the list runs by next to the oldest
}

func newScope() *scope { return &scope{convs: make(map[uint64]*conv)} }

// msgIndex is the message index of a store.
type msgIndex struct {
	mu   sync.RWMutex
	all  *scope
	byWS map[*workspace]*scope

	searches chan struct{} // a token per search running
}

func newIndex() *msgIndex {
	return &msgIndex{all: newScope(), byWS: make(map[*workspace]*scope), searches: make(chan struct{}, MaxSearches)}
}

// scope is the list of w, or of the server when w is nil; nil when w has none. x.mu must be held.
func (x *msgIndex) scope(w *workspace) *scope {
	if w == nil {
		return x.all
	}
	return x.byWS[w]
}

// indexCampaign adds c's messages unless a trim or a clear forgot them first.
func (st *Store) indexCampaign(w *workspace, mode Mode, c *campaign) {
	c.ix = entry{id: c.ID, w: w, c: c, n: int32(len(c.recipients)), mode: mode}
	st.idx.addLocked(&c.ix)
}

// indexOTP adds an OTP message unless a trim or a clear forgot it first.
func (st *Store) indexOTP(w *workspace, mode Mode, o *otpMessage) {
	st.idx.addLocked(&entry{id: o.id, w: w, o: o, n: 1, mode: mode})
}

// addLocked takes the index's lock, then e's workspace's, and adds e with its phones unless
// it was forgotten meanwhile.
func (x *msgIndex) addLocked(e *entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e.w.mu.Lock()
	defer e.w.mu.Unlock()
	if e.w.gone || e.c != nil && e.c.template == "" || e.o != nil && e.o.forgotten {
		return
	}
	x.add(e)
}

// add puts e in the server's list and its workspace's, and counts each of its messages in
// its phone's conversation; x.mu and e.w.mu must be held.
func (x *msgIndex) add(e *entry) {
	ws := x.byWS[e.w]
	if ws == nil {
		ws = newScope()
		x.byWS[e.w] = ws
	}
	for _, sc := range [...]*scope{x.all, ws} {
		sc.insert(e)
		sc.msgs += int(e.n)
		if e.o != nil {
			sc.arrive(e.o.phone, e, 0)
			continue
		}
		for i, r := range e.c.recipients {
			sc.arrive(r.phone(), e, int32(i))
		}
	}
}

// insert puts e in id order: at the end but for sends that took their ids in another order.
func (sc *scope) insert(e *entry) {
	k := len(sc.list)
	for k > 0 && e.id.Less(sc.list[k-1].id) {
		k--
	}
	sc.list = append(sc.list, nil)
	copy(sc.list[k+1:], sc.list[k:])
	sc.list[k] = e
}

// arrive counts message i of e in the conversation of phone, which it leads if it is the newest.
func (sc *scope) arrive(phone uint64, e *entry, i int32) {
	cv := sc.convs[phone]
	if cv == nil {
		cv = &conv{phone: phone}
		sc.convs[phone] = cv
	} else if !cv.latest.id.Less(e.id) {
		cv.count++ // an older message, indexed after a newer one
		return
	} else {
		sc.unlink(cv)
	}
	cv.count++
	cv.latest, cv.i = e, i
	// The newest conversation goes first; walk past any that are newer still.
	var prev *conv
	next := sc.front
	for next != nil && e.id.Less(next.latest.id) {
		prev, next = next, next.next
	}
	cv.prev, cv.next = prev, next
	if prev == nil {
		sc.front = cv
	} else {
		prev.next = cv
	}
	if next != nil {
		next.prev = cv
	}
}

func (sc *scope) unlink(cv *conv) {
	if cv.prev == nil {
		sc.front = cv.next
	} else {
		cv.prev.next = cv.next
	}
	if cv.next != nil {
		cv.next.prev = cv.prev
	}
	cv.prev, cv.next = nil, nil
}

// leave uncounts a forgotten message of phone's conversation, which goes with its last one.
// Messages are forgotten oldest first, so the newest goes last.
func (sc *scope) leave(phone uint64) {
	cv := sc.convs[phone]
	if cv == nil {
		return
	}
	if cv.count--; cv.count <= 0 {
		sc.unlink(cv)
		delete(sc.convs, phone)
	}
}

// forget takes out the entry of campaign c or OTP message o of w, just forgotten by a trim;
// x.mu and w.mu must be held.
func (x *msgIndex) forget(w *workspace, c *campaign, o *otpMessage) {
	e := x.all.find(c.idOr(o))
	if e == nil {
		return // never indexed: forgotten before its send indexed it
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
// most limit of them, as their counts and newest messages, and how many there are.
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
	cv := sc.front
	for k := 0; k < offset && cv != nil; k++ {
		cv = cv.next
	}
	for ; cv != nil && len(refs) < limit; cv = cv.next {
		counts = append(counts, cv.count)
		refs = append(refs, cv.latest.ref(cv.i, cv.phone))
	}
	return counts, refs, len(sc.convs)
}

// ref is message i of e, to phone.
func (e *entry) ref(i int32, phone uint64) msgRef {
	return msgRef{w: e.w, c: e.c, o: e.o, to: phone, i: i, mode: e.mode}
}

// turnFor takes a turn (see turn) for a read of q that scans the lists; a read of one
// campaign, bounded by its recipients, needs none, and its release does nothing.
func (x *msgIndex) turnFor(ctx context.Context, q *Query, queue bool) (func(), error) {
	if q.hasCamp {
		return func() {}, nil
	}
	return x.turn(ctx, queue)
}

// turn waits for one of MaxSearches turns to scan, until ctx is done, or with queue false
// refuses at once when none is free. The release it returns gives the turn back.
func (x *msgIndex) turn(ctx context.Context, queue bool) (func(), error) {
	release := func() { <-x.searches }
	select {
	case x.searches <- struct{}{}:
		return release, nil
	default:
	}
	if !queue {
		return nil, rateLimited("Too many searches of the messages are running; try again in a second.", 1)
	}
	select {
	case x.searches <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
