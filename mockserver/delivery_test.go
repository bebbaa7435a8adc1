package mockserver_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// recipientStatus is the status of the only recipient of a campaign.
func (e *env) recipientStatus(id string) string {
	e.t.Helper()
	return e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK).str("data.recipients.0.status")
}

// TestAutoDeliveryMagicNumbers sends to each magic number, and to a number on the register,
// on the generic channel and follows each with Advance: nothing moves before the delay, each
// moves by its rule at it, and the slow one only after SlowDeliveryDelay.
func TestAutoDeliveryMagicNumbers(t *testing.T) {
	t.Parallel()
	const delay = 2 * time.Second
	e := newEnv(t, mockserver.WithAutoDelivery(delay))
	require.NoError(t, e.srv.AddDND(num(900)))
	tests := []struct {
		name                   string
		to                     string
		atSend, atDelay, later string
	}{
		{"ordinary", num(1), "sent", "delivered", "delivered"},
		{"always fails", mockserver.MagicFailed, "sent", "failed", "failed"},
		{"stays sent", mockserver.MagicPending, "sent", "sent", "sent"},
		{"magic dnd", mockserver.MagicDND, "dnd", "dnd", "dnd"},
		{"on the register", num(900), "dnd", "dnd", "dnd"},
		{"refused", mockserver.MagicRefused, "failed", "failed", "failed"},
		{"slow", mockserver.MagicSlow, "sent", "sent", "delivered"},
		{"written with spaces", "+234 700 000 0001", "sent", "failed", "failed"},
	}
	ids := make([]string, len(tests))
	for i, tt := range tests {
		ids[i] = e.send(sms(tt.to)).str("campaign.id")
		assert.Equal(t, tt.atSend, e.recipientStatus(ids[i]), "%s at the send", tt.name)
	}
	require.NoError(t, e.srv.Advance(delay-time.Nanosecond))
	for i, tt := range tests {
		assert.Equal(t, tt.atSend, e.recipientStatus(ids[i]), "%s just before the delay", tt.name)
	}
	require.NoError(t, e.srv.Advance(time.Nanosecond))
	for i, tt := range tests {
		assert.Equal(t, tt.atDelay, e.recipientStatus(ids[i]), "%s at the delay", tt.name)
	}
	require.NoError(t, e.srv.Advance(mockserver.SlowDeliveryDelay))
	for i, tt := range tests {
		assert.Equal(t, tt.later, e.recipientStatus(ids[i]), "%s after SlowDeliveryDelay", tt.name)
	}
}

// TestAutoDeliveryTimesAndRefund: a delivered recipient's updatedAt is when its delay ended,
// not when it was read; a campaign with MagicRefused is failed as a whole and charges nothing.
func TestAutoDeliveryTimesAndRefund(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithAutoDelivery(time.Second))
	before := e.balance(mockserver.ModeLive)
	r := e.send(sms([]string{num(1), mockserver.MagicRefused}))
	assert.Equal(t, "failed", r.str("campaign.status"))
	assert.Equal(t, before, e.balance(mockserver.ModeLive), "refunded")

	id := e.send(sms([]string{num(1), num(2)})).str("campaign.id")
	require.NoError(t, e.srv.Advance(time.Hour))
	st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "delivered", st.str("data.status"))
	assertTime(t, fixedNow.Add(time.Second), st, "data.recipients.0.updatedAt")
}

// TestAutoDeliveryOffByDefault: New and NewTest deliver nothing by themselves, however far
// the clock goes.
func TestAutoDeliveryOffByDefault(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.send(sms(num(1))).str("campaign.id")
	require.NoError(t, e.srv.Advance(24*time.Hour))
	assert.Equal(t, "sent", e.recipientStatus(id))

	srv := newServer(t, mockserver.WithClock(func() time.Time { return fixedNow }))
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Close() })
	e2 := &env{t: t, srv: srv, ws: srv.Default(), base: srv.URL(), hc: e.hc, v: e.v}
	id = e2.send(sms(num(1))).str("campaign.id")
	require.NoError(t, srv.Advance(24*time.Hour))
	assert.Equal(t, "sent", e2.recipientStatus(id))
}

