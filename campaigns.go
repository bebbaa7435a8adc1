package sms

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
)

// CampaignsService creates campaigns of up to 10,000 recipients, lists them and reads their
// delivery status: one request per call, one per page for the iterators All and AllRecipients.
// Client.Bulk sends larger jobs and waits for delivery.
type CampaignsService struct{ c *core }

// Campaign is one send: an SMS.Send or a Campaigns.Create.
//
// ID and Status are always set: a campaign is not read without them. Recipients is shown by
// the service's sms-send answer and by the spec's campaign list; a server that left it out
// would make it read 0. Amount, Parts and CreatedAt are nil when the server did not send them
// (or sent them in a form the SDK cannot read, which the Response lists); strings are empty
// then.
type Campaign struct {
	ID string
	// Status is how far the campaign went: processing, sent or failed. It is not the
	// delivery to the phones, which CampaignsService.Delivery reports (Delivery.Status): a
	// campaign can be sent here and delivered, or failed, there.
	Status CampaignStatus
	// MessageID is the provider's message ID, used for delivery status; empty while the
	// campaign is processing, when it failed, and when the server did not send it.
	MessageID  string
	Recipients int // distinct recipients
	// Amount is what the campaign cost in the end: 0.00 when it failed and was refunded; nil
	// when the server did not say.
	Amount   *Amount
	Currency string // "NGN"
	// Parts is the number of SMS parts of the message; for a personalized campaign, the
	// largest. Nil when the server did not send it (the campaign list of the spec does not
	// promise it).
	Parts     *int
	SenderID  string
	Channel   Channel
	Reference string // empty when the request had none
	// CreatedAt is when the campaign was created: nil in a SendResult, whose answer does not
	// show it, and when the server did not send it.
	CreatedAt *time.Time
}

// Recipient is one recipient of a campaign.
type Recipient struct {
	// Phone is the number, international or local Nigerian (see NormalizePhone).
	Phone string
	// Name, at most 100 characters, replaces {{name}} in the message (empty when not set).
	Name string
}

// CreateCampaignParams is the input of CampaignsService.Create.
type CreateCampaignParams struct {
	// To holds 1 to 10,000 recipients. Duplicate numbers are sent once, to the first.
	To []Recipient
	// From is an active sender ID of the workspace.
	From string
	// Message is the text, in which {{name}} is replaced by each recipient's Name. Each
	// recipient's message must fit 10 parts.
	Message string
	// Channel is ChannelGeneric (when empty) or ChannelDND.
	Channel Channel
	// Reference makes the request idempotent, as in SendParams.
	Reference string
}

// Create sends a campaign, personalizing {{name}} per recipient. Up to 100 recipients are
// sent at once (status sent); larger campaigns are accepted as processing. Charging, refunds,
// references and retries are as for SMSService.Send: after an ambiguous failure it is retried
// only with WithReferenceDeduplication.
//
// Endpoint: POST /v1/sms/campaigns (scope campaigns), documented by the live page
// https://developers.nairasms.com.ng/sms-campaigns.
func (s *CampaignsService) Create(ctx context.Context, p *CreateCampaignParams) (*SendResult, error) {
	if p == nil {
		return nil, invalid("CreateCampaignParams", "parameters are required")
	}
	to, err := validateCampaign(p)
	if err != nil {
		return nil, err
	}
	ref := referenceFor(p.Reference)
	cl := &call{
		method: http.MethodPost, path: "/v1/sms/campaigns", policy: retrySend, ref: ref,
		body:  sendBody[any]{To: campaignTo(to), From: p.From, Message: p.Message, Channel: p.Channel, Reference: ref},
		attrs: []slog.Attr{slog.Int("recipients", len(to)), slog.String("reference", ref)},
	}
	var out wireSent
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	return cl.sent(&out, p.From, p.Channel, ref)
}

const nameTag = "{{name}}"

