package mockserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedsms/sms-go/internal/apitest"
	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver"
)

// FuzzRequestDecoding feeds arbitrary bodies to every POST route that takes one, in-process,
// with valid credentials and Content-Type, and checks that whatever the body, the answer is a
// documented one: the route's success status or 400/402/404/409/413/429 (never a 5xx, so never
// a recovered panic), a JSON object with requestId, an error body whose code matches its
// status and whose field names an unknown member exactly as the body spells it, a response
// that matches api/openapi.yaml, a new campaign priced by its recipients and parts, and a
// wallet debited by exactly what a success reports and by nothing otherwise.
//
// The first argument picks the route (index modulo the number of routes) and the mode (live,
// or test for the next block of indexes). In a body, @PIN_ID@ and @PIN@ are replaced by a
// pending pin of the mode, sent to a fixed number and renewed every fuzzRepinEvery inputs, so
// that /v1/otp/verify is reached with real pins.
func FuzzRequestDecoding(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s.route, []byte(s.body))
	}
	h := newFuzzHarness(f)
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		h.check(t, route, body)
	})
}

// fuzzRoute is one POST route with a JSON body.
type fuzzRoute struct {
	path    string
	jwt     bool   // dashboard JWT instead of an API key
	ok      int    // the success status
	members string // the top-level members of a success body, besides requestId
	charges bool   // a success debits the wallet by its amount
}

var fuzzRoutes = [...]fuzzRoute{
	{path: "/v1/keys", jwt: true, ok: http.StatusCreated, members: "data"},
	{path: "/v1/sms/send", ok: http.StatusAccepted, members: "campaign message", charges: true},
	{path: "/v1/sms/campaigns", ok: http.StatusAccepted, members: "campaign message", charges: true},
	{path: "/v1/otp/send", ok: http.StatusOK, members: "data", charges: true},
	{path: "/v1/otp/verify", ok: http.StatusOK, members: "data"},
	{path: "/v1/sender-ids", ok: http.StatusCreated, members: "data message"},
}

// fuzzErrorCodes are the documented error answers to a well-authenticated POST with a JSON
// body, by status.
var fuzzErrorCodes = map[int]string{
	http.StatusBadRequest:            "bad_request",
	http.StatusPaymentRequired:       "insufficient_balance",
	http.StatusNotFound:              "not_found",
	http.StatusConflict:              "conflict",
	http.StatusRequestEntityTooLarge: "payload_too_large",
	http.StatusTooManyRequests:       "rate_limited",
}

var fuzzRequestIDRe = regexp.MustCompile(`^req-[0-9a-f]{24}$`)

const (
	fuzzResetEvery = 500 // inputs between two Resets: bounds the state one process builds up
	fuzzRepinEvery = 50  // inputs between two fresh harness pins
	fuzzWallet     = 1 << 50
	fuzzPinPhone   = "2348000000001" // live pins go to this number
	fuzzPinPhoneT  = "2348000000002" // test pins
)

type fuzzPin struct{ id, pin string }

// fuzzHarness is one in-process server per fuzz process; inputs run one at a time.
type fuzzHarness struct {
	srv     *mockserver.Server
	h       http.Handler
	ws      mockserver.Workspace
	v       *apitest.Validator
	log     bytes.Buffer // panics the server recovered from, logged at error level
	pins    [2]fuzzPin   // live, test
	handled int
}

func newFuzzHarness(tb testing.TB) *fuzzHarness {
	h := &fuzzHarness{v: apitest.NewValidator(tb)}
	logger := slog.New(slog.NewTextHandler(&h.log, &slog.HandlerOptions{Level: slog.LevelError}))
	h.srv = newServer(tb,
		mockserver.WithBalances(fuzzWallet, fuzzWallet),
		mockserver.WithClock(func() time.Time { return time.Date(2026, 3, 4, 5, 6, 5, 0, time.UTC) }),
		mockserver.WithLogger(logger),
	)
	h.h = h.srv.Handler()
	h.ws = h.srv.Default()
	h.sendPins(tb)
	return h
}

// sendPins sends a pin per mode to the fixed numbers, for @PIN_ID@ and @PIN@.
func (h *fuzzHarness) sendPins(tb testing.TB) {
	for i, to := range []string{fuzzPinPhone, fuzzPinPhoneT} {
		body := `{"to":"` + to + `","from":"MOCKSMS","message_text":"Code < 1234 >"}`
		rec := h.serve(fuzzRoutes[3], i == 1, []byte(body))
		if rec.Code != http.StatusOK {
			tb.Fatalf("sending the harness pin: %d %s", rec.Code, rec.Body)
		}
		id, pin, err := h.srv.LatestOTP(to)
		if err != nil {
			tb.Fatalf("LatestOTP: %v", err)
		}
		h.pins[i] = fuzzPin{id, pin}
	}
}

