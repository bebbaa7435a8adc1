package store

import (
	"container/heap"
	"sync/atomic"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// Bounds of what the store keeps, so that a mock that runs for weeks does not grow without
// end; docs/api.md lists each with its memory figure.

// DefaultMaxWorkspaces is how many workspaces a store holds unless told otherwise, the default
// one included. A new workspace (its two keys, its sender ID, its maps and its entries in the
// store's) costs about 1.4 KB, so the default allows about 14 MB of them; their campaigns
// count in the message limit.
const DefaultMaxWorkspaces = 10_000

// DefaultMaxMessages is how many recipients of campaigns and OTP messages a store keeps unless
// told otherwise. Past it the oldest campaigns are forgotten entirely, with their messages. A
// stored recipient costs 16 bytes beyond its campaign (20 plus the bytes of its name when the
// campaign is personalised), a campaign about 200 bytes, and an OTP message about 220
// (docs/benchmarks.md), so a full store of campaigns of many recipients takes about 18 MB,
// and of one-recipient campaigns about 200 MB.
const DefaultMaxMessages = 1_000_000

// quota counts things made against a limit, without a lock.
type quota struct{ n atomic.Int64 }

// take counts one more and reports true, or reports false when limit are already counted.
func (q *quota) take(limit int) bool {
	if q.n.Add(1) > int64(limit) {
		q.n.Add(-1)
		return false
	}
	return true
}

// give uncounts one taken for something that was not made after all.
func (q *quota) give() { q.n.Add(-1) }

// keep counts n new messages and, past the limit, forgets the oldest campaigns and OTP
// messages until trimTarget are left. One caller trims at a time; the others go on, and the
// trimmer forgets for them too if need be.
func (st *Store) keep(n int) {
	limit := int64(st.cfg.MaxMessages)
	if st.stored.Add(int64(n)) <= limit || !st.trimMu.TryLock() {
		return
	}
	defer st.trimMu.Unlock()
	st.trim(trimTarget(limit))
}

// trimTarget is how many recipients and OTP messages a trim leaves when the store is past
// limit: limit less a 64th, so that a full store is trimmed once per limit/64 stored, not at
// every send. Limits under 64 are kept exactly.
func trimTarget(limit int64) int64 { return limit - limit/64 }

// trim forgets the oldest campaigns and OTP messages of every workspace and mode until at most
// target are stored. It takes each workspace's lock once to read the oldest of its four lists
// (campaigns and OTP messages of each mode), then picks the oldest through a heap, locking only
// the workspace it forgets from: O(workspaces + forgotten × log workspaces), once per trim.
func (st *Store) trim(target int64) {
	var h headHeap
	for _, w := range st.allWorkspaces() {
		w.mu.Lock()
		for mi := range w.modes {
			for _, isOTP := range [...]bool{false, true} {
				if id, ok := w.modes[mi].oldest(isOTP); ok {
					h = append(h, listHead{w: w, id: id, mode: Mode(mi), otp: isOTP})
				}
			}
		}
		w.mu.Unlock()
	}
	heap.Init(&h)
	st.idx.mu.Lock() // before any workspace's, and the entries go as their messages do
	defer st.idx.mu.Unlock()
	for st.stored.Load() > target && len(h) > 0 {
		top := &h[0]
		top.w.mu.Lock()
		md := &top.w.modes[top.mode]
		c, o := md.oldestItem(top.otp)
		n := md.forgetOldest(&st.due, top.otp, top.id)
		if n > 0 {
			st.idx.forget(top.w, c, o)
		}
		next, more := md.oldest(top.otp)
		top.w.mu.Unlock()
		st.stored.Add(-int64(n))
		if more {
			top.id = next
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
}

// oldest is the id of the oldest campaign (or OTP message) of the mode; w.mu must be held.
func (md *modeData) oldest(otp bool) (ids.ID, bool) {
	if otp {
		if len(md.otpMsgs) > 0 {
			return md.otpMsgs[0].id, true
		}
	} else if len(md.campaigns) > 0 {
		return md.campaigns[0].ID, true
	}
	return ids.ID{}, false
}

// oldestItem is the oldest campaign (or OTP message) of the mode, the other one nil; w.mu
// must be held.
func (md *modeData) oldestItem(otp bool) (*campaign, *otpMessage) {
	switch {
	case otp && len(md.otpMsgs) > 0:
		return nil, md.otpMsgs[0]
	case !otp && len(md.campaigns) > 0:
		return md.campaigns[0], nil
	}
	return nil, nil
}

// forgetOldest forgets the oldest campaign (or OTP message) of the mode if its id is still id
// (a clear may have gone first), takes it out of the due queue q, and returns how many
// recipients it had; w.mu must be held.
func (md *modeData) forgetOldest(q *dueQueue, otp bool, id ids.ID) int {
	switch {
	case otp && len(md.otpMsgs) > 0 && md.otpMsgs[0].id == id:
		md.otpMsgs[0].forgotten = true
		md.otpMsgs[0] = nil
		md.otpMsgs = md.otpMsgs[1:]
		return 1
	case !otp && len(md.campaigns) > 0 && md.campaigns[0].ID == id:
		c := md.campaigns[0]
		c.forget()
		q.forget(c)
		md.campaigns[0] = nil
		md.campaigns = md.campaigns[1:]
		md.msgFrom = max(md.msgFrom-1, 0)
		return len(c.recipients)
	}
	return 0
}

// listHead is the oldest item of one list of a workspace, for trim's heap.
type listHead struct {
	w    *workspace
	id   ids.ID
	mode Mode
	otp  bool
}

// headHeap orders list heads oldest first: ids ascend in creation order over the server.
type headHeap []listHead

func (h headHeap) Len() int           { return len(h) }
func (h headHeap) Less(i, j int) bool { return h[i].id.Less(h[j].id) }
func (h headHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *headHeap) Push(x any)        { *h = append(*h, x.(listHead)) }
func (h *headHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
