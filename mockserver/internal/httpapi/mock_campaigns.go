package httpapi

import (
	"net/http"

	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// ctlDeliver is POST /_mock/campaigns/{id}/deliver.
func ctlDeliver(a *API, rq *request) (int, any, error) {
	var in struct {
		Delivered *int `json:"delivered"`
		Failed    *int `json:"failed"`
		DND       *int `json:"dnd"`
	}
	if e := decodeOptional(rq.body, &in); e != nil {
		return 0, nil, e
	}
	var counts *store.DeliverCounts // none given: all delivered
	if in.Delivered != nil || in.Failed != nil || in.DND != nil {
		counts = &store.DeliverCounts{Delivered: deref(in.Delivered), Failed: deref(in.Failed), DND: deref(in.DND)}
	}
	c, err := rq.st.store.Deliver(rq.param, counts, a.clock.Now().UnixNano())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, struct {
		CampaignID string       `json:"campaignId"`
		Status     string       `json:"status"`
		Counts     store.Counts `json:"counts"`
	}{c.ID.String(), c.Rollup(), store.CountsOf(&c)}, nil
}
