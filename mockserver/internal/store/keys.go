package store

import (
	"crypto/subtle"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// maxMadeKeys bounds the API keys made through CreateKey, over every workspace (each
// workspace's own two keys come besides). A key costs about 280 bytes with a short name (at
// most 100 bytes more), so at most about 38 MB. Past it a new one is refused.
const maxMadeKeys = 100_000

type apiKey struct {
	id         ids.ID
	ws         *workspace
	name       string
	prefix     string
	public     string
	secretHash [32]byte
	scopes     Scopes
	createdAt  int64 // unix nanoseconds
	expiresAt  int64 // 0 = never
	revokedAt  atomic.Int64
	lastUsedAt atomic.Int64

	rlMu     sync.Mutex
	rlWindow int64 // start of the current rate-limit window, unix seconds
	rlCount  int
}

// Key is an API key as it is listed: never its secret.
type Key struct {
	ID         ids.ID
	Name       string
	Prefix     string // pk_live or pk_test
	Public     string
	Scopes     Scopes
	CreatedAt  int64 // unix nanoseconds
	ExpiresAt  int64 // 0: never
	RevokedAt  int64 // 0: not revoked
	LastUsedAt int64 // 0: never used
}

func (k *apiKey) value() Key {
	return Key{ID: k.id, Name: k.name, Prefix: k.prefix, Public: k.public, Scopes: k.scopes,
		CreatedAt: k.createdAt, ExpiresAt: k.expiresAt, RevokedAt: k.revokedAt.Load(), LastUsedAt: k.lastUsedAt.Load()}
}

func modeOf(prefix string) Mode {
	if prefix == "pk_test" {
		return Test
	}
	return Live
}

// newKey makes a key of the given prefix ("pk_live" or "pk_test"); public and secret are made
// when empty. Only the secret's hash is kept.
func (st *Store) newKey(name, prefix string, scopes Scopes, createdAt, expiresAt int64, public, secret string) (*apiKey, string) {
	if public == "" {
		public = prefix + "_" + ids.Random62(24)
		secret = "sk_" + prefix[len("pk_"):] + "_" + ids.Random62(40)
	}
	k := &apiKey{
		id: st.cfg.IDs.Next(), name: name, prefix: prefix, public: public,
		secretHash: hashSecret(secret), scopes: scopes, createdAt: createdAt, expiresAt: expiresAt,
	}
	return k, secret
}

// addKey adds k to w, unless w was deleted meanwhile (see DeleteWorkspace): w.mu is held
// while the key is registered, so that a deletion takes every key it made.
func (st *Store) addKey(w *workspace, k *apiKey) {
	k.ws = w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gone {
		return
	}
	w.keys = append(w.keys, k)
	st.mu.Lock()
	st.keys[k.public] = k
	st.mu.Unlock()
}

// KeyParams is a key to create.
type KeyParams struct {
	Name      string
	Prefix    string // pk_live or pk_test
	Scopes    Scopes
	ExpiresAt int64 // unix nanoseconds; 0: never
}

// CreateKey makes a key for the caller's workspace and returns it with its secret, which is
// not kept. Past maxMadeKeys keys made this way it is refused.
func (st *Store) CreateKey(c Caller, p KeyParams, now int64) (Key, string, error) {
	if !st.madeKeys.take(maxMadeKeys) {
		return Key{}, "", fieldError("", "The mock holds %d API keys made through /v1/keys, its limit; reset it (POST /_mock/reset).", maxMadeKeys)
	}
	k, secret := st.newKey(p.Name, p.Prefix, p.Scopes, now, p.ExpiresAt, "", "")
	st.addKey(c.w, k)
	return k.value(), secret, nil
}

// Keys lists the caller's workspace's keys, newest first.
func (st *Store) Keys(c Caller) []Key {
	c.w.mu.Lock()
	keys := slices.Clone(c.w.keys)
	c.w.mu.Unlock()
	out := make([]Key, len(keys))
	for i, k := range keys {
		out[len(keys)-1-i] = k.value()
	}
	return out
}

// RevokeKey revokes a key of the caller's workspace (once: revoking again changes nothing).
func (st *Store) RevokeKey(c Caller, id string, now int64) (Key, error) {
	kid, ok := ids.Parse(id)
	if !ok {
		return Key{}, notFound("Key")
	}
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	for _, k := range c.w.keys {
		if k.id == kid {
			k.revokedAt.CompareAndSwap(0, now)
			return k.value(), nil
		}
	}
	return Key{}, notFound("Key")
}

// dummyHash is compared against when a public key is unknown, so that an unknown key and a
// wrong secret take the same time.
var dummyHash = hashSecret("no such key")

// Authenticate returns the caller of the key whose public part and secret match, or an
// *AuthError. Secrets are compared as SHA-256 hashes in constant time.
func (st *Store) Authenticate(public, secret string, now int64) (Caller, error) {
	st.mu.RLock()
	k := st.keys[public]
	st.mu.RUnlock()
	want := dummyHash
	if k != nil {
		want = k.secretHash
	}
	got := hashSecret(secret)
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 || k == nil {
		return Caller{}, errBadCredentials
	}
	if k.revokedAt.Load() != 0 {
		return Caller{}, &AuthError{Message: "This API key has been revoked."}
	}
	if k.expiresAt != 0 && now >= k.expiresAt {
		return Caller{}, &AuthError{Message: "This API key has expired."}
	}
	k.lastUsedAt.Store(now)
	return Caller{Workspace: k.ws.id, Mode: modeOf(k.prefix), Scopes: k.scopes, HasKey: true, w: k.ws, k: k}, nil
}

// KeyWorkspace returns the workspace of the key whose public part is public, whatever its
// secret, state or expiry: the fault rules of one workspace match its requests by it before
// they are authenticated.
func (st *Store) KeyWorkspace(public string) (ids.ID, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	if k := st.keys[public]; k != nil {
		return k.ws.id, true
	}
	return ids.ID{}, false
}

// RateLimit is one request counted against its key's limit.
type RateLimit struct {
	Allowed   bool
	Remaining int
	Reset     int64 // unix seconds: when the window ends
	Error     error // a *RateLimitError when not allowed
}

// Allow counts a request of an API key's caller in its key's fixed one-minute window of at
// most limit requests.
func (st *Store) Allow(c Caller, limit int, now time.Time) RateLimit {
	sec := now.Unix()
	window := sec - sec%60
	k := c.k
	k.rlMu.Lock()
	if k.rlWindow != window {
		k.rlWindow, k.rlCount = window, 0
	}
	allowed := k.rlCount < limit
	if allowed {
		k.rlCount++
	}
	remaining := limit - k.rlCount
	k.rlMu.Unlock()
	rl := RateLimit{Allowed: allowed, Remaining: remaining, Reset: window + 60}
	if !allowed {
		rl.Error = rateLimited("Rate limit exceeded; try again later.", int(window+60-sec))
	}
	return rl
}
