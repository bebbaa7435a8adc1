package sms

import "strings"

// Status is the state of a campaign, of one recipient's delivery, of a campaign's delivery as
// a whole, or of a sender ID. One type serves the four, as the API uses one set of words; the
// values each can take:
//
//	Campaign.Status                 processing, sent, failed
//	RecipientStatus.Status          sent, delivered, failed, dnd
//	DeliveryStatus.Status           processing, sent, delivered, partially_delivered, failed
//	SenderID.Status                 pending, active, blocked
//
// The service's pages show only sent (campaigns) and active (sender IDs); the other values
// are this project's contract. The SDK reads status words ignoring case, and maps those of
// Termii-style providers onto these: "Message Sent" is StatusSent; "Message Failed",
// "Rejected" and "Expired" are StatusFailed; "DND Active on Phone Number" is StatusDND
// ("Delivered", "Pending", "Sent", "Active", "Blocked" are the words above). A word that is
// none of these is kept as the server wrote it (Campaigns.Wait ends with an error naming it).
type Status string

// Campaign statuses: processing -> sent, or failed (refunded).
const (
	StatusProcessing Status = "processing" // campaign: accepted, not yet handed to the provider
	StatusSent       Status = "sent"       // campaign: handed to the provider; recipient and delivery: no report yet
	StatusFailed     Status = "failed"     // campaign: refused by the provider and refunded; recipient and delivery: not delivered
)

// Delivery statuses of recipients (sent -> delivered | failed | dnd) and of a campaign's
// delivery as a whole (sent while any recipient is, else delivered, partially_delivered or
// failed).
const (
	StatusDelivered          Status = "delivered"           // recipient and delivery
	StatusDND                Status = "dnd"                 // recipient: blocked by the Do-Not-Disturb register
	StatusPartiallyDelivered Status = "partially_delivered" // delivery: some recipients were delivered
)

// Sender ID statuses: pending -> active | blocked.
const (
	StatusPending Status = "pending" // sender ID: requested, awaiting approval
	StatusActive  Status = "active"  // sender ID: approved; usable as From
	StatusBlocked Status = "blocked" // sender ID: refused
)

// statusWords maps the status words a server may write, in lower case, onto the SDK's: its
// own, and those of Termii-style providers ("Message Sent", "DND Active on Phone Number").
// A word not here is kept as the server wrote it.
var statusWords = map[string]Status{
	"processing":                 StatusProcessing,
	"sent":                       StatusSent,
	"message sent":               StatusSent,
	"failed":                     StatusFailed,
	"message failed":             StatusFailed,
	"rejected":                   StatusFailed,
	"expired":                    StatusFailed,
	"delivered":                  StatusDelivered,
	"dnd":                        StatusDND,
	"dnd active on phone number": StatusDND,
	"partially_delivered":        StatusPartiallyDelivered,
	"partially delivered":        StatusPartiallyDelivered,
	"pending":                    StatusPending,
	"active":                     StatusActive,
	"blocked":                    StatusBlocked,
}

// statusOf returns the SDK's Status for the word s, compared ignoring case and surrounding
// space (see statusWords), or s itself when it is none of them.
func statusOf(s string) Status {
	if st, ok := statusWords[s]; ok {
		return st
	}
	if st, ok := statusWords[strings.ToLower(strings.TrimSpace(s))]; ok {
		return st
	}
	return Status(s)
}

// wireStatus is a status member, read as text and mapped by statusOf.
type wireStatus struct {
	s   Status
	bad bool
}

// UnmarshalJSON reads a status word; it never fails (see text).
func (w *wireStatus) UnmarshalJSON(b []byte) error {
	switch string(b) { // the service's own words, without allocating
	case `"sent"`:
		*w = wireStatus{s: StatusSent}
	case `"processing"`:
		*w = wireStatus{s: StatusProcessing}
	case `"delivered"`:
		*w = wireStatus{s: StatusDelivered}
	case `"failed"`:
		*w = wireStatus{s: StatusFailed}
	case `"active"`:
		*w = wireStatus{s: StatusActive}
	default:
		s, bad := readText(b)
		*w = wireStatus{s: statusOf(s), bad: bad}
	}
	return nil
}

// knownDelivery reports whether s is a status a campaign's delivery as a whole can have;
// Wait ends with an error on any other.
func knownDelivery(s Status) bool {
	switch s {
	case StatusProcessing, StatusSent, StatusPending, StatusDelivered, StatusPartiallyDelivered, StatusFailed, StatusDND:
		return true
	}
	return false
}
