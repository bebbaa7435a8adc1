package sms

import "strings"

// CampaignStatus is how far a campaign went: processing, then sent or failed. It is not the
// delivery to the phones, which a Delivery reports.
type CampaignStatus string

// The campaign statuses: processing -> sent, or failed (refunded).
const (
	CampaignStatusProcessing CampaignStatus = "processing" // accepted, not yet handed to the provider
	CampaignStatusSent       CampaignStatus = "sent"       // handed to the provider and charged
	CampaignStatusFailed     CampaignStatus = "failed"     // refused by the provider and refunded
)

// DeliveryStatus is where the delivery of a campaign as a whole stands: processing while the
// campaign is not yet handed to the provider, then sent while any recipient has no report,
// else delivered, partially_delivered or failed.
type DeliveryStatus string

// The delivery statuses of a campaign.
const (
	DeliveryStatusProcessing         DeliveryStatus = "processing"          // not yet handed to the provider
	DeliveryStatusSent               DeliveryStatus = "sent"                // some recipients have no report yet
	DeliveryStatusDelivered          DeliveryStatus = "delivered"           // every recipient was delivered
	DeliveryStatusPartiallyDelivered DeliveryStatus = "partially_delivered" // some recipients were delivered
	DeliveryStatusFailed             DeliveryStatus = "failed"              // no recipient was delivered
	DeliveryStatusDND                DeliveryStatus = "dnd"                 // a provider's report on one number on the Do-Not-Disturb register
)

// RecipientStatus is where the delivery of a campaign to one number stands: sent, then
// delivered, failed or dnd.
type RecipientStatus string

// The delivery statuses of a recipient: sent -> delivered | failed | dnd.
const (
	RecipientStatusSent      RecipientStatus = "sent"      // no report yet
	RecipientStatusDelivered RecipientStatus = "delivered" // reached the phone
	RecipientStatusFailed    RecipientStatus = "failed"    // not delivered
	RecipientStatusDND       RecipientStatus = "dnd"       // blocked by the Do-Not-Disturb register
)

// SenderIDStatus is the state of a sender ID: pending, then active or blocked.
type SenderIDStatus string

// The sender ID statuses: pending -> active | blocked.
const (
	SenderIDStatusPending SenderIDStatus = "pending" // requested, awaiting approval
	SenderIDStatusActive  SenderIDStatus = "active"  // approved; usable as From
	SenderIDStatusBlocked SenderIDStatus = "blocked" // refused
)

// SMSStatus is the smsStatus of an OTP send's answer (OTP.SMSStatus), kept as the server wrote
// it: a word not among the constants is kept too, never refused. Words of failure ("Message
// Failed", "Insufficient Balance", ...) make OTPService.Send return a *SendFailedError.
type SMSStatus string

// The smsStatus words of the contract (docs/api.md).
const (
	SMSStatusSent   SMSStatus = "Message Sent"   // the SMS with the pin was sent (the service's otp-send page)
	SMSStatusFailed SMSStatus = "Message Failed" // the provider refused the SMS (the mock server's answer)
)

// AnswerStatus is the status member of a provider's answer (SendFailedError.Status): an HTTP
// status code written as a string, kept as the server wrote it. 400 to 599 says the request
// failed, though the status line was a 2xx.
type AnswerStatus string

// AnswerStatusOK is the status member of an answer that went well (the service's otp-send
// page).
const AnswerStatusOK AnswerStatus = "200"

// statusWords maps the status words a server may write, in lower case, onto the SDK's: its
// own, and those of Termii-style providers ("Message Sent", "DND Active on Phone Number").
// Each status type takes the word mapped, whichever type it belongs to (a sender ID's
// "failed" is read as blocked, see wireSenderID.senderID). A word not here is kept as the
// server wrote it.
//
// The service's pages show only sent (campaigns) and active (sender IDs); the other words are
// this project's contract. "Message Sent" is sent; "Message Failed", "Rejected" and "Expired"
// are failed; "DND Active on Phone Number" is dnd.
var statusWords = map[string]string{
	"processing":                 "processing",
	"sent":                       "sent",
	"message sent":               "sent",
	"failed":                     "failed",
	"message failed":             "failed",
	"rejected":                   "failed",
	"expired":                    "failed",
	"delivered":                  "delivered",
	"dnd":                        "dnd",
	"dnd active on phone number": "dnd",
	"partially_delivered":        "partially_delivered",
	"partially delivered":        "partially_delivered",
	"pending":                    "pending",
	"active":                     "active",
	"blocked":                    "blocked",
}

// statusOf returns the SDK's status word for the word s, compared ignoring case and
// surrounding space (see statusWords), or s itself when it is none of them.
func statusOf(s string) string {
	if st, ok := statusWords[s]; ok {
		return st
	}
	if st, ok := statusWords[strings.ToLower(strings.TrimSpace(s))]; ok {
		return st
	}
	return s
}

// wireStatus is a status member, read as text and mapped by statusOf.
type wireStatus struct {
	s   string
	bad bool
}

// UnmarshalJSON reads a status word; it never fails (see text).
func (w *wireStatus) UnmarshalJSON(b []byte) error {
	switch string(b) { // the service's own words, without allocating
	case `"sent"`:
		*w = wireStatus{s: "sent"}
	case `"processing"`:
		*w = wireStatus{s: "processing"}
	case `"delivered"`:
		*w = wireStatus{s: "delivered"}
	case `"failed"`:
		*w = wireStatus{s: "failed"}
	case `"active"`:
		*w = wireStatus{s: "active"}
	default:
		s, bad := readText(b)
		*w = wireStatus{s: statusOf(s), bad: bad}
	}
	return nil
}

// Known reports whether s is a status a campaign's delivery as a whole can have (pending too,
// as some providers write it for sent). A status the SDK does not know cannot be told final
// or not: package bulk's waits end with an error on one.
func (s DeliveryStatus) Known() bool {
	switch s {
	case DeliveryStatusProcessing, DeliveryStatusSent, "pending", DeliveryStatusDelivered, DeliveryStatusPartiallyDelivered, DeliveryStatusFailed, DeliveryStatusDND:
		return true
	}
	return false
}
