package sms

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
// are this project's contract. A value a server sends that is none of these is kept as it is
// (the provider's reports use words such as "Delivered" or "DND Active on Phone Number").
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
