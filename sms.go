package sms

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/seedsms/sms-go/internal/rules"
)

// Channel is the route an SMS takes.
type Channel string

// The channels. Numbers on the Do-Not-Disturb register are charged but not reached on the
// generic channel (their status is dnd); the dnd channel reaches them at a higher price.
const (
	ChannelGeneric Channel = "generic"
	ChannelDND     Channel = "dnd"
)

// SMSService sends SMS to up to 100 numbers. Use Campaigns.Create for more, or to
// personalize the message per recipient.
type SMSService struct{ c *core }

// SendParams is the input of SMSService.Send.
type SendParams struct {
	// To holds 1 to 100 phone numbers, international (with or without "+") or local Nigerian
	// ("0" and 10 digits). Duplicates are sent once.
	To []string
	// From is an active sender ID of the workspace.
	From string
	// Message is the text; at most 10 parts (see CountParts). Every part of every recipient
	// is charged.
	Message string
	// Channel is ChannelGeneric (when empty) or ChannelDND.
	Channel Channel
	// Reference is your idempotency or business reference: 1 to 100 printable ASCII
	// characters. When empty, one is generated for the call; it is returned in
	// Campaign.Reference.
	//
	// Whether the server deduplicates references is an assumption: the service's pages
	// never show it. The mock server does: a request repeated with the same Reference and
	// the same parameters within 24 hours is answered from the first one, without sending
	// or charging again. Only when the client is told so (WithReferenceDeduplication) is
	// Send retried after an ambiguous failure; otherwise such a failure returns an error
	// matching ErrOutcomeUnknown, and the same Reference lets you repeat the call safely
	// once you know the server deduplicates it. Set it yourself to be able to do so.
	Reference string
}

// SendResult is the answer to SMSService.Send and CampaignsService.Create.
type SendResult struct {
	// Message is the server's acknowledgement, such as "SMS request accepted.".
	Message string
	// Campaign is the campaign the request created. Its SenderID, Channel and Reference are
	// those of the request; its CreatedAt is nil (only Campaigns.List shows it).
	Campaign Campaign
	// Replayed is true when the answer is that of an earlier request with the same Reference
	// (the Idempotent-Replayed header, which the mock server sends): nothing was sent or
	// charged by this call. A replay that answers a retry of this call, after an attempt that
	// may have been processed (a dropped connection), is that attempt's answer: not Replayed.
	Replayed bool
	// Response is the HTTP answer, with its request ID.
	Response *Response
}

// Send sends Message to the numbers in To. The wallet is debited for every part of every
// recipient before sending; when the provider refuses, the campaign is failed and refunded.
//
// Send is retried on connection errors that wrote nothing and on 429. After an ambiguous
// failure (a connection dropped after sending, a timeout, a 5xx) it is retried only with
// WithReferenceDeduplication, every attempt carrying the same Reference; without it, it
// returns an error matching ErrOutcomeUnknown.
//
// Endpoint: POST /v1/sms/send (scope sms), documented by the live page
// https://developers.nairasms.com.ng/sms-send.
func (s *SMSService) Send(ctx context.Context, p *SendParams) (*SendResult, error) {
	if p == nil {
		return nil, invalid("SendParams", "parameters are required")
	}
	to, err := validateSend(p)
	if err != nil {
		return nil, err
	}
	ref := referenceFor(p.Reference)
	cl := &call{
		method: http.MethodPost, path: "/v1/sms/send", policy: retrySend, ref: ref,
		body:  sendBody[string]{To: to, From: p.From, Message: p.Message, Channel: p.Channel, Reference: ref},
		attrs: []slog.Attr{slog.Int("recipients", len(to)), slog.String("reference", ref)},
	}
	var out wireSent
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	return cl.sent(&out, p.From, p.Channel, ref)
}

func validateSend(p *SendParams) ([]string, error) {
	if len(p.To) == 0 {
		return nil, invalid("To", "at least one phone number is required")
	}
	if len(p.To) > rules.MaxSendRecipients {
		return nil, invalid("To", "at most "+strconv.Itoa(rules.MaxSendRecipients)+" numbers per request; use Campaigns.Create for more")
	}
	to := make([]string, len(p.To))
	for i, n := range p.To {
		norm, err := rules.NormalizePhone(n)
		if err != nil {
			return nil, invalid("To["+strconv.Itoa(i)+"]", err.Error())
		}
		to[i] = norm
	}
	if err := validateFrom("From", p.From); err != nil {
		return nil, err
	}
	if err := validateMessage("Message", p.Message); err != nil {
		return nil, err
	}
	if err := validateChannel(p.Channel); err != nil {
		return nil, err
	}
	return to, validateReference(p.Reference)
}
