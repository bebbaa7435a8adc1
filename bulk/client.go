package bulk

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/internal/rules"
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

// The checks of a job's sender, message and channel are Campaigns.Create's, made once for
// the job before any batch is read.

func validateFrom(field, from string) error {
	if from == "" {
		return invalid(field, "a sender ID is required")
	}
	if !rules.ValidSenderID(from) {
		return invalid(field, "a sender ID is 3 to 11 ASCII letters and digits")
	}
	return nil
}

func validateUTF8(field, text string) error {
	if !utf8.ValidString(text) {
		return invalid(field, "the text is not valid UTF-8")
	}
	return nil
}

func validateParts(field, message string) error {
	if parts, _ := rules.CountParts(message); parts > rules.MaxParts {
		return invalid(field, "the message takes "+strconv.Itoa(parts)+" SMS parts; at most "+strconv.Itoa(rules.MaxParts)+" are allowed")
	}
	return nil
}

func validateChannel(ch sms.Channel) error {
	switch ch {
	case "", sms.ChannelGeneric, sms.ChannelDND:
		return nil
	}
	return invalid("Channel", "the channel is generic or dnd")
}
