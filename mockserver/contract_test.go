package mockserver_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// call is one request of a table case.
type call struct {
	method, path string
	body         any
	opts         []reqOpt
}

func post(path string, body any, opts ...reqOpt) call {
	return call{http.MethodPost, path, body, opts}
}

func get(path string, opts ...reqOpt) call { return call{http.MethodGet, path, nil, opts} }

func static(c call) func(*env) call { return func(*env) call { return c } }

func (e *env) run(c call) *resp { e.t.Helper(); return e.do(c.method, c.path, c.body, c.opts...) }

// errCase is a request the contract rejects. req may prepare the server first; what it
// prepares is done before the "nothing changed" snapshot.
type errCase struct {
	name   string
	opts   []mockserver.Option
	req    func(e *env) call
	status int
	code   string
	field  string // error.field, "" when it must be absent
	scope  string // error.scope, "" when it must be absent
	header map[string]string
}

func errorCases() []errCase {
	var cases []errCase
	bad := func(name string, req func(*env) call, field string) {
		cases = append(cases, errCase{name: "400 " + name, req: req, status: 400, code: "bad_request", field: field})
	}
	sendWith := func(body any, opts ...reqOpt) func(*env) call { return static(post("/v1/sms/send", body, opts...)) }
	campaignWith := func(body any) func(*env) call { return static(post("/v1/sms/campaigns", body)) }
	keyWith := func(body any) func(*env) call { return static(post("/v1/keys", body)) }
	otpWith := func(body any) func(*env) call { return static(post("/v1/otp/send", body)) }
	senderWith := func(kv ...any) func(*env) call {
		return static(post("/v1/sender-ids", with(M{"sender_id": "Brand1", "usecase": "Alerts", "company": "Acme"}, kv...)))
	}
	one := num(1)

	// 400: the body as JSON.
	bad("malformed JSON", sendWith(rawBody(`{"to": "2348025671695",`)), "")
	bad("not JSON", sendWith(rawBody(`hello`)), "")
	bad("trailing data", sendWith(rawBody(`{"to":"2348025671695","from":"MOCKSMS","message":"hi"} {}`)), "")
	bad("empty body", sendWith(rawBody("")), "")
	bad("array body", sendWith(rawBody(`[]`)), "")
	bad("null body", sendWith(rawBody(`null`)), "") // not {}: nothing is required of a body that is not there
	bad("unknown member", sendWith(sms(one, "priority", "high")), "priority")
	// 400: send fields.
	bad("missing to", sendWith(sms(one, "to", "-")), "to")
	bad("missing from", sendWith(sms(one, "from", "-")), "from")
	bad("missing message", sendWith(sms(one, "message", "-")), "message")
	bad("empty message", sendWith(sms(one, "message", "")), "message")
	bad("message of another type", sendWith(sms(one, "message", 5)), "message")
	bad("to of another type", sendWith(sms(2348025671695)), "to")
	bad("to item of another type", sendWith(sms([]any{one, 5})), "to[1]")
	bad("reference of another type", sendWith(sms(one, "reference", 5)), "reference")
	bad("bad phone in a list", sendWith(sms([]string{one, "12345"})), "to[1]")
	bad("local number too short", sendWith(sms("0802567169")), "to")
	bad("plus before a local number", sendWith(sms("+08025671695")), "to")
	bad("16 digits", sendWith(sms("1234567890123456")), "to")
	bad("letters in a number", sendWith(sms("23480ABC71695")), "to")
	bad("empty to list", sendWith(sms([]string{})), "to")
	bad("101 numbers", sendWith(sms(nums(1, 101))), "to")
	bad("11 GSM-7 parts", sendWith(sms(one, "message", strings.Repeat("a", 1531))), "message")
	bad("11 UCS-2 parts", sendWith(sms(one, "message", strings.Repeat("ж", 671))), "message")
	bad("unknown channel", sendWith(sms(one, "channel", "sms")), "channel")
	bad("malformed from", sendWith(sms(one, "from", "MOCK SMS")), "from")
	bad("unknown sender ID", sendWith(sms(one, "from", "NOSUCH")), "from")
	bad("sender ID in another case", sendWith(sms(one, "from", "mocksms")), "from")
	bad("pending sender ID", func(e *env) call {
		e.requestSender("Pending1")
		return post("/v1/sms/send", sms(one, "from", "Pending1"))
	}, "from")
	bad("blocked sender ID", func(e *env) call {
		require.NoError(e.t, e.srv.BlockSenderID(e.requestSender("Blocked1")))
		return post("/v1/sms/send", sms(one, "from", "Blocked1"))
	}, "from")
	bad("reference too long", sendWith(sms(one, "reference", strings.Repeat("r", 101))), "reference")
	bad("reference not ASCII", sendWith(sms(one, "reference", "réf-1")), "reference")
	bad("empty reference", sendWith(sms(one, "reference", "")), "reference")
	// 400: campaigns.
	bad("campaign to not an array", campaignWith(sms(one)), "to")
	bad("campaign without recipients", campaignWith(sms([]any{})), "to")
	bad("campaign of 10,001", campaignWith(sms(nums(1, 10_001))), "to")
	bad("campaign recipient unknown member", campaignWith(sms([]any{M{"phone": one, "nick": "x"}})), "to[0].nick")
	bad("campaign recipient without phone", campaignWith(sms([]any{one, M{"name": "Ada"}})), "to[1].phone")
	bad("campaign recipient bad phone", campaignWith(sms([]any{M{"phone": "123"}})), "to[0].phone")
	bad("campaign recipient of another type", campaignWith(sms([]any{one, true})), "to[1]")
	bad("campaign name too long", campaignWith(sms([]any{M{"phone": one, "name": strings.Repeat("n", 101)}})), "to[0].name")
	bad("campaign name of another type", campaignWith(sms([]any{M{"phone": one, "name": 5}})), "to[0].name")
	bad("campaign personalized past 10 parts", campaignWith(sms(
		[]any{num(2), M{"phone": one, "name": strings.Repeat("b", 40)}},
		"message", strings.Repeat("a", 1500)+"{{name}}")), "to[1].name")
	// 400: keys.
	allScopes := M{"sms": true}
	bad("key without name", keyWith(M{"scopes": allScopes}), "name")
	bad("key with blank name", keyWith(M{"name": "   ", "scopes": allScopes}), "name")
	bad("key name too long", keyWith(M{"name": strings.Repeat("k", 101), "scopes": allScopes}), "name")
	bad("key without scopes", keyWith(M{"name": "k"}), "scopes")
	bad("key with no true scope", keyWith(M{"name": "k", "scopes": M{"sms": false, "otp": false}}), "scopes")
	bad("key with empty scopes", keyWith(M{"name": "k", "scopes": M{}}), "scopes")
	bad("key with unknown scope", keyWith(M{"name": "k", "scopes": M{"sms": true, "foo": true}}), "scopes.foo")
	bad("key scope not boolean", keyWith(M{"name": "k", "scopes": M{"sms": "yes"}}), "scopes.sms")
	bad("key scopes not an object", keyWith(M{"name": "k", "scopes": []string{"sms"}}), "scopes")
	bad("key prefix unknown", keyWith(M{"name": "k", "scopes": allScopes, "prefix": "pk_prod"}), "prefix")
	bad("key expiresInDays 0", keyWith(M{"name": "k", "scopes": allScopes, "expiresInDays": 0}), "expiresInDays")
	bad("key expiresInDays 3651", keyWith(M{"name": "k", "scopes": allScopes, "expiresInDays": 3651}), "expiresInDays")
	bad("key expiresInDays fractional", keyWith(M{"name": "k", "scopes": allScopes, "expiresInDays": 1.5}), "expiresInDays")
	bad("key unknown member", keyWith(M{"name": "k", "scopes": allScopes, "owner": "me"}), "owner")
	// 400: paging and filters.
	for _, q := range []string{"page=0", "page=-1", "page=x", "page=1.5", "page=", "page=+1", "limit=0", "limit=101", "limit=-5", "limit=ten"} {
		field, _, _ := strings.Cut(q, "=")
		bad("campaign list "+q, static(get("/v1/sms/campaigns?"+q)), field)
	}
	for _, q := range []string{"page=0", "limit=101"} {
		field, _, _ := strings.Cut(q, "=")
		bad("delivery status "+q, func(e *env) call {
			id := e.send(sms(one)).str("campaign.id")
			return get("/v1/sms/campaigns/" + id + "/status?" + q)
		}, field)
	}
	bad("sender ID status filter unknown", static(get("/v1/sender-ids?status=approved")), "status")
	bad("sender ID status filter empty", static(get("/v1/sender-ids?status=")), "status")
	// 400: OTP send.
	bad("otp without to", otpWith(otpBody(one, "to", "-")), "to")
	bad("otp bad to", otpWith(otpBody("12")), "to")
	bad("otp without from", otpWith(otpBody(one, "from", "-")), "from")
	bad("otp inactive from", otpWith(otpBody(one, "from", "NOSUCH")), "from")
	bad("otp empty message_text", otpWith(otpBody(one, "message_text", "")), "message_text")
	bad("otp message_text without placeholder", otpWith(otpBody(one, "message_text", "Your code is 1234")), "message_text")
	bad("otp custom placeholder missing", otpWith(otpBody(one, "pin_placeholder", "{code}")), "message_text")
	bad("otp message_text past 10 parts", otpWith(otpBody(one, "message_text", strings.Repeat("a", 1530)+"< 1234 >")), "message_text")
	bad("otp pin_type unknown", otpWith(otpBody(one, "pin_type", "hex")), "pin_type")
	bad("otp pin_length 3", otpWith(otpBody(one, "pin_length", 3)), "pin_length")
	bad("otp pin_length 9", otpWith(otpBody(one, "pin_length", 9)), "pin_length")
	bad("otp pin_length string", otpWith(otpBody(one, "pin_length", "6")), "pin_length")
	bad("otp pin_time_to_live 0", otpWith(otpBody(one, "pin_time_to_live", 0)), "pin_time_to_live")
	bad("otp pin_time_to_live 61", otpWith(otpBody(one, "pin_time_to_live", 61)), "pin_time_to_live")
	bad("otp empty placeholder", otpWith(otpBody(one, "pin_placeholder", "")), "pin_placeholder")
	bad("otp placeholder of 21", otpWith(otpBody(one, "pin_placeholder", strings.Repeat("#", 21), "message_text", strings.Repeat("#", 21))), "pin_placeholder")
	// 400: OTP verify.
	bad("verify without pin_id", static(post("/v1/otp/verify", M{"pin": "1234"})), "pin_id")
	bad("verify without pin", static(post("/v1/otp/verify", M{"pin_id": "x"})), "pin")
	bad("verify pin of another type", static(post("/v1/otp/verify", M{"pin_id": "x", "pin": 1234})), "pin")
	bad("verify a used pin", func(e *env) call {
		id, pin := e.otp(otpBody(one))
		assert.True(e.t, e.verify(id, pin).wantStatus(200).bool("data.verified"))
		return post("/v1/otp/verify", M{"pin_id": id, "pin": pin})
	}, "pin_id")
	bad("verify an expired pin", func(e *env) call {
		id, pin := e.otp(otpBody(one, "pin_time_to_live", 1))
		e.srv.Advance(time.Minute)
		return post("/v1/otp/verify", M{"pin_id": id, "pin": pin})
	}, "pin_id")
	bad("verify a voided pin", func(e *env) call {
		id, pin := e.otp(otpBody(one))
		e.otp(otpBody(one)) // a newer pin to the same number
		return post("/v1/otp/verify", M{"pin_id": id, "pin": pin})
	}, "pin_id")
	// 400: sender IDs.
	bad("sender ID too short", senderWith("sender_id", "AB"), "sender_id")
	bad("sender ID too long", senderWith("sender_id", "ABCDEFGHIJKL"), "sender_id")
	bad("sender ID with a space", senderWith("sender_id", "MY BRAND"), "sender_id")
	bad("sender ID missing", senderWith("sender_id", "-"), "sender_id")
	bad("sender usecase missing", senderWith("usecase", "-"), "usecase")
	bad("sender usecase too long", senderWith("usecase", strings.Repeat("u", 501)), "usecase")
	bad("sender company missing", senderWith("company", "-"), "company")
	bad("sender company too long", senderWith("company", strings.Repeat("c", 101)), "company")
	bad("sender usecase blank", senderWith("usecase", "   "), "usecase")

	// 401.
	unauth := func(name string, req func(*env) call) {
		cases = append(cases, errCase{name: "401 " + name, req: req, status: 401, code: "unauthorized"})
	}
	balance := func(opts ...reqOpt) func(*env) call { return static(get("/v1/balance", opts...)) }
	keys := func(tok func(e *env) string) func(*env) call {
		return func(e *env) call { return get("/v1/keys", withBearer(tok(e))) }
	}
	unauth("no credentials", balance(withKey("", "")))
	unauth("key without secret", func(e *env) call { return get("/v1/balance", withKey(e.ws.LiveKey, "")) })
	unauth("secret without key", func(e *env) call { return get("/v1/balance", withKey("", e.ws.LiveSecret)) })
	unauth("unknown key", func(e *env) call {
		return get("/v1/balance", withKey("pk_live_"+strings.Repeat("A", 24), e.ws.LiveSecret))
	})
	unauth("wrong secret", func(e *env) call {
		return get("/v1/balance", withKey(e.ws.LiveKey, "sk_live_"+strings.Repeat("A", 40)))
	})
	unauth("live key with the test secret", func(e *env) call { return get("/v1/balance", withKey(e.ws.LiveKey, e.ws.TestSecret)) })
	unauth("revoked key", func(e *env) call {
		pub, sec, id := e.createKey(M{"name": "gone", "scopes": M{"balance": true}})
		e.do(http.MethodDelete, "/v1/keys/"+id, nil).wantStatus(200)
		return get("/v1/balance", withKey(pub, sec))
	})
	unauth("expired key", func(e *env) call {
		pub, sec, _ := e.createKey(M{"name": "short", "scopes": M{"balance": true}, "expiresInDays": 1})
		e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantStatus(200)
		e.srv.Advance(24 * time.Hour)
		return get("/v1/balance", withKey(pub, sec))
	})
	unauth("API key on a dashboard route", func(e *env) call {
		return get("/v1/keys", withHeader("Authorization", ""), e.live())
	})
	unauth("JWT on a developer route", func(e *env) call {
		return get("/v1/balance", withKey("", ""), withBearer(e.ws.DashboardToken))
	})
	unauth("JWT missing", static(get("/v1/keys", withHeader("Authorization", ""))))
	unauth("JWT with another scheme", func(e *env) call {
		return get("/v1/keys", withHeader("Authorization", "Basic "+e.ws.DashboardToken))
	})
	unauth("JWT garbage", keys(func(*env) string { return "not.a.jwt" }))
	unauth("JWT alg none", keys(func(e *env) string {
		return signJWT(e.t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(e.ws.WorkspaceID, e.srv.Now().Add(time.Hour)))
	}))
	unauth("JWT HS384", keys(func(e *env) string {
		return signJWT(e.t, jwt.SigningMethodHS384, jwtSecret, claims(e.ws.WorkspaceID, e.srv.Now().Add(time.Hour)))
	}))
	unauth("JWT HS512", keys(func(e *env) string {
		return signJWT(e.t, jwt.SigningMethodHS512, jwtSecret, claims(e.ws.WorkspaceID, e.srv.Now().Add(time.Hour)))
	}))
	unauth("JWT RS256", keys(func(e *env) string {
		return foreignAlgJWT("RS256", claims(e.ws.WorkspaceID, e.srv.Now().Add(time.Hour)))
	}))
	unauth("JWT ES256", keys(func(e *env) string {
		return foreignAlgJWT("ES256", claims(e.ws.WorkspaceID, e.srv.Now().Add(time.Hour)))
	}))
	unauth("JWT wrong signature", keys(func(e *env) string {
		return signJWT(e.t, jwt.SigningMethodHS256, []byte("another secret, another server!!"), claims(e.ws.WorkspaceID, e.srv.Now().Add(time.Hour)))
	}))
	unauth("JWT without exp", keys(func(e *env) string {
		return signJWT(e.t, jwt.SigningMethodHS256, jwtSecret, jwt.MapClaims{"sub": "user_1", "wid": e.ws.WorkspaceID})
	}))
	unauth("JWT past exp", keys(func(e *env) string {
		return signJWT(e.t, jwt.SigningMethodHS256, jwtSecret, claims(e.ws.WorkspaceID, e.srv.Now().Add(-time.Minute)))
	}))
	unauth("JWT expired by the clock", func(e *env) call {
		tok := e.srv.DashboardToken(e.ws.WorkspaceID, time.Hour)
		e.do(http.MethodGet, "/v1/keys", nil, withBearer(tok)).wantStatus(200)
		e.srv.Advance(time.Hour + time.Second)
		return get("/v1/keys", withBearer(tok))
	})
	unauth("JWT unknown wid", keys(func(e *env) string {
		return signJWT(e.t, jwt.SigningMethodHS256, jwtSecret, claims("0123456789abcdef01234567", e.srv.Now().Add(time.Hour)))
	}))
	unauth("JWT malformed wid", keys(func(e *env) string {
		return signJWT(e.t, jwt.SigningMethodHS256, jwtSecret, claims("workspace-1", e.srv.Now().Add(time.Hour)))
	}))
	unauth("JWT without wid", keys(func(e *env) string {
		return signJWT(e.t, jwt.SigningMethodHS256, jwtSecret, jwt.MapClaims{"sub": "user_1", "exp": e.srv.Now().Add(time.Hour).Unix()})
	}))
	unauth("JWT on create", func(e *env) call {
		return post("/v1/keys", M{"name": "k", "scopes": M{"sms": true}}, withBearer("x"))
	})

	// 402: nothing is sent, nothing is charged.
	poor := func(name string, req func(*env) call) {
		cases = append(cases, errCase{name: "402 " + name, req: req, status: 402, code: "insufficient_balance"})
	}
	poor("send from an empty wallet", func(e *env) call {
		e.setBalance(mockserver.ModeLive, 0)
		return post("/v1/sms/send", sms(one))
	})
	poor("send one kobo short", func(e *env) call {
		e.setBalance(mockserver.ModeLive, 2*gp-1)
		return post("/v1/sms/send", sms([]string{one, num(2)}))
	})
	poor("dnd channel costs more", func(e *env) call {
		e.setBalance(mockserver.ModeLive, dp-1) // enough for generic, not for dnd
		return post("/v1/sms/send", sms(one, "channel", "dnd"))
	})
	poor("campaign", func(e *env) call {
		e.setBalance(mockserver.ModeLive, 3*gp-1)
		return post("/v1/sms/campaigns", sms([]any{num(1), num(2), M{"phone": num(3), "name": "Ada"}}))
	})
	poor("two-part message", func(e *env) call {
		e.setBalance(mockserver.ModeLive, 2*gp-1)
		return post("/v1/sms/send", sms(one, "message", strings.Repeat("a", 161)))
	})
	poor("otp", func(e *env) call {
		e.setBalance(mockserver.ModeLive, gp-1)
		return post("/v1/otp/send", otpBody(one))
	})
	poor("test wallet", func(e *env) call {
		e.setBalance(mockserver.ModeTest, 0)
		return post("/v1/sms/send", sms(one), e.test())
	})
	poor("with a reference", func(e *env) call {
		e.setBalance(mockserver.ModeLive, 0)
		return post("/v1/sms/send", sms(one, "reference", "ref-402"))
	})

	// 403: each scope, on each of its operations.
	for _, sc := range []struct {
		scope string
		c     call
	}{
		{"sms", post("/v1/sms/send", sms(one))},
		{"campaigns", post("/v1/sms/campaigns", sms([]string{one}))},
		{"campaigns", get("/v1/sms/campaigns")},
		{"campaigns", get("/v1/sms/campaigns/0123456789abcdef01234567/status")},
		{"otp", post("/v1/otp/send", otpBody(one))},
		{"otp", post("/v1/otp/verify", M{"pin_id": "x", "pin": "1"})},
		{"sender_ids", post("/v1/sender-ids", M{"sender_id": "Brand1", "usecase": "u", "company": "c"})},
		{"sender_ids", get("/v1/sender-ids")},
		{"balance", get("/v1/balance")},
	} {
		for _, prefix := range []string{"pk_live", "pk_test"} {
			cases = append(cases, errCase{
				name: "403 " + sc.scope + " " + sc.c.method + " " + sc.c.path + " " + prefix,
				req: func(e *env) call {
					c := sc.c
					c.opts = []reqOpt{e.keyWithout(sc.scope, prefix)}
					return c
				},
				status: 403, code: "insufficient_scope", scope: sc.scope,
			})
		}
	}

	// 404: unknown paths and ids, and ids of another workspace or mode.
	missing := func(name string, req func(*env) call) {
		cases = append(cases, errCase{name: "404 " + name, req: req, status: 404, code: "not_found"})
	}
	missing("unknown path without credentials", static(get("/v1/nope", withKey("", ""))))
	missing("unknown version", static(post("/v2/sms/send", sms(one))))
	missing("unknown file at the root", static(get("/index.html"))) // GET / is the inbox page
	missing("trailing slash", static(get("/v1/balance/")))
	missing("empty id segment", static(get("/v1/sms/campaigns//status")))
	missing("unknown campaign", static(get("/v1/sms/campaigns/0123456789abcdef01234567/status")))
	missing("malformed campaign id", static(get("/v1/sms/campaigns/abc/status")))
	missing("campaign of another workspace", func(e *env) call {
		other := e.newWorkspace()
		id := e.send(sms(one), withKey(other.LiveKey, other.LiveSecret)).str("campaign.id")
		return get("/v1/sms/campaigns/" + id + "/status")
	})
	missing("live campaign with the test key", func(e *env) call {
		id := e.send(sms(one)).str("campaign.id")
		return get("/v1/sms/campaigns/"+id+"/status", e.test())
	})
	missing("test campaign with the live key", func(e *env) call {
		id := e.send(sms(one), e.test()).str("campaign.id")
		return get("/v1/sms/campaigns/" + id + "/status")
	})
	missing("revoke an unknown key", static(call{http.MethodDelete, "/v1/keys/0123456789abcdef01234567", nil, nil}))
	missing("revoke a malformed key id", static(call{http.MethodDelete, "/v1/keys/pk_live_x", nil, nil}))
	missing("revoke a key of another workspace", func(e *env) call {
		other := e.newWorkspace()
		_, _, id := e.createKey(M{"name": "theirs", "scopes": M{"sms": true}})
		return call{http.MethodDelete, "/v1/keys/" + id, nil, []reqOpt{withBearer(other.DashboardToken)}}
	})
	missing("verify an unknown pin", static(post("/v1/otp/verify", M{"pin_id": "9f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b", "pin": "123456"})))
	missing("verify a pin of another workspace", func(e *env) call {
		other := e.newWorkspace()
		id, pin := e.otp(otpBody(one), withKey(other.LiveKey, other.LiveSecret))
		return post("/v1/otp/verify", M{"pin_id": id, "pin": pin})
	})
	missing("verify a live pin with the test key", func(e *env) call {
		id, pin := e.otp(otpBody(one))
		return post("/v1/otp/verify", M{"pin_id": id, "pin": pin}, e.test())
	})

	// 405 with Allow, before credentials are looked at.
	for _, m := range []struct{ method, path, allow string }{
		{http.MethodDelete, "/v1/balance", "GET"},
		{http.MethodPost, "/v1/balance", "GET"},
		{http.MethodGet, "/v1/sms/send", "POST"},
		{http.MethodPut, "/v1/sms/send", "POST"},
		{http.MethodPatch, "/v1/keys", "POST, GET"},
		{http.MethodGet, "/v1/keys/0123456789abcdef01234567", "DELETE"},
		{http.MethodDelete, "/v1/sms/campaigns", "POST, GET"},
		{http.MethodPost, "/v1/sms/campaigns/0123456789abcdef01234567/status", "GET"},
		{http.MethodGet, "/v1/otp/send", "POST"},
		{http.MethodGet, "/v1/otp/verify", "POST"},
		{http.MethodDelete, "/v1/sender-ids", "POST, GET"},
	} {
		cases = append(cases, errCase{
			name: "405 " + m.method + " " + m.path, req: static(call{m.method, m.path, nil, []reqOpt{withKey("", "")}}),
			status: 405, code: "method_not_allowed", header: map[string]string{"Allow": m.allow},
		})
	}

	// 409.
	conflict := func(name string, req func(*env) call, field string) {
		cases = append(cases, errCase{name: "409 " + name, req: req, status: 409, code: "conflict", field: field})
	}
	conflict("reference reused with another body", func(e *env) call {
		e.send(sms(one, "reference", "order-1"))
		return post("/v1/sms/send", sms(num(2), "reference", "order-1"))
	}, "reference")
	conflict("reference reused on another path", func(e *env) call {
		e.send(sms([]string{one}, "reference", "order-1"))
		return post("/v1/sms/campaigns", sms([]string{one}, "reference", "order-1"))
	}, "reference")
	conflict("reference reused with an invalid body", func(e *env) call {
		e.send(sms(one, "reference", "order-1"))
		return post("/v1/sms/send", sms(one, "reference", "order-1", "from", "-"))
	}, "reference")
	conflict("duplicate pending sender ID", func(e *env) call {
		e.requestSender("Brand7")
		return post("/v1/sender-ids", M{"sender_id": "BRAND7", "usecase": "u", "company": "c"})
	}, "")
	conflict("duplicate active sender ID", static(post("/v1/sender-ids", M{"sender_id": "mocksms", "usecase": "u", "company": "c"})), "")

	// 413 and 415.
	tooBig := func(name string, c call) {
		cases = append(cases, errCase{name: "413 " + name, req: static(c), status: 413, code: "payload_too_large"})
	}
	tooBig("send with Content-Length", post("/v1/sms/send", bigJSON))
	tooBig("send chunked", post("/v1/sms/send", bigJSON, chunked()))
	tooBig("campaign chunked", post("/v1/sms/campaigns", bigJSON, chunked()))
	tooBig("key with Content-Length", post("/v1/keys", bigJSON))
	tooBig("otp chunked", post("/v1/otp/send", bigJSON, chunked()))
	media := func(name string, c call) {
		cases = append(cases, errCase{name: "415 " + name, req: static(c), status: 415, code: "unsupported_media_type"})
	}
	media("send without Content-Type", post("/v1/sms/send", sms(one), withHeader("Content-Type", "")))
	media("send as text/plain", post("/v1/sms/send", sms(one), withHeader("Content-Type", "text/plain")))
	media("key as a form", post("/v1/keys", rawBody("name=k"), withHeader("Content-Type", "application/x-www-form-urlencoded")))
	media("verify as text/json", post("/v1/otp/verify", M{"pin_id": "x", "pin": "1"}, withHeader("Content-Type", "text/json")))
	media("sender ID with a broken Content-Type", post("/v1/sender-ids", M{}, withHeader("Content-Type", "application/json; charset")))

	// 429.
	windowEnd := strconv.FormatInt(fixedNow.Truncate(time.Minute).Add(time.Minute).Unix(), 10)
	cases = append(cases,
		errCase{
			name: "429 rate limit", opts: []mockserver.Option{mockserver.WithRateLimit(3)},
			req: func(e *env) call {
				pub, sec, _ := e.createKey(M{"name": "busy", "scopes": M{"balance": true}})
				for range 3 {
					e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantStatus(200)
				}
				return get("/v1/balance", withKey(pub, sec))
			},
			status: 429, code: "rate_limited",
			header: map[string]string{"Retry-After": "55", "X-RateLimit-Limit": "3", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": windowEnd},
		},
		errCase{
			name: "429 sixth OTP to a number in 10 minutes",
			req: func(e *env) call {
				for range 5 {
					e.otp(otpBody(one))
					e.srv.Advance(time.Minute)
				}
				return post("/v1/otp/send", otpBody("+"+one))
			},
			status: 429, code: "rate_limited", header: map[string]string{"Retry-After": "300"},
		},
		errCase{
			name: "429 pin locked after 5 wrong",
			req: func(e *env) call {
				id, pin := e.otp(otpBody(one, "pin_time_to_live", 5))
				for i := range 5 {
					r := e.verify(id, "wrong").wantStatus(200)
					assert.False(e.t, r.bool("data.verified"))
					assert.Equal(e.t, 4-i, r.int("data.attemptsRemaining"))
				}
				e.srv.Advance(time.Minute)
				return post("/v1/otp/verify", M{"pin_id": id, "pin": pin})
			},
			status: 429, code: "rate_limited", header: map[string]string{"Retry-After": "240"},
		},
		errCase{
			name: "429 injected",
			req: func(e *env) call {
				e.srv.AddFaults(mockserver.FaultRule{Method: http.MethodPost, Path: "/v1/sms/*", Status: 429, Times: 1})
				return post("/v1/sms/send", sms(one))
			},
			status: 429, code: "rate_limited", header: map[string]string{"Retry-After": "1"},
		},
	)

	// 5xx, injected before anything is processed.
	for _, f := range []struct {
		status int
		c      call
		retry  string
	}{
		{500, post("/v1/sms/send", sms(one)), ""},
		{502, post("/v1/sms/campaigns", sms([]string{one})), ""},
		{503, post("/v1/otp/send", otpBody(one)), "7"},
		{504, get("/v1/balance"), ""},
		{500, post("/v1/keys", M{"name": "k", "scopes": M{"sms": true}}), ""},
	} {
		c := f.c
		status, retry := f.status, f.retry
		cases = append(cases, errCase{
			name: strconv.Itoa(status) + " injected on " + c.method + " " + c.path,
			req: func(e *env) call {
				e.srv.AddFaults(mockserver.FaultRule{Method: c.method, Path: c.path, Status: status, Times: 1, RetryAfter: atoi(retry)})
				return c
			},
			status: status, code: "server_error", header: map[string]string{"Retry-After": retry},
		})
	}
	return cases
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestErrorResponses reaches every error status and code of the contract. Every case also
// proves that a rejected request loses no data: both wallets and both campaign lists are as
// they were.
func TestErrorResponses(t *testing.T) {
	t.Parallel()
	cases := errorCases()

	seen := map[int]bool{}
	names := map[string]bool{}
	for _, tc := range cases {
		require.False(t, names[tc.name], "duplicate case %q", tc.name)
		names[tc.name] = true
		seen[tc.status] = true
	}
	for _, s := range []int{400, 401, 402, 403, 404, 405, 409, 413, 415, 429, 500, 502, 503} {
		assert.True(t, seen[s], "no case answers %d", s)
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, tc.opts...)
			c := tc.req(e)
			before := e.state()

			r := e.run(c).wantError(tc.status, tc.code)
			assert.Equal(t, tc.field, r.str("error.field"), "error.field in %s", r.Raw)
			assert.Equal(t, tc.scope, r.str("error.scope"), "error.scope in %s", r.Raw)
			assert.ElementsMatch(t, []string{"error", "requestId"}, slices.Collect(maps.Keys(r.Body)))
			if inner, ok := r.get("error").(map[string]any); assert.True(t, ok) {
				for k := range inner {
					assert.Contains(t, []string{"code", "message", "field", "scope"}, k)
				}
			}
			for name, want := range tc.header {
				assert.Equal(t, want, r.Header.Get(name), "header %s", name)
			}
			if tc.status == 429 {
				assert.NotEmpty(t, r.Header.Get("Retry-After"), "every 429 has Retry-After")
			}

			assert.Equal(t, before, e.state(), "a rejected request changed the wallets, the campaigns or the messages")
		})
	}
}

