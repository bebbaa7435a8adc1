package sms

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Account names what a Client sends to, without a secret: the server, the key's mode and the
// key itself. A bulk job's journal records it (see package bulk), so that a job journaled
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

// ReferenceDeduplication reports whether the client was told that the server deduplicates
// the Reference of a send (see WithReferenceDeduplication): the client then retries a send
// whose outcome is unknown, and a tool over the client may repeat a send by its reference.
func (c *Client) ReferenceDeduplication() bool { return c.c.dedup }

// MaxCallDuration is the longest a call of the client may take: every attempt it may make,
// at the HTTP client's timeout each (10 minutes when the HTTP client has none), and the
// longest waits between them. A send whose intent is older than that, with a margin for
// clocks, is no longer being processed because of this client: package bulk takes a batch
// that the server does not list after that time as never processed.
func (c *Client) MaxCallDuration() time.Duration {
	per := c.c.http.HTTPClient.Timeout
	if per <= 0 {
		per = 10 * time.Minute
	}
	n := time.Duration(c.c.http.RetryMax)
	return (n+1)*per + n*c.c.http.RetryWaitMax
}