func validateCampaign(p *CreateCampaignParams) ([]wireRecipient, error) {
	if len(p.To) == 0 {
		return nil, invalid("To", "at least one recipient is required")
	}
	if len(p.To) > rules.MaxCampaignRecipients {
		return nil, invalid("To", "at most "+strconv.Itoa(rules.MaxCampaignRecipients)+" recipients per campaign")
	}
	if err := validateFrom("From", p.From); err != nil {
		return nil, err
	}
	if p.Message == "" {
		return nil, invalid("Message", "a message is required")
	}
	if err := validateUTF8("Message", p.Message); err != nil {
		return nil, err
	}
	personal := strings.Contains(p.Message, nameTag)
	if !personal {
		if err := validateParts("Message", p.Message); err != nil {
			return nil, err
		}
	}
	to := make([]wireRecipient, len(p.To))
	var first, checked map[string]struct{} // numbers seen (the server keeps the first), and names whose message fits
	if personal {
		first, checked = seenSets.Get().(map[string]struct{}), seenSets.Get().(map[string]struct{})
		defer func() {
			clear(first)
			clear(checked)
			seenSets.Put(first)
			seenSets.Put(checked)
		}()
	}
	for i, r := range p.To {
		// The field's name is built only for an error: the loop runs for up to 10,000
		// recipients a call.
		phone, err := rules.NormalizePhone(r.Phone)
		if err != nil {
			return nil, invalid(recipientField(i, "Phone"), err.Error())
		}
		if !utf8.ValidString(r.Name) {
			return nil, validateUTF8(recipientField(i, "Name"), r.Name)
		}
		if utf8.RuneCountInString(r.Name) > rules.MaxNameLen {
			return nil, invalid(recipientField(i, "Name"), "a name is at most "+strconv.Itoa(rules.MaxNameLen)+" characters")
		}
		to[i] = wireRecipient{Phone: phone, Name: r.Name}
		if !personal {
			continue
		}
		if _, dup := first[phone]; dup {
			continue
		}
		first[phone] = struct{}{}
		if _, ok := checked[r.Name]; ok {
			continue
		}
		if parts, _ := rules.CountPartsWith(p.Message, nameTag, r.Name); parts > rules.MaxParts {
			return nil, validateParts(recipientField(i, "Name"), strings.ReplaceAll(p.Message, nameTag, r.Name))
		}
		checked[r.Name] = struct{}{}
	}
	if err := validateChannel(p.Channel); err != nil {
		return nil, err
	}
	return to, validateReference(p.Reference)
}

// seenSets holds the sets validateCampaign fills for a personalized campaign, emptied, so that
// a program sending campaigns of thousands (a bulk job) does not build two sets a campaign.
var seenSets = sync.Pool{New: func() any { return map[string]struct{}{} }}

// recipientField names member of recipient i of CreateCampaignParams.To, such as "To[3].Phone".
func recipientField(i int, member string) string {
	return "To[" + strconv.Itoa(i) + "]." + member
}

// ListCampaignsParams pages the campaign list.
type ListCampaignsParams struct {
	// Page is the 1-based page (0: the first).
	Page int `url:"page,omitempty"`
	// Limit is the page size, 1 to 100 (0: the server's default, 20; for All, 100).
	Limit int `url:"limit,omitempty"`
}

// List returns one page of the campaigns of the key's mode, newest first. A page past the
// end is empty. A nil p gives the first page.
//
// Endpoint: GET /v1/sms/campaigns (scope campaigns), this project's contract
// (docs/api.md): no live page shows it.
func (s *CampaignsService) List(ctx context.Context, p *ListCampaignsParams) (*Page[Campaign], error) {
	if p == nil {
		p = &ListCampaignsParams{}
	}
	if err := validatePage(p.Page, p.Limit); err != nil {
		return nil, err
	}
	return s.list(ctx, p, nextRef{})
}

// list is List, fetching the page that next (a cursor or a URL, see Pagination.next) names
// when it is not empty.
func (s *CampaignsService) list(ctx context.Context, p *ListCampaignsParams, next nextRef) (*Page[Campaign], error) {
	var out struct {
		envelope
		wirePaging
		Data []wireCampaign `json:"data"`
	}
	// A page's worth of room, so that decoding does not grow the slice item by item.
	out.Data = make([]wireCampaign, 0, cmp.Or(p.Limit, rules.DefaultLimit))
	cl := &call{method: http.MethodGet, path: "/v1/sms/campaigns", query: p, policy: retryIdempotent}
	if err := s.c.page(cl, next, p.Limit); err != nil {
		return nil, err
	}
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	if err := cl.need(member{"data", len(out.Data) > 0 || hasList(cl.data, "data")}); err != nil {
		return nil, err
	}
	for i := range out.Data {
		w := &out.Data[i]
		if err := cl.needIn("data", i, member{"_id", w.id() != ""}, member{"status", w.Status.s != ""}); err != nil {
			return nil, err
		}
	}
	pg, bad := out.pagination(cl.header, nil)
	bad = pg.distrust(p.Page, offset(p.Page, p.Limit, pg, next), len(out.Data), bad)
	page := &Page[Campaign]{Items: make([]Campaign, len(out.Data)), Pagination: pg}
	slots := make([]campaignSlots, len(out.Data))
	loc := cl.zoneOf(&out.envelope)
	for i := range out.Data {
		page.Items[i], bad = out.Data[i].campaign(&slots[i], i, loc, bad)
	}
	page.Response = cl.responseOf(out.envelope, bad)
	return page, nil
}

