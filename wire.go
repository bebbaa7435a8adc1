package sms

// The wire: the JSON shapes of requests and answers that several services share, and the
// tolerant readers of the members the service writes in more than one way.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// timestamp is a time as the API writes it. The service's own answers use two forms: RFC 3339
// ("2026-05-12T10:20:27Z", with or without fractional seconds) and the provider's
// "YYYY-MM-DD HH:MM:SS" ("2025-05-12 10:20:27"), which names no time zone and is read as UTC.
// "YYYY-MM-DDTHH:MM:SS" without a zone is read as UTC too. JSON null and "" are a time the
// server did not give; any other text is an error naming the member.
type timestamp struct{ t time.Time }

// Layouts of a timestamp without a zone, read as UTC; fractional seconds may follow.
var zonelessLayouts = [...]string{"2006-01-02 15:04:05", "2006-01-02T15:04:05"}

// UnmarshalJSON reads a JSON string in one of the forms above.
func (ts *timestamp) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	if ts.t.UnmarshalJSON(b) == nil { // RFC 3339, read without allocating
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf(`a time is a string, RFC 3339 or "YYYY-MM-DD HH:MM:SS", not %.40s`, b)
	}
	t, err := parseTimestamp(s)
	if err != nil {
		return err
	}
	ts.t = t
	return nil
}

