package sms_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

func TestKeysLifecycle(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	dash := newDashboardClient(t, srv)
	ctx := context.Background()

	key, err := dash.Keys.Create(ctx, &sms.CreateKeyParams{
		Name: "billing", Scopes: sms.Scopes{sms.ScopeBalance, sms.ScopeSMS}, Prefix: sms.KeyPrefixTest, ExpiresInDays: 30,
	})
	require.NoError(t, err)
	assert.Len(t, key.ID, 24)
	assert.Equal(t, "billing", key.Name)
	assert.Equal(t, sms.KeyPrefixTest, key.Prefix)
	assert.True(t, strings.HasPrefix(key.PublicKey, "pk_test_"), key.PublicKey)
	assert.True(t, strings.HasPrefix(key.Secret, "sk_test_"), "the secret is shown on creation")
	assert.Equal(t, sms.Scopes{sms.ScopeSMS, sms.ScopeBalance}, key.Scopes, "in the API's order")
	require.NotNil(t, key.CreatedAt)
	require.NotNil(t, key.ExpiresAt)
	assert.WithinDuration(t, key.CreatedAt.Add(30*24*time.Hour), *key.ExpiresAt, time.Second)
	assert.Nil(t, key.RevokedAt)
	assert.Nil(t, key.LastUsedAt)

	client := newClientOf(t, srv, key.PublicKey, key.Secret)
	b, err := client.Balance.Get(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, "10000.00", b.Balance.String(), "a pk_test key reads the test wallet")

	keys, err := dash.Keys.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, keys.Items, 3, "the new key and the workspace's two")
	assert.Equal(t, key.ID, keys.Items[0].ID, "newest first")
	assert.NotNil(t, keys.Items[0].LastUsedAt, "used once")
	for _, k := range keys.Items {
		assert.Empty(t, k.Secret, "secrets are never listed")
	}

	revoked, err := dash.Keys.Revoke(ctx, key.ID, nil)
	require.NoError(t, err)
	require.NotNil(t, revoked.RevokedAt)
	_, err = client.Balance.Get(ctx, nil)
	require.ErrorIs(t, err, sms.ErrUnauthorized, "a revoked key is refused")

	again, err := dash.Keys.Revoke(ctx, key.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, revoked.RevokedAt, again.RevokedAt, "revoking is idempotent")

	_, err = dash.Keys.Revoke(ctx, "0123456789abcdef01234567", nil)
	require.ErrorIs(t, err, sms.ErrNotFound)
}

func TestKeysDefaults(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	key, err := newDashboardClient(t, srv).Keys.Create(context.Background(), &sms.CreateKeyParams{Name: "all", Scopes: sms.AllScopes()})
	require.NoError(t, err)
	assert.Equal(t, sms.KeyPrefixLive, key.Prefix)
	assert.True(t, strings.HasPrefix(key.Secret, "sk_live_"))
	assert.Nil(t, key.ExpiresAt, "never expires")
	assert.Equal(t, sms.AllScopes(), key.Scopes)
	reqs := srv.Requests()
	assert.JSONEq(t, `{"name":"all","scopes":{"sms":true,"otp":true,"campaigns":true,"sender_ids":true,"balance":true}}`,
		string(reqs[len(reqs)-1].Body))
}

func TestKeysCreateRetriedOn429(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		dash := newDashboardClient(t, srv)
		srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/keys", Status: 429, RetryAfter: 2, Times: 1})
		start := time.Now()
		_, err := dash.Keys.Create(context.Background(), &sms.CreateKeyParams{Name: "k", Scopes: sms.Scopes{sms.ScopeSMS}})
		require.NoError(t, err, "retried on 429")
		assert.Equal(t, 2*time.Second, time.Since(start), "after the Retry-After")
		assert.Equal(t, 2, requestsTo(srv, "POST", "/v1/keys"))
	})
}

func TestKeysErrors(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	ctx := context.Background()
	p := &sms.CreateKeyParams{Name: "k", Scopes: sms.Scopes{sms.ScopeSMS}}

	other := newServer(t)
	bad, err := sms.NewDashboardClient(other.DashboardToken(srv.Default().WorkspaceID, time.Hour), mockOpts(t, srv)...)
	require.NoError(t, err)
	_, err = bad.Keys.List(ctx, nil)
	require.ErrorIs(t, err, sms.ErrUnauthorized, "a token signed by another secret")

	dash := newDashboardClient(t, srv)
	srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/keys", Status: 503, Times: 1})
	_, err = dash.Keys.Create(ctx, p)
	require.ErrorIs(t, err, sms.ErrServer)
	assert.Equal(t, 1, requestsTo(srv, "POST", "/v1/keys"), "not retried on 503")

	srv.AddFaults(mockserver.FaultRule{Method: "DELETE", Path: "/v1/keys/*", Drop: true, Times: 1})
	keys, err := dash.Keys.List(ctx, nil)
	require.NoError(t, err)
	_, err = dash.Keys.Revoke(ctx, keys.Items[0].ID, nil)
	require.ErrorIs(t, err, sms.ErrOutcomeUnknown)
	assert.Equal(t, 1, requestsTo(srv, "DELETE", "/v1/keys/"+keys.Items[0].ID))
}
