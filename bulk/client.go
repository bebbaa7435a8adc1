package bulk

import (
	"time"

	"github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/internal/safetext"
)

// client is the sms client a job, a settle or a wait runs over: its campaigns service, whose
// calls make every request, and the client, which says what it sends to and how it retries.
type client struct {
	*sms.CampaignsService
	c *sms.Client
}

func over(c *sms.Client) *client { return &client{CampaignsService: c.Campaigns, c: c} }

// checkClient refuses a nil client, before any parameter is read.
func checkClient(c *sms.Client) error {
	if c == nil || c.Campaigns == nil {
		return invalid("Client", "a client is required (sms.NewClient makes one)")
	}
	return nil
}

// settleTime is how long after its intent a batch's request may still be processed by the
// server: the longest call of the client, with a minute's margin. Past it, a batch whose
// campaign the server does not list was never processed (see Params.SettleAfter).
func settleTime(c *sms.Client) time.Duration { return c.MaxCallDuration() + time.Minute }

// nameTag is replaced by each recipient's name in a campaign's message.
const nameTag = "{{name}}"

// invalid is the error of a parameter that fails the checks made before any request.
func invalid(field, reason string) *sms.ValidationError {
	return &sms.ValidationError{Field: field, Reason: reason}
}

// printable is text from the server or the input made printable and bounded for an error.
func printable(s string) string { return safetext.Printable(s, 200) }

// deref is *p, or the zero value when p is nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// validateChannel refuses a channel Campaigns.Create refuses, before the job reads anything.
func validateChannel(ch sms.Channel) error {
	switch ch {
	case "", sms.ChannelGeneric, sms.ChannelDND:
		return nil
	}
	return invalid("Channel", "the channel is generic or dnd")
}
