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
	assert.Equal(t, int64(1234), e.balance(mockserver.Test))
	assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.Live))
	e.do(http.MethodPost, path, rawBody(`{"mode":"live","balance":0.07}`)).wantStatus(http.StatusOK)
	assert.Equal(t, int64(7), e.balance(mockserver.Live))

	e.do(http.MethodPost, path, M{"mode": "prod", "balance": 1}).wantError(400, "bad_request")
	e.do(http.MethodPost, path, M{"mode": "live", "balance": -1}).wantError(400, "bad_request")
	e.do(http.MethodPost, path, M{"mode": "live"}).wantError(400, "bad_request")
	e.do(http.MethodPost, path, rawBody(`{"mode":"live","balance":1.234}`)).wantError(400, "bad_request")
	e.do(http.MethodPost, "/_mock/workspaces/0123456789abcdef01234567/balance", M{"mode": "live", "balance": 1}).wantError(404, "not_found")
	assert.Equal(t, int64(7), e.balance(mockserver.Live))
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
		_, err := e.srv.Balance(id, mockserver.Live)
		require.NoError(t, err, "the workspaces made before the limit stay")
	}

	e.srv.Reset()
	e.newWorkspace()
	e.newWorkspace()
	_, err = e.srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.Error(t, err, "the limit holds after a reset too")
}
