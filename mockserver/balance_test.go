package mockserver_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

func TestBalancePerMode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, opt := range []reqOpt{e.live(), e.test()} {
		r := e.do(http.MethodGet, "/v1/balance", nil, opt).wantStatus(http.StatusOK)
		assert.Equal(t, map[string]any{"balance": r.get("data.balance"), "cashback": r.get("data.cashback"), "currency": "NGN"}, r.get("data"))
		assert.Equal(t, "10000.00", r.str("data.balance"))
		assert.Equal(t, "0.00", r.str("data.cashback"))
	}
	e.setBalance(mockserver.ModeLive, 12345)
	e.setBalance(mockserver.ModeTest, 7)
	assert.Equal(t, "123.45", e.do(http.MethodGet, "/v1/balance", nil).wantStatus(200).str("data.balance"))
	assert.Equal(t, "0.07", e.do(http.MethodGet, "/v1/balance", nil, e.test()).wantStatus(200).str("data.balance"))

	assert.Error(t, e.srv.SetBalance(e.ws.WorkspaceID, mockserver.ModeLive, -1))
	assert.Error(t, e.srv.SetBalance(e.ws.WorkspaceID, mockserver.Mode("prod"), 1))
	assert.Error(t, e.srv.SetBalance("0123456789abcdef01234567", mockserver.ModeLive, 1))
	_, err := e.srv.Balance("nope", mockserver.ModeLive)
	assert.Error(t, err)

	w := newEnv(t, mockserver.WithBalances(5, 70_000))
	assert.Equal(t, "0.05", w.do(http.MethodGet, "/v1/balance", nil).wantStatus(200).str("data.balance"))
	assert.Equal(t, "700.00", w.do(http.MethodGet, "/v1/balance", nil, w.test()).wantStatus(200).str("data.balance"))
	other := w.newWorkspace()
	assert.Equal(t, "0.05", w.do(http.MethodGet, "/v1/balance", nil, withKey(other.LiveKey, other.LiveSecret)).wantStatus(200).str("data.balance"))
}

func TestTestKeysUseTheirOwnWalletAndData(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tid := e.send(sms([]string{num(1), num(2)}), e.test()).str("campaign.id")
	assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.ModeTest))
	assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.ModeLive))
	assert.Equal(t, 1, e.campaignTotal(e.test()))
	assert.Equal(t, 0, e.campaignTotal(e.live()))
	e.do(http.MethodGet, "/v1/sms/campaigns/"+tid+"/status", nil).wantError(404, "not_found")
	e.do(http.MethodGet, "/v1/sms/campaigns/"+tid+"/status", nil, e.test()).wantStatus(200)

	lid := e.campaign(sms([]string{num(3)})).str("campaign.id")
	assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.ModeLive))
	l := e.do(http.MethodGet, "/v1/sms/campaigns", nil, e.test()).wantStatus(200)
	assert.Equal(t, []string{tid}, ids(l, "data", "_id"))
	l = e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(200)
	assert.Equal(t, []string{lid}, ids(l, "data", "_id"))

	// A key created with pk_test is in the same test mode as the default test key.
	pub, sec, _ := e.createKey(M{"name": "ci", "scopes": M{"campaigns": true, "balance": true}, "prefix": "pk_test"})
	l = e.do(http.MethodGet, "/v1/sms/campaigns", nil, withKey(pub, sec)).wantStatus(200)
	assert.Equal(t, []string{tid}, ids(l, "data", "_id"))
	assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantStatus(200).kobo("data.balance"))

	// Sender IDs are shared: requested in test mode, approved, used in live mode.
	sid := e.requestSender("Shared1", e.test())
	require.NoError(t, e.srv.ApproveSenderID(sid))
	e.send(sms(num(1), "from", "Shared1"))
}

func TestMoneyHasBounds(t *testing.T) {
	t.Parallel()
	t.Run("controls name the bad money field", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		balancePath := "/_mock/workspaces/" + e.ws.WorkspaceID + "/balance"
		tests := []struct {
			path, body, field string
		}{
			{balancePath, `{"mode":"live","balance":"12.00"}`, "balance"},
			{balancePath, `{"mode":"live","balance":1.234}`, "balance"},
			{balancePath, `{"mode":"live","balance":-1}`, "balance"},
			{balancePath, `{"mode":"live","balance":1e20}`, "balance"}, // over MaxBalance
			{balancePath, `{"mode":"live","balance":99999999999999999999}`, "balance"},
			{"/_mock/workspaces", `{"liveBalance":true}`, "liveBalance"},
			{"/_mock/workspaces", `{"testBalance":40000000000000000.01}`, "testBalance"}, // MaxBalance + 1 kobo
		}
		before := e.balance(mockserver.ModeLive)
		for _, tt := range tests {
			r := e.do(http.MethodPost, tt.path, rawBody(tt.body)).wantError(http.StatusBadRequest, "bad_request")
			assert.Equal(t, tt.field, r.str("error.field"), tt.body)
		}
		assert.Equal(t, before, e.balance(mockserver.ModeLive))
		assert.Error(t, e.srv.SetBalance(e.ws.WorkspaceID, mockserver.ModeLive, mockserver.MaxBalance+1))
		e.do(http.MethodPost, balancePath, rawBody(`{"mode":"live","balance":40000000000000000.00}`)).wantStatus(http.StatusOK)
		assert.Equal(t, int64(mockserver.MaxBalance), e.balance(mockserver.ModeLive))
	})
}
