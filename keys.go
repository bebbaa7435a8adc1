package sms

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
)

// KeyPrefix is the mode of an API key, the start of its public key.
type KeyPrefix string

// The key modes.
const (
	KeyPrefixLive KeyPrefix = "pk_live" // live wallet and live data
	KeyPrefixTest KeyPrefix = "pk_test" // test wallet and test data
)

// KeysService creates, lists and revokes the workspace's API keys. Its calls are not repeated
// after the request may have reached the server (except List): see ErrOutcomeUnknown.
type KeysService struct{ c *core }

// Key is an API key. Its String, Format (every verb, %#v too) and LogValue never show the
// Secret.
//
// The service shows no answer of the key endpoints: their shape is this project's. ID and
// PublicKey are required (and Secret in the answer to Create); the times are nil when the
// server sent null or nothing.
type Key struct {
	ID         string
	Name       string
	Prefix     KeyPrefix
	PublicKey  string // sent as X-API-Key
	Scopes     Scopes
	CreatedAt  *time.Time
	ExpiresAt  *time.Time // nil: never expires
	RevokedAt  *time.Time // nil: not revoked
	LastUsedAt *time.Time // nil: never used
	// Secret is sent as X-API-Secret. The API shows it once, in the answer to Create; store
	// it then. It is empty in every other Key.
	Secret string
	// Response is the HTTP answer it was read from, with its request ID; nil in a Page,
	// which carries the list's.
	Response *Response
}

// String describes the key without its secret.
func (k Key) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sms.Key{ID: %q, Name: %q, PublicKey: %q, Scopes: %v", k.ID, k.Name, k.PublicKey, []Scope(k.Scopes))
	if k.RevokedAt != nil {
		b.WriteString(", Revoked")
	}
	if k.Secret != "" {
		b.WriteString(", Secret: [REDACTED]")
	}
	b.WriteByte('}')
	return b.String()
}

// Format prints the key without its secret, whatever the verb.
func (k Key) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, k.String()) }

// LogValue logs the key without its secret, whatever the slog handler.
func (k Key) LogValue() slog.Value { return slog.StringValue(k.String()) }

// CreateKeyParams is the input of KeysService.Create.
type CreateKeyParams struct {
	// Name is 1 to 100 characters.
	Name string
	// Scopes holds at least one scope.
	Scopes Scopes
	// Prefix is KeyPrefixLive (when empty) or KeyPrefixTest.
	Prefix KeyPrefix
	// ExpiresInDays is 1 to 3650 (0: the key never expires).
	ExpiresInDays int
}

// Create makes a key; the answer holds its Secret, shown only this once.
//
// Endpoint: POST /v1/keys (no scope: a dashboard token), documented by the live page
// https://developers.nairasms.com.ng/authentication.
func (s *KeysService) Create(ctx context.Context, p *CreateKeyParams) (*Key, error) {
	if p == nil {
		return nil, invalid("CreateKeyParams", "parameters are required")
	}
	if strings.TrimSpace(p.Name) == "" {
		return nil, invalid("Name", "a name is required")
	}
	if err := validateUTF8("Name", p.Name); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(p.Name) > rules.MaxNameLen {
		return nil, invalid("Name", "a name is at most "+strconv.Itoa(rules.MaxNameLen)+" characters")
	}
	if err := p.Scopes.validate("Scopes"); err != nil {
		return nil, err
	}
	switch p.Prefix {
	case "", KeyPrefixLive, KeyPrefixTest:
	default:
		return nil, invalid("Prefix", "the prefix is pk_live or pk_test")
	}
	if p.ExpiresInDays < 0 || p.ExpiresInDays > rules.MaxExpiresInDays {
		return nil, invalid("ExpiresInDays", "the expiry is 1 to "+strconv.Itoa(rules.MaxExpiresInDays)+" days (0: never)")
	}
	body := struct {
		Name          string    `json:"name"`
		Scopes        Scopes    `json:"scopes"`
		Prefix        KeyPrefix `json:"prefix,omitempty"`
		ExpiresInDays int       `json:"expiresInDays,omitempty"`
	}{p.Name, p.Scopes, p.Prefix, p.ExpiresInDays}
	var out struct {
		envelope
		Data wireKey `json:"data"`
	}
	cl := &call{method: http.MethodPost, path: "/v1/keys", body: body, policy: retryUnsent}
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	d := &out.Data
	d.place(cl.zoneOf(&out.envelope))
	if err := cl.need(member{"data._id", d.id() != ""}, member{"data.publicKey", d.PublicKey.s != ""}, member{"data.secret", d.Secret.s != ""}); err != nil {
		return nil, err
	}
	return d.key(cl.responseOf(out.envelope, unreadable(nil, "data.", d.flaws()...))), nil
}

