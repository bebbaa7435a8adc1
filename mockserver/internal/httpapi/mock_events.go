package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/events"
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
func (a *API) publish(typ string, v any) { a.bus.Publish(typ, v) }

// ctlEvents is GET /_mock/events.
func ctlEvents(a *API, w http.ResponseWriter, rq *request) {
	b := a.bus
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