// parseTimestamp reads s, in UTC when s names no zone; "" is the zero time.
func parseTimestamp(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range zonelessLayouts {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf(`a time is RFC 3339 or "YYYY-MM-DD HH:MM:SS", not %.40q`, s)
}

// time returns the time, or nil when the member was absent, null or empty. It points into ts,
// which the wire struct that held it no longer uses.
func (ts *timestamp) time() *time.Time {
	if ts == nil || ts.t.IsZero() {
		return nil
	}
	return &ts.t
}

// into returns the time stored in *slot, or nil (leaving *slot alone) when the member was
// absent, null or empty: the items of a page point into one slice of times rather than
// allocating one each.
func (ts timestamp) into(slot *time.Time) *time.Time {
	if ts.t.IsZero() {
		return nil
	}
	*slot = ts.t
	return slot
}

// optInt is a whole-number member that a server may leave out or send as null.
type optInt struct {
	n  int
	ok bool
}

// UnmarshalJSON reads a JSON integer; null leaves the member absent.
func (o *optInt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	n, err := strconv.Atoi(string(b)) // strconv keeps no reference: no allocation
	if err != nil {
		return fmt.Errorf("want a whole number, not %.40s", b)
	}
	*o = optInt{n: n, ok: true}
	return nil
}

// into returns the number stored in *slot, or nil when the member was absent, as
// timestamp.into does.
func (o optInt) into(slot *int) *int {
	if !o.ok {
		return nil
	}
	*slot = o.n
	return slot
}

// verdict is the verified member of an OTP verification: JSON true or false, as the service's
// otp-verify page shows it, or the provider's strings "True", "False" and "Expired" (in any
// case), as its verify-token page says a token is "confirmed as verified or expired".
type verdict struct {
	verified bool
	expired  bool // "Expired": not verified, and the pin can no longer be
}

// UnmarshalJSON reads a JSON boolean or one of the strings above.
func (d *verdict) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case bool:
		*d = verdict{verified: v}
		return nil
	case string:
		switch {
		case strings.EqualFold(v, "true"):
			*d = verdict{verified: true}
			return nil
		case strings.EqualFold(v, "false"):
			*d = verdict{}
			return nil
		case strings.EqualFold(v, "expired"):
			*d = verdict{expired: true}
			return nil
		}
	}
	return fmt.Errorf(`want a boolean, or "true", "false" or "expired", not %.40s`, b)
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// val returns *p, or the zero T when p is nil.
func val[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// sendBody is the body of POST /v1/sms/send (To of numbers) and /v1/sms/campaigns (To of
// numbers and {phone, name} objects).
type sendBody[T any] struct {
	To        []T     `json:"to"`
	From      string  `json:"from"`
	Message   string  `json:"message"`
	Channel   Channel `json:"channel,omitempty"`
	Reference string  `json:"reference"`
}

// wireSent is the 202 answer of both sends, as the service's sms-send page shows it.
type wireSent struct {
	envelope
	Message  string `json:"message"`
	Campaign struct {
		ID         string `json:"id"`
		Status     Status `json:"status"`
		MessageID  string `json:"message_id"` // null while the campaign has none
		Recipients int    `json:"recipients"`
		Amount     Amount `json:"amount"`
		Currency   string `json:"currency"`
		SMSParts   *int   `json:"sms_parts"`
	} `json:"campaign"`
}

// result builds the answer of a send, checking the members it needs: the campaign's id and
// status.
func (w *wireSent) result(cl *call, from string, ch Channel, ref string) (*SendResult, error) {
	wc := w.Campaign
	if err := cl.need(member{"campaign.id", wc.ID != ""}, member{"campaign.status", wc.Status != ""}); err != nil {
		return nil, err
	}
	if ch == "" {
		ch = ChannelGeneric
	}
	return &SendResult{
		Message: w.Message,
		Campaign: Campaign{
			ID: wc.ID, Status: wc.Status, MessageID: wc.MessageID, Recipients: wc.Recipients,
			Amount: wc.Amount, Currency: wc.Currency, Parts: wc.SMSParts,
			SenderID: from, Channel: ch, Reference: ref,
		},
		Replayed: cl.header.Get("Idempotent-Replayed") == "true",
		Response: cl.response(w.RequestID),
	}, nil
}

// wireRecipient is a campaign recipient on the wire: a number, or {phone, name} when named
// (see campaignTo).
type wireRecipient struct {
	Phone string `json:"phone"`
	Name  string `json:"name"`
}

// campaignTo is the "to" of a campaign request (Campaigns.Create and every batch of
// SendBulk): each recipient a number, or {phone, name} when named. Its items point into to,
// so that building it allocates the slice alone; encoding/json writes it.
func campaignTo(to []wireRecipient) []any {
	out := make([]any, len(to))
	for i := range to {
		if to[i].Name == "" {
			out[i] = &to[i].Phone
		} else {
			out[i] = &to[i]
		}
	}
	return out
}

type wirePagination struct {
	Page  int `json:"page"`
	Limit int `json:"limit"`
	Total int `json:"total"`
}

// present is the required member pagination: a page and a limit are at least 1.
func (p wirePagination) present() member {
	return member{"pagination", p.Page > 0 && p.Limit > 0}
}

// wireCampaign is a campaign as GET /v1/sms/campaigns lists it.
type wireCampaign struct {
	ID             string    `json:"_id"`
	SenderID       string    `json:"senderId"`
	RecipientCount int       `json:"recipientCount"`
	Amount         Amount    `json:"amount"`
	Status         Status    `json:"status"`
	Currency       string    `json:"currency"`
	Channel        Channel   `json:"channel"`
	SMSParts       optInt    `json:"smsParts"`
	MessageID      string    `json:"messageId"` // null while the campaign has none
	Reference      string    `json:"reference"` // null when the request had none
	CreatedAt      timestamp `json:"createdAt"`
}

// campaign returns the campaign, its parts and creation time stored in parts and created when
// the server sent them.
func (w *wireCampaign) campaign(parts *int, created *time.Time) Campaign {
	return Campaign{
		ID: w.ID, Status: w.Status, MessageID: w.MessageID, Recipients: w.RecipientCount,
		Amount: w.Amount, Currency: w.Currency, Parts: w.SMSParts.into(parts), SenderID: w.SenderID,
		Channel: w.Channel, Reference: w.Reference, CreatedAt: w.CreatedAt.into(created),
	}
}
