package httpapi

import (
	"net/http"
	"strconv"
	"time"

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
	out := make([]campaignJSON, len(cs))
	for i := range cs {
		out[i] = campaignOut(&cs[i])
	}
	return http.StatusOK, wire.Page{Data: out, Pagination: pagination}, nil
}

// campaignJSON is a campaign as GET /v1/sms/campaigns lists it.
type campaignJSON struct {
	ID             string     `json:"_id"`
	SenderID       string     `json:"senderId"`
	RecipientCount int        `json:"recipientCount"`
	Amount         wire.Naira `json:"amount"`
	Status         string     `json:"status"`
	Currency       string     `json:"currency"`
	Channel        string     `json:"channel"`
	SMSParts       int        `json:"smsParts"`
	MessageID      *string    `json:"messageId"`
	Reference      *string    `json:"reference"`
	CreatedAt      time.Time  `json:"createdAt"`
}

// campaignOut is c as the API lists it.
func campaignOut(c *store.Campaign) campaignJSON {
	out := campaignJSON{
		ID: c.ID.String(), SenderID: c.SenderID, RecipientCount: c.Total(),
		Amount: wire.Naira(c.Amount), Status: c.Status.String(), Currency: "NGN",
		Channel: c.Channel.String(), SMSParts: int(c.Parts), Reference: wire.OptString(c.Reference),
		CreatedAt: wire.Time(c.CreatedAt),
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
