package mockserver_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestWorkspaceControls: the workspaces control: POST /_mock/workspaces and NewWorkspace.
func TestWorkspaceControls(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do(http.MethodPost, "/_mock/workspaces", M{"liveBalance": 50.5, "testBalance": 0, "country": "Ghana"}).wantStatus(http.StatusCreated)
	assert.ElementsMatch(t, []string{"url", "workspaceId", "dashboardToken", "liveKey", "liveSecret", "testKey", "testSecret", "senderId", "requestId"}, keysOf(r.Body))
	assert.Equal(t, e.srv.URL(), r.str("url"))
	assert.Regexp(t, oidRe, r.str("workspaceId"))
	assert.NotEqual(t, e.ws.WorkspaceID, r.str("workspaceId"))
	assert.Regexp(t, `^pk_live_[0-9A-Za-z]{24}$`, r.str("liveKey"))
	assert.Regexp(t, `^sk_live_[0-9A-Za-z]{40}$`, r.str("liveSecret"))
	assert.Regexp(t, `^pk_test_[0-9A-Za-z]{24}$`, r.str("testKey"))
	assert.Regexp(t, `^sk_test_[0-9A-Za-z]{40}$`, r.str("testSecret"))
	assert.Equal(t, "MOCKSMS", r.str("senderId"))
	lk, tk := withKey(r.str("liveKey"), r.str("liveSecret")), withKey(r.str("testKey"), r.str("testSecret"))

	assert.Equal(t, "50.50", e.do(http.MethodGet, "/v1/balance", nil, lk).wantStatus(200).str("data.balance"))
	assert.Equal(t, "0.00", e.do(http.MethodGet, "/v1/balance", nil, tk).wantStatus(200).str("data.balance"))
	s := e.do(http.MethodGet, "/v1/sender-ids", nil, lk).wantStatus(200)
	assert.Equal(t, []string{"MOCKSMS"}, ids(s, "data", "title"))
	assert.Equal(t, "Ghana", s.str("data.0.country"))
	assert.Equal(t, "active", s.str("data.0.status"))
	assert.Equal(t, 2, e.do(http.MethodGet, "/v1/keys", nil, withBearer(r.str("dashboardToken"))).wantStatus(200).int("count"))
	e.do(http.MethodPost, "/v1/sms/send", sms(num(1)), tk).wantError(402, "insufficient_balance")

	d := e.do(http.MethodPost, "/_mock/workspaces", nil).wantStatus(http.StatusCreated)
	dk := withKey(d.str("liveKey"), d.str("liveSecret"))
	assert.Equal(t, "10000.00", e.do(http.MethodGet, "/v1/balance", nil, dk).wantStatus(200).str("data.balance"))
	s = e.do(http.MethodGet, "/v1/sender-ids", nil, dk).wantStatus(200)
	assert.Equal(t, "Nigeria", s.str("data.0.country"))

	e.do(http.MethodPost, "/_mock/workspaces", M{"liveBalance": -1}).wantError(400, "bad_request")
	e.do(http.MethodPost, "/_mock/workspaces", M{"liveBalance": 1, "extra": 1}).wantError(400, "bad_request")
}

// TestBalanceControl: POST /_mock/workspaces/{id}/balance and SetBalance.
func TestBalanceControl(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := "/_mock/workspaces/" + e.ws.WorkspaceID + "/balance"
	r := e.do(http.MethodPost, path, M{"mode": "test", "balance": 12.34}).wantStatus(http.StatusOK)
	assert.Equal(t, e.ws.WorkspaceID, r.str("workspaceId"))
	assert.Equal(t, "test", r.str("mode"))
	assert.Equal(t, int64(1234), r.kobo("balance"))
	assert.Equal(t, "NGN", r.str("currency"))
	assert.Equal(t, int64(1234), e.balance(mockserver.ModeTest))
	assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.ModeLive))
	e.do(http.MethodPost, path, rawBody(`{"mode":"live","balance":0.07}`)).wantStatus(http.StatusOK)
	assert.Equal(t, int64(7), e.balance(mockserver.ModeLive))

	e.do(http.MethodPost, path, M{"mode": "prod", "balance": 1}).wantError(400, "bad_request")
	e.do(http.MethodPost, path, M{"mode": "live", "balance": -1}).wantError(400, "bad_request")
	e.do(http.MethodPost, path, M{"mode": "live"}).wantError(400, "bad_request")
	e.do(http.MethodPost, path, rawBody(`{"mode":"live","balance":1.234}`)).wantError(400, "bad_request")
	e.do(http.MethodPost, "/_mock/workspaces/0123456789abcdef01234567/balance", M{"mode": "live", "balance": 1}).wantError(404, "not_found")
	assert.Equal(t, int64(7), e.balance(mockserver.ModeLive))
}