// All returns an iterator over every campaign of the key's mode, newest first, from page
// p.Page on (p may be nil), fetching p.Limit campaigns per request (default 100).
//
// Nothing is fetched before the loop starts, pages are fetched as the loop needs them, and
// breaking out of the loop stops fetching; one page is held at a time. Every campaign that
// exists when the loop starts is yielded exactly once, even when new campaigns are created
// while it runs (they push older ones down the list); campaigns created meanwhile may or may
// not be yielded. Should a page's worth of campaigns or more be created before each of 10
// requests in a row, offsets cannot keep up and the loop ends with an error: use a larger
// Limit. Against a server that ignores the page asked for, the loop ends with an error once
// 3 pages in a row add no new campaign (or at once when the answer names another page), rather
// than fetching forever. When the answers state no total (see Pagination), the loop goes on
// until a page shorter than the page size, or the last page the answers state; without
// either, it ends with an error after 10,000 pages rather than fetching forever. Answers that
// page by cursor or by next URL (docs/api.md lists the forms read, in the body or the
// headers) are followed; a cycle of cursors, or 10 pages in a row that add no campaign, end
// the loop with an error. An error is yielded once and ends the loop.
//
// Endpoints: GET /v1/sms/campaigns (scope campaigns), once per page: see List.
func (s *CampaignsService) All(ctx context.Context, p *ListCampaignsParams) iter.Seq2[Campaign, error] {
	q := ListCampaignsParams{}
	if p != nil {
		q = *p
	}
	if err := validatePage(q.Page, q.Limit); err != nil {
		return fail[Campaign](err)
	}
	q.Page, q.Limit = max(q.Page, 1), cmp.Or(q.Limit, rules.MaxLimit)
	fetch := func(ctx context.Context, page, limit int, next nextRef) ([]Campaign, Pagination, error) {
		pg, err := s.list(ctx, &ListCampaignsParams{Page: page, Limit: limit}, next)
		if err != nil {
			return nil, Pagination{}, err
		}
		return pg.Items, pg.Pagination, nil
	}
	return walk(ctx, q.Page, q.Limit, fetch, func(c Campaign) string { return c.ID })
}

// DeliveryParams pages the recipients of a delivery status.
type DeliveryParams struct {
	// Page is the 1-based page of recipients (0: the first).
	Page int `url:"page,omitempty"`
	// Limit is the number of recipients per page, 1 to 100 (0: the server's default, 20; for
	// Recipients, 100).
	Limit int `url:"limit,omitempty"`
}

// Delivery is the provider's report on a campaign, with one page of its recipients.
//
// Neither the service's pages nor the spec show this answer: its shape is this project's
// (the mock server's). Only Status is required; the other members are read when present.
type Delivery struct {
	// CampaignID is the campaign's ID: the server's, or the one asked for when the answer
	// does not repeat it.
	CampaignID string
	// MessageID is the provider's message ID; empty while the campaign is processing, when
	// it failed, and when the server did not send it.
	MessageID string
	// Status is processing while the campaign is not yet handed to the provider (no counts,
	// no recipients yet); then sent while any recipient is, else delivered when all are,
	// failed when none is, or partially_delivered. A campaign the provider refused (and
	// refunded) is failed, every recipient failed.
	// A server may answer other words (the provider's reports say "Delivered", "Message
	// Sent", ...): they are kept as they are.
	Status DeliveryStatus
	// Counts counts the recipients by status; nil when the server did not send counts.
	Counts *DeliveryCounts
	// Recipients is the page of recipients asked for, in request order, as every list's
	// page is: its Items, and its Pagination, whose Total is the number of recipients (its
	// Page is 0, never a valid page, and its Total -1 when the server sent none). Its
	// Response is the Delivery's.
	Recipients Page[RecipientDelivery]
	// Response is the HTTP answer, with its request ID.
	Response *Response
}

