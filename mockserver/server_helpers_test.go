package mockserver_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestNewKey: one call makes a key of the chosen mode and scopes; its secret stays out of %v.
func TestNewKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k, err := e.srv.NewKey(e.ws.WorkspaceID, mockserver.KeyOptions{Mode: mockserver.ModeTest, Scopes: []mockserver.Scope{mockserver.ScopeSMS}})
	require.NoError(t, err)
	assert.Regexp(t, `^pk_test_`, k.PublicKey)
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v", k, k, k), k.Secret)
	key := withKey(k.PublicKey, k.Secret)
	e.send(sms(num(1)), key)
	e.do(http.MethodGet, "/v1/balance", nil, key).wantError(http.StatusForbidden, "insufficient_scope")
	live, err := e.srv.Balance(e.ws.WorkspaceID, mockserver.ModeLive)
	require.NoError(t, err)
	assert.Equal(t, int64(mockserver.DefaultBalance), live, "a test key spends the test wallet")

	all, err := e.srv.NewKey(e.ws.WorkspaceID, mockserver.KeyOptions{TTL: time.Minute})
	require.NoError(t, err)
	e.do(http.MethodGet, "/v1/balance", nil, withKey(all.PublicKey, all.Secret)).wantStatus(http.StatusOK)
	require.NoError(t, e.srv.Advance(time.Minute))
	e.do(http.MethodGet, "/v1/balance", nil, withKey(all.PublicKey, all.Secret)).wantError(http.StatusUnauthorized, "unauthorized")

	for _, o := range []mockserver.KeyOptions{
		{Mode: "staging"},
		{Scopes: []mockserver.Scope{"admin"}},
		{TTL: -time.Second},
	} {
		_, err := e.srv.NewKey(e.ws.WorkspaceID, o)
		assert.Error(t, err, "%+v", o)
	}
	_, err = e.srv.NewKey("000000000000000000000000", mockserver.KeyOptions{})
	assert.Error(t, err)
}

// TestCampaignsHelper: a workspace's campaigns of one mode, newest first, with their text,
// counts and cost in kobo; Messages' Kind and Status are typed.
func TestCampaignsHelper(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithPrices(300, 400))
	first := e.send(sms([]string{num(1), num(2)}, "message", "Hi")).str("campaign.id")
	second := e.send(sms(num(3), "message", "Bye")).str("campaign.id")
	e.send(sms(num(4)), e.test())
	require.NoError(t, e.srv.Deliver(first, &mockserver.DeliverCounts{Failed: 1}))

	cs, err := e.srv.Campaigns(e.ws.WorkspaceID, mockserver.ModeLive)
	require.NoError(t, err)
	require.Len(t, cs, 2)
	assert.Equal(t, second, cs[0].ID)
	assert.Equal(t, first, cs[1].ID)
	assert.Equal(t, "Hi", cs[1].Text)
	assert.Equal(t, 2, cs[1].Recipients)
	assert.Equal(t, 1, cs[1].Sent)
	assert.Equal(t, mockserver.DeliverCounts{Failed: 1}, cs[1].Counts)
	assert.Equal(t, int64(600), cs[1].AmountKobo)
	assert.Equal(t, "sent", cs[1].Delivery)
	assert.Equal(t, mockserver.CampaignStatusSent, cs[1].Status)
	test, err := e.srv.Campaigns(e.ws.WorkspaceID, mockserver.ModeTest)
	require.NoError(t, err)
	assert.Len(t, test, 1)
	_, err = e.srv.Campaigns(e.ws.WorkspaceID, "staging")
	assert.Error(t, err)

	msgs := e.srv.Messages(mockserver.Filter{Kind: mockserver.KindSMS, CampaignID: first})
	require.Len(t, msgs, 2)
	assert.Equal(t, mockserver.KindSMS, msgs[0].Kind)
	assert.ElementsMatch(t, []mockserver.Status{mockserver.StatusSent, mockserver.StatusFailed}, []mockserver.Status{msgs[0].Status, msgs[1].Status})
}
