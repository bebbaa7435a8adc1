package mockserver_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestReset: POST /_mock/reset and Reset.
func TestReset(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other := e.newWorkspace()
	e.send(sms(num(1)))
	e.send(sms(num(1)), e.test())
	pub, sec, _ := e.createKey(M{"name": "k", "scopes": M{"balance": true}})
	sid := e.requestSender("Brand1")
	e.otp(otpBody(num(1)))
	require.NoError(t, e.srv.AddDND(num(2)))
	e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/nothing", Status: 500})
	e.srv.Advance(time.Hour)

	r := e.do(http.MethodPost, "/_mock/reset", nil).wantStatus(http.StatusOK)
	assert.Equal(t, true, r.get("reset"))

	assert.Equal(t, e.ws, e.srv.Default(), "the default workspace keeps its credentials")
	assert.WithinDuration(t, fixedNow, e.srv.Now(), 0)
	assert.Empty(t, e.srv.Faults())
	assert.Empty(t, e.srv.Requests())
	assert.Equal(t, "10000.00", e.do(http.MethodGet, "/v1/balance", nil).wantStatus(200).str("data.balance"))
	assert.Equal(t, "10000.00", e.do(http.MethodGet, "/v1/balance", nil, e.test()).wantStatus(200).str("data.balance"))
	assert.Equal(t, 0, e.campaignTotal(e.live()))
	assert.Equal(t, 0, e.campaignTotal(e.test()))
	assert.Equal(t, 2, e.do(http.MethodGet, "/v1/keys", nil).wantStatus(200).int("count"))
	e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantError(401, "unauthorized")
	e.do(http.MethodGet, "/v1/balance", nil, withKey(other.LiveKey, other.LiveSecret)).wantError(401, "unauthorized")
	assert.Error(t, e.srv.ApproveSenderID(sid))
	assert.Equal(t, []string{"MOCKSMS"}, ids(e.do(http.MethodGet, "/v1/sender-ids", nil).wantStatus(200), "data", "title"))
	_, _, err := e.srv.LatestOTP(num(1))
	assert.Error(t, err)
	st := e.do(http.MethodGet, "/v1/sms/campaigns/"+e.send(sms(num(2))).str("campaign.id")+"/status", nil).wantStatus(200)
	assert.Equal(t, "sent", st.str("data.recipients.0.status"), "the DND register is empty again")
}
