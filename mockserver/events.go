package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// GET /_mock/events: every change in the mock as Server-Sent Events. Publishing appends to a
// ring of the newest events and wakes each subscriber without blocking; a subscriber reads the
// ring from its last id at its own pace, and one that fell behind by more than the ring (or
// comes back with an id the ring no longer holds) gets a "resync" event and goes on from now.

// Bounds of the event stream.
const (
	eventRingSize    = 1024             // events kept for resuming; about 200 KB
	maxSubscribers   = 64               // event streams at once; more are 429
	eventKeepAlive   = 15 * time.Second // a comment line when nothing happens
	eventWriteWindow = 10 * time.Second // each write must finish within it
)

// busEvent is one event. Its data is encoded to JSON when a stream writes it, not when it is
// published, so that a send pays nothing for encoding while no page or test listens.
type busEvent struct {
	id  uint64
	typ string
	v   any // a plain struct of strings and numbers, never changed once published
}

// eventBus is the ring of recent events and the subscribers to wake.
type eventBus struct {
	mu   sync.Mutex
	ring []busEvent
	last uint64 // id of the newest event; ids start at 1
	subs map[chan struct{}]struct{}

	stopOnce sync.Once
	stopped  chan struct{} // closed when the HTTP server shuts down
}

func newEventBus(size int) *eventBus {
	return &eventBus{ring: make([]busEvent, size), subs: map[chan struct{}]struct{}{}, stopped: make(chan struct{})}
}

func (b *eventBus) publish(typ string, v any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.last++
	b.ring[b.last%uint64(len(b.ring))] = busEvent{id: b.last, typ: typ, v: v}
	for ch := range b.subs {
		select {
		case ch <- struct{}{}:
		default: // already woken
		}
	}
}

// subscribe returns a channel woken after each publish and the id of the newest event, or
// false when there are too many subscribers.
func (b *eventBus) subscribe() (chan struct{}, uint64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.subs) >= maxSubscribers {
		return nil, 0, false
	}
	ch := make(chan struct{}, 1)
	b.subs[ch] = struct{}{}
	return ch, b.last, true
}

func (b *eventBus) unsubscribe(ch chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.subs, ch)
}

// after appends the events newer than id to buf, oldest first, and returns the newest id and
// whether events after id were lost.
func (b *eventBus) after(id uint64, buf []busEvent) ([]busEvent, uint64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	size := uint64(len(b.ring))
	oldest := uint64(1)
	if b.last > size {
		oldest = b.last - size + 1
	}
	if id > b.last || id+1 < oldest {
		return buf, b.last, true
	}
	for i := id + 1; i <= b.last; i++ {
		buf = append(buf, b.ring[i%size])
	}
	return buf, b.last, false
}

func (b *eventBus) stop() { b.stopOnce.Do(func() { close(b.stopped) }) }

// publish sends an event of type typ with v as its JSON data.
func (s *Server) publish(typ string, v any) { s.inbox.events.publish(typ, v) }

