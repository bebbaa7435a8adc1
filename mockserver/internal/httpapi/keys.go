package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

type scopesJSON struct {
	SMS       bool `json:"sms"`
	OTP       bool `json:"otp"`
	Campaigns bool `json:"campaigns"`
	SenderIDs bool `json:"sender_ids"`
	Balance   bool `json:"balance"`
}

type keyJSON struct {
	ID         string     `json:"_id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	PublicKey  string     `json:"publicKey"`
	Scopes     scopesJSON `json:"scopes"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  *time.Time `json:"expiresAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	Secret     string     `json:"secret,omitempty"`
}

func keyOut(k *store.Key) keyJSON {
	return keyJSON{
		ID: k.ID.String(), Name: k.Name, Prefix: k.Prefix, PublicKey: k.Public,
		Scopes: scopesJSON{
			SMS: k.Scopes&store.ScopeSMS != 0, OTP: k.Scopes&store.ScopeOTP != 0, Campaigns: k.Scopes&store.ScopeCampaigns != 0,
			SenderIDs: k.Scopes&store.ScopeSenderIDs != 0, Balance: k.Scopes&store.ScopeBalance != 0,
		},
		CreatedAt: wire.Time(k.CreatedAt), ExpiresAt: wire.OptTime(k.ExpiresAt),
		RevokedAt: wire.OptTime(k.RevokedAt), LastUsedAt: wire.OptTime(k.LastUsedAt),
	}
}

// createKey is POST /v1/keys.
func createKey(_ *API, rq *request) (int, any, error) {
	var in struct {
		Name          *string         `json:"name"`
		Scopes        json.RawMessage `json:"scopes"`
		Prefix        *string         `json:"prefix"`
		ExpiresInDays *int            `json:"expiresInDays"`
	}
	if err := wire.Decode(rq.body, &in); err != nil {
		return 0, nil, err
	}
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return 0, nil, badRequest("name", "name is required.")
	}
	if n := utf8.RuneCountInString(*in.Name); n > rules.MaxNameLen {
		return 0, nil, badRequest("name", "name must be at most %d characters.", rules.MaxNameLen)
	}
	scopes, err := parseScopes(in.Scopes)
	if err != nil {
		return 0, nil, err
	}
	prefix := "pk_live"
	if in.Prefix != nil {
		if *in.Prefix != "pk_live" && *in.Prefix != "pk_test" {
			return 0, nil, badRequest("prefix", "prefix must be pk_live or pk_test.")
		}
		prefix = *in.Prefix
	}
	var expires int64
	if in.ExpiresInDays != nil {
		d := *in.ExpiresInDays
		if d < 1 || d > rules.MaxExpiresInDays {
			return 0, nil, badRequest("expiresInDays", "expiresInDays must be an integer from 1 to %d.", rules.MaxExpiresInDays)
		}
		expires = rq.now.Add(time.Duration(d) * 24 * time.Hour).UnixNano()
	}
	k, secret, err := rq.st.store.CreateKey(rq.caller, store.KeyParams{Name: strings.TrimSpace(*in.Name), Prefix: prefix,
		Scopes: scopes, ExpiresAt: expires}, rq.now.UnixNano())
	if err != nil {
		return 0, nil, err
	}
	out := keyOut(&k)
	out.Secret = secret
	return http.StatusCreated, wire.Data{Data: out}, nil
}

// parseScopes reads the scopes object: only the five names, booleans, at least one true.
func parseScopes(raw json.RawMessage) (store.Scopes, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, badRequest("scopes", "scopes is required.")
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return 0, badRequest("scopes", "scopes must be an object of booleans.")
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	var bits store.Scopes
	for _, name := range names {
		if !rules.ValidScope(name) {
			return 0, badRequest("scopes."+name, "Unknown scope %q; scopes are sms, otp, campaigns, sender_ids and balance.", name)
		}
		switch string(m[name]) {
		case "true":
			bits |= store.ScopeOf(name)
		case "false":
		default:
			return 0, badRequest("scopes."+name, "scopes.%s must be a boolean.", name)
		}
	}
	if bits == 0 {
		return 0, badRequest("scopes", "At least one scope must be true.")
	}
	return bits, nil
}

// listKeys is GET /v1/keys.
func listKeys(_ *API, rq *request) (int, any, error) {
	keys := rq.st.store.Keys(rq.caller)
	out := make([]keyJSON, len(keys))
	for i := range keys {
		out[i] = keyOut(&keys[i])
	}
	return http.StatusOK, wire.List{Data: out, Count: len(out)}, nil
}

// revokeKey is DELETE /v1/keys/{id}.
func revokeKey(_ *API, rq *request) (int, any, error) {
	k, err := rq.st.store.RevokeKey(rq.caller, rq.param, rq.now.UnixNano())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, wire.Data{Data: keyOut(&k)}, nil
}