// TestSuccessStatuses: the documented success status and envelope of every operation.
func TestSuccessStatuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		req     func(e *env) call
		status  int
		members []string // top-level members besides requestId
	}{
		{"create key", static(post("/v1/keys", M{"name": "k", "scopes": M{"sms": true}})), 201, []string{"data"}},
		{"list keys", static(get("/v1/keys")), 200, []string{"data", "count"}},
		{"revoke key", func(e *env) call {
			_, _, id := e.createKey(M{"name": "k", "scopes": M{"sms": true}})
			return call{http.MethodDelete, "/v1/keys/" + id, nil, nil}
		}, 200, []string{"data"}},
		{"send", static(post("/v1/sms/send", sms(num(1)))), 202, []string{"message", "campaign"}},
		{"campaign", static(post("/v1/sms/campaigns", sms([]any{M{"phone": num(1), "name": "Ada"}}))), 202, []string{"message", "campaign"}},
		{"list campaigns", static(get("/v1/sms/campaigns")), 200, []string{"data", "pagination"}},
		{"delivery status", func(e *env) call {
			return get("/v1/sms/campaigns/" + e.send(sms(num(1))).str("campaign.id") + "/status")
		}, 200, []string{"data", "pagination"}},
		{"otp send", static(post("/v1/otp/send", otpBody(num(1)))), 200, []string{"data"}},
		{"otp verify", func(e *env) call {
			id, pin := e.otp(otpBody(num(1)))
			return post("/v1/otp/verify", M{"pin_id": id, "pin": pin})
		}, 200, []string{"data"}},
		{"balance", static(get("/v1/balance")), 200, []string{"data"}},
		{"request sender ID", static(post("/v1/sender-ids", M{"sender_id": "Brand1", "usecase": "u", "company": "c"})), 201, []string{"message", "data"}},
		{"list sender IDs", static(get("/v1/sender-ids")), 200, []string{"data", "count"}},
		{"charset in Content-Type", static(post("/v1/sms/send", sms(num(1)), withHeader("Content-Type", "application/json; charset=utf-8"))), 202, []string{"message", "campaign"}},
		{"Content-Type in capitals", static(post("/v1/sms/send", sms(num(1)), withHeader("Content-Type", "Application/JSON"))), 202, []string{"message", "campaign"}},
		{"chunked body", static(post("/v1/sms/send", sms(num(1)), chunked())), 202, []string{"message", "campaign"}},
		{"bearer scheme in lower case", func(e *env) call {
			return get("/v1/keys", withHeader("Authorization", "bearer "+e.ws.DashboardToken))
		}, 200, []string{"data", "count"}},
		{"test key", func(e *env) call { return get("/v1/balance", e.test()) }, 200, []string{"data"}},
		{"page past the end", static(get("/v1/sms/campaigns?page=1000000&limit=100")), 200, []string{"data", "pagination"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			c := tc.req(e)
			assert.NoError(t, e.checkRequest(c), "the document rejects a request the mock accepts")
			r := e.run(c).wantStatus(tc.status)
			assert.ElementsMatch(t, append([]string{"requestId"}, tc.members...), slices.Collect(maps.Keys(r.Body)))
			assert.Empty(t, r.Header.Get("X-RateLimit-Limit"), "rate limits are off unless configured")
		})
	}
}