// ctlEvents is GET /_mock/events.
func ctlEvents(s *Server, w http.ResponseWriter, rq *request) {
	b := s.inbox.events
	ch, last, ok := b.subscribe()
	if !ok {
		writeError(w, rq.id, rateLimited("Too many event streams are open.", 1))
		return
	}
	defer b.unsubscribe(ch)
	resume := rq.r.Header.Get("Last-Event-ID")
	if resume == "" {
		resume = rq.r.URL.Query().Get("lastEventId")
	}
	if resume != "" {
		id, err := strconv.ParseUint(strings.TrimSpace(resume), 10, 64)
		if err != nil {
			writeError(w, rq.id, badRequest("Last-Event-ID", "Last-Event-ID must be an event id."))
			return
		}
		last = id
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	var out strings.Builder
	write := func() bool {
		_ = rc.SetWriteDeadline(time.Now().Add(eventWriteWindow))
		_, err := w.Write([]byte(out.String()))
		out.Reset()
		return err == nil && rc.Flush() == nil
	}
	out.WriteString("retry: 1000\n: connected\n\n")
	if !write() {
		return
	}
	keepAlive := time.NewTicker(eventKeepAlive)
	defer keepAlive.Stop()
	var buf []busEvent
	for {
		evs, newest, lost := b.after(last, buf[:0])
		buf = evs
		if lost {
			out.WriteString("id: " + strconv.FormatUint(newest, 10) + "\nevent: resync\ndata: {}\n\n")
			last = newest
		}
		for _, e := range evs {
			out.WriteString("id: " + strconv.FormatUint(e.id, 10) + "\nevent: " + e.typ + "\ndata: ")
			data, err := json.Marshal(e.v)
			if err != nil {
				data = []byte("{}") // the event types are plain structs: cannot happen
			}
			out.Write(data)
			out.WriteString("\n\n")
			last = e.id
		}
		if out.Len() > 0 && !write() {
			return
		}
		select {
		case <-ch:
		case <-keepAlive.C:
			out.WriteString(": keep-alive\n\n")
			if !write() {
				return
			}
		case <-rq.r.Context().Done():
			return
		case <-b.stopped:
			return
		}
	}
}

// --- what is published ------------------------------------------------------------------------

type walletEvent struct {
	WorkspaceID string `json:"workspaceId"`
	Mode        Mode   `json:"mode"`
	Balance     naira  `json:"balance"`
}

func (s *Server) walletMoved(w *workspace, mode Mode) {
	s.publish("wallet.changed", walletEvent{w.id.String(), mode, naira(w.balance(mode))})
}

// sent records the messages of a campaign just accepted and announces them.
func (s *Server) sent(rq *request, c *accepted) {
	n, status, to := c.recipients, campaignStatusNames[c.status], c.to
	s.keep(rq.st.store, n)
	s.publish("messages.created", struct {
		CampaignID  string   `json:"campaignId"`
		WorkspaceID string   `json:"workspaceId"`
		Mode        Mode     `json:"mode"`
		Kind        string   `json:"kind"`
		Count       int      `json:"count"`
		Status      string   `json:"status"`
		To          []string `json:"to"` // the first 20
	}{c.id.String(), rq.ws.id.String(), rq.mode, "sms", n, status, to})
	if status == campaignStatusNames[campaignFailed] {
		s.publish("campaign.settled", struct {
			CampaignID string `json:"campaignId"`
			Status     string `json:"status"`
		}{c.id.String(), status})
	}
	s.walletMoved(rq.ws, rq.mode)
	s.inbox.arrived.broadcast()
}

type otpEvent struct {
	MessageID   string `json:"messageId,omitempty"` // otp.sent only
	PinID       string `json:"pinId"`
	To          string `json:"to"`
	WorkspaceID string `json:"workspaceId"`
	Mode        Mode   `json:"mode"`
}

// otpSent records the message of an OTP just sent and announces it; the event never holds the
// pin.
func (s *Server) otpSent(rq *request, id ids.ID, to, pinID string) {
	s.keep(rq.st.store, 1)
	ev := otpEvent{id.String() + "-0", pinID, to, rq.ws.id.String(), rq.mode}
	s.publish("messages.created", struct {
		CampaignID  *string  `json:"campaignId"`
		WorkspaceID string   `json:"workspaceId"`
		Mode        Mode     `json:"mode"`
		Kind        string   `json:"kind"`
		Count       int      `json:"count"`
		Status      string   `json:"status"`
		To          []string `json:"to"`
	}{nil, ev.WorkspaceID, rq.mode, "otp", 1, recipientStatusNames[rcptDelivered], []string{to}})
	s.publish("otp.sent", ev)
	s.walletMoved(rq.ws, rq.mode)
	s.inbox.arrived.broadcast()
}

func (s *Server) otpVerified(rq *request, pinID, to string) {
	s.publish("otp.verified", otpEvent{PinID: pinID, To: to, WorkspaceID: rq.ws.id.String(), Mode: rq.mode})
}

func (s *Server) senderMoved(workspaceID ids.ID, sid *senderID) {
	s.publish("senderid.changed", struct {
		ID          string `json:"id"`
		Title       string `json:"title"`
		Status      string `json:"status"`
		WorkspaceID string `json:"workspaceId"`
	}{sid.id.String(), sid.title, senderStatusNames[sid.status], workspaceID.String()})
}

func (s *Server) delivered(workspaceID ids.ID, c *campaign) {
	ev := struct {
		CampaignID  string     `json:"campaignId"`
		WorkspaceID string     `json:"workspaceId"`
		Status      string     `json:"status"`
		Counts      countsJSON `json:"counts"`
	}{c.id.String(), workspaceID.String(), c.rollup(), countsOut(c)}
	s.publish("messages.status", ev)
	if c.counts[rcptSent] == 0 {
		s.publish("campaign.settled", ev)
	}
}

func (s *Server) faultsChanged() {
	s.publish("faults.changed", struct {
		Count int `json:"count"`
	}{len(s.Faults())})
}