// TestAutoDeliveryPublishes: once the delay passes on the real clock, the timer settles the
// campaign and the event stream says so, with no other request.
func TestAutoDeliveryPublishes(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithAutoDelivery(50*time.Millisecond))
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Close() })
	e := newEnv(t)
	e2 := &env{t: t, srv: srv, ws: srv.Default(), base: srv.URL(), hc: e.hc, v: e.v}
	events := e2.openEvents(t, "")
	id := e2.send(sms([]string{num(1), mockserver.MagicFailed})).str("campaign.id")
	for {
		ev := events.next()
		if ev.Type != "campaign.settled" {
			continue
		}
		assert.Equal(t, id, ev.Data["campaignId"])
		assert.Equal(t, "partially_delivered", ev.Data["status"])
		break
	}
}

// TestDeliverAll settles every campaign still sent by the same rules, at once, in every
// workspace; a second call has nothing left to do.
func TestDeliverAll(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other := e.newWorkspace()
	a := e.send(sms([]string{num(1), mockserver.MagicFailed, mockserver.MagicSlow, mockserver.MagicPending})).str("campaign.id")
	b := e.send(sms(num(2)), withKey(other.TestKey, other.TestSecret)).str("campaign.id")
	big := e.campaign(sms(nums(10, 150))).str("campaign.id")
	e.send(sms(mockserver.MagicRefused)) // failed at the send: nothing to settle

	r := e.do(http.MethodPost, "/_mock/deliver", M{}).wantStatus(http.StatusOK)
	assert.Equal(t, 3, r.int("campaigns"))
	st := e.do(http.MethodGet, "/v1/sms/campaigns/"+a+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []int{1, 2, 1, 0}, []int{st.int("data.counts.sent"), st.int("data.counts.delivered"), st.int("data.counts.failed"), st.int("data.counts.dnd")})
	assert.Equal(t, "delivered", e.do(http.MethodGet, "/v1/sms/campaigns/"+b+"/status", nil, withKey(other.TestKey, other.TestSecret)).wantStatus(http.StatusOK).str("data.status"))
	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+big+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "delivered", st.str("data.status"), "a processing campaign is sent, then delivered")

	assert.Equal(t, 0, e.srv.DeliverAll(), "only MagicPending is left, and it stays")
	e.do(http.MethodPost, "/_mock/deliver", nil).wantStatus(http.StatusOK)
	e.do(http.MethodPost, "/_mock/deliver", M{"x": 1}).wantError(http.StatusBadRequest, "bad_request")
}

// TestDeliverCountsPastWhatIsLeft: a per-campaign delivery asking for more than is still sent
// settles what is, in order.
func TestDeliverCountsPastWhatIsLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.send(sms(nums(1, 3))).str("campaign.id")
	r := e.do(http.MethodPost, "/_mock/campaigns/"+id+"/deliver", M{"delivered": 1, "failed": 5, "dnd": 5}).wantStatus(http.StatusOK)
	assert.Equal(t, []int{0, 1, 2, 0}, []int{r.int("counts.sent"), r.int("counts.delivered"), r.int("counts.failed"), r.int("counts.dnd")})
}

// TestWorkspaceURLOnAllInterfaces: a server listening on every interface names 127.0.0.1 in
// its URL and in the workspaces it makes, not the unspecified address.
func TestWorkspaceURLOnAllInterfaces(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithAddr("0.0.0.0:0"))
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, srv.URL())
	ws, err := srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.NoError(t, err)
	assert.Equal(t, srv.URL(), ws.URL)
	res, err := http.Post(srv.URL()+"/_mock/workspaces", "application/json", nil)
	require.NoError(t, err)
	defer res.Body.Close()
	var body struct {
		URL string `json:"url"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
	assert.Equal(t, srv.URL(), body.URL)
}
