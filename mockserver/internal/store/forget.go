package store

import (
	"slices"
	"sort"

	"github.com/seedsms/sms-go/mockserver/internal/fifo"
)

// WorkspaceDeleted is what DeleteWorkspace forgot.
type WorkspaceDeleted struct {
	WorkspaceID string
	Campaigns   int // campaigns of both modes
	Messages    int // recipients of those campaigns and OTP messages
}

// DeleteWorkspace forgets a workspace and everything of it: its keys (which no longer
// authenticate), wallets, sender IDs, campaigns, OTPs and their pins, and its messages. As a
// trim does, its recipients leave the message limit and its campaigns the due queue; its list
// leaves the index, and its entries and conversations the server's list (see
// msgIndex.forgetWorkspace): the work is the workspace's messages, not the server's, so an
// empty workspace goes in microseconds and sends of others hardly wait. Other workspaces are
// untouched; what is server-wide (the clock,
// the Do-Not-Disturb register, the request log, the event ring) stays. A request of the
// workspace still in flight adds nothing to it once it is gone.
//
// Locks: the index's, then the workspace's, then the store's, as addKey and trim take them.
func (st *Store) DeleteWorkspace(id string) (WorkspaceDeleted, error) {
	w, err := st.workspaceByID(id)
	if err != nil {
		return WorkspaceDeleted{}, err
	}
	out := WorkspaceDeleted{WorkspaceID: w.id.String()}
	pins := make(map[string]struct{})
	var stored int64
	st.idx.mu.Lock()
	w.mu.Lock()
	if w.gone { // deleted meanwhile
		w.mu.Unlock()
		st.idx.mu.Unlock()
		return WorkspaceDeleted{}, notFound("Workspace")
	}
	w.gone = true
	st.mu.Lock()
	delete(st.workspaces, w.id)
	for _, k := range w.keys {
		delete(st.keys, k.public)
	}
	st.mu.Unlock()
	for mi := range w.modes {
		md := &w.modes[mi]
		for _, isOTP := range [...]bool{false, true} {
			for {
				oldest, ok := md.oldest(isOTP)
				if !ok {
					break
				}
				n := md.forgetOldest(&st.due, isOTP, oldest)
				stored += int64(n)
				if isOTP {
					out.Messages++
				} else {
					out.Campaigns++
					out.Messages += n
				}
			}
		}
		for pinID := range md.otps {
			pins[pinID] = struct{}{}
		}
		md.otps, md.pending, md.otpSends = map[string]*otp{}, map[string]*otp{}, map[string][]int64{}
		md.otpOrder = fifo.Queue[*otp]{}
		md.balance, md.msgFrom = 0, 0
	}
	madeKeys, madeSenders := len(w.keys)-2, len(w.senderIDs)-1 // but the two keys and the sender ID it was made with
	w.keys, w.senderIDs = nil, nil
	w.mu.Unlock()
	st.idx.forgetWorkspace(w)
	st.idx.mu.Unlock()
	st.stored.Add(-stored)
	for range max(madeKeys, 0) {
		st.madeKeys.give()
	}
	for range max(madeSenders, 0) {
		st.madeSenderIDs.give()
	}
	st.latestPins.forget(pins)
	st.publish("workspace.deleted", struct {
		WorkspaceID string `json:"workspaceId"`
		Campaigns   int    `json:"campaigns"`
		Messages    int    `json:"messages"`
	}{out.WorkspaceID, out.Campaigns, out.Messages})
	return out, nil
}

