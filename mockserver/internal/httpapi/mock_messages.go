package httpapi

import (
	"net/http"
	"net/url"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// Bounds of waiting for messages over HTTP.
const (
	maxWaiting = 256              // long polls at once; more are 429
	maxWait    = 60 * time.Second // the longest wait= a long poll takes
)

// messageJSON is a message on the wire.
type messageJSON struct {
	ID          string     `json:"id"`
	To          string     `json:"to"`
	From        string     `json:"from"`
	Text        string     `json:"text"`
	Kind        string     `json:"kind"`
	Channel     string     `json:"channel"`
	Parts       int        `json:"parts"`
	Encoding    string     `json:"encoding"`
	CampaignID  *string    `json:"campaignId"`
	Reference   *string    `json:"reference"`
	Status      string     `json:"status"`
	Cost        wire.Naira `json:"cost"`
	Currency    string     `json:"currency"`
	PinID       string     `json:"pinId,omitempty"`
	Pin         string     `json:"pin,omitempty"`
	Verified    *bool      `json:"verified,omitempty"`
	PinStatus   string     `json:"pinStatus,omitempty"`
	ExpiresAt   *time.Time `json:"expiresAt,omitempty"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	WorkspaceID string     `json:"workspaceId"`
	Mode        string     `json:"mode"`
}

func messageOut(m *store.Message, now time.Time) messageJSON {
	out := messageJSON{
		ID: m.ID, To: m.To, From: m.From, Text: m.Text, Kind: m.Kind, Channel: m.Channel, Parts: m.Parts,
		Encoding: m.Encoding, CampaignID: wire.OptString(m.CampaignID), Reference: wire.OptString(m.Reference), Status: m.Status, Cost: wire.Naira(m.Cost),
		Currency: "NGN", PinID: m.PinID, Pin: m.Pin, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		WorkspaceID: m.WorkspaceID, Mode: m.Mode.String(),
	}
	if m.Kind == "otp" {
		out.Verified = &m.Verified
		out.PinStatus, out.ExpiresAt = pinStatus(m, now), &m.ExpiresAt
	}
	return out
}

// filterFromQuery reads the filters of GET /_mock/messages and /_mock/conversations.
func filterFromQuery(q url.Values) (store.Query, error) {
	if err := nonEmptyParams(q, "to", "from", "campaignId", "kind", "contains", "since", "workspaceId", "mode"); err != nil {
		return store.Query{}, err
	}
	f := store.Filter{To: q.Get("to"), From: q.Get("from"), CampaignID: q.Get("campaignId"), Kind: q.Get("kind"),
		Contains: q.Get("contains"), WorkspaceID: q.Get("workspaceId"), Mode: q.Get("mode")}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return store.Query{}, badRequest("since", "since must be an RFC 3339 time such as 2026-03-04T05:06:07Z.")
		}
		f.Since = t
	}
	return store.NewQuery(f)
}

// ctlMessages is GET /_mock/messages: the messages the filters select, newest first, paged;
// with wait, a long poll until at least one is there.
func ctlMessages(a *API, w http.ResponseWriter, rq *request) {
	q := rq.r.URL.Query()
	m, err := filterFromQuery(q)
	if err != nil {
		writeError(w, rq.id, apiErrorOf(err))
		return
	}
	page, limit, err := pageParams(q)
	if err != nil {
		writeError(w, rq.id, apiErrorOf(err))
		return
	}
	var wait time.Duration
	if v := q.Get("wait"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > maxWait {
			writeError(w, rq.id, badRequest("wait", "wait must be a Go duration from 0s to %s, such as 10s.", maxWait))
			return
		}
		wait = d
	}
	offset := pageOffset(page, limit)
	var watch *store.Watch
	if wait > 0 {
		// Counted from the start: a poll may queue for its first look.
		if a.waiting.Add(1) > maxWaiting {
			a.waiting.Add(-1)
			writeError(w, rq.id, rateLimited("Too many requests are waiting for messages.", 1))
			return
		}
		defer a.waiting.Add(-1)
		// Watched before the first look, so that nothing sent meanwhile is missed; while it
		// waits, the poll is handed what arrives and never reads the store again.
		watch = a.Watch(m, offset, limit)
		defer watch.Stop()
	}
	// A search takes a turn: a read, long poll or not, waits for one in the one bounded queue
	// of searches, and is refused (429) past it.
	list, total, err := a.state.Load().store.ReadMessages(rq.r.Context(), m, offset, limit, false)
	if err != nil {
		if rq.r.Context().Err() == nil {
			writeError(w, rq.id, apiErrorOf(err))
		}
		return
	}
	if total == 0 && wait > 0 {
		// The server's write timeout, if any, must not cut the wait short.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(wait + 10*time.Second))
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-watch.Done():
			list, total = watch.Messages()
		case <-timer.C:
		case <-a.bus.Stopped():
		case <-rq.r.Context().Done():
			return
		}
	}
	out := make([]messageJSON, len(list))
	for i := range list {
		out[i] = messageOut(&list[i], a.clock.Now())
	}
	wire.WriteJSON(w, http.StatusOK, rq.id, wire.NewPage(out, page, limit, total))
}

// ctlClearMessages is DELETE /_mock/messages.
func ctlClearMessages(a *API, _ *request) (int, any, error) {
	return http.StatusOK, struct {
		Cleared int `json:"cleared"`
	}{a.Store().ClearMessages()}, nil
}

// conversationJSON is one phone number's messages in brief: how many and the newest.
type conversationJSON struct {
	To     string      `json:"to"`
	Count  int         `json:"count"`
	Latest messageJSON `json:"latest"`
}

// ctlConversations is GET /_mock/conversations: the numbers the filtered messages went to,
// the newest conversation first, paged like the messages.
func ctlConversations(a *API, rq *request) (int, any, error) {
	q := rq.r.URL.Query()
	m, err := filterFromQuery(q)
	if err != nil {
		return 0, nil, err
	}
	page, limit, err := pageParams(q)
	if err != nil {
		return 0, nil, err
	}
	list, total, err := a.state.Load().store.Conversations(rq.r.Context(), m, pageOffset(page, limit), limit, false)
	if err != nil {
		return 0, nil, err
	}
	out := make([]conversationJSON, len(list))
	for i, cv := range list {
		out[i] = conversationJSON{To: cv.Latest.To, Count: cv.Count, Latest: messageOut(&cv.Latest, rq.now)}
	}
	return http.StatusOK, wire.NewPage(out, page, limit, total), nil
}