// ListKeysParams is the input of KeysService.List and KeysService.All. It has no fields: the
// calls take it so that an option can come without changing their signatures. nil is the zero
// value.
type ListKeysParams struct{}

// List returns the workspace's keys, newest first, revoked ones included, without secrets:
// the whole list, in one page (a server that pages it anyway answers its first page, and
// Pagination says so; All walks every page). p may be nil.
//
// Endpoint: GET /v1/keys (no scope: a dashboard token), this project's contract
// (docs/api.md): no live page shows it.
func (s *KeysService) List(ctx context.Context, p *ListKeysParams) (*Page[Key], error) {
	return s.list(ctx, 0, 0, nextRef{})
}

// wholeQuery is the query of a page of a list that the API returns whole (see walkWhole):
// none for the first request.
type wholeQuery struct {
	Page  int `url:"page,omitempty"`
	Limit int `url:"limit,omitempty"`
}

// list is List, fetching page (limit keys a page) when page is not 0, or the page that next
// (a cursor or a URL, see Pagination.next) names.
func (s *KeysService) list(ctx context.Context, page, limit int, next nextRef) (*Page[Key], error) {
	var out struct {
		envelope
		wirePaging
		Data []wireKey `json:"data"`
	}
	cl := &call{method: http.MethodGet, path: "/v1/keys", policy: retryIdempotent}
	if page > 0 {
		cl.query = wholeQuery{Page: page, Limit: limit}
	}
	if err := s.c.page(cl, next, limit); err != nil {
		return nil, err
	}
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	if err := cl.need(member{"data", out.Data != nil}); err != nil {
		return nil, err
	}
	pg, bad := out.pagination(cl.header, nil)
	loc := cl.zoneOf(&out.envelope)
	for i := range out.Data {
		d := &out.Data[i]
		d.place(loc)
		if err := cl.needIn("data", i, member{"_id", d.id() != ""}, member{"publicKey", d.PublicKey.s != ""}); err != nil {
			return nil, err
		}
		bad = unreadableIn(bad, "data", i, d.flaws()...)
	}
	bad = pg.distrust(page, offset(page, limit, pg, next), len(out.Data), bad)
	result := &Page[Key]{Items: make([]Key, len(out.Data)), Pagination: pg}
	for i := range out.Data {
		result.Items[i] = *out.Data[i].key(nil)
	}
	result.Response = cl.responseOf(out.envelope, bad)
	return result, nil
}

// All returns an iterator over the workspace's keys, as List returns them. The list is not
// paged by the API, so it makes one request when the loop starts; when a server pages it all
// the same (its answer states a cursor, a next URL, more pages or a total above its keys),
// the loop follows every page as Campaigns.All does, yielding each key once. An error is
// yielded once and ends the loop. p may be nil.
//
// Endpoints: GET /v1/keys (no scope: a dashboard token), once when the loop starts and once
// for each further page a server states: see List.
func (s *KeysService) All(ctx context.Context, p *ListKeysParams) iter.Seq2[Key, error] {
	fetch := func(ctx context.Context, page, limit int, next nextRef) ([]Key, Pagination, error) {
		pg, err := s.list(ctx, page, limit, next)
		if err != nil {
			return nil, Pagination{}, err
		}
		return pg.Items, pg.Pagination, nil
	}
	return walkWhole(ctx, fetch, func(k Key) string { return k.ID })
}