// forget removes the latest pins whose pin IDs are in pinIDs: their workspace is deleted.
func (l *LatestPins) forget(pinIDs map[string]struct{}) {
	if len(pinIDs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for phone, p := range l.pins {
		if _, ok := pinIDs[p.pinID]; ok {
			delete(l.pins, phone)
		}
	}
}

// forgetWorkspace takes gone's list out of the index and its entries and messages out of the
// server's list: each entry is marked dead (the list drops dead entries as it does a trim's),
// and each of gone's conversations gives back its count to the server's conversation of its
// number, which goes with its last message. A conversation that gone led and other
// workspaces share is led again by the newest message left for its number (the newest of
// their own conversations of it) and takes its place in the order again, one merge pass over
// the server's conversations for all of them. So it costs gone's entries and conversations,
// times the workspaces for a shared number, and that pass only when one is led again. x.mu
// must be held.
func (x *msgIndex) forgetWorkspace(gone *workspace) {
	ws := x.byWS[gone]
	if ws == nil {
		return
	}
	delete(x.byWS, gone)
	all := x.all
	steps := 0
	for _, e := range ws.list {
		if !e.dead {
			e.dead = true
			all.dead++
			all.msgs -= int(e.n)
		}
		steps++
	}
	var relead []*conv
	for phone, wc := range ws.convs {
		steps++
		cv := all.convs[phone]
		if cv == nil {
			continue
		}
		if cv.count -= wc.count; cv.count <= 0 {
			all.vacate(cv)
			delete(all.convs, phone)
			continue
		}
		if cv.latest.w != gone {
			continue
		}
		all.vacate(cv)
		cv.latest = nil
		for _, other := range x.byWS {
			steps++
			if oc := other.convs[phone]; oc != nil && (cv.latest == nil || cv.latest.id.Less(oc.latest.id)) {
				cv.latest, cv.i = oc.latest, oc.i
			}
		}
		if cv.latest == nil { // cannot be: its count says others hold messages of it
			delete(all.convs, phone)
			continue
		}
		relead = append(relead, cv)
	}
	if len(relead) > 0 {
		steps += all.reinsert(relead)
	} else {
		steps += all.compactConvs()
	}
	all.compact()
	x.steps.Add(int64(steps))
}

// reinsert puts convs, out of the order (vacated) and each led by its newest message, back in
// the order of their newest messages, and returns the slots it filled. The order before the
// block where the oldest of them goes is kept as it is; from that block on it is made anew
// without holes, so a conversation led again by a recent message costs the recent blocks,
// one led by an old one the whole order.
func (sc *scope) reinsert(convs []*conv) int {
	older := func(a, b *conv) bool {
		return a.latest.id.Less(b.latest.id) || a.latest == b.latest && a.i < b.i
	}
	slices.SortFunc(convs, func(a, b *conv) int {
		switch {
		case older(a, b):
			return -1
		case older(b, a):
			return 1
		}
		return 0
	})
	// The first slot whose conversation is newer than the oldest of convs, holes skipped.
	p := sort.Search(len(sc.order), func(i int) bool {
		for ; i < len(sc.order); i++ {
			if cv := sc.order[i]; cv != nil {
				return older(convs[0], cv)
			}
		}
		return true
	})
	b0 := p / convBlock * convBlock
	kept := 0
	for _, n := range sc.live[:b0/convBlock] {
		kept += int(n)
	}
	tail := make([]*conv, 0, len(sc.order)-b0+len(convs))
	j := 0
	for _, cv := range sc.order[b0:] {
		if cv == nil {
			continue
		}
		for ; j < len(convs) && older(convs[j], cv); j++ {
			tail = append(tail, convs[j])
		}
		tail = append(tail, cv)
	}
	tail = append(tail, convs[j:]...)
	// In place: the vacated slots are at or after b0 (each was newer than its conversation's
	// new place), so the tail fits where the old one was.
	order := append(sc.order[:b0], tail...)
	clear(sc.order[len(order):])
	sc.live = sc.live[:b0/convBlock]
	for k := b0; k < len(order); k++ {
		order[k].slot = int32(k)
		if k%convBlock == 0 {
			sc.live = append(sc.live, 0)
		}
		sc.live[len(sc.live)-1]++
	}
	sc.order, sc.holes = order, b0-kept
	return len(tail)
}
