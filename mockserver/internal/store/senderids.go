package store

import (
	"strings"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// maxMadeSenderIDs bounds the sender IDs requested through RequestSenderID, over every
// workspace (each workspace's own sender ID comes besides). A sender ID costs about 120 bytes
// plus its use case and company (at most 600 bytes more), so at most about 72 MB. Past it a
// new one is refused.
const maxMadeSenderIDs = 100_000

// SenderStatus is where a sender ID stands.
type SenderStatus uint8

// Sender ID statuses.
const (
	SenderPending SenderStatus = iota
	SenderActive
	SenderBlocked
)

// SenderStatusNames are the statuses as the API writes them.
var SenderStatusNames = [...]string{"pending", "active", "blocked"}

func (s SenderStatus) String() string { return SenderStatusNames[s] }

type senderID struct {
	id        ids.ID
	title     string
	status    SenderStatus
	country   string
	usecase   string
	company   string
	createdAt int64
}

// SenderID is a sender ID as it is listed.
type SenderID struct {
	ID        ids.ID
	Title     string
	Status    SenderStatus
	Country   string
	Usecase   string
	Company   string
	CreatedAt int64 // unix nanoseconds
	Workspace ids.ID
}

func (s *senderID) value(w ids.ID) SenderID {
	return SenderID{ID: s.id, Title: s.title, Status: s.status, Country: s.country, Usecase: s.usecase,
		Company: s.company, CreatedAt: s.createdAt, Workspace: w}
}

// SenderIDParams is a sender ID to request.
type SenderIDParams struct {
	Title, Usecase, Company string
}

// RequestSenderID adds a pending sender ID to the caller's workspace unless a pending or
// active one has its title (ignoring case); past maxMadeSenderIDs requested this way it is
// refused.
func (st *Store) RequestSenderID(c Caller, p SenderIDParams, now int64) (SenderID, error) {
	s := &senderID{id: st.cfg.IDs.Next(), title: p.Title, status: SenderPending,
		usecase: p.Usecase, company: p.Company, createdAt: now}
	if !st.madeSenderIDs.take(maxMadeSenderIDs) {
		return SenderID{}, conflict("The mock holds %d sender IDs requested through /v1/sender-ids, its limit; reset it (POST /_mock/reset).", maxMadeSenderIDs)
	}
	v, err := c.w.requestSenderID(s)
	if err != nil {
		st.madeSenderIDs.give()
		return SenderID{}, err
	}
	st.senderMoved(v)
	return v, nil
}

func (w *workspace) requestSenderID(s *senderID) (SenderID, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range w.senderIDs {
		if o.status != SenderBlocked && strings.EqualFold(o.title, s.title) {
			return SenderID{}, conflict("Sender ID %q is already %s.", o.title, o.status)
		}
	}
	s.country = w.country
	w.senderIDs = append(w.senderIDs, s)
	return s.value(w.id), nil
}

// SenderIDs lists a workspace's sender IDs, newest first; all, or those of one status.
func (st *Store) SenderIDs(c Caller, status SenderStatus, all bool) []SenderID {
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	out := []SenderID{}
	for i := len(w.senderIDs) - 1; i >= 0; i-- {
		if s := w.senderIDs[i]; all || s.status == status {
			out = append(out, s.value(w.id))
		}
	}
	return out
}

// MoveSenderID moves a pending sender ID, of whichever workspace, to status.
func (st *Store) MoveSenderID(id string, status SenderStatus) (SenderID, error) {
	sid, ok := ids.Parse(id)
	if !ok {
		return SenderID{}, notFound("Sender ID")
	}
	for _, w := range st.allWorkspaces() {
		if v, found, err := w.moveSenderID(sid, status); found {
			if err != nil {
				return SenderID{}, err
			}
			st.senderMoved(v)
			return v, nil
		}
	}
	return SenderID{}, notFound("Sender ID")
}

func (w *workspace) moveSenderID(id ids.ID, status SenderStatus) (SenderID, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.senderIDs {
		if s.id == id {
			if s.status != SenderPending {
				return SenderID{}, true, conflict("Sender ID is %s, not pending.", s.status)
			}
			s.status = status
			return s.value(w.id), true, nil
		}
	}
	return SenderID{}, false, nil
}

// activeSender reports whether title is an active sender ID and returns the workspace's copy
// of it, for a message to keep instead of the request's; w.mu must be held.
func (w *workspace) activeSender(title string) (string, bool) {
	for _, s := range w.senderIDs {
		if s.status == SenderActive && s.title == title {
			return s.title, true
		}
	}
	return "", false
}

func errSenderNotActive(title string) error {
	return fieldError("from", "Sender ID %q is not active on this workspace.", title)
}
