package sms

// Status is the state of a campaign, of one recipient's delivery, of a campaign's delivery as
// a whole, or of a sender ID. Each constant says where it occurs.
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
