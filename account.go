package sms

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Account names what a Client sends to, without a secret: the server, the key's mode and the
// key itself. A bulk job's journal records it (see JournalKindJob), so that a job journaled
// against one account is never taken as sent by a run against another: the sandbox and the
// live service, a test key and a live key, two workspaces.
type Account struct {
	// Server is the base URL, as the client uses it (see WithBaseURL).
	Server string
	// Mode is the key's mode: "live" or "test".
	Mode string
	// Key identifies the API key without being it: its prefix, its last four characters and
	// 16 hex digits of its SHA-256, such as "pk_test_...Wx3z sha256:3f2a9c1b0d4e5f60".
	Key string
}

// String names the account as errors do: "the test key pk_test_...Wx3z sha256:3f2a9c1b0d4e5f60 at URL".
func (a Account) String() string {
	return "the " + a.Mode + " key " + a.Key + " at " + a.Server
}

// Account returns what the client sends to: its base URL and its key's mode and fingerprint.
func (c *Client) Account() Account { return c.c.account() }

func (c *core) account() Account { return Account{Server: c.base, Mode: c.mode, Key: c.key} }

// keyFingerprint identifies an API key (pk_live_... or pk_test_..., checked by
// checkKeyPair) without keeping it whole.
func keyFingerprint(key string) string {
	sum := sha256.Sum256([]byte(key))
	return key[:len("pk_test_")] + "..." + key[max(len("pk_test_"), len(key)-4):] + " sha256:" + hex.EncodeToString(sum[:8])
}

// settleTime is how long after its intent a batch's request may still be processed by the
// server: every attempt the client may make (its timeout each, 10 minutes when the HTTP
// client has none) and the waits between them, with a minute's margin. Past it, a batch whose
// campaign the server does not list was never processed (see BulkParams.SettleAfter).
func (c *core) settleTime() time.Duration {
	per := c.http.HTTPClient.Timeout
	if per <= 0 {
		per = 10 * time.Minute
	}
	n := time.Duration(c.http.RetryMax)
	return (n+1)*per + n*c.http.RetryWaitMax + time.Minute
}