// TestWorkspaceLimit: past WithWorkspaceLimit (the default workspace included) a new workspace
// is 409, over HTTP and in Go, and nothing is created; Reset frees the room.
func TestWorkspaceLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithWorkspaceLimit(3))
	created := make([]string, 0, 2)
	for range 2 {
		created = append(created, e.do(http.MethodPost, "/_mock/workspaces", nil).wantStatus(http.StatusCreated).str("workspaceId"))
	}
	r := e.do(http.MethodPost, "/_mock/workspaces", nil).wantError(http.StatusConflict, "conflict")
	assert.Contains(t, r.str("error.message"), "3 workspaces")
	_, err := e.srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "limit")
	for _, id := range created {
		_, err := e.srv.Balance(id, mockserver.ModeLive)
		require.NoError(t, err, "the workspaces made before the limit stay")
	}

	e.srv.Reset()
	e.newWorkspace()
	e.newWorkspace()
	_, err = e.srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.Error(t, err, "the limit holds after a reset too")
}

// TestDeleteWorkspace: DELETE /_mock/workspaces/{id} and DeleteWorkspace forget one workspace
// (keys, wallets, campaigns, messages, OTPs, its fault rules) and leave the others as they were.
func TestDeleteWorkspace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.newWorkspace(), e.newWorkspace()
	ak, bk := withKey(a.LiveKey, a.LiveSecret), withKey(b.LiveKey, b.LiveSecret)
	for _, k := range []reqOpt{ak, bk, e.live()} {
		e.send(sms(num(1)), k)
		e.campaign(sms(nums(10, 2)), k)
	}
	e.otp(otpBody(num(7)), ak)
	e.otp(otpBody(num(8)), bk)
	made := e.do(http.MethodPost, "/v1/keys", M{"name": "ci", "scopes": M{"sms": true}}, withBearer(a.DashboardToken)).wantStatus(http.StatusCreated)
	require.NoError(t, e.srv.AddFaults(
		mockserver.FaultRule{Path: "/v1/balance", WorkspaceID: a.WorkspaceID, Status: 503},
		mockserver.FaultRule{Path: "/v1/balance", WorkspaceID: b.WorkspaceID, Status: 502, Times: 1},
	))
	bBalance, err := e.srv.Balance(b.WorkspaceID, mockserver.ModeLive)
	require.NoError(t, err)
	before := len(e.srv.Messages(mockserver.Filter{}))

	r := e.do(http.MethodDelete, "/_mock/workspaces/"+a.WorkspaceID, nil).wantStatus(http.StatusOK)
	assert.Equal(t, a.WorkspaceID, r.str("workspaceId"))
	assert.Equal(t, 2, r.int("campaigns"))
	assert.Equal(t, 4, r.int("messages"), "three recipients and an OTP")

	e.do(http.MethodGet, "/v1/balance", nil, ak).wantError(http.StatusUnauthorized, "unauthorized")
	e.do(http.MethodGet, "/v1/balance", nil, withKey(made.str("data.publicKey"), made.str("data.secret"))).wantError(http.StatusUnauthorized, "unauthorized")
	e.do(http.MethodGet, "/v1/keys", nil, withBearer(a.DashboardToken)).wantError(http.StatusUnauthorized, "unauthorized")
	_, err = e.srv.Balance(a.WorkspaceID, mockserver.ModeLive)
	require.Error(t, err)
	assert.Empty(t, e.srv.Messages(mockserver.Filter{WorkspaceID: a.WorkspaceID}))
	assert.Len(t, e.srv.Messages(mockserver.Filter{}), before-4)
	_, _, err = e.srv.LatestOTP(num(7))
	require.Error(t, err, "the deleted workspace's pin is forgotten")
	_, _, err = e.srv.LatestOTP(num(8))
	require.NoError(t, err, "the other workspace's pin stays")
	assert.Equal(t, []mockserver.FaultRule{{Path: "/v1/balance", WorkspaceID: b.WorkspaceID, Status: 502, Times: 1}}, e.srv.Faults())
	for _, ws := range e.do(http.MethodGet, "/_mock/workspaces", nil).wantStatus(http.StatusOK).list("data") {
		assert.NotEqual(t, a.WorkspaceID, ws.(map[string]any)["workspaceId"])
	}

	// The other workspaces are as they were.
	e.do(http.MethodGet, "/v1/balance", nil, bk).wantError(http.StatusBadGateway, "server_error")
	assert.Equal(t, bBalance, e.do(http.MethodGet, "/v1/balance", nil, bk).wantStatus(http.StatusOK).kobo("data.balance"))
	assert.Len(t, e.srv.Messages(mockserver.Filter{WorkspaceID: b.WorkspaceID}), 4)
	assert.Len(t, e.srv.Messages(mockserver.Filter{WorkspaceID: e.ws.WorkspaceID}), 3)

	e.do(http.MethodDelete, "/_mock/workspaces/"+a.WorkspaceID, nil).wantError(http.StatusNotFound, "not_found")
	e.do(http.MethodDelete, "/_mock/workspaces/"+e.ws.WorkspaceID, nil).wantError(http.StatusConflict, "conflict")
	e.do(http.MethodDelete, "/_mock/workspaces/nope", nil).wantError(http.StatusNotFound, "not_found")
	require.Error(t, e.srv.DeleteWorkspace(e.ws.WorkspaceID))
	require.NoError(t, e.srv.DeleteWorkspace(b.WorkspaceID))
	e.do(http.MethodGet, "/v1/balance", nil, bk).wantError(http.StatusUnauthorized, "unauthorized")
	assert.Empty(t, e.srv.Faults())
	assert.Len(t, e.srv.Messages(mockserver.Filter{}), 3, "the default workspace's messages stay")
}