// RevokeKeyParams is the input of KeysService.Revoke beside the key's ID. It has no fields: the
// call takes it so that an option can come without changing the call's signature. nil is the
// zero value.
type RevokeKeyParams struct{}

// Revoke revokes key id at once: requests with it are then 401. Revoking a revoked key
// returns it unchanged, with its first RevokedAt. p may be nil.
//
// Endpoint: DELETE /v1/keys/{id} (no scope: a dashboard token), this project's contract
// (docs/api.md): no live page shows it.
func (s *KeysService) Revoke(ctx context.Context, id string, p *RevokeKeyParams) (*Key, error) {
	seg, err := pathID("id", id)
	if err != nil {
		return nil, err
	}
	var out struct {
		envelope
		Data wireKey `json:"data"`
	}
	cl := &call{method: http.MethodDelete, path: "/v1/keys/" + seg, policy: retryUnsent}
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	d := &out.Data
	d.place(cl.zoneOf(&out.envelope))
	if err := cl.need(member{"data._id", d.id() != ""}, member{"data.revokedAt", d.RevokedAt.time() != nil}); err != nil {
		return nil, err
	}
	return d.key(cl.responseOf(out.envelope, unreadable(nil, "data.", d.flaws()...))), nil
}

type wireKey struct {
	ID         text       `json:"_id"`
	AltID      text       `json:"id"` // read when _id is absent
	Name       text       `json:"name"`
	Prefix     text       `json:"prefix"`
	PublicKey  text       `json:"publicKey"`
	Scopes     wireScopes `json:"scopes"`
	CreatedAt  *timestamp `json:"createdAt"`
	ExpiresAt  *timestamp `json:"expiresAt"`
	RevokedAt  *timestamp `json:"revokedAt"`
	LastUsedAt *timestamp `json:"lastUsedAt"`
	Secret     text       `json:"secret"`
}

func (w *wireKey) key(resp *Response) *Key {
	return &Key{
		ID: w.id(), Name: w.Name.s, Prefix: KeyPrefix(w.Prefix.s), PublicKey: w.PublicKey.s, Scopes: w.Scopes.s,
		CreatedAt: w.CreatedAt.time(), ExpiresAt: w.ExpiresAt.time(), RevokedAt: w.RevokedAt.time(),
		LastUsedAt: w.LastUsedAt.time(), Secret: w.Secret.s, Response: resp,
	}
}

// place places the key's times written without a zone in loc (see timestamp.place).
func (w *wireKey) place(loc *time.Location) {
	for _, ts := range [...]*timestamp{w.CreatedAt, w.ExpiresAt, w.RevokedAt, w.LastUsedAt} {
		ts.place(loc)
	}
}

// id is the key's _id, or its id when the answer has no _id.
func (w *wireKey) id() string { return cmp.Or(w.ID.s, w.AltID.s) }

// flaws are the optional members of a key, which may be unreadable.
func (w *wireKey) flaws() []flaw {
	return []flaw{{"name", w.Name.bad}, {"prefix", w.Prefix.bad}, {"scopes", w.Scopes.bad},
		{"createdAt", w.CreatedAt.unread()}, {"expiresAt", w.ExpiresAt.unread()},
		{"revokedAt", w.RevokedAt.unread()}, {"lastUsedAt", w.LastUsedAt.unread()}}
}

// wireScopes is the scopes member of a key: the service's object of booleans (see
// Scopes.UnmarshalJSON), or an array of scope names. null is absent; anything else is
// unreadable.
type wireScopes struct {
	s   Scopes
	bad bool
}

// UnmarshalJSON reads the forms above; it never fails.
func (w *wireScopes) UnmarshalJSON(b []byte) error {
	*w = wireScopes{}
	if b[0] == '[' {
		var names []string
		if json.Unmarshal(b, &names) != nil {
			w.bad = true
			return nil
		}
		m := make(map[string]bool, len(names))
		for _, n := range names {
			m[n] = true
		}
		b, _ = json.Marshal(m)
	}
	w.bad = w.s.UnmarshalJSON(b) != nil
	return nil
}
