package store

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// Waiting for messages: a long poll (GET /_mock/messages?wait=) or WaitMessage that found
// nothing registers a Watch with its query, and each accepted send or OTP matches its own new
// messages against every watch, under its workspace's lock, and hands the first one that
// selects any of them its matches. A send costs its new messages times the watches, whatever
// the store holds: no waiter rescans the store when something arrives.

// Watchers is the set of watches waiting for new messages. A server has one, which every
// store it makes shares, so that a watch outlives Reset. Its zero value is ready to use; it is
// safe for concurrent use.
type Watchers struct {
	mu    sync.Mutex
	set   map[*Watch]struct{}
	count atomic.Int32 // len(set), read by every send without the lock
}

// Watch is a wait for the first new messages a query selects.
type Watch struct {
	q            Query
	offset, keep int // the page the waiter wants: the newest keep matches are kept
	ws           *Watchers
	done         chan struct{} // closed once matched

	// Set once, before done is closed.
	st    *Store   // the store the matches are in
	refs  []msgRef // the newest matches, newest first
	total int      // how many matched
}

// Watch registers a wait for the first messages q selects among those sent from now on, in
// any store made with ws. offset and limit are the page of them the waiter will read with
// Messages. Stop must follow.
func (ws *Watchers) Watch(q Query, offset, limit int) *Watch {
	offset, limit = min(max(offset, 0), math.MaxInt32), min(max(limit, 0), math.MaxInt32)
	wt := &Watch{q: q, offset: offset, keep: offset + limit, ws: ws, done: make(chan struct{})}
	ws.mu.Lock()
	if ws.set == nil {
		ws.set = make(map[*Watch]struct{})
	}
	ws.set[wt] = struct{}{}
	ws.count.Add(1)
	ws.mu.Unlock()
	return wt
}

// Done is closed when messages the watch's query selects have arrived.
func (wt *Watch) Done() <-chan struct{} { return wt.done }

// Stop ends the watch; it is safe to call more than once, and after Done.
func (wt *Watch) Stop() {
	ws := wt.ws
	ws.mu.Lock()
	if _, ok := ws.set[wt]; ok {
		delete(ws.set, wt)
		ws.count.Add(-1)
	}
	ws.mu.Unlock()
}

// Messages returns the page of the messages that matched, newest first, and how many matched,
// once Done is closed (before, none). A message forgotten since it arrived (a clear, a trim)
// is left out of the page, as Store.Messages leaves it out.
func (wt *Watch) Messages() ([]Message, int) {
	select {
	case <-wt.done:
	default:
		return []Message{}, 0
	}
	out := []Message{}
	if wt.offset < len(wt.refs) {
		for _, r := range wt.refs[wt.offset:] {
			if m, ok := wt.st.render(r); ok {
				out = append(out, m)
			}
		}
	}
	return out, wt.total
}

// selectsList reports whether q may select messages of a workspace's mode's campaigns (or OTP
// messages).
func (q *Query) selectsList(ws ids.ID, mode Mode, otp bool) bool {
	if q.hasWS && ws != q.ws || q.mode >= 0 && Mode(q.mode) != mode {
		return false
	}
	if otp {
		return q.kind != 0 && !q.hasCamp
	}
	return q.kind != 1
}

// arrivedCampaign hands c's messages to the watches that select any of them.
func (st *Store) arrivedCampaign(w *workspace, mode Mode, c *campaign) {
	if st.cfg.Watchers == nil || st.cfg.Watchers.count.Load() == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if c.template == "" {
		return // forgotten already: a trim or a clear went first
	}
	st.arrived(w, mode, false, func(q *Query) []msgRef { return q.addCampaign(nil, w, mode, c) })
}

// arrivedOTP hands an OTP message to the watches that select it.
func (st *Store) arrivedOTP(w *workspace, mode Mode, o *otpMessage) {
	if st.cfg.Watchers == nil || st.cfg.Watchers.count.Load() == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	st.arrived(w, mode, true, func(q *Query) []msgRef { return q.addOTP(nil, w, mode, o) })
}

// arrived matches new messages of w's mode against every watch: match returns those a query
// selects, oldest first. A watch that selects any is done and leaves the set. w.mu must be
// held; the watchers' lock is taken inside it, never the other way round.
func (st *Store) arrived(w *workspace, mode Mode, otp bool, match func(*Query) []msgRef) {
	ws := st.cfg.Watchers
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for wt := range ws.set {
		if !wt.q.selectsList(w.id, mode, otp) {
			continue
		}
		refs := match(&wt.q)
		if len(refs) == 0 {
			continue
		}
		wt.total = len(refs)
		refs = slices.Clone(refs[max(len(refs)-wt.keep, 0):]) // only the page can be read
		slices.Reverse(refs)
		wt.st, wt.refs = st, refs
		delete(ws.set, wt)
		ws.count.Add(-1)
		close(wt.done)
	}
}
