package mockserver_test

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

func TestLargeCampaignIsProcessingForASecond(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.campaign(sms(nums(1, 101)))
	id := r.str("campaign.id")
	assert.Equal(t, "processing", r.str("campaign.status"))
	assertNull(t, r, "campaign.message_id")
	assert.Equal(t, 101, r.int("campaign.recipients"))
	assert.Equal(t, int64(101*gp), r.kobo("campaign.amount"))
	assert.Equal(t, int64(mockserver.DefaultBalance-101*gp), e.balance(mockserver.ModeLive), "charged at once")

	l := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "processing", l.str("data.0.status"))
	assertNull(t, l, "data.0.messageId")
	st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
	assertProcessingStatus(t, st, id)
	assert.Error(t, e.srv.Deliver(id, nil))

	e.srv.Advance(time.Second - time.Millisecond)
	l = e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "processing", l.str("data.0.status"))

	e.srv.Advance(time.Millisecond)
	l = e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "sent", l.str("data.0.status"))
	assert.Equal(t, messageIDOf(t, id), l.str("data.0.messageId"))

	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status?limit=100", nil).wantStatus(http.StatusOK)
	assert.Equal(t, messageIDOf(t, id), st.str("data.messageId"))
	assert.Len(t, st.list("data.recipients"), 100)
	assert.Equal(t, []int{1, 100, 101}, []int{st.int("pagination.page"), st.int("pagination.limit"), st.int("pagination.total")})
	assert.Equal(t, 101, st.int("data.counts.sent"))
	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status?limit=100&page=2", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{num(101)}, ids(st, "data.recipients", "to"))
	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status?limit=100&page=3", nil).wantStatus(http.StatusOK)
	assert.Empty(t, st.list("data.recipients"))
	assert.Equal(t, 101, st.int("data.counts.sent"), "counts cover the whole campaign")

	// 100 distinct recipients are sent at once; duplicates do not count.
	r = e.campaign(sms(append(nums(1, 100), num(1), num(2))))
	assert.Equal(t, "sent", r.str("campaign.status"))
	assert.Equal(t, 100, r.int("campaign.recipients"))
}

func TestCampaignListPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var created []string
	for i := range 5 {
		var r *resp
		if i%2 == 0 {
			r = e.send(sms(num(i)))
		} else {
			r = e.campaign(sms([]any{num(i), num(i + 10)}))
		}
		created = append(created, r.str("campaign.id"))
		e.srv.Advance(time.Second)
	}
	slices.Reverse(created) // newest first

	def := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	assert.Equal(t, created, ids(def, "data", "_id"))
	assert.Equal(t, []int{1, 20, 5}, []int{def.int("pagination.page"), def.int("pagination.limit"), def.int("pagination.total")})
	for i := range 5 {
		assertTime(t, fixedNow.Add(time.Duration(4-i)*time.Second), def, "data."+itoa(i)+".createdAt")
	}

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"limit=2", created[:2]},
		{"limit=2&page=2", created[2:4]},
		{"page=3&limit=2", created[4:]},
		{"limit=2&page=4", nil},
		{"page=2", nil},
		{"limit=100", created},
		{"limit=1&page=5", created[4:]},
	} {
		l := e.do(http.MethodGet, "/v1/sms/campaigns?"+tc.query, nil).wantStatus(http.StatusOK)
		assert.Equal(t, tc.want, ids(l, "data", "_id"), tc.query)
		assert.Equal(t, 5, l.int("pagination.total"), tc.query)
	}

	// Campaigns at the same instant: the later id first.
	a := e.send(sms(num(1))).str("campaign.id")
	b := e.send(sms(num(1))).str("campaign.id")
	require.Less(t, a, b)
	l := e.do(http.MethodGet, "/v1/sms/campaigns?limit=2", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{b, a}, ids(l, "data", "_id"))
}

func TestDeliveryStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	to := []string{num(1), num(2), num(3), num(4)}
	id := e.send(sms(to)).str("campaign.id")
	status := func(query string) *resp {
		return e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status"+query, nil).wantStatus(http.StatusOK)
	}
	counts := func(r *resp) [4]int {
		return [4]int{r.int("data.counts.sent"), r.int("data.counts.delivered"), r.int("data.counts.failed"), r.int("data.counts.dnd")}
	}

	st := status("")
	assert.Equal(t, id, st.str("data.campaignId"))
	assert.Equal(t, messageIDOf(t, id), st.str("data.messageId"))
	assert.Equal(t, "sent", st.str("data.status"))
	assert.Equal(t, [4]int{4, 0, 0, 0}, counts(st))
	assert.Equal(t, to, ids(st, "data.recipients", "to"))
	assert.Equal(t, []string{"sent", "sent", "sent", "sent"}, ids(st, "data.recipients", "status"))
	assertTime(t, fixedNow, st, "data.recipients.0.updatedAt")

	e.srv.Advance(time.Minute)
	require.NoError(t, e.srv.Deliver(id, &mockserver.DeliverCounts{Delivered: 1, Failed: 1}))
	st = status("")
	assert.Equal(t, "sent", st.str("data.status"), "sent while any recipient is sent")
	assert.Equal(t, [4]int{2, 1, 1, 0}, counts(st))
	assert.Equal(t, []string{"delivered", "failed", "sent", "sent"}, ids(st, "data.recipients", "status"))
	assertTime(t, fixedNow.Add(time.Minute), st, "data.recipients.0.updatedAt")
	assertTime(t, fixedNow.Add(time.Minute), st, "data.recipients.1.updatedAt")
	assertTime(t, fixedNow, st, "data.recipients.2.updatedAt")

	require.NoError(t, e.srv.Deliver(id, &mockserver.DeliverCounts{DND: 1}))
	require.NoError(t, e.srv.Deliver(id, nil)) // the rest: delivered
	st = status("")
	assert.Equal(t, "partially_delivered", st.str("data.status"))
	assert.Equal(t, [4]int{0, 2, 1, 1}, counts(st))
	assert.Equal(t, []string{"delivered", "failed", "dnd", "delivered"}, ids(st, "data.recipients", "status"))
	assert.NoError(t, e.srv.Deliver(id, &mockserver.DeliverCounts{Delivered: 1}), "counts past what is sent settle what is: none")
	assert.Equal(t, [4]int{0, 2, 1, 1}, counts(status("")))
	assert.Error(t, e.srv.Deliver(id, &mockserver.DeliverCounts{Failed: -1}))

	// Recipients are paged; counts are not.
	st = status("?limit=2&page=2")
	assert.Equal(t, to[2:], ids(st, "data.recipients", "to"))
	assert.Equal(t, [4]int{0, 2, 1, 1}, counts(st))
	assert.Equal(t, []int{2, 2, 4}, []int{st.int("pagination.page"), st.int("pagination.limit"), st.int("pagination.total")})
	st = status("?page=9")
	assert.Empty(t, st.list("data.recipients"))

	// The rollup.
	for _, tc := range []struct {
		name    string
		deliver *mockserver.DeliverCounts
		want    string
	}{
		{"all delivered", nil, "delivered"},
		{"all failed", &mockserver.DeliverCounts{Failed: 3}, "failed"},
		{"all dnd", &mockserver.DeliverCounts{DND: 3}, "failed"},
		{"failed and dnd", &mockserver.DeliverCounts{Failed: 2, DND: 1}, "failed"},
		{"one delivered", &mockserver.DeliverCounts{Delivered: 1, Failed: 2}, "partially_delivered"},
		{"one still sent", &mockserver.DeliverCounts{Delivered: 2}, "sent"},
		{"nothing moved", &mockserver.DeliverCounts{}, "sent"},
	} {
		cid := e.send(sms(nums(10, 3))).str("campaign.id")
		require.NoError(t, e.srv.Deliver(cid, tc.deliver), tc.name)
		r := e.do(http.MethodGet, "/v1/sms/campaigns/"+cid+"/status", nil).wantStatus(http.StatusOK)
		assert.Equal(t, tc.want, r.str("data.status"), tc.name)
	}
	assert.Error(t, e.srv.Deliver("0123456789abcdef01234567", nil))
}

