package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"container/heap"
	"sync/atomic"
	"time"
)

// Bounds of the stores that are not the campaigns' (see DefaultMaxMessages), so that a mock
// that runs for weeks does not grow without end. docs/api.md lists every bound with its memory
// figure.

// DefaultMaxWorkspaces is how many workspaces a server holds unless WithWorkspaceLimit says
// otherwise, the default one included. A new workspace (its two keys, its sender ID, its maps
// and its entries in the store's) costs about 1.4 KB, so the default allows about 14 MB of
// them; their campaigns count in the message limit.
const DefaultMaxWorkspaces = 10_000

// DefaultMaxDND is how many numbers the Do-Not-Disturb register holds unless WithDNDLimit says
// otherwise: at most about 24 MB, at up to 24 bytes a number (the map's slots, more or less
// full as it grows).
const DefaultMaxDND = 1_000_000

// otpRetention is how long after it was sent an OTP's pin record, its per-number bookkeeping
// and its entry in the latest-pin map are kept: an hour at least after the pin expired, since
// pins live 1 to 60 minutes, and longer than the per-number send window. A pin older than that
// can no longer be verified anyway: verifying it is 404, and /_mock/otps/latest forgets it.
const otpRetention = 2 * time.Hour

// maxLatestPins bounds the latest-pin map of /_mock/otps/latest besides otpRetention: past it
// the numbers that received their pin longest ago are forgotten first (about 210 bytes a
// number, so at most about 210 MB).
const maxLatestPins = 1_000_000

// maxMadeKeys and maxMadeSenderIDs bound the API keys made through POST /v1/keys and the
// sender IDs requested through POST /v1/sender-ids, over every workspace (each workspace's
// own two keys and sender ID come besides). A key costs about 280 bytes with a short name (at
// most 100 bytes more), a sender ID about 120 bytes plus its use case and company (at most 600
// bytes more), so at most about 38 and 72 MB. Past them a new one is refused: a key with 400,
// a sender ID with 409.
const (
	maxMadeKeys      = 100_000
	maxMadeSenderIDs = 100_000
)

// WithWorkspaceLimit lets the server hold at most n workspaces, the default one included
// (default DefaultMaxWorkspaces; n < 1 keeps the default). Creating one more is refused with
// 409 and a message saying so; Reset forgets them all but the default.
func WithWorkspaceLimit(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxWorkspaces = n
		}
	}
}

// WithDNDLimit lets the Do-Not-Disturb register hold at most n numbers (default DefaultMaxDND;
// n < 1 keeps the default). A request that would take it past n is refused with 400 naming
// numbers, and adds none of its numbers.
func WithDNDLimit(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxDND = n
		}
	}
}

func errWorkspaceLimit(n int) *apiError {
	return conflict("The mock holds %d workspaces, its limit; reset it (POST /_mock/reset) or start it with a higher limit.", n)
}

func errKeyLimit() *apiError {
	return badRequest("", "The mock holds %d API keys made through /v1/keys, its limit; reset it (POST /_mock/reset).", maxMadeKeys)
}

func errSenderIDLimit() *apiError {
	return conflict("The mock holds %d sender IDs requested through /v1/sender-ids, its limit; reset it (POST /_mock/reset).", maxMadeSenderIDs)
}

func errDNDLimit(n, now int) *apiError {
	return badRequest("numbers", "The Do-Not-Disturb register holds at most %d numbers; %d are on it.", n, now)
}

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

// trimTarget is how many recipients and OTP messages a trim leaves when the store is past
// limit: limit less a 64th, so that a full store is trimmed once per limit/64 stored, not at
// every send. Limits under 64 are kept exactly.
func trimTarget(limit int64) int64 { return limit - limit/64 }

// trim forgets the oldest campaigns and OTP messages of every workspace and mode until at most
// target are stored. It takes each workspace's lock once to read the oldest of its four lists
// (campaigns and OTP messages of each mode), then picks the oldest through a heap, locking only
// the workspace it forgets from: O(workspaces + forgotten × log workspaces), once per trim.
func (st *store) trim(target int64) {
	var h headHeap
	for _, w := range st.allWorkspaces() {
		w.mu.Lock()
		for mi := range w.modes {
			for _, isOTP := range [...]bool{false, true} {
				if id, ok := w.modes[mi].oldest(isOTP); ok {
					h = append(h, listHead{w: w, id: id, mode: uint8(mi), otp: isOTP})
				}
			}
		}
		w.mu.Unlock()
	}
	heap.Init(&h)
	for st.stored.Load() > target && len(h) > 0 {
		top := &h[0]
		top.w.mu.Lock()
		md := &top.w.modes[top.mode]
		n := md.forgetOldest(top.otp, top.id)
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
		return md.campaigns[0].id, true
	}
	return ids.ID{}, false
}

// forgetOldest forgets the oldest campaign (or OTP message) of the mode if its id is still id
// (a clear may have gone first), and returns how many recipients it had; w.mu must be held.
func (md *modeData) forgetOldest(otp bool, id ids.ID) int {
	switch {
	case otp && len(md.otpMsgs) > 0 && md.otpMsgs[0].id == id:
		md.otpMsgs[0] = nil
		md.otpMsgs = md.otpMsgs[1:]
		return 1
	case !otp && len(md.campaigns) > 0 && md.campaigns[0].id == id:
		c := md.campaigns[0]
		c.forget()
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
	mode uint8
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