// TestDocumentRejectsWhatTheMockRejects: every 400 for the shape of a request is one that
// api/openapi.yaml predicts, except for the rules a schema cannot state (listed).
func TestDocumentRejectsWhatTheMockRejects(t *testing.T) {
	t.Parallel()
	beyondSchema := map[string]string{
		"400 trailing data":                        "JSON syntax, not schema",
		"400 11 UCS-2 parts":                       "parts are counted, not characters",
		"400 unknown sender ID":                    "state",
		"400 sender ID in another case":            "state",
		"400 pending sender ID":                    "state",
		"400 blocked sender ID":                    "state",
		"400 otp inactive from":                    "state",
		"400 campaign personalized past 10 parts":  "parts after {{name}} is filled",
		"400 otp message_text past 10 parts":       "parts after the pin is filled",
		"400 otp message_text without placeholder": "a relation between members",
		"400 otp custom placeholder missing":       "a relation between members",
		"400 verify a used pin":                    "state",
		"400 verify an expired pin":                "state",
		"400 verify a voided pin":                  "state",
	}
	for _, tc := range errorCases() {
		if tc.status != http.StatusBadRequest || beyondSchema[tc.name] != "" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			assert.Error(t, e.checkRequest(tc.req(e)), "the document accepts a request the mock rejects with 400")
		})
	}
}

