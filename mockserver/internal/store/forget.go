package store

import "github.com/seedsms/sms-go/mockserver/internal/fifo"

// WorkspaceDeleted is what DeleteWorkspace forgot.
type WorkspaceDeleted struct {
	WorkspaceID string
	Campaigns   int // campaigns of both modes
	Messages    int // recipients of those campaigns and OTP messages
}

// DeleteWorkspace forgets a workspace and everything of it: its keys (which no longer
// authenticate), wallets, sender IDs, campaigns, OTPs and their pins, and its messages. As a
// trim does, its recipients leave the message limit and its campaigns the due queue; its list
// leaves the index, and the server's list is made anew without its messages (they may lead
// conversations other workspaces share), a pass over the server's messages under the index's
// lock, which sends wait for. Other workspaces are untouched; what is server-wide (the clock,
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
	delete(st.idx.byWS, w)
	st.idx.rebuildAll(w)
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

// rebuildAll makes the server's list anew from its live entries but those of gone, whose
// messages are forgotten: a conversation of a phone that gone shares with other workspaces is
// led again by the newest message left. x.mu must be held, and no workspace's lock.
func (x *msgIndex) rebuildAll(gone *workspace) {
	old := x.all
	x.all = newScope()
	x.all.list = make([]*entry, 0, len(old.list)-old.dead)
	for _, e := range old.list {
		if e.dead || e.w == gone {
			continue
		}
		e.w.mu.Lock()                      // recipients' statuses move under it
		x.all.list = append(x.all.list, e) // old.list is in id order: each entry is the newest so far
		x.all.msgs += int(e.n)
		if e.o != nil {
			x.all.arrive(e.o.phone, e, 0)
		} else {
			for i, r := range e.c.recipients {
				x.all.arrive(r.phone(), e, int32(i))
			}
		}
		e.w.mu.Unlock()
	}
}