// TestDeliveryRollupIsOfTheWholeCampaign: the rollup status does not depend on the page of
// recipients asked for, and the deliver control answers the same rollup.
func TestDeliveryRollupIsOfTheWholeCampaign(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		deliver *mockserver.DeliverCounts
		want    string
	}{
		{nil, "delivered"},
		{&mockserver.DeliverCounts{Failed: 4}, "failed"},
		{&mockserver.DeliverCounts{Delivered: 1, DND: 3}, "partially_delivered"},
		{&mockserver.DeliverCounts{Delivered: 3}, "sent"},
	} {
		id := e.send(sms(nums(1, 4))).str("campaign.id")
		var body any // none: deliver all
		if tc.deliver != nil {
			body = tc.deliver
		}
		r := e.do(http.MethodPost, "/_mock/campaigns/"+id+"/deliver", body).wantStatus(http.StatusOK)
		assert.Equal(t, tc.want, r.str("status"), "deliver control %+v", tc.deliver)
		for _, q := range []string{"", "?limit=1", "?limit=3", "?page=2&limit=3", "?page=9"} {
			st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status"+q, nil).wantStatus(http.StatusOK)
			assert.Equal(t, tc.want, st.str("data.status"), "status%s after %+v", q, tc.deliver)
		}
	}
}

// TestConcurrentCampaignsStayFindable: campaigns created at once are all found by id, and the
// list is newest first (same createdAt on the fixed clock: by _id, descending).
func TestConcurrentCampaignsStayFindable(t *testing.T) {
	t.Parallel()
	e := newInProcessEnv(t) // without sockets, requests reach the workspace's lock closer together
	const rounds, n = 40, 64
	var created []string
	for round := range rounds {
		for _, r := range e.parallel(n, func(i int) call { return post("/v1/sms/send", sms(num(round*n+i))) }) {
			r.wantStatus(http.StatusAccepted)
			created = append(created, r.str("campaign.id"))
		}
	}
	want := slices.Clone(created)
	slices.Sort(want)
	slices.Reverse(want)
	var listed []string
	for page := 1; page <= rounds*n/100+1; page++ {
		l := e.do(http.MethodGet, "/v1/sms/campaigns?limit=100&page="+itoa(page), nil).wantStatus(http.StatusOK)
		listed = append(listed, ids(l, "data", "_id")...)
	}
	assert.Equal(t, want, listed, "newest first: by _id, descending")
	missing := 0
	for i, id := range created {
		if e.srv.Deliver(id, nil) != nil {
			missing++
		}
		if i%64 == 0 { // over HTTP too, for a sample
			e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
		}
	}
	assert.Zero(t, missing, "campaigns that exist but are not found by id")
}

// TestDeliverControl: POST /_mock/campaigns/{id}/deliver and Deliver.
func TestDeliverControl(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.send(sms(nums(1, 3))).str("campaign.id")
	path := "/_mock/campaigns/" + id + "/deliver"
	r := e.do(http.MethodPost, path, M{"delivered": 1, "failed": 1}).wantStatus(http.StatusOK)
	assert.Equal(t, id, r.str("campaignId"))
	assert.Equal(t, "sent", r.str("status"))
	assert.Equal(t, map[string]any{"sent": r.get("counts.sent"), "delivered": r.get("counts.delivered"), "failed": r.get("counts.failed"), "dnd": r.get("counts.dnd")}, r.get("counts"))
	assert.Equal(t, []int{1, 1, 1, 0}, []int{r.int("counts.sent"), r.int("counts.delivered"), r.int("counts.failed"), r.int("counts.dnd")})
	r = e.do(http.MethodPost, path, M{"delivered": 2}).wantStatus(http.StatusOK) // one is left: it is delivered
	assert.Equal(t, []int{0, 2, 1, 0}, []int{r.int("counts.sent"), r.int("counts.delivered"), r.int("counts.failed"), r.int("counts.dnd")})
	e.do(http.MethodPost, path, M{"dnd": -1}).wantError(400, "bad_request")
	r = e.do(http.MethodPost, path, nil).wantStatus(http.StatusOK)
	assert.Equal(t, "partially_delivered", r.str("status"))
	assert.Equal(t, 2, r.int("counts.delivered"))
	e.do(http.MethodPost, "/_mock/campaigns/0123456789abcdef01234567/deliver", nil).wantError(404, "not_found")

	big := e.campaign(sms(nums(100, 101))).str("campaign.id")
	e.do(http.MethodPost, "/_mock/campaigns/"+big+"/deliver", nil).wantError(409, "conflict")
	e.srv.Advance(time.Second)
	r = e.do(http.MethodPost, "/_mock/campaigns/"+big+"/deliver", M{"failed": 100}).wantStatus(http.StatusOK)
	assert.Equal(t, "sent", r.str("status"))
	assert.Equal(t, 100, r.int("counts.failed"))

	// Test-mode campaigns too.
	tid := e.send(sms(nums(1, 2)), e.test()).str("campaign.id")
	r = e.do(http.MethodPost, "/_mock/campaigns/"+tid+"/deliver", M{"delivered": 1}).wantStatus(200)
	assert.Equal(t, 1, r.int("counts.delivered"))
	assert.Equal(t, 1, r.int("counts.sent"))
}

