package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/events"

	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// GET /_mock/events: every change in the mock as Server-Sent Events. Publishing appends to a
// ring of the newest events and wakes each subscriber without blocking; a subscriber reads the
// ring from its last id at its own pace, and one that fell behind by more than the ring (or
// comes back with an id the ring no longer holds) gets a "resync" event and goes on from now.

// Bounds of the event stream.
const (
	eventKeepAlive   = 15 * time.Second // a comment line when nothing happens
	eventWriteWindow = 10 * time.Second // each write must finish within it
)

// publish sends an event of type typ with v as its JSON data.
func (s *Server) publish(typ string, v any) { s.inbox.events.Publish(typ, v) }

// ctlEvents is GET /_mock/events.
func ctlEvents(s *Server, w http.ResponseWriter, rq *request) {
	b := s.inbox.events
	ch, last, ok := b.Subscribe()
	if !ok {
		writeError(w, rq.id, rateLimited("Too many event streams are open.", 1))
		return
	}
	defer b.Unsubscribe(ch)
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
	var buf []events.Event
	for {
		evs, newest, lost := b.After(last, buf[:0])
		buf = evs
		if lost {
			out.WriteString("id: " + strconv.FormatUint(newest, 10) + "\nevent: resync\ndata: {}\n\n")
			last = newest
		}
		for _, e := range evs {
			out.WriteString("id: " + strconv.FormatUint(e.ID, 10) + "\nevent: " + e.Type + "\ndata: ")
			data, err := json.Marshal(e.Data)
			if err != nil {
				data = []byte("{}") // the event types are plain structs: cannot happen
			}
			out.Write(data)
			out.WriteString("\n\n")
			last = e.ID
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
		case <-b.Stopped():
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
	s.inbox.arrived.Broadcast()
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
	s.inbox.arrived.Broadcast()
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