// TestWorkspaceFaults: a fault rule naming a workspace applies to that workspace's requests
// only, by API key (whatever the secret) or dashboard token; one naming no workspace is 400.
func TestWorkspaceFaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.newWorkspace(), e.newWorkspace()
	e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{
		{"path": "/v1/balance", "workspaceId": a.WorkspaceID, "status": 503},
		{"path": "/v1/keys", "workspaceId": b.WorkspaceID, "status": 500},
	}}).wantStatus(http.StatusOK)
	e.do(http.MethodGet, "/v1/balance", nil, withKey(a.LiveKey, a.LiveSecret)).wantError(http.StatusServiceUnavailable, "server_error")
	e.do(http.MethodGet, "/v1/balance", nil, withKey(a.TestKey, a.TestSecret)).wantError(http.StatusServiceUnavailable, "server_error")
	e.do(http.MethodGet, "/v1/balance", nil, withKey(a.LiveKey, "sk_live_wrong")).wantError(http.StatusServiceUnavailable, "server_error")
	e.do(http.MethodGet, "/v1/balance", nil, withKey(b.LiveKey, b.LiveSecret)).wantStatus(http.StatusOK)
	e.do(http.MethodGet, "/v1/balance", nil, e.live()).wantStatus(http.StatusOK)
	e.do(http.MethodGet, "/v1/balance", nil, withKey("pk_live_unknown", "sk_live_unknown")).wantError(http.StatusUnauthorized, "unauthorized")
	e.do(http.MethodGet, "/v1/keys", nil, withBearer(b.DashboardToken)).wantError(http.StatusInternalServerError, "server_error")
	e.do(http.MethodGet, "/v1/keys", nil, withBearer(a.DashboardToken)).wantStatus(http.StatusOK)
	e.do(http.MethodGet, "/v1/keys", nil, withBearer("not.a.token")).wantError(http.StatusUnauthorized, "unauthorized")

	r := e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"workspaceId": "0123456789abcdef01234567", "status": 500}}}).wantError(http.StatusBadRequest, "bad_request")
	assert.Equal(t, "rules[0].workspaceId", r.str("error.field"))
	err := e.srv.AddFaults(mockserver.FaultRule{WorkspaceID: "nope", Status: 500})
	require.Error(t, err)
	assert.Len(t, e.srv.Faults(), 2, "nothing added")
}

// TestTestsShareOneMockByWorkspace: what docs/api.md ("Tests sharing one mock") says is per
// workspace and what is server-wide. Two tests, each with its workspace, do not see each
// other's messages, faults or deletion; the clock one moves is the other's too, so that a test
// moving it needs a mock of its own.
func TestTestsShareOneMockByWorkspace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.newWorkspace(), e.newWorkspace()
	ak, bk := withKey(a.LiveKey, a.LiveSecret), withKey(b.LiveKey, b.LiveSecret)
	e.send(sms(num(1)), ak)
	e.send(sms(num(1)), bk)
	pinID, pin := e.otp(otpBody(num(2), "pin_time_to_live", 60), bk)

	// Per workspace: messages, fault rules, deletion.
	for _, ws := range []mockserver.Workspace{a, b} {
		r := e.do(http.MethodGet, "/_mock/messages?workspaceId="+ws.WorkspaceID, nil).wantStatus(http.StatusOK)
		for _, m := range r.list("data") {
			assert.Equal(t, ws.WorkspaceID, m.(map[string]any)["workspaceId"])
		}
	}
	require.NoError(t, e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", WorkspaceID: a.WorkspaceID, Status: 500}))
	e.do(http.MethodPost, "/v1/sms/send", sms(num(3)), ak).wantError(http.StatusInternalServerError, "server_error")
	e.send(sms(num(3)), bk)
	e.do(http.MethodDelete, "/_mock/workspaces/"+a.WorkspaceID, nil).wantStatus(http.StatusOK)
	assert.Len(t, e.srv.Messages(mockserver.Filter{WorkspaceID: b.WorkspaceID}), 3, "b's messages stay")

	// Server-wide: the clock. Moving it for one test expires the other's pin.
	e.do(http.MethodPost, "/_mock/clock", M{"advance": "61m"}).wantStatus(http.StatusOK)
	r := e.verify(pinID, pin, bk).wantError(http.StatusBadRequest, "bad_request")
	assert.Contains(t, r.str("error.message"), "expired")
}