// TestNullMembers: null is not a value of any request member (the document declares none
// nullable, and docs/api.md makes a wrong type a 400 naming the member).
func TestNullMembers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c     call
		field string
	}{
		{post("/v1/sms/send", sms(num(1), "reference", nil)), "reference"},
		{post("/v1/sms/send", sms(num(1), "channel", nil)), "channel"},
		{post("/v1/sms/campaigns", sms([]any{M{"phone": num(1), "name": nil}})), "to[0].name"},
		{post("/v1/otp/send", otpBody(num(1), "pin_length", nil)), "pin_length"},
		{post("/v1/otp/send", otpBody(num(1), "pin_type", nil)), "pin_type"},
		{post("/v1/keys", M{"name": "k", "scopes": M{"sms": true}, "prefix": nil}), "prefix"},
		{post("/v1/keys", M{"name": "k", "scopes": M{"sms": true}, "expiresInDays": nil}), "expiresInDays"},
	} {
		e := newEnv(t)
		require.Error(t, e.checkRequest(tc.c), "the document rejects it")
		r := e.run(tc.c).wantError(400, "bad_request")
		assert.Equal(t, tc.field, r.str("error.field"))
	}
}

// TestPageHasNoUpperBound: any integer page is valid; past the end is an empty page.
func TestPageHasNoUpperBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.send(sms(num(1)))
	for _, page := range []string{"1099511627777", "2000000000000", "9223372036854775807"} {
		r := e.do(http.MethodGet, "/v1/sms/campaigns?limit=100&page="+page, nil).wantStatus(http.StatusOK)
		assert.Empty(t, r.list("data"))
		assert.Equal(t, 1, r.int("pagination.total"))
	}
}

