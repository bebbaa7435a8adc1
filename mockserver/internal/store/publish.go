package store

import (
	"encoding/hex"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// What the store publishes on the event bus, after its locks are let go: each event's data is
// a plain struct, encoded to JSON when a stream writes it.

func (st *Store) publish(typ string, data any) { st.cfg.Events.Publish(typ, data) }

// naira is kobo that an event writes as a JSON number of naira: converted when a stream
// writes the event, not when a send publishes it.
type naira int64

func (n naira) MarshalJSON() ([]byte, error) { return []byte(rules.FormatNaira(int64(n))), nil }

// hexID is an id that an event writes as its hex string: formatted when a stream writes the
// event, not when a send publishes it.
type hexID ids.ID

func (id hexID) MarshalText() ([]byte, error) { return hex.AppendEncode(nil, id[:]), nil }

// hexOrNull is a hexID written as null when it is zero.
type hexOrNull ids.ID

func (id hexOrNull) MarshalJSON() ([]byte, error) {
	if id == (hexOrNull{}) {
		return []byte("null"), nil
	}
	b := append(make([]byte, 0, 2*len(id)+2), '"')
	return append(hex.AppendEncode(b, id[:]), '"'), nil
}

type walletEvent struct {
	WorkspaceID hexID  `json:"workspaceId"`
	Mode        string `json:"mode"`
	Balance     naira  `json:"balance"`
}

func (st *Store) walletMoved(w ids.ID, mode Mode, kobo int64) {
	st.publish("wallet.changed", walletEvent{hexID(w), mode.String(), naira(kobo)})
}

// messagesCreated announces the messages of an accepted send or OTP.
type messagesCreated struct {
	CampaignID  hexOrNull `json:"campaignId"` // null for an OTP
	WorkspaceID hexID     `json:"workspaceId"`
	Mode        string    `json:"mode"`
	Kind        string    `json:"kind"`
	Count       int       `json:"count"`
	Status      string    `json:"status"`
	To          []string  `json:"to"` // the first 20
}

// sent announces a campaign just accepted: its messages, its failure if the provider refused
// it, the wallet it was charged to.
func (st *Store) sent(c Caller, a Accepted, to []string, balance int64) {
	st.publish("messages.created", messagesCreated{hexOrNull(a.ID), hexID(c.Workspace), c.Mode.String(), "sms", a.Recipients, a.Status.String(), to})
	if a.Status == CampaignFailed {
		st.publish("campaign.settled", struct {
			CampaignID hexID  `json:"campaignId"`
			Status     string `json:"status"`
		}{hexID(a.ID), a.Status.String()})
	}
	st.walletMoved(c.Workspace, c.Mode, balance)
}

type otpEvent struct {
	MessageID   string `json:"messageId,omitempty"` // otp.sent only
	PinID       string `json:"pinId"`
	To          string `json:"to"`
	WorkspaceID string `json:"workspaceId"`
	Mode        string `json:"mode"`
}

// otpSent announces the message of an OTP just sent; the event never holds the pin.
func (st *Store) otpSent(c Caller, msgID ids.ID, to, pinID string, status RecipientStatus, balance int64) {
	ws, mode := c.Workspace.String(), c.Mode.String()
	st.publish("messages.created", messagesCreated{hexOrNull{}, hexID(c.Workspace), mode, "otp", 1, RecipientStatusNames[status], []string{to}})
	st.publish("otp.sent", otpEvent{msgID.String() + "-0", pinID, to, ws, mode})
	st.walletMoved(c.Workspace, c.Mode, balance)
}

func (st *Store) otpVerified(c Caller, pinID, to string) {
	st.publish("otp.verified", otpEvent{PinID: pinID, To: to, WorkspaceID: c.Workspace.String(), Mode: c.Mode.String()})
}

func (st *Store) senderMoved(s SenderID) {
	st.publish("senderid.changed", struct {
		ID          string `json:"id"`
		Title       string `json:"title"`
		Status      string `json:"status"`
		WorkspaceID string `json:"workspaceId"`
	}{s.ID.String(), s.Title, s.Status.String(), s.Workspace.String()})
}

// Counts is a campaign's recipients by status, as the API writes them.
type Counts struct {
	Sent      int `json:"sent"`
	Delivered int `json:"delivered"`
	Failed    int `json:"failed"`
	DND       int `json:"dnd"`
}

// CountsOf is c's counts.
func CountsOf(c *Campaign) Counts {
	return Counts{int(c.Counts[RecipientSent]), int(c.Counts[RecipientDelivered]), int(c.Counts[RecipientFailed]), int(c.Counts[RecipientDND])}
}

func (st *Store) delivered(w ids.ID, c Campaign) {
	ev := struct {
		CampaignID  hexID  `json:"campaignId"`
		WorkspaceID hexID  `json:"workspaceId"`
		Status      string `json:"status"`
		Counts      Counts `json:"counts"`
	}{hexID(c.ID), hexID(w), c.Rollup(), CountsOf(&c)}
	st.publish("messages.status", ev)
	if c.Counts[RecipientSent] == 0 {
		st.publish("campaign.settled", ev)
	}
}