func (h *fuzzHarness) request(rt fuzzRoute, test bool, body []byte) *http.Request {
	req := httptest.NewRequest(http.MethodPost, rt.path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	switch {
	case rt.jwt:
		req.Header.Set("Authorization", "Bearer "+h.ws.DashboardToken)
	case test:
		req.Header.Set("X-API-Key", h.ws.TestKey)
		req.Header.Set("X-API-Secret", h.ws.TestSecret)
	default:
		req.Header.Set("X-API-Key", h.ws.LiveKey)
		req.Header.Set("X-API-Secret", h.ws.LiveSecret)
	}
	return req
}

func (h *fuzzHarness) serve(rt fuzzRoute, test bool, body []byte) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.h.ServeHTTP(rec, h.request(rt, test, body))
	return rec
}

func (h *fuzzHarness) balance(tb testing.TB, mode mockserver.Mode) int64 {
	b, err := h.srv.Balance(h.ws.WorkspaceID, mode)
	if err != nil {
		tb.Fatalf("Balance: %v", err)
	}
	return b
}

func (h *fuzzHarness) check(t *testing.T, sel uint8, body []byte) {
	switch h.handled++; {
	case h.handled%fuzzResetEvery == 0:
		h.srv.Reset()
		h.sendPins(t)
	case h.handled%fuzzRepinEvery == 0:
		// Past the per-number OTP limit's window, so that the new pins can be sent.
		h.srv.Advance(11 * time.Minute)
		h.sendPins(t)
	}
	rt := fuzzRoutes[int(sel)%len(fuzzRoutes)]
	test := int(sel)/len(fuzzRoutes)%2 == 1
	mode, pin := mockserver.ModeLive, h.pins[0]
	if test {
		mode, pin = mockserver.ModeTest, h.pins[1]
	}
	body = bytes.ReplaceAll(body, []byte("@PIN_ID@"), []byte(pin.id))
	body = bytes.ReplaceAll(body, []byte("@PIN@"), []byte(pin.pin))

	before := h.balance(t, mode)
	h.log.Reset()
	req := h.request(rt, test, body)
	rec := httptest.NewRecorder()
	h.h.ServeHTTP(rec, req)
	after := h.balance(t, mode)

	status, got := rec.Code, rec.Body.Bytes()
	where := fmt.Sprintf("POST %s (%s) with %q -> %d %s", rt.path, mode, truncate(body, 300), status, truncate(got, 300))
	if status >= 500 {
		t.Fatalf("%s\nserver log: %s", where, h.log.String())
	}
	if status != rt.ok && fuzzErrorCodes[status] == "" {
		t.Fatalf("undocumented status: %s", where)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q: %s", ct, where)
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(got, &out); err != nil {
		t.Fatalf("body is not a JSON object (%v): %s", err, where)
	}
	var reqID string
	if err := json.Unmarshal(out["requestId"], &reqID); err != nil || !fuzzRequestIDRe.MatchString(reqID) {
		t.Fatalf("requestId %s: %s", out["requestId"], where)
	}
	if hdr := rec.Header().Get("X-Request-Id"); hdr != reqID {
		t.Fatalf("X-Request-Id %q is not the body's requestId: %s", hdr, where)
	}
	if status == rt.ok {
		checkMembers(t, out, rt.members+" requestId", where)
	} else {
		checkErrorBody(t, out, body, status, where)
		if status == http.StatusTooManyRequests {
			if n, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || n < 1 {
				t.Fatalf("Retry-After %q on a 429: %s", rec.Header().Get("Retry-After"), where)
			}
		}
	}
	if err := h.v.Response(req, status, rec.Header(), got); err != nil {
		t.Fatalf("%v\n%s", err, where)
	}

	// Money: a success that charges debits exactly its amount; anything else (errors,
	// idempotent replays, routes that do not charge) leaves the wallet alone.
	var debit int64
	if status == rt.ok && rt.charges && rec.Header().Get("Idempotent-Replayed") != "true" {
		debit = chargedAmount(t, got, where)
		if rt.path != "/v1/otp/send" {
			checkCampaign(t, got, body, debit, rt.path == "/v1/sms/campaigns", where)
		} else if refused := bytes.Contains(got, []byte(`"smsStatus":"Message Failed"`)); debit < 0 || debit%mockserver.DefaultGenericPrice != 0 || (debit == 0) != refused {
			t.Fatalf("an OTP costs %d kobo, not a positive number of generic parts (0 when refused: %v): %s", debit, refused, where)
		}
	}
	if after < 0 || before-after != debit {
		t.Fatalf("wallet went from %d to %d kobo, want a debit of %d: %s", before, after, debit, where)
	}
}

// checkMembers checks that a body has exactly the members named in want.
func checkMembers(t *testing.T, out map[string]json.RawMessage, want, where string) {
	t.Helper()
	names := strings.Fields(want)
	if len(out) != len(names) {
		t.Fatalf("body members %v, want %v: %s", mapKeys(out), names, where)
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			t.Fatalf("body lacks %q: %s", n, where)
		}
	}
}

