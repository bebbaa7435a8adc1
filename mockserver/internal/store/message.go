package store

import (
	"strconv"
	"strings"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// Transition is one status a message took, and when.
type Transition struct {
	Status string
	At     time.Time
}

// MessageDetail is one message with what the inbox page shows beside it: its campaign (nil
// for an OTP), the id of the request that sent it (zero when unknown) and its history.
type MessageDetail struct {
	Message
	Campaign  *Campaign
	RequestID ids.ID
	History   []Transition
}

// MessageByID returns the message with id ("<campaign or OTP id>-<index>"), of whichever
// workspace and mode, or a *NotFoundError when there is none or it was forgotten. A
// recipient's history is derived from what the store keeps anyway: its status at the send
// and, when it moved since (a bit of its packed word), its status now.
func (st *Store) MessageByID(id string) (MessageDetail, error) {
	head, idx, ok := strings.Cut(id, "-")
	cid, okID := ids.Parse(head)
	i, err := strconv.Atoi(idx)
	if !ok || !okID || err != nil || i < 0 || idx != strconv.Itoa(i) {
		return MessageDetail{}, notFound("Message")
	}
	e := st.idx.find(cid)
	if e == nil || i >= int(e.n) {
		return MessageDetail{}, notFound("Message")
	}
	if d, ok := st.detail(e.ref(int32(i), 0)); ok {
		return d, nil
	}
	return MessageDetail{}, notFound("Message")
}

// detail renders r with its campaign and history.
func (st *Store) detail(r msgRef) (MessageDetail, bool) {
	m, ok := st.render(r)
	if !ok {
		return MessageDetail{}, false
	}
	d := MessageDetail{Message: m}
	if r.o != nil {
		d.History = []Transition{{m.Status, m.CreatedAt}}
		if r.o.phone == MagicSlow && m.Status == RecipientStatusNames[RecipientDelivered] {
			d.History = []Transition{{RecipientStatusNames[RecipientSent], m.CreatedAt}, {m.Status, m.UpdatedAt}}
		}
		return d, true
	}
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	c := r.c.Campaign
	d.Campaign, d.RequestID = &c, r.c.requestID
	rc := r.c.recipients[r.i]
	first := rc.status()
	if rc.moved() {
		first = RecipientSent
	}
	d.History = []Transition{{first.String(), m.CreatedAt}}
	if rc.moved() {
		d.History = append(d.History, Transition{rc.status().String(), time.Unix(0, rc.updatedAt).UTC()})
	}
	return d, true
}