// Final reports whether the delivery status can no longer change: the campaign failed, or it
// was handed to the provider and no recipient is still waiting for a report. Without counts,
// the status alone tells: delivered, partially_delivered and dnd are final.
func (d *Delivery) Final() bool {
	switch {
	case d.Status == DeliveryStatusFailed:
		return true
	case d.Status == DeliveryStatusProcessing:
		return false
	case d.Counts != nil:
		return d.Counts.Sent == 0
	}
	return d.Status == DeliveryStatusDelivered || d.Status == DeliveryStatusPartiallyDelivered || d.Status == DeliveryStatusDND
}

// DeliveryCounts counts a campaign's recipients by status.
type DeliveryCounts struct {
	Sent      int // no report yet
	Delivered int
	Failed    int
	DND       int // blocked by the Do-Not-Disturb register
}

// Total returns the number of recipients counted, whatever their status.
func (d DeliveryCounts) Total() int { return d.Sent + d.Delivered + d.Failed + d.DND }

// RecipientDelivery is the delivery of a campaign to one number.
type RecipientDelivery struct {
	To     string // normalized number
	Status RecipientStatus
	// UpdatedAt is when Status last changed; nil when the server did not send it.
	UpdatedAt *time.Time
}

// Delivery returns the delivery status of campaign id with one page of its recipients (p may
// be nil). A campaign that is still processing is DeliveryStatusProcessing, with no counts and
// no recipients; one the provider refused is DeliveryStatusFailed, every recipient failed.
// bulk.WaitCampaign polls it until it is final.
//
// Endpoint: GET /v1/sms/campaigns/{id}/status (scope campaigns), this project's contract
// (docs/api.md): no live page shows it.
func (s *CampaignsService) Delivery(ctx context.Context, id string, p *DeliveryParams) (*Delivery, error) {
	if p == nil {
		p = &DeliveryParams{}
	}
	seg, err := pathID("id", id)
	if err != nil {
		return nil, err
	}
	if err := validatePage(p.Page, p.Limit); err != nil {
		return nil, err
	}
	return s.status(ctx, id, seg, p, nextRef{})
}

// status is Delivery of campaign id (seg, escaped), fetching the page of recipients that next
// (a cursor or a URL, see Pagination.next) names when it is not empty.
func (s *CampaignsService) status(ctx context.Context, id, seg string, p *DeliveryParams, next nextRef) (*Delivery, error) {
	var out struct {
		envelope
		wirePaging
		Data struct {
			CampaignID  text       `json:"campaignId"`
			CampaignID2 text       `json:"campaign_id"`
			ID          text       `json:"id"`
			ID2         text       `json:"_id"`
			MessageID   text       `json:"messageId"`
			Status      wireStatus `json:"status"`
			Counts      *struct {
				Sent      optInt `json:"sent"`
				Delivered optInt `json:"delivered"`
				Failed    optInt `json:"failed"`
				DND       optInt `json:"dnd"`
			} `json:"counts"`
			Recipients []struct {
				To        text       `json:"to"`
				Status    wireStatus `json:"status"`
				UpdatedAt timestamp  `json:"updatedAt"`
			} `json:"recipients"`
		} `json:"data"`
	}
	cl := &call{method: http.MethodGet, path: "/v1/sms/campaigns/" + seg + "/status", query: p, policy: retryIdempotent}
	if err := s.c.page(cl, next, p.Limit); err != nil {
		return nil, err
	}
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	d := &out.Data
	if err := cl.need(member{"data.status", d.Status.s != ""}); err != nil {
		return nil, err
	}
	for i, r := range d.Recipients {
		if err := cl.needIn("data.recipients", i, member{"to", r.To.s != ""}, member{"status", r.Status.s != ""}); err != nil {
			return nil, err
		}
	}
	for _, named := range [...]text{d.CampaignID, d.CampaignID2, d.ID, d.ID2} { // under any of its names
		if named.s != "" && !strings.EqualFold(named.s, id) {
			// An answer about another campaign says nothing of this one: never a final wait.
			return nil, cl.unbuildable(fmt.Errorf("the %d answer is about campaign %s, not the campaign %s asked about",
				cl.status, strconv.Quote(printable(named.s)), strconv.Quote(printable(id))))
		}
	}
	pg, bad := out.pagination(cl.header, nil)
	bad = pg.distrust(p.Page, offset(p.Page, p.Limit, pg, next), len(d.Recipients), bad)
	bad = unreadable(bad, "data.", flaw{"campaignId", d.CampaignID.bad}, flaw{"messageId", d.MessageID.bad})
	st := &Delivery{
		CampaignID: cmp.Or(d.CampaignID.s, d.CampaignID2.s, d.ID.s, d.ID2.s, id), MessageID: d.MessageID.s, Status: DeliveryStatus(d.Status.s),
		Recipients: Page[RecipientDelivery]{Items: make([]RecipientDelivery, len(d.Recipients)), Pagination: pg},
	}
	if c := d.Counts; c != nil {
		// Counts are read whole or not at all: a partial count would make Final lie.
		if c.Sent.bad || c.Delivered.bad || c.Failed.bad || c.DND.bad {
			bad = append(bad, "data.counts")
		} else {
			st.Counts = &DeliveryCounts{Sent: c.Sent.n, Delivered: c.Delivered.n, Failed: c.Failed.n, DND: c.DND.n}
			if err := negativeCount(cl, *st.Counts); err != nil {
				return nil, err
			}
		}
	}
	times := make([]time.Time, len(d.Recipients))
	loc := cl.zoneOf(&out.envelope)
	for i, r := range d.Recipients {
		bad = unreadableIn(bad, "data.recipients", i, flaw{"updatedAt", r.UpdatedAt.bad})
		st.Recipients.Items[i] = RecipientDelivery{To: r.To.s, Status: RecipientStatus(r.Status.s), UpdatedAt: r.UpdatedAt.into(&times[i], loc)}
	}
	st.Response = cl.responseOf(out.envelope, bad)
	st.Recipients.Response = st.Response
	return st, nil
}