func checkErrorBody(t *testing.T, out map[string]json.RawMessage, body []byte, status int, where string) {
	t.Helper()
	checkMembers(t, out, "error requestId", where)
	var e struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
		Field   *string `json:"field"`
		Scope   *string `json:"scope"`
	}
	dec := json.NewDecoder(bytes.NewReader(out["error"]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("error member (%v): %s", err, where)
	}
	if e.Code == nil || *e.Code != fuzzErrorCodes[status] {
		t.Fatalf("error.code is not %q: %s", fuzzErrorCodes[status], where)
	}
	if e.Message == nil || *e.Message == "" {
		t.Fatalf("error.message is empty: %s", where)
	}
	if e.Scope != nil {
		t.Fatalf("error.scope on a %d: %s", status, where)
	}
	// An unknown top-level member is named in field exactly as the body spells it.
	if strings.HasPrefix(*e.Message, "Unknown field ") {
		var members map[string]json.RawMessage
		_ = json.NewDecoder(bytes.NewReader(body)).Decode(&members)
		if _, ok := members[deref(e.Field)]; !ok {
			t.Fatalf("error.field %q is not a member of the body (members %q): %s", deref(e.Field), mapKeys(members), where)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// chargedAmount is the amount a successful send or OTP reports, in kobo.
func chargedAmount(t *testing.T, body []byte, where string) int64 {
	t.Helper()
	var v struct {
		Campaign *struct {
			Amount json.Number `json:"amount"`
		} `json:"campaign"`
		Data *struct {
			Amount json.Number `json:"amount"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("amount: %v: %s", err, where)
	}
	var amount json.Number
	switch {
	case v.Campaign != nil:
		amount = v.Campaign.Amount
	case v.Data != nil:
		amount = v.Data.Amount
	}
	kobo, err := rules.ParseNaira(string(amount))
	if err != nil || kobo < 0 {
		t.Fatalf("amount %q: %s", amount, where)
	}
	return kobo
}

// checkCampaign checks a new campaign of a 202 against its request: the price of its parts,
// and its status.
func checkCampaign(t *testing.T, got, body []byte, amount int64, personalized bool, where string) {
	t.Helper()
	var out struct {
		Campaign struct {
			Status     string  `json:"status"`
			MessageID  *string `json:"message_id"`
			Recipients int64   `json:"recipients"`
			SMSParts   int64   `json:"sms_parts"`
		} `json:"campaign"`
	}
	var in struct {
		Channel *string `json:"channel"`
	}
	if err := json.Unmarshal(got, &out); err != nil {
		t.Fatalf("campaign: %v: %s", err, where)
	}
	_ = json.NewDecoder(bytes.NewReader(body)).Decode(&in) // the body was accepted: it decodes
	price := int64(mockserver.DefaultGenericPrice)
	if in.Channel != nil && *in.Channel == "dnd" {
		price = mockserver.DefaultDNDPrice
	}
	c := out.Campaign
	if c.Recipients < 1 || c.SMSParts < 1 || c.SMSParts > rules.MaxParts {
		t.Fatalf("%d recipients of %d parts: %s", c.Recipients, c.SMSParts, where)
	}
	// Every recipient pays for its parts; without {{name}} they all have sms_parts.
	lo, hi := c.Recipients*price, c.Recipients*c.SMSParts*price
	if !personalized {
		lo = hi
	}
	if amount < lo || amount > hi || amount%price != 0 {
		t.Fatalf("amount %d kobo for %d recipients of %d parts at %d: %s", amount, c.Recipients, c.SMSParts, price, where)
	}
	wantStatus := "sent"
	if c.Recipients > 100 {
		wantStatus = "processing"
	}
	if c.Status != wantStatus || (c.MessageID == nil) != (wantStatus == "processing") {
		t.Fatalf("status %q, message_id %v for %d recipients: %s", c.Status, c.MessageID, c.Recipients, where)
	}
}

func mapKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + fmt.Sprintf("... (%d bytes)", len(b))
}

// fuzzSeed is a route index (see fuzzRoutes; +6 for test mode) and a body.
type fuzzSeed struct {
	route uint8
	body  string
}

// fuzzSeeds are valid bodies for every route and a few of each kind of trouble. More unusual
// inputs (invalid UTF-8, control bytes, byte order marks, idempotent replays and conflicts) and
// the inputs of failures found by fuzzing live in testdata/fuzz/FuzzRequestDecoding.
func fuzzSeeds() []fuzzSeed {
	const (
		keys, send, campaigns, otpSend, otpVerify, senderIDs = 0, 1, 2, 3, 4, 5
		testMode                                             = 6
	)
	many := make([]string, 101)
	for i := range many {
		many[i] = `"23480` + fmt.Sprintf("%08d", i) + `"`
	}
	manyTo := "[" + strings.Join(many, ",") + "]"
	long := strings.Repeat("a", 1531) // 11 parts
	return []fuzzSeed{
		// Valid bodies.
		{keys, `{"name":"CI key","scopes":{"sms":true,"otp":false,"campaigns":true,"sender_ids":false,"balance":true},"prefix":"pk_test","expiresInDays":30}`},
		{keys, `{"name":"k","scopes":{"sms":true}}`},
		{send, `{"to":"2348025671695","from":"MOCKSMS","message":"Hello"}`},
		{send, `{"to":["2348025671695","+2348025671695","08025671695","12345678"],"from":"MOCKSMS","message":"Ça va? €5 {ok}","channel":"dnd","reference":"order-42"}`},
		{send + testMode, `{"to":"2348025671695","from":"MOCKSMS","message":"Привет 😀","channel":"generic","reference":"r-1"}`},
		{campaigns, `{"to":["2348025671695",{"phone":"08025671696","name":"Ada"},{"phone":"2348025671697"}],"from":"MOCKSMS","message":"Hi {{name}}!","reference":"camp-1"}`},
		{campaigns, `{"to":` + manyTo + `,"from":"MOCKSMS","message":"Processing"}`},
		{otpSend, `{"to":"2348025671695","from":"MOCKSMS","message_text":"Your code is < 1234 >"}`},
		{otpSend + testMode, `{"to":"08025671695","from":"MOCKSMS","message_text":"Code: ##","pin_type":"alphanumeric","pin_length":8,"pin_time_to_live":60,"pin_placeholder":"##"}`},
		{otpSend, `{"to":"2347000000004","from":"MOCKSMS","message_text":"Refused < 1234 >"}`},
		{otpSend + testMode, `{"to":"+234 700 000 0005","from":"MOCKSMS","message_text":"Slow < 1234 >"}`},
		{otpSend, `{"to":"+234 700 000 000","from":"MOCKSMS","message_text":"Short < 1234 >"}`},
		{otpVerify, `{"pin_id":"@PIN_ID@","pin":"@PIN@"}`},
		{otpVerify + testMode, `{"pin_id":"@PIN_ID@","pin":"000000"}`},
		{otpVerify, `{"pin_id":"00000000-0000-4000-8000-000000000000","pin":"123456"}`},
		{senderIDs, `{"sender_id":"ACME","usecase":"Order alerts","company":"Acme Ltd"}`},
		{senderIDs, `{"sender_id":"mocksms","usecase":"Duplicate of the default","company":"Mock"}`},

		// Not an object, or nothing.
		{send, ``},
		{send, `   `},
		{keys, `null`},
		{campaigns, `[]`},
		{otpSend, `"string"`},
		{otpVerify, `123`},
		{senderIDs, `true`},
		{send, `{`},
		{send, `{"to":`},

		// Trailing data and duplicate members.
		{send, `{"to":"2348025671695","from":"MOCKSMS","message":"Hello"} {}`},
		{send, `{"to":"2348025671695","from":"MOCKSMS","message":"Hello"}x`},
		{otpSend, `{"to":"2348025671695","from":"MOCKSMS","message_text":"< 1234 >"}]`},
		{send, `{"to":"2348025671695","to":["2348025671696"],"from":"MOCKSMS","message":"Hello"}`},
		{send, `{"to":"2348025671695","from":"MOCKSMS","message":"Hello","reference":"dup","reference":"dup2"}`},
		{send, `{"to":"2348025671695","from":"MOCKSMS","message":"Hello","reference":5,"reference":"dup3"}`},
		{keys, `{"name":"k","scopes":{"sms":true,"sms":false}}`},

		// Nulls and wrong types.
		{send, `{"to":null,"from":"MOCKSMS","message":"Hello"}`},
		{send, `{"to":"2348025671695","from":null,"message":null}`},
		{send, `{"to":true,"from":"MOCKSMS","message":"Hello"}`},
		{send, `{"to":[2348025671695],"from":"MOCKSMS","message":"Hello"}`},
		{send, `{"to":"2348025671695","from":1,"message":["Hello"]}`},
		{campaigns, `{"to":[null,{"phone":null},{"phone":2348025671695},{"phone":"2348025671695","name":7}],"from":"MOCKSMS","message":"x"}`},
		{campaigns, `{"to":[{"phone":"2348025671695","extra":1}],"from":"MOCKSMS","message":"x"}`},
		{campaigns, `{"to":"2348025671695","from":"MOCKSMS","message":"x"}`},
		{keys, `{"name":"k","scopes":[]}`},
		{keys, `{"name":"k","scopes":{"sms":1,"SMS":true,"admin":true}}`},
		{keys, `{"name":["k"],"scopes":{"sms":true},"prefix":"pk_prod"}`},
		{otpSend, `{"to":"2348025671695","from":"MOCKSMS","message_text":"< 1234 >","pin_length":"6"}`},
		{otpVerify, `{"pin_id":null,"pin":123456}`},
		{senderIDs, `{"sender_id":"ACME-NG","usecase":" ","company":{}}`},

		// Numbers: huge, negative, fractional, exponent.
		{keys, `{"name":"k","scopes":{"sms":true},"expiresInDays":1e400}`},
		{keys, `{"name":"k","scopes":{"sms":true},"expiresInDays":99999999999999999999999}`},
		{keys, `{"name":"k","scopes":{"sms":true},"expiresInDays":-0}`},
		{keys, `{"name":"k","scopes":{"sms":true},"expiresInDays":3650.0}`},
		{otpSend, `{"to":"2348025671695","from":"MOCKSMS","message_text":"< 1234 >","pin_length":-9223372036854775808,"pin_time_to_live":9223372036854775808}`},
		{otpSend, `{"to":"2348025671695","from":"MOCKSMS","message_text":"< 1234 >","pin_time_to_live":1e1}`},

		// Unicode and escapes.
		{send, `{"to":"٢٣٤٨٠٢٥٦٧١٦٩٥","from":"MOCKSMS","message":"Hello"}`},
		{send, `{"to":"2348025671695","from":"MOCKSМS","message":"Hello"}`},
		{send, `{"to":"2348025671695","from":"MOCKSMS","message":"\ud800\udc00 \ud800 \u0000 \u2028"}`},
		{send, `{"\u0074o":"2348025671695","from":"MOCKSMS","message":"escaped member name"}`},
		{send, `{"TO":"2348025671695","From":"MOCKSMS","MESSAGE":"member names in another case"}`},
		{send, `{"to":"2348025671695","from":"MOCKSMS","message":"x","reference":"naïve"}`},
		{senderIDs, `{"sender_id":"ÀCME","usecase":"x","company":"x"}`},
		{keys, `{"name":"` + strings.Repeat("é", 101) + `","scopes":{"sms":true}}`},

		// Limits.
		{send, `{"to":` + manyTo + `,"from":"MOCKSMS","message":"Too many for send"}`},
		{send, `{"to":[],"from":"MOCKSMS","message":"x"}`},
		{send, `{"to":"2348025671695","from":"MOCKSMS","message":"` + long + `"}`},
		{send, `{"to":"2348025671695","from":"MOCKSMS","message":"x","reference":"` + strings.Repeat("r", 101) + `"}`},
		{send, `{"to":"2348025671695","from":"MOCKSMS","message":"x","channel":"sms"}`},
		{campaigns, `{"to":[{"phone":"2348025671695","name":"` + strings.Repeat("ж", 100) + `"}],"from":"MOCKSMS","message":"` + strings.Repeat("{{name}}", 8) + `"}`},
		{otpSend, `{"to":"2348025671695","from":"MOCKSMS","message_text":"` + strings.Repeat("< 1234 >", 200) + `"}`},
		{otpSend, `{"to":"2348025671695","from":"MOCKSMS","message_text":"no placeholder"}`},
		{otpSend, `{"to":"2348025671695","from":"MOCKSMS","message_text":"x","pin_placeholder":""}`},

		// Deep nesting: past encoding/json's depth limit, in a member and at the top.
		{send, `{"to":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `,"from":"MOCKSMS","message":"x"}`},
		{campaigns, strings.Repeat(`{"to":`, 2000) + `1` + strings.Repeat(`}`, 2000)},
	}
}
