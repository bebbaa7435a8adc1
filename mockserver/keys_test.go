package mockserver_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

func TestKeyLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)

	created := e.do(http.MethodPost, "/v1/keys", M{
		"name": "Backend", "scopes": M{"sms": true, "balance": true}, "prefix": "pk_test", "expiresInDays": 30,
	}).wantStatus(http.StatusCreated)
	id, pub, sec := created.str("data._id"), created.str("data.publicKey"), created.str("data.secret")
	assert.Regexp(t, oidRe, id)
	assert.Equal(t, "Backend", created.str("data.name"))
	assert.Equal(t, "pk_test", created.str("data.prefix"))
	assert.Regexp(t, `^pk_test_[0-9A-Za-z]{24}$`, pub)
	assert.Regexp(t, `^sk_test_[0-9A-Za-z]{40}$`, sec)
	assert.Equal(t, map[string]any{"sms": true, "otp": false, "campaigns": false, "sender_ids": false, "balance": true}, created.get("data.scopes"))
	assertTime(t, fixedNow, created, "data.createdAt")
	assertTime(t, fixedNow.Add(30*24*time.Hour), created, "data.expiresAt")
	assertNull(t, created, "data.revokedAt")
	assertNull(t, created, "data.lastUsedAt")

	live := e.do(http.MethodPost, "/v1/keys", M{"name": "Worker", "scopes": M{"otp": true}}).wantStatus(http.StatusCreated)
	liveID, livePub, liveSec := live.str("data._id"), live.str("data.publicKey"), live.str("data.secret")
	assert.Equal(t, "pk_live", live.str("data.prefix"), "pk_live is the default")
	assert.Regexp(t, `^pk_live_[0-9A-Za-z]{24}$`, livePub)
	assert.Regexp(t, `^sk_live_[0-9A-Za-z]{40}$`, liveSec)
	assertNull(t, live, "data.expiresAt")
	assert.NotEqual(t, pub[len("pk_test_"):], livePub[len("pk_live_"):])

	// The list: newest first, the default keys too, never a secret.
	list := e.do(http.MethodGet, "/v1/keys", nil).wantStatus(http.StatusOK)
	assert.Equal(t, 4, list.int("count"))
	require.Len(t, list.list("data"), 4)
	assert.Equal(t, []string{liveID, id}, ids(list, "data", "_id")[:2])
	assert.ElementsMatch(t, []string{livePub, pub, e.ws.LiveKey, e.ws.TestKey}, ids(list, "data", "publicKey"))
	for i := range 4 {
		assert.False(t, list.has("data."+itoa(i)+".secret"), "a listed key has a secret")
	}
	for _, s := range []string{sec, liveSec, e.ws.LiveSecret, e.ws.TestSecret} {
		assert.NotContains(t, string(list.Raw), s)
	}
	every := map[string]any{"sms": true, "otp": true, "campaigns": true, "sender_ids": true, "balance": true}
	assert.Equal(t, every, list.get("data.2.scopes"), "default keys have every scope")
	assert.Equal(t, every, list.get("data.3.scopes"), "default keys have every scope")
	assert.Equal(t, []string{"pk_test", "pk_live"}, ids(list, "data", "prefix")[2:])

	// Using the key: its scopes, its mode's wallet, lastUsedAt.
	e.setBalance(mockserver.ModeTest, 4321)
	bal := e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantStatus(http.StatusOK)
	assert.Equal(t, int64(4321), bal.kobo("data.balance"), "a pk_test key reads the test wallet")
	e.do(http.MethodPost, "/v1/otp/send", otpBody(num(1)), withKey(pub, sec)).wantError(403, "insufficient_scope")
	e.srv.Advance(time.Hour)
	e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantStatus(http.StatusOK)
	list = e.do(http.MethodGet, "/v1/keys", nil).wantStatus(http.StatusOK)
	i := slices.Index(ids(list, "data", "_id"), id)
	require.GreaterOrEqual(t, i, 0)
	assertTime(t, fixedNow.Add(time.Hour), list, "data."+itoa(i)+".lastUsedAt")
	j := slices.Index(ids(list, "data", "_id"), liveID)
	assertNull(t, list, "data."+itoa(j)+".lastUsedAt")

	// Revoking: at once, idempotent with the first revokedAt.
	e.srv.Advance(time.Hour)
	rev := e.do(http.MethodDelete, "/v1/keys/"+id, nil).wantStatus(http.StatusOK)
	assert.Equal(t, id, rev.str("data._id"))
	assert.False(t, rev.has("data.secret"))
	assertTime(t, fixedNow.Add(2*time.Hour), rev, "data.revokedAt")
	e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantError(401, "unauthorized")
	e.srv.Advance(time.Hour)
	again := e.do(http.MethodDelete, "/v1/keys/"+id, nil).wantStatus(http.StatusOK)
	assertTime(t, fixedNow.Add(2*time.Hour), again, "data.revokedAt")
	assert.Equal(t, rev.get("data"), again.get("data"))
	list = e.do(http.MethodGet, "/v1/keys", nil).wantStatus(http.StatusOK)
	assert.Equal(t, 4, list.int("count"), "revoked keys stay listed")

	// The other key is untouched: it authenticates (404 for an unknown pin, not 401).
	e.do(http.MethodPost, "/v1/otp/verify", M{"pin_id": "nope", "pin": "1"}, withKey(livePub, liveSec)).wantError(404, "not_found")

	// Another workspace's token sees only its own keys.
	other := e.newWorkspace()
	theirs := e.do(http.MethodGet, "/v1/keys", nil, withBearer(other.DashboardToken)).wantStatus(http.StatusOK)
	assert.Equal(t, 2, theirs.int("count"))
	assert.NotContains(t, ids(theirs, "data", "_id"), id)
}

func TestKeyExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pub, sec, _ := e.createKey(M{"name": "day", "scopes": M{"balance": true}, "expiresInDays": 1})
	long, longSec, _ := e.createKey(M{"name": "decade", "scopes": M{"balance": true}, "expiresInDays": 3650})

	e.srv.Advance(24*time.Hour - time.Second)
	e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantStatus(http.StatusOK)
	e.srv.Advance(time.Second)
	r := e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantError(401, "unauthorized")
	assert.NotContains(t, string(r.Raw), sec)
	e.do(http.MethodGet, "/v1/balance", nil, withKey(long, longSec)).wantStatus(http.StatusOK)
	e.do(http.MethodGet, "/v1/balance", nil).wantStatus(http.StatusOK) // default keys never expire
}

// TestConcurrentKeysAndRevocation: keys created at once are all distinct and listed; a key
// revoked while requests run is refused afterwards.
func TestConcurrentKeysAndRevocation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rs := e.parallel(16, func(i int) call {
		return post("/v1/keys", M{"name": "k" + itoa(i), "scopes": M{"balance": true}})
	})
	seen := map[string]bool{}
	for _, r := range rs {
		r.wantStatus(http.StatusCreated)
		assert.False(t, seen[r.str("data.publicKey")])
		seen[r.str("data.publicKey")] = true
	}
	assert.Equal(t, 18, e.do(http.MethodGet, "/v1/keys", nil).wantStatus(200).int("count"))

	pub, sec, id := rs[0].str("data.publicKey"), rs[0].str("data.secret"), rs[0].str("data._id")
	out := e.parallel(17, func(i int) call {
		if i == 8 {
			return call{http.MethodDelete, "/v1/keys/" + id, nil, nil}
		}
		return get("/v1/balance", withKey(pub, sec))
	})
	for i, r := range out {
		if i != 8 {
			assert.Contains(t, []int{200, 401}, r.Status)
		}
	}
	out[8].wantStatus(http.StatusOK)
	e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantError(401, "unauthorized")
}