// offset is the index in the list of the first item of the page asked for (page and limit
// as asked, 0 for the defaults), answered with paging pg: 0 for a page fetched by cursor.
func offset(page, limit int, pg Pagination, next nextRef) int {
	if !next.none() {
		return 0
	}
	return (max(page, 1) - 1) * cmp.Or(pg.Limit, limit, rules.DefaultLimit)
}

// negativeCount refuses delivery counts no campaign can have: a count below 0.
func negativeCount(cl *call, c DeliveryCounts) error {
	for _, n := range [...]struct {
		name  string
		count int
	}{{"sent", c.Sent}, {"delivered", c.Delivered}, {"failed", c.Failed}, {"dnd", c.DND}} {
		if n.count < 0 {
			return cl.unbuildable(fmt.Errorf("decoding the %d response: the status answer is malformed: data.counts.%s is %d", cl.status, n.name, n.count))
		}
	}
	return nil
}

// AllRecipients returns an iterator over the delivery of every recipient of campaign id,
// in request order, from page p.Page on (p may be nil), p.Limit per request (default 100).
// It is lazy, stops fetching when the loop breaks and yields each recipient once, and ends as
// All does when the answers state no total.
//
// Endpoints: GET /v1/sms/campaigns/{id}/status (scope campaigns), once per page: see
// Delivery.
func (s *CampaignsService) AllRecipients(ctx context.Context, id string, p *DeliveryParams) iter.Seq2[RecipientDelivery, error] {
	q := DeliveryParams{}
	if p != nil {
		q = *p
	}
	seg, err := pathID("id", id)
	if err != nil {
		return fail[RecipientDelivery](err)
	}
	if err := validatePage(q.Page, q.Limit); err != nil {
		return fail[RecipientDelivery](err)
	}
	q.Page, q.Limit = max(q.Page, 1), cmp.Or(q.Limit, rules.MaxLimit)
	fetch := func(ctx context.Context, page, limit int, next nextRef) ([]RecipientDelivery, Pagination, error) {
		st, err := s.status(ctx, id, seg, &DeliveryParams{Page: page, Limit: limit}, next)
		if err != nil {
			return nil, Pagination{}, err
		}
		return st.Recipients.Items, st.Recipients.Pagination, nil
	}
	return walk(ctx, q.Page, q.Limit, fetch, func(r RecipientDelivery) string { return r.To })
}
