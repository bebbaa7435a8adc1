package mockserver_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

func TestSenderIDLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)

	r := e.do(http.MethodPost, "/v1/sender-ids", M{"sender_id": "Brand1", "usecase": "Order alerts", "company": "Acme Ltd"}).wantStatus(http.StatusCreated)
	brand := r.str("data._id")
	assert.Equal(t, "Sender ID request submitted.", r.str("message"))
	assert.Regexp(t, oidRe, brand)
	assert.Equal(t, "Brand1", r.str("data.title"))
	assert.Equal(t, "pending", r.str("data.status"))
	assert.Equal(t, "Nigeria", r.str("data.country"))
	assert.Equal(t, "Order alerts", r.str("data.usecase"))
	assert.Equal(t, "Acme Ltd", r.str("data.company"))
	assertTime(t, fixedNow, r, "data.createdAt")

	// Pending: not usable, and not requestable again in any case.
	e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "from", "Brand1")).wantError(400, "bad_request")
	e.do(http.MethodPost, "/v1/sender-ids", M{"sender_id": "BRAND1", "usecase": "u", "company": "c"}).wantError(409, "conflict")

	// Approved: usable as from (exactly as written), by live and test keys alike.
	require.NoError(t, e.srv.ApproveSenderID(brand))
	e.send(sms(num(1), "from", "Brand1"))
	e.send(sms(num(1), "from", "Brand1"), e.test())
	e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "from", "brand1")).wantError(400, "bad_request")
	e.do(http.MethodPost, "/v1/sender-ids", M{"sender_id": "brand1", "usecase": "u", "company": "c"}, e.test()).wantError(409, "conflict")
	assert.Error(t, e.srv.ApproveSenderID(brand), "only a pending sender ID moves")
	assert.Error(t, e.srv.BlockSenderID(brand))

	// Blocked: not usable, and may be requested again.
	other := e.requestSender("Other1")
	require.NoError(t, e.srv.BlockSenderID(other))
	e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "from", "Other1")).wantError(400, "bad_request")
	again := e.requestSender("OTHER1", e.test())
	assert.Error(t, e.srv.ApproveSenderID(other))

	// Lists: newest first, shared by both modes, filtered by status.
	all := e.do(http.MethodGet, "/v1/sender-ids", nil).wantStatus(http.StatusOK)
	assert.Equal(t, 4, all.int("count"))
	assert.Equal(t, []string{"OTHER1", "Other1", "Brand1", "MOCKSMS"}, ids(all, "data", "title"))
	assert.Equal(t, []string{again, other, brand}, ids(all, "data", "_id")[:3])
	assert.Equal(t, []string{"pending", "blocked", "active", "active"}, ids(all, "data", "status"))
	assert.Equal(t, all.get("data"), e.do(http.MethodGet, "/v1/sender-ids", nil, e.test()).wantStatus(200).get("data"))
	for status, want := range map[string][]string{
		"pending": {"OTHER1"}, "active": {"Brand1", "MOCKSMS"}, "blocked": {"Other1"},
	} {
		l := e.do(http.MethodGet, "/v1/sender-ids?status="+status, nil).wantStatus(http.StatusOK)
		assert.Equal(t, want, ids(l, "data", "title"), status)
		assert.Equal(t, len(want), l.int("count"), status)
	}
	e.do(http.MethodGet, "/v1/sender-ids?status=ACTIVE", nil).wantError(400, "bad_request")

	// Another workspace does not see them, and may request the same title.
	ws := e.newWorkspace()
	theirs := e.do(http.MethodGet, "/v1/sender-ids", nil, withKey(ws.LiveKey, ws.LiveSecret)).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"MOCKSMS"}, ids(theirs, "data", "title"))
	e.requestSender("Brand1", withKey(ws.LiveKey, ws.LiveSecret))
	e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "from", "Brand1"), withKey(ws.LiveKey, ws.LiveSecret)).wantError(400, "bad_request")
}

func TestSenderIDCountry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithCountry("Ghana"))
	r := e.do(http.MethodPost, "/v1/sender-ids", M{"sender_id": "Brand1", "usecase": "u", "company": "c"}).wantStatus(http.StatusCreated)
	assert.Equal(t, "Ghana", r.str("data.country"))
	l := e.do(http.MethodGet, "/v1/sender-ids?status=active", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "Ghana", l.str("data.0.country"))
}

// TestSenderIDControls: approving and blocking a pending sender ID, over HTTP and in Go.
func TestSenderIDControls(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.requestSender("Approve1"), e.requestSender("Block1")
	r := e.do(http.MethodPost, "/_mock/sender-ids/"+a+"/approve", nil).wantStatus(http.StatusOK)
	assert.Equal(t, a, r.str("_id"))
	assert.Equal(t, "active", r.str("status"))
	assert.Equal(t, "Approve1", r.str("title"))
	e.send(sms(num(1), "from", "Approve1"))
	r = e.do(http.MethodPost, "/_mock/sender-ids/"+b+"/block", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "blocked", r.str("status"))
	e.do(http.MethodPost, "/_mock/sender-ids/"+a+"/block", nil).wantError(409, "conflict")
	e.do(http.MethodPost, "/_mock/sender-ids/"+b+"/approve", nil).wantError(409, "conflict")
	e.do(http.MethodPost, "/_mock/sender-ids/0123456789abcdef01234567/approve", nil).wantError(404, "not_found")
	e.do(http.MethodPost, "/_mock/sender-ids/nope/block", nil).wantError(404, "not_found")
}
