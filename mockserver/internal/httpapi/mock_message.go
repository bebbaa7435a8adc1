package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// messageDetailJSON is GET /_mock/messages/{id}'s data: the message, its campaign as
// GET /_mock/workspaces/{id}/campaigns lists it (null for an OTP), the request that sent it
// (null when the request log no longer holds it) and its history.
type messageDetailJSON struct {
	messageJSON
	Campaign *campaignItem       `json:"campaign"`
	Request  *messageRequestJSON `json:"request"`
	History  []transitionJSON    `json:"history"`
}

type messageRequestJSON struct {
	RequestID string    `json:"requestId"`
	Method    string    `json:"method"`
	Path      string    `json:"path"`
	Status    int       `json:"status"`
	Time      time.Time `json:"time"`
	Body      any       `json:"body"`
}

type transitionJSON struct {
	Status string    `json:"status"`
	At     time.Time `json:"at"`
}

// ctlMessage is GET /_mock/messages/{id}: one message and what the page shows beside it.
func ctlMessage(a *API, rq *request) (int, any, error) {
	d, err := rq.st.store.MessageByID(rq.param)
	if err != nil {
		return 0, nil, err
	}
	out := messageDetailJSON{messageJSON: messageOut(&d.Message, rq.now), History: make([]transitionJSON, len(d.History))}
	for i, t := range d.History {
		out.History[i] = transitionJSON{t.Status, t.At}
	}
	if d.Campaign != nil {
		it := campaignItemOf(d.Campaign, d.Mode)
		out.Campaign = &it
	}
	if d.RequestID != (ids.ID{}) {
		want := d.RequestID.RequestID()
		for _, rec := range rq.st.log.Snapshot() {
			if rec.RequestID == want {
				rec = rec.Redacted()
				var body any = nil
				if len(rec.Body) > 0 {
					body = rec.Body
				}
				out.Request = &messageRequestJSON{rec.RequestID, rec.Method, rec.Path, rec.Status, rec.Time, body}
				break
			}
		}
	}
	return http.StatusOK, struct {
		Data messageDetailJSON `json:"data"`
	}{out}, nil
}

// campaignItem is a campaign as GET /_mock/workspaces/{id}/campaigns lists it.
type campaignItem struct {
	campaignJSON
	Mode     string       `json:"mode"`
	Delivery string       `json:"delivery"`
	Counts   store.Counts `json:"counts"`
	Text     string       `json:"text"` // the message as sent, {{name}} unfilled
}

func campaignItemOf(c *store.Campaign, mode store.Mode) campaignItem {
	return campaignItem{campaignOut(c), mode.String(), c.Rollup(), store.CountsOf(c), c.Text()}
}

// requestID is the id of a request ID ("req_" and an id), or the zero id.
func requestID(s string) ids.ID {
	id, _ := ids.Parse(strings.TrimPrefix(s, "req-"))
	return id
}

// pinStatus is where an OTP message's pin stands at now: pending, verified, replaced,
// expired or locked; "" for an SMS.
func pinStatus(m *store.Message, now time.Time) string {
	if m.Kind != "otp" {
		return ""
	}
	if m.PinState == "pending" && !now.Before(m.ExpiresAt) {
		return "expired"
	}
	return m.PinState
}