func TestContractGaps(t *testing.T) {
	t.Parallel()

	t.Run("null and invalid UTF-8 bodies", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		tests := []struct {
			name, path, body, field string
		}{
			{"null send", "/v1/sms/send", `null`, ""},
			{"null with space", "/v1/otp/send", " null\n", ""},
			{"null control", "/_mock/clock", `null`, ""},
			{"bad byte in message", "/v1/sms/send", `{"to":"` + num(1) + `","from":"MOCKSMS","message":"Hi ` + "\xff" + `"}`, "message"},
			{"bad byte in a list", "/v1/sms/send", `{"to":["` + num(1) + `","23480` + "\xc0" + `"],"from":"MOCKSMS","message":"Hi"}`, "to[1]"},
			{"bad byte nested", "/v1/sms/campaigns", `{"to":[{"phone":"` + num(1) + `"},{"phone":"` + num(2) + `","name":"A` + "\xed\xa0\x80" + `"}],"from":"MOCKSMS","message":"Hi {{name}}"}`, "to[1].name"},
			{"bad byte in a name", "/v1/sms/send", `{"to":"` + num(1) + `","from":"MOCKSMS","mess` + "\xff" + `age":"Hi"}`, "mess\ufffdage"},
			{"bad byte in a control", "/_mock/dnd", `{"numbers":["` + "\xfe" + `"]}`, "numbers[0]"},
			{"bad byte outside a string", "/v1/sms/send", "{\xff}", ""},
			{"a malformed escape", "/v1/sms/send", `{"to":"` + num(1) + `","from":"MOCKSMS","message":"Hi \xff"}`, ""},
		}
		before := e.state()
		for _, tt := range tests {
			r := e.do(http.MethodPost, tt.path, rawBody(tt.body)).wantError(http.StatusBadRequest, "bad_request")
			assert.Equal(t, tt.field, r.str("error.field"), "%s: %s", tt.name, r.Raw)
		}
		assert.Equal(t, before, e.state(), "nothing was sent")
	})

	t.Run("JWT exp must be a number", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		future := fixedNow.Add(time.Hour).Unix()
		tests := []struct {
			exp  any
			want int
		}{
			{future, http.StatusOK},
			{fmt.Sprint(future), http.StatusUnauthorized},
			{fmt.Sprint(future) + ".5", http.StatusUnauthorized},
			{nil, http.StatusUnauthorized},
		}
		for _, tt := range tests {
			c := jwt.MapClaims{"sub": "user", "wid": e.ws.WorkspaceID, "exp": tt.exp}
			if tt.exp == nil {
				delete(c, "exp")
			}
			r := e.do(http.MethodGet, "/v1/keys", nil, withBearer(signJWT(t, jwt.SigningMethodHS256, jwtSecret, c)))
			assert.Equal(t, tt.want, r.Status, "exp %#v: %s", tt.exp, r.Raw)
		}
	})

	t.Run("otps/latest", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t) // it sends an OTP: apart from the subtest that checks nothing moved
		pinID, pin := e.otp(otpBody(num(42)))
		for _, query := range []string{"to=" + num(42), "to=%2B" + num(42), "to=+" + num(42)} {
			r := e.do(http.MethodGet, "/_mock/otps/latest?"+query, nil).wantStatus(http.StatusOK)
			assert.Equal(t, pinID, r.str("pinId"), query)
			assert.Equal(t, pin, r.str("pin"), query)
		}
		for _, query := range []string{"", "to=", "from=" + num(42)} {
			r := e.do(http.MethodGet, "/_mock/otps/latest?"+query, nil).wantError(http.StatusBadRequest, "bad_request")
			assert.Equal(t, "to", r.str("error.field"))
			assert.Contains(t, r.str("error.message"), "required")
		}
		_, _, err := e.srv.LatestOTP("")
		assert.ErrorContains(t, err, "required")
	})
}

// bigJSON is a send body just over the 1 MiB limit.
var bigJSON = rawBody(`{"to":"2348025671695","from":"MOCKSMS","message":"` + strings.Repeat("a", 1<<20) + `"}`)
