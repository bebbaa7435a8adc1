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
	page, limit, err := pageParams(rq.r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	cs, total := rq.st.store.Campaigns(rq.caller, page, limit, rq.now.UnixNano())
	return http.StatusOK, &wire.CampaignPage{Campaigns: cs, Pagination: wire.Pagination{Page: page, Limit: limit, Total: total}}, nil
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
	page, limit, err := pageParams(rq.r.URL.Query())
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