// TestDeliverWithAnEmptyObjectDeliversAll: a deliver control with {} delivers every sent recipient.
func TestDeliverWithAnEmptyObjectDeliversAll(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.send(sms(nums(1, 2))).str("campaign.id")
	r := e.do(http.MethodPost, "/_mock/campaigns/"+id+"/deliver", M{}).wantStatus(http.StatusOK)
	assert.Equal(t, 2, r.int("counts.delivered"))
	assert.Equal(t, 0, r.int("counts.sent"))
}

func TestDeliverHugeCountsChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.send(sms([]string{num(1), num(2), num(3)})).str("campaign.id")
	status := func() [4]int {
		r := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
		return [4]int{r.int("data.counts.sent"), r.int("data.counts.delivered"), r.int("data.counts.failed"), r.int("data.counts.dnd")}
	}
	tests := []struct {
		body  string
		field string
	}{
		// The three sum to 0 in int64: before, that passed the check and panicked half-way.
		{fmt.Sprintf(`{"delivered":%d,"failed":%d,"dnd":2}`, math.MaxInt64, math.MaxInt64), "delivered"},
		{fmt.Sprintf(`{"delivered":1,"failed":%d}`, math.MaxInt64), "failed"},
		{fmt.Sprintf(`{"dnd":%d}`, math.MinInt64), "dnd"},
		{`{"delivered":1e30}`, "delivered"},
	}
	for _, tt := range tests {
		r := e.do(http.MethodPost, "/_mock/campaigns/"+id+"/deliver", rawBody(tt.body)).wantError(http.StatusBadRequest, "bad_request")
		assert.Equal(t, tt.field, r.str("error.field"), tt.body)
		assert.Equal(t, [4]int{3, 0, 0, 0}, status(), "nothing moved: %s", tt.body)
	}
	err := e.srv.Deliver(id, &mockserver.DeliverCounts{Delivered: math.MaxInt, Failed: math.MaxInt, DND: 2})
	require.Error(t, err)
	assert.Equal(t, [4]int{3, 0, 0, 0}, status())
}

// assertProcessingStatus checks the delivery status of a campaign that is still processing:
// 200, no message ID, nothing counted and no recipients yet.
func assertProcessingStatus(t *testing.T, st *resp, id string) {
	t.Helper()
	assert.Equal(t, id, st.str("data.campaignId"))
	assert.Equal(t, "processing", st.str("data.status"))
	assertNull(t, st, "data.messageId")
	for _, k := range []string{"sent", "delivered", "failed", "dnd"} {
		assert.Equal(t, 0, st.int("data.counts."+k), k)
	}
	assert.NotNil(t, st.get("data.recipients"), "an empty array, not null")
	assert.Empty(t, st.list("data.recipients"))
	assert.Equal(t, 0, st.int("pagination.total"))
}

// assertFailedStatus checks the delivery status of a campaign the provider refused: 200, no
// message ID, every recipient failed; want is the page of recipients expected.
func assertFailedStatus(t *testing.T, st *resp, id string, want []string) {
	t.Helper()
	assert.Equal(t, id, st.str("data.campaignId"))
	assert.Equal(t, "failed", st.str("data.status"))
	assertNull(t, st, "data.messageId")
	assert.Equal(t, []int{0, 0, 2, 0}, []int{st.int("data.counts.sent"), st.int("data.counts.delivered"), st.int("data.counts.failed"), st.int("data.counts.dnd")})
	assert.Equal(t, want, ids(st, "data.recipients", "to"))
	for i := range want {
		assert.Equal(t, "failed", st.str("data.recipients."+itoa(i)+".status"))
	}
}
