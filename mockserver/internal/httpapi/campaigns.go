package httpapi

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/ids"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// listCampaigns is GET /v1/sms/campaigns.
func listCampaigns(_ *API, rq *request) (int, any, error) {
	page, limit, err := urlPageParams(rq.r.URL)
	if err != nil {
		return 0, nil, err
	}
	cs, total := rq.st.store.Campaigns(rq.caller, page, limit, rq.now.UnixNano())
	pagination := wire.Pagination{Page: page, Limit: limit, Total: total}
	if rq.documented { // the public spec's members: the live pages show no campaign list
		out := make([]campaignDocumented, len(cs))
		for i := range cs {
			c := &cs[i]
			out[i] = campaignDocumented{ID: c.ID.String(), SenderID: c.SenderID, RecipientCount: c.Total(), Amount: wire.Naira(c.Amount), Status: c.Status.String()}
		}
		return http.StatusOK, bare{campaignPageDocumented{Data: out, Pagination: pagination}}, nil
	}
	return http.StatusOK, &campaignPage{cs, pagination}, nil
}

// campaignPage is the answer of GET /v1/sms/campaigns: wire.Page of campaignOut of each
// campaign. It writes its own JSON, the bytes encoding/json writes for that page
// (TestCampaignPageIsEncodingJSON): the list is the answer clients read most, and encoding
// its 20 campaigns through reflection, with the allocations of their strings, would cost
// more than the rest of the request (docs/benchmarks.md, "JSON on maintained libraries").
type campaignPage struct {
	campaigns  []store.Campaign
	pagination wire.Pagination
}

// AppendJSON appends the page's JSON to b.
func (p *campaignPage) AppendJSON(b []byte) []byte {
	b = append(b, `{"data":[`...)
	for i := range p.campaigns {
		if i > 0 {
			b = append(b, ',')
		}
		c := &p.campaigns[i]
		b = append(b, `{"_id":"`...)
		b = hex.AppendEncode(b, c.ID[:])
		b = append(b, `","senderId":`...)
		b = appendString(b, c.SenderID)
		b = append(b, `,"recipientCount":`...)
		b = strconv.AppendInt(b, int64(c.Total()), 10)
		b = append(b, `,"amount":`...)
		b = rules.AppendNaira(b, c.Amount)
		b = append(b, `,"status":"`...)
		b = append(b, c.Status.String()...)
		b = append(b, `","currency":"NGN","channel":"`...)
		b = append(b, c.Channel.String()...)
		b = append(b, `","smsParts":`...)
		b = strconv.AppendInt(b, int64(c.Parts), 10)
		b = append(b, `,"messageId":`...)
		if c.HasMessageID() {
			b = append(b, '"')
			b = c.ID.AppendMessageID(b)
			b = append(b, '"')
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"reference":`...)
		if c.Reference != "" {
			b = appendString(b, c.Reference)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"createdAt":"`...)
		b = wire.Time(c.CreatedAt).AppendFormat(b, time.RFC3339Nano)
		b = append(b, `"}`...)
	}
	b = append(b, `],"pagination":{"page":`...)
	b = strconv.AppendInt(b, int64(p.pagination.Page), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(p.pagination.Limit), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(p.pagination.Total), 10)
	return append(b, "}}"...)
}

// appendString appends s as a JSON string, as encoding/json writes it without escaping HTML:
// as it is when it is printable ASCII without a quote or a backslash (a sender ID, a
// reference: what the mock accepts), else by encoding/json itself.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			out, err := wire.Append(b, s)
			if err != nil { // a string always encodes
				panic(err)
			}
			return out
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// campaignJSON is a campaign as GET /v1/sms/campaigns lists it. Its amount and createdAt are
// written before encoding (wire.NairaNumber, RFC 3339): encoding/json writes a json.Number
// and a string as they are, where it would call a MarshalJSON method for each and check its
// output again, 20 times a page.
type campaignJSON struct {
	ID             string      `json:"_id"`
	SenderID       string      `json:"senderId"`
	RecipientCount int         `json:"recipientCount"`
	Amount         json.Number `json:"amount"`
	Status         string      `json:"status"`
	Currency       string      `json:"currency"`
	Channel        string      `json:"channel"`
	SMSParts       int         `json:"smsParts"`
	MessageID      *string     `json:"messageId"`
	Reference      *string     `json:"reference"`
	CreatedAt      string      `json:"createdAt"`
}

// campaignOut is c as the API lists it.
func campaignOut(c *store.Campaign) campaignJSON {
	out := campaignJSON{
		ID: c.ID.String(), SenderID: c.SenderID, RecipientCount: c.Total(),
		Amount: wire.NairaNumber(c.Amount), Status: c.Status.String(), Currency: "NGN",
		Channel: c.Channel.String(), SMSParts: int(c.Parts), Reference: wire.OptString(c.Reference),
		CreatedAt: wire.Time(c.CreatedAt).Format(time.RFC3339Nano),
	}
	if c.HasMessageID() {
		out.MessageID = wire.OptString(c.MessageID())
	}
	return out
}

// campaignPageDocumented is the campaign list as the public spec describes it: data and
// pagination, no requestId.
type campaignPageDocumented struct {
	Data       []campaignDocumented `json:"data"`
	Pagination wire.Pagination      `json:"pagination"`
}

// campaignDocumented is a listed campaign with only the public spec's members.
type campaignDocumented struct {
	ID             string     `json:"_id"`
	SenderID       string     `json:"senderId"`
	RecipientCount int        `json:"recipientCount"`
	Amount         wire.Naira `json:"amount"`
	Status         string     `json:"status"`
}

type deliveryJSON struct {
	CampaignID string          `json:"campaignId"`
	MessageID  *string         `json:"messageId"` // null while processing, and when failed
	Status     string          `json:"status"`
	Counts     store.Counts    `json:"counts"`
	Recipients []recipientJSON `json:"recipients"`
}

type recipientJSON struct {
	To        string    `json:"to"`
	Status    string    `json:"status"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// campaignStatus is GET /v1/sms/campaigns/{id}/status.
func campaignStatus(_ *API, rq *request) (int, any, error) {
	if _, ok := ids.Parse(rq.param); !ok {
		return 0, nil, notFound("Campaign")
	}
	page, limit, err := urlPageParams(rq.r.URL)
	if err != nil {
		return 0, nil, err
	}
	c, recipients, err := rq.st.store.CampaignStatus(rq.caller, rq.param, page, limit, rq.now.UnixNano())
	if err != nil {
		return 0, nil, err
	}
	// A campaign without a provider message ID is answered too, so that a caller polls one
	// endpoint until the campaign is final: while processing, with nothing to count yet; once
	// failed (refused and refunded), with every recipient failed.
	out := deliveryJSON{CampaignID: c.ID.String(), Recipients: make([]recipientJSON, len(recipients))}
	total := c.Total()
	switch c.Status {
	case store.CampaignProcessing:
		out.Status, total = c.Status.String(), 0
	case store.CampaignFailed:
		out.Status, out.Counts = c.Status.String(), store.Counts{Failed: total}
	default:
		out.MessageID, out.Status, out.Counts = wire.OptString(c.MessageID()), c.Rollup(), store.CountsOf(&c)
	}
	for i, r := range recipients {
		out.Recipients[i] = recipientJSON{To: strconv.FormatUint(r.Phone, 10), Status: r.Status.String(), UpdatedAt: wire.Time(r.UpdatedAt)}
	}
	return http.StatusOK, wire.NewPage(out, page, limit, total), nil
}
