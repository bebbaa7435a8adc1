package sms

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/seedsms/sms-go/internal/rules"
)

// Scope is a permission of an API key.
type Scope string

// The scopes of the API, each granting a group of endpoints.
const (
	ScopeSMS       Scope = "sms"        // SMS.Send
	ScopeOTP       Scope = "otp"        // OTP.Send and OTP.Verify
	ScopeCampaigns Scope = "campaigns"  // Campaigns.*
	ScopeSenderIDs Scope = "sender_ids" // SenderIDs.*
	ScopeBalance   Scope = "balance"    // Balance.Get
)

// scopeOf is the scope that the endpoint at path (escaped, starting with /v1) needs, or ""
// for the dashboard's endpoints, which need none.
func scopeOf(path string) Scope {
	switch {
	case path == "/v1/sms/send":
		return ScopeSMS
	case path == "/v1/sms/campaigns" || strings.HasPrefix(path, "/v1/sms/campaigns/"):
		return ScopeCampaigns
	case strings.HasPrefix(path, "/v1/otp/"):
		return ScopeOTP
	case path == "/v1/balance":
		return ScopeBalance
	case path == "/v1/sender-ids" || strings.HasPrefix(path, "/v1/sender-ids/"):
		return ScopeSenderIDs
	}
	return ""
}

// Scopes is the set of scopes an API key holds. On the wire it is an object with a boolean for
// each of the five scopes: Scopes{ScopeSMS} is {"sms": true, "otp": false, ...}.
type Scopes []Scope

// AllScopes returns every scope, in the API's order.
func AllScopes() Scopes {
	out := make(Scopes, len(rules.ScopeNames))
	for i, name := range rules.ScopeNames {
		out[i] = Scope(name)
	}
	return out
}

// Has reports whether s holds scope.
func (s Scopes) Has(scope Scope) bool { return slices.Contains(s, scope) }

// MarshalJSON writes the wire's object of five booleans. A scope the API does not know is an
// error.
func (s Scopes) MarshalJSON() ([]byte, error) {
	for _, sc := range s {
		if !rules.ValidScope(string(sc)) {
			return nil, fmt.Errorf("sms: unknown scope %q", string(sc))
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, name := range rules.ScopeNames {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%t", name, s.Has(Scope(name)))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the wire's object of booleans, keeping the scopes that are true: the
// API's five in their order, then any other names the server sent, sorted.
func (s *Scopes) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	var m map[string]bool
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("sms: scopes must be an object of booleans: %w", err)
	}
	out := Scopes{}
	for _, name := range rules.ScopeNames {
		if m[name] {
			out = append(out, Scope(name))
		}
	}
	var extra Scopes
	for name, on := range m {
		if on && !rules.ValidScope(name) {
			extra = append(extra, Scope(name))
		}
	}
	slices.Sort(extra)
	*s = append(out, extra...)
	return nil
}

// validate checks the scopes of a new key: at least one, each known.
func (s Scopes) validate(field string) error {
	if len(s) == 0 {
		return invalid(field, "at least one scope is required")
	}
	for i, sc := range s {
		if !rules.ValidScope(string(sc)) {
			return invalid(fmt.Sprintf("%s[%d]", field, i), "unknown scope; scopes are sms, otp, campaigns, sender_ids and balance")
		}
	}
	return nil
}
