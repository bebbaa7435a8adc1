package mockserver_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// assertTime checks a timestamp member against the mock's clock.
func assertTime(t *testing.T, want time.Time, r *resp, path string) {
	t.Helper()
	assert.WithinDuration(t, want, r.time(path), 0, "%s", path)
}

func assertNull(t *testing.T, r *resp, path string) {
	t.Helper()
	assert.True(t, r.has(path), "%s must be present", path)
	assert.Nil(t, r.get(path), "%s must be null", path)
}

// ids lists the given member of every element of an array.
func ids(r *resp, list, member string) []string {
	var out []string
	for i := range r.list(list) {
		out = append(out, r.str(list+"."+itoa(i)+"."+member))
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// --- the server ------------------------------------------------------------------------------

// TestCloseRightAfterStart: a server closed before it served anything (a test that fails
// early) closes cleanly.
func TestCloseRightAfterStart(t *testing.T) {
	t.Parallel()
	for range 200 {
		s := mockserver.New()
		require.NoError(t, s.Start())
		require.NoError(t, s.Close())
	}
}

func TestStartTwiceAndURL(t *testing.T) {
	t.Parallel()
	s := mockserver.New()
	assert.Empty(t, s.URL())
	assert.Empty(t, s.Default().URL)
	require.NoError(t, s.Start())
	t.Cleanup(func() { _ = s.Close() })
	assert.Regexp(t, `^http://127\.0\.0\.1:[0-9]+$`, s.URL())
	assert.Equal(t, s.URL(), s.Default().URL)
	assert.Error(t, s.Start(), "already started")
	assert.NotContains(t, s.Default().String(), s.Default().LiveSecret)
	assert.NotContains(t, fmt.Sprintf("%#v %v %+v", s.Default(), s.Default(), s.Default()), s.Default().TestSecret)
	assert.NotContains(t, fmt.Sprintf("%#v %v", s.Default(), s.Default()), s.Default().DashboardToken)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Get(s.URL() + "/v1/nope")
	require.NoError(t, err)
	_ = res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
}

// --- keys --------------------------------------------------------------------------------------

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
	e.setBalance(mockserver.Test, 4321)
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

// --- sender IDs --------------------------------------------------------------------------------

func TestSenderIDLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)

	r := e.do(http.MethodPost, "/v1/sender-ids", M{"sender_id": "Brand1", "usecase": "Order alerts", "company": "Acme Ltd"}).wantStatus(http.StatusCreated)
	brand := r.str("data._id")
	assert.Equal(t, "Sender ID request submitted.", r.str("message"))
	assert.Regexp(t, oidRe, brand)
	assert.Equal(t, "Brand1", r.str("data.title"))
	assert.Equal(t, "pending", r.str("data.status"))
	assert.Equal(t, "Nigeria", r.str("data.country"))
	assert.Equal(t, "Order alerts", r.str("data.usecase"))
	assert.Equal(t, "Acme Ltd", r.str("data.company"))
	assertTime(t, fixedNow, r, "data.createdAt")

	// Pending: not usable, and not requestable again in any case.
	e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "from", "Brand1")).wantError(400, "bad_request")
	e.do(http.MethodPost, "/v1/sender-ids", M{"sender_id": "BRAND1", "usecase": "u", "company": "c"}).wantError(409, "conflict")

	// Approved: usable as from (exactly as written), by live and test keys alike.
	require.NoError(t, e.srv.ApproveSenderID(brand))
	e.send(sms(num(1), "from", "Brand1"))
	e.send(sms(num(1), "from", "Brand1"), e.test())
	e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "from", "brand1")).wantError(400, "bad_request")
	e.do(http.MethodPost, "/v1/sender-ids", M{"sender_id": "brand1", "usecase": "u", "company": "c"}, e.test()).wantError(409, "conflict")
	assert.Error(t, e.srv.ApproveSenderID(brand), "only a pending sender ID moves")
	assert.Error(t, e.srv.BlockSenderID(brand))

	// Blocked: not usable, and may be requested again.
	other := e.requestSender("Other1")
	require.NoError(t, e.srv.BlockSenderID(other))
	e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "from", "Other1")).wantError(400, "bad_request")
	again := e.requestSender("OTHER1", e.test())
	assert.Error(t, e.srv.ApproveSenderID(other))

	// Lists: newest first, shared by both modes, filtered by status.
	all := e.do(http.MethodGet, "/v1/sender-ids", nil).wantStatus(http.StatusOK)
	assert.Equal(t, 4, all.int("count"))
	assert.Equal(t, []string{"OTHER1", "Other1", "Brand1", "MOCKSMS"}, ids(all, "data", "title"))
	assert.Equal(t, []string{again, other, brand}, ids(all, "data", "_id")[:3])
	assert.Equal(t, []string{"pending", "blocked", "active", "active"}, ids(all, "data", "status"))
	assert.Equal(t, all.get("data"), e.do(http.MethodGet, "/v1/sender-ids", nil, e.test()).wantStatus(200).get("data"))
	for status, want := range map[string][]string{
		"pending": {"OTHER1"}, "active": {"Brand1", "MOCKSMS"}, "blocked": {"Other1"},
	} {
		l := e.do(http.MethodGet, "/v1/sender-ids?status="+status, nil).wantStatus(http.StatusOK)
		assert.Equal(t, want, ids(l, "data", "title"), status)
		assert.Equal(t, len(want), l.int("count"), status)
	}
	e.do(http.MethodGet, "/v1/sender-ids?status=ACTIVE", nil).wantError(400, "bad_request")

	// Another workspace does not see them, and may request the same title.
	ws := e.newWorkspace()
	theirs := e.do(http.MethodGet, "/v1/sender-ids", nil, withKey(ws.LiveKey, ws.LiveSecret)).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"MOCKSMS"}, ids(theirs, "data", "title"))
	e.requestSender("Brand1", withKey(ws.LiveKey, ws.LiveSecret))
	e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "from", "Brand1"), withKey(ws.LiveKey, ws.LiveSecret)).wantError(400, "bad_request")
}

func TestSenderIDCountry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithCountry("Ghana"))
	r := e.do(http.MethodPost, "/v1/sender-ids", M{"sender_id": "Brand1", "usecase": "u", "company": "c"}).wantStatus(http.StatusCreated)
	assert.Equal(t, "Ghana", r.str("data.country"))
	l := e.do(http.MethodGet, "/v1/sender-ids?status=active", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "Ghana", l.str("data.0.country"))
}

// --- sending -----------------------------------------------------------------------------------

func TestSendResponse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.send(sms([]string{"08025671695", "+2348031234567"}, "reference", "order-1042"))
	assert.Equal(t, "SMS request accepted.", r.str("message"))
	id := r.str("campaign.id")
	assert.Regexp(t, oidRe, id)
	assert.Equal(t, "sent", r.str("campaign.status"))
	assert.Equal(t, messageIDOf(t, id), r.str("campaign.message_id"))
	assert.Equal(t, 2, r.int("campaign.recipients"))
	assert.Equal(t, int64(2*gp), r.kobo("campaign.amount"))
	assert.Equal(t, "6.40", r.str("campaign.amount"))
	assert.Equal(t, "NGN", r.str("campaign.currency"))
	assert.Equal(t, 1, r.int("campaign.sms_parts"))
	assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.Live))
	assert.Empty(t, r.Header.Get("Idempotent-Replayed"))

	l := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	require.Len(t, l.list("data"), 1)
	assert.Equal(t, map[string]any{
		"_id": id, "senderId": "MOCKSMS", "recipientCount": l.get("data.0.recipientCount"), "amount": l.get("data.0.amount"),
		"status": "sent", "currency": "NGN", "channel": "generic", "smsParts": l.get("data.0.smsParts"),
		"messageId": messageIDOf(t, id), "reference": "order-1042", "createdAt": l.get("data.0.createdAt"),
	}, l.get("data.0"))
	assert.Equal(t, 2, l.int("data.0.recipientCount"))
	assert.Equal(t, int64(2*gp), l.kobo("data.0.amount"))
	assert.Equal(t, 1, l.int("data.0.smsParts"))
	assertTime(t, fixedNow, l, "data.0.createdAt")

	st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"2348025671695", "2348031234567"}, ids(st, "data.recipients", "to"), "normalized, in request order")

	// Without a reference, the listed reference is null.
	id2 := e.send(sms(num(9))).str("campaign.id")
	l = e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	assert.Equal(t, id2, l.str("data.0._id"))
	assertNull(t, l, "data.0.reference")
}

// TestSMSParts: sms_parts and the amount (parts x recipients x price) for GSM-7, its extension
// table and UCS-2, with odd prices so the default prices cannot pass by accident.
func TestSMSParts(t *testing.T) {
	t.Parallel()
	const generic, dnd = 7, 11
	tests := []struct {
		name  string
		msg   string
		parts int
	}{
		{"short", "Hello", 1},
		{"160 GSM-7", strings.Repeat("a", 160), 1},
		{"161 GSM-7", strings.Repeat("a", 161), 2},
		{"306 GSM-7", strings.Repeat("a", 306), 2},
		{"307 GSM-7", strings.Repeat("a", 307), 3},
		{"1530 GSM-7 is 10 parts", strings.Repeat("a", 1530), 10},
		{"GSM-7 accents", strings.Repeat("Ça va? àèìòù ÄÖÑÜ ß £¥ §¿ ¡", 5), 1},
		{"160 é", strings.Repeat("é", 160), 1},
		{"161 é", strings.Repeat("é", 161), 2},
		{"80 euro signs", strings.Repeat("€", 80), 1},
		{"81 euro signs", strings.Repeat("€", 81), 2},
		{"extension chars fill one part", strings.Repeat("a", 152) + "^{}\\", 1},
		{"extension chars count 2", strings.Repeat("a", 153) + "^{}\\", 2},
		{"79 pipes and a letter", strings.Repeat("|", 79) + "a", 1},
		{"80 pipes and a letter", strings.Repeat("|", 80) + "a", 2},
		{"form feed counts 2", strings.Repeat("a", 159) + "\f", 2},
		{"brackets and tilde fill one part", strings.Repeat("a", 154) + "[~]", 1},
		{"brackets and tilde", strings.Repeat("a", 155) + "[~]", 2},
		{"70 UCS-2", strings.Repeat("ж", 70), 1},
		{"71 UCS-2", strings.Repeat("ж", 71), 2},
		{"134 UCS-2", strings.Repeat("ж", 134), 2},
		{"135 UCS-2", strings.Repeat("ж", 135), 3},
		{"670 UCS-2 is 10 parts", strings.Repeat("ж", 670), 10},
		{"one non-GSM char makes UCS-2", strings.Repeat("a", 159) + "ж", 3},
		{"35 emoji", strings.Repeat("😀", 35), 1},
		{"36 emoji", strings.Repeat("😀", 36), 2},
		{"Yoruba diacritics", "Ẹ ku àárọ̀", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, mockserver.WithPrices(generic, dnd))
			r := e.send(sms([]string{num(1), num(2)}, "message", tc.msg))
			assert.Equal(t, tc.parts, r.int("campaign.sms_parts"))
			want := int64(tc.parts * 2 * generic)
			assert.Equal(t, want, r.kobo("campaign.amount"))
			assert.Equal(t, int64(mockserver.DefaultBalance)-want, e.balance(mockserver.Live))

			r = e.send(sms([]string{num(1), num(2), num(3)}, "message", tc.msg, "channel", "dnd"))
			assert.Equal(t, int64(tc.parts*3*dnd), r.kobo("campaign.amount"), "dnd channel")
			l := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
			assert.Equal(t, "dnd", l.str("data.0.channel"))
			assert.Equal(t, "generic", l.str("data.1.channel"))
			assert.Equal(t, tc.parts, l.int("data.0.smsParts"))
		})
	}
}

// TestNameIsNotFilledOnSend: {{name}} is a campaign feature; in POST /v1/sms/send it is text
// like any other, and its braces are GSM-7 extension characters (2 septets each).
func TestNameIsNotFilledOnSend(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.send(sms(num(1), "message", strings.Repeat("a", 148)+"{{name}}")) // 148 + 8 + 4 = 160 septets
	assert.Equal(t, 1, r.int("campaign.sms_parts"))
	r = e.send(sms(num(1), "message", strings.Repeat("a", 149)+"{{name}}")) // 161 septets
	assert.Equal(t, 2, r.int("campaign.sms_parts"))
	assert.Equal(t, int64(2*gp), r.kobo("campaign.amount"))
	r = e.send(sms(num(1), "message", strings.Repeat("{{name}}", 20))) // 240 septets
	assert.Equal(t, 2, r.int("campaign.sms_parts"))
}

// TestEmptyMessageAfterFillingIsNotFree: a campaign whose message is only {{name}}, sent to a
// recipient without a name, is not a free SMS of 0 parts (sms_parts is at least 1).
func TestEmptyMessageAfterFillingIsNotFree(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do(http.MethodPost, "/v1/sms/campaigns", sms([]any{num(1), M{"phone": num(2), "name": ""}}, "message", "{{name}}"))
	if r.Status == http.StatusBadRequest { // rejecting it is fine too
		assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.Live))
		return
	}
	r.wantStatus(http.StatusAccepted)
	assert.GreaterOrEqual(t, r.int("campaign.sms_parts"), 1)
	assert.Equal(t, int64(mockserver.DefaultBalance)-r.kobo("campaign.amount"), e.balance(mockserver.Live))
	assert.GreaterOrEqual(t, r.kobo("campaign.amount"), int64(2*gp))
}

func TestDuplicateNumbersAreSentOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.send(sms([]string{"08025671695", "2348025671695", "+2348025671695", "2348031234567", "08025671695"}))
	assert.Equal(t, 2, r.int("campaign.recipients"))
	assert.Equal(t, int64(2*gp), r.kobo("campaign.amount"))
	st := e.do(http.MethodGet, "/v1/sms/campaigns/"+r.str("campaign.id")+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"2348025671695", "2348031234567"}, ids(st, "data.recipients", "to"))
	assert.Equal(t, 2, st.int("pagination.total"))

	c := e.campaign(sms([]any{M{"phone": "08025671695", "name": "Ada"}, "2348025671695", M{"phone": "+2348025671695", "name": "Bo"}}))
	assert.Equal(t, 1, c.int("campaign.recipients"))
	assert.Equal(t, int64(gp), c.kobo("campaign.amount"))
}

// TestPersonalization: {{name}} is filled per recipient and parts are counted after that.
func TestPersonalization(t *testing.T) {
	t.Parallel()
	const price = 7
	e := newEnv(t, mockserver.WithPrices(price, 11))
	msg := "Hello {{name}}, " + strings.Repeat("x", 140)
	r := e.campaign(sms([]any{
		M{"phone": num(1), "name": "Ada"},                  // 151 GSM-7: 1 part
		M{"phone": num(2), "name": "Bartholomew-Ezekiel!"}, // 168: 2 parts
		num(3),                                               // no name, 148: 1 part
		M{"phone": num(4), "name": "Ọlá"},                    // UCS-2, 151 units: 3 parts
		M{"phone": num(1), "name": "Duplicate"},              // sent once, as the first
		M{"phone": num(5)},                                   // no name: 1 part
		M{"phone": num(6), "name": ""},                       // empty name: 1 part
		M{"phone": num(7), "name": strings.Repeat("n", 100)}, // 248: 2 parts
	}, "message", msg))
	assert.Equal(t, 7, r.int("campaign.recipients"))
	assert.Equal(t, 3, r.int("campaign.sms_parts"), "the largest")
	assert.Equal(t, int64((1+2+1+3+1+1+2)*price), r.kobo("campaign.amount"))
	assert.Equal(t, int64(mockserver.DefaultBalance-(1+2+1+3+1+1+2)*price), e.balance(mockserver.Live))

	// Every {{name}} is replaced.
	r = e.campaign(sms([]any{M{"phone": num(1), "name": strings.Repeat("n", 80)}}, "message", "{{name}} {{name}}"))
	assert.Equal(t, 2, r.int("campaign.sms_parts"))

	// Without {{name}} the names change nothing.
	r = e.campaign(sms([]any{M{"phone": num(1), "name": "Ọlá"}, num(2)}, "message", strings.Repeat("a", 160)))
	assert.Equal(t, 1, r.int("campaign.sms_parts"))
	assert.Equal(t, int64(2*price), r.kobo("campaign.amount"))
}

// TestPersonalizedTooLongNamesTheRecipient: the 400 for a message over 10 parts after {{name}}
// is filled names the offending recipient as it was sent.
func TestPersonalizedTooLongNamesTheRecipient(t *testing.T) {
	t.Parallel()
	msg := strings.Repeat("a", 1500) + "{{name}}"
	long := strings.Repeat("b", 40)
	tests := []struct {
		name  string
		to    []any
		msg   string
		field string
	}{
		{"the long name", []any{num(1), M{"phone": num(2), "name": long}}, msg, "to[1].name"},
		{"after a duplicate", []any{num(1), num(1), M{"phone": num(2), "name": long}}, msg, "to[2].name"},
		{"the template alone", []any{num(1)}, strings.Repeat("a", 1531) + "{{name}}", "message"},
		{"the template alone, a plain number", []any{M{"phone": num(1), "name": "Ada"}, num(2)}, strings.Repeat("a", 1531) + "{{name}}", "message"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			r := e.do(http.MethodPost, "/v1/sms/campaigns", sms(tc.to, "message", tc.msg)).wantError(400, "bad_request")
			assert.Equal(t, tc.field, r.str("error.field"))
			assert.Equal(t, 0, e.campaignTotal())
		})
	}
}

func TestLargeCampaignIsProcessingForASecond(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.campaign(sms(nums(1, 101)))
	id := r.str("campaign.id")
	assert.Equal(t, "processing", r.str("campaign.status"))
	assertNull(t, r, "campaign.message_id")
	assert.Equal(t, 101, r.int("campaign.recipients"))
	assert.Equal(t, int64(101*gp), r.kobo("campaign.amount"))
	assert.Equal(t, int64(mockserver.DefaultBalance-101*gp), e.balance(mockserver.Live), "charged at once")

	l := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "processing", l.str("data.0.status"))
	assertNull(t, l, "data.0.messageId")
	st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
	assertProcessingStatus(t, st, id)
	assert.Error(t, e.srv.Deliver(id, nil))

	e.srv.Advance(time.Second - time.Millisecond)
	l = e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "processing", l.str("data.0.status"))

	e.srv.Advance(time.Millisecond)
	l = e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "sent", l.str("data.0.status"))
	assert.Equal(t, messageIDOf(t, id), l.str("data.0.messageId"))

	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status?limit=100", nil).wantStatus(http.StatusOK)
	assert.Equal(t, messageIDOf(t, id), st.str("data.messageId"))
	assert.Len(t, st.list("data.recipients"), 100)
	assert.Equal(t, []int{1, 100, 101}, []int{st.int("pagination.page"), st.int("pagination.limit"), st.int("pagination.total")})
	assert.Equal(t, 101, st.int("data.counts.sent"))
	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status?limit=100&page=2", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{num(101)}, ids(st, "data.recipients", "to"))
	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status?limit=100&page=3", nil).wantStatus(http.StatusOK)
	assert.Empty(t, st.list("data.recipients"))
	assert.Equal(t, 101, st.int("data.counts.sent"), "counts cover the whole campaign")

	// 100 distinct recipients are sent at once; duplicates do not count.
	r = e.campaign(sms(append(nums(1, 100), num(1), num(2))))
	assert.Equal(t, "sent", r.str("campaign.status"))
	assert.Equal(t, 100, r.int("campaign.recipients"))
}

func TestCampaignListPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var created []string
	for i := range 5 {
		var r *resp
		if i%2 == 0 {
			r = e.send(sms(num(i)))
		} else {
			r = e.campaign(sms([]any{num(i), num(i + 10)}))
		}
		created = append(created, r.str("campaign.id"))
		e.srv.Advance(time.Second)
	}
	slices.Reverse(created) // newest first

	def := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	assert.Equal(t, created, ids(def, "data", "_id"))
	assert.Equal(t, []int{1, 20, 5}, []int{def.int("pagination.page"), def.int("pagination.limit"), def.int("pagination.total")})
	for i := range 5 {
		assertTime(t, fixedNow.Add(time.Duration(4-i)*time.Second), def, "data."+itoa(i)+".createdAt")
	}

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"limit=2", created[:2]},
		{"limit=2&page=2", created[2:4]},
		{"page=3&limit=2", created[4:]},
		{"limit=2&page=4", nil},
		{"page=2", nil},
		{"limit=100", created},
		{"limit=1&page=5", created[4:]},
	} {
		l := e.do(http.MethodGet, "/v1/sms/campaigns?"+tc.query, nil).wantStatus(http.StatusOK)
		assert.Equal(t, tc.want, ids(l, "data", "_id"), tc.query)
		assert.Equal(t, 5, l.int("pagination.total"), tc.query)
	}

	// Campaigns at the same instant: the later id first.
	a := e.send(sms(num(1))).str("campaign.id")
	b := e.send(sms(num(1))).str("campaign.id")
	require.Less(t, a, b)
	l := e.do(http.MethodGet, "/v1/sms/campaigns?limit=2", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{b, a}, ids(l, "data", "_id"))
}

func TestDeliveryStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	to := []string{num(1), num(2), num(3), num(4)}
	id := e.send(sms(to)).str("campaign.id")
	status := func(query string) *resp {
		return e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status"+query, nil).wantStatus(http.StatusOK)
	}
	counts := func(r *resp) [4]int {
		return [4]int{r.int("data.counts.sent"), r.int("data.counts.delivered"), r.int("data.counts.failed"), r.int("data.counts.dnd")}
	}

	st := status("")
	assert.Equal(t, id, st.str("data.campaignId"))
	assert.Equal(t, messageIDOf(t, id), st.str("data.messageId"))
	assert.Equal(t, "sent", st.str("data.status"))
	assert.Equal(t, [4]int{4, 0, 0, 0}, counts(st))
	assert.Equal(t, to, ids(st, "data.recipients", "to"))
	assert.Equal(t, []string{"sent", "sent", "sent", "sent"}, ids(st, "data.recipients", "status"))
	assertTime(t, fixedNow, st, "data.recipients.0.updatedAt")

	e.srv.Advance(time.Minute)
	require.NoError(t, e.srv.Deliver(id, &mockserver.DeliverCounts{Delivered: 1, Failed: 1}))
	st = status("")
	assert.Equal(t, "sent", st.str("data.status"), "sent while any recipient is sent")
	assert.Equal(t, [4]int{2, 1, 1, 0}, counts(st))
	assert.Equal(t, []string{"delivered", "failed", "sent", "sent"}, ids(st, "data.recipients", "status"))
	assertTime(t, fixedNow.Add(time.Minute), st, "data.recipients.0.updatedAt")
	assertTime(t, fixedNow.Add(time.Minute), st, "data.recipients.1.updatedAt")
	assertTime(t, fixedNow, st, "data.recipients.2.updatedAt")

	require.NoError(t, e.srv.Deliver(id, &mockserver.DeliverCounts{DND: 1}))
	require.NoError(t, e.srv.Deliver(id, nil)) // the rest: delivered
	st = status("")
	assert.Equal(t, "partially_delivered", st.str("data.status"))
	assert.Equal(t, [4]int{0, 2, 1, 1}, counts(st))
	assert.Equal(t, []string{"delivered", "failed", "dnd", "delivered"}, ids(st, "data.recipients", "status"))
	assert.Error(t, e.srv.Deliver(id, &mockserver.DeliverCounts{Delivered: 1}), "no recipient is sent any more")
	assert.Error(t, e.srv.Deliver(id, &mockserver.DeliverCounts{Failed: -1}))

	// Recipients are paged; counts are not.
	st = status("?limit=2&page=2")
	assert.Equal(t, to[2:], ids(st, "data.recipients", "to"))
	assert.Equal(t, [4]int{0, 2, 1, 1}, counts(st))
	assert.Equal(t, []int{2, 2, 4}, []int{st.int("pagination.page"), st.int("pagination.limit"), st.int("pagination.total")})
	st = status("?page=9")
	assert.Empty(t, st.list("data.recipients"))

	// The rollup.
	for _, tc := range []struct {
		name    string
		deliver *mockserver.DeliverCounts
		want    string
	}{
		{"all delivered", nil, "delivered"},
		{"all failed", &mockserver.DeliverCounts{Failed: 3}, "failed"},
		{"all dnd", &mockserver.DeliverCounts{DND: 3}, "failed"},
		{"failed and dnd", &mockserver.DeliverCounts{Failed: 2, DND: 1}, "failed"},
		{"one delivered", &mockserver.DeliverCounts{Delivered: 1, Failed: 2}, "partially_delivered"},
		{"one still sent", &mockserver.DeliverCounts{Delivered: 2}, "sent"},
		{"nothing moved", &mockserver.DeliverCounts{}, "sent"},
	} {
		cid := e.send(sms(nums(10, 3))).str("campaign.id")
		require.NoError(t, e.srv.Deliver(cid, tc.deliver), tc.name)
		r := e.do(http.MethodGet, "/v1/sms/campaigns/"+cid+"/status", nil).wantStatus(http.StatusOK)
		assert.Equal(t, tc.want, r.str("data.status"), tc.name)
	}
	assert.Error(t, e.srv.Deliver("0123456789abcdef01234567", nil))
}

// TestDeliveryRollupIsOfTheWholeCampaign: the rollup status does not depend on the page of
// recipients asked for, and the deliver control answers the same rollup.
func TestDeliveryRollupIsOfTheWholeCampaign(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		deliver *mockserver.DeliverCounts
		want    string
	}{
		{nil, "delivered"},
		{&mockserver.DeliverCounts{Failed: 4}, "failed"},
		{&mockserver.DeliverCounts{Delivered: 1, DND: 3}, "partially_delivered"},
		{&mockserver.DeliverCounts{Delivered: 3}, "sent"},
	} {
		id := e.send(sms(nums(1, 4))).str("campaign.id")
		var body any // none: deliver all
		if tc.deliver != nil {
			body = tc.deliver
		}
		r := e.do(http.MethodPost, "/_mock/campaigns/"+id+"/deliver", body).wantStatus(http.StatusOK)
		assert.Equal(t, tc.want, r.str("status"), "deliver control %+v", tc.deliver)
		for _, q := range []string{"", "?limit=1", "?limit=3", "?page=2&limit=3", "?page=9"} {
			st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status"+q, nil).wantStatus(http.StatusOK)
			assert.Equal(t, tc.want, st.str("data.status"), "status%s after %+v", q, tc.deliver)
		}
	}
}

func TestDNDRegister(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	require.NoError(t, e.srv.AddDND("08025671695"))
	assert.Error(t, e.srv.AddDND("not a number"))

	// generic: charged, marked dnd at once.
	r := e.send(sms([]string{"2348025671695", num(2)}))
	assert.Equal(t, int64(2*gp), r.kobo("campaign.amount"))
	id := r.str("campaign.id")
	st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"dnd", "sent"}, ids(st, "data.recipients", "status"))
	assert.Equal(t, 1, st.int("data.counts.dnd"))
	assert.Equal(t, 1, st.int("data.counts.sent"))
	require.NoError(t, e.srv.Deliver(id, nil))
	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"dnd", "delivered"}, ids(st, "data.recipients", "status"))
	assert.Equal(t, "partially_delivered", st.str("data.status"))

	// dnd channel: reaches the number, at the dnd price.
	r = e.send(sms([]string{"+2348025671695", num(2)}, "channel", "dnd"))
	assert.Equal(t, int64(2*dp), r.kobo("campaign.amount"))
	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+r.str("campaign.id")+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"sent", "sent"}, ids(st, "data.recipients", "status"))

	// Campaigns and the test mode see the register too.
	c := e.campaign(sms([]any{M{"phone": "2348025671695", "name": "Ada"}}), e.test())
	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+c.str("campaign.id")+"/status", nil, e.test()).wantStatus(http.StatusOK)
	assert.Equal(t, "dnd", st.str("data.recipients.0.status"))
	assert.Equal(t, "failed", st.str("data.status"), "none delivered")
	assert.Equal(t, int64(gp), c.kobo("campaign.amount"))
}

func TestProviderFailureRefunds(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/v1/sms/send", "/v1/sms/campaigns"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.srv.AddFaults(mockserver.FaultRule{Path: path, ProviderFailure: true, Times: 1})
			body := sms([]string{num(1), num(2)}, "reference", "ref-fail", "message", strings.Repeat("a", 200))
			r := e.do(http.MethodPost, path, body).wantStatus(http.StatusAccepted)
			id := r.str("campaign.id")
			assert.Equal(t, "failed", r.str("campaign.status"))
			assert.Equal(t, "0.00", r.str("campaign.amount"))
			assertNull(t, r, "campaign.message_id")
			assert.Equal(t, 2, r.int("campaign.recipients"))
			assert.Equal(t, 2, r.int("campaign.sms_parts"))
			assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.Live), "refunded")

			l := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
			assert.Equal(t, 1, l.int("pagination.total"))
			assert.Equal(t, "failed", l.str("data.0.status"))
			assert.Equal(t, "0.00", l.str("data.0.amount"))
			assertNull(t, l, "data.0.messageId")
			st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
			assertFailedStatus(t, st, id, []string{num(1), num(2)})
			assert.Error(t, e.srv.Deliver(id, nil))
			e.srv.Advance(time.Hour)
			st = e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status?limit=1&page=2", nil).wantStatus(http.StatusOK)
			assertFailedStatus(t, st, id, []string{num(2)})
			assert.Equal(t, []int{2, 1, 2}, []int{st.int("pagination.page"), st.int("pagination.limit"), st.int("pagination.total")})

			// The accepted (failed) answer is what the reference replays; a new request sends.
			again := e.do(http.MethodPost, path, body).wantStatus(http.StatusAccepted)
			assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
			assert.Equal(t, r.get("campaign"), again.get("campaign"))
			ok := e.do(http.MethodPost, path, with(body, "reference", "ref-ok")).wantStatus(http.StatusAccepted)
			assert.Equal(t, "sent", ok.str("campaign.status"))
			assert.Equal(t, int64(mockserver.DefaultBalance-4*gp), e.balance(mockserver.Live))
		})
	}
}

// --- OTP ---------------------------------------------------------------------------------------

func TestOTPSendAndVerify(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do(http.MethodPost, "/v1/otp/send", otpBody("08025671695")).wantStatus(http.StatusOK)
	pinID := r.str("data.pinId")
	assert.Equal(t, "Message Sent", r.str("data.smsStatus"))
	assert.Equal(t, "2348025671695", r.str("data.phone_number"))
	assert.Regexp(t, uuidRe, pinID)
	assert.Equal(t, "200", r.str("data.status"))
	assert.Equal(t, int64(gp), r.kobo("data.amount"))
	assert.Equal(t, "NGN", r.str("data.currency"))
	assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.Live))
	assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.Test))

	latestID, pin, err := e.srv.LatestOTP("+2348025671695")
	require.NoError(t, err)
	assert.Equal(t, pinID, latestID)
	assert.Regexp(t, `^[0-9]{6}$`, pin)
	assert.NotContains(t, string(r.Raw), `"`+pin+`"`, "the pin is not in the send response")

	ok := e.verify(pinID, pin).wantStatus(http.StatusOK)
	assert.Equal(t, map[string]any{"pinId": pinID, "verified": true, "msisdn": "2348025671695", "attemptsRemaining": ok.get("data.attemptsRemaining")}, ok.get("data"))
	assert.Equal(t, 5, ok.int("data.attemptsRemaining"))
	assert.Equal(t, "pin_id", e.verify(pinID, pin).wantError(400, "bad_request").str("error.field"), "single use")
	e.verify(pinID, "000000").wantError(400, "bad_request")

	// Test mode: the test wallet, and pins that the live key cannot see.
	tr := e.do(http.MethodPost, "/v1/otp/send", otpBody(num(5)), e.test()).wantStatus(http.StatusOK)
	assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.Test))
	_, tpin, err := e.srv.LatestOTP(num(5))
	require.NoError(t, err)
	e.verify(tr.str("data.pinId"), tpin).wantError(404, "not_found")
	assert.True(t, e.verify(tr.str("data.pinId"), tpin, e.test()).wantStatus(200).bool("data.verified"))

	_, _, err = e.srv.LatestOTP(num(77))
	assert.Error(t, err, "no pin was sent to that number")
}

func TestOTPWrongPins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pin := e.otp(otpBody(num(1)))
	for want := 4; want >= 0; want-- {
		r := e.verify(id, "x"+pin).wantStatus(http.StatusOK)
		assert.False(t, r.bool("data.verified"))
		assert.Equal(t, want, r.int("data.attemptsRemaining"))
		assert.Equal(t, num(1), r.str("data.msisdn"))
	}
	r := e.verify(id, pin).wantError(429, "rate_limited")
	assert.Equal(t, "600", r.Header.Get("Retry-After"))
	e.srv.Advance(9*time.Minute + 30*time.Second)
	r = e.verify(id, pin).wantError(429, "rate_limited")
	assert.Equal(t, "30", r.Header.Get("Retry-After"))
	e.srv.Advance(30 * time.Second)
	e.verify(id, pin).wantError(400, "bad_request") // expired now

	// Some wrong pins, then the right one.
	id, pin = e.otp(otpBody(num(2)))
	e.verify(id, "wrong").wantStatus(200)
	e.verify(id, "wrong").wantStatus(200)
	r = e.verify(id, pin).wantStatus(200)
	assert.True(t, r.bool("data.verified"))
	assert.Equal(t, 3, r.int("data.attemptsRemaining"))
}

func TestOTPExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id2, pin2 := e.otp(otpBody(num(1), "pin_time_to_live", 2))
	idDefault, pinDefault := e.otp(otpBody(num(2)))
	id60, pin60 := e.otp(otpBody(num(3), "pin_time_to_live", 60))

	e.srv.Advance(2*time.Minute - time.Second)
	assert.True(t, e.verify(id2, pin2).wantStatus(200).bool("data.verified"))
	id2, pin2 = e.otp(otpBody(num(1), "pin_time_to_live", 2))
	e.srv.Advance(2 * time.Minute)
	assert.Equal(t, "pin_id", e.verify(id2, pin2).wantError(400, "bad_request").str("error.field"))

	e.srv.Advance(6*time.Minute + time.Second) // 10 minutes after the first sends
	e.verify(idDefault, pinDefault).wantError(400, "bad_request")
	assert.True(t, e.verify(id60, pin60).wantStatus(200).bool("data.verified"))
}

func TestOTPNewerPinVoidsOlder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	oldID, oldPin := e.otp(otpBody("08025671695"))
	otherID, otherPin := e.otp(otpBody(num(9)))
	newID, newPin := e.otp(otpBody("+2348025671695"))
	require.NotEqual(t, oldID, newID)

	assert.Equal(t, "pin_id", e.verify(oldID, oldPin).wantError(400, "bad_request").str("error.field"))
	assert.True(t, e.verify(newID, newPin).wantStatus(200).bool("data.verified"))
	assert.True(t, e.verify(otherID, otherPin).wantStatus(200).bool("data.verified"), "another number is not touched")

	// A test-mode pin does not void the live one.
	liveID, livePin := e.otp(otpBody(num(4)))
	e.otp(otpBody(num(4)), e.test())
	assert.True(t, e.verify(liveID, livePin).wantStatus(200).bool("data.verified"))
}

func TestOTPPerNumberLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for range 5 {
		e.otp(otpBody("08025671695"))
		e.srv.Advance(time.Minute)
	}
	// 5 minutes after the first send, 5 in the window.
	r := e.do(http.MethodPost, "/v1/otp/send", otpBody("2348025671695")).wantError(429, "rate_limited")
	assert.Equal(t, "300", r.Header.Get("Retry-After"))
	assert.Equal(t, int64(mockserver.DefaultBalance-5*gp), e.balance(mockserver.Live), "the 429 is not charged")

	e.otp(otpBody(num(2)))                  // another number
	e.otp(otpBody("08025671695"), e.test()) // another mode
	other := e.newWorkspace()               // another workspace
	e.do(http.MethodPost, "/v1/otp/send", otpBody("08025671695"), withKey(other.LiveKey, other.LiveSecret)).wantStatus(200)

	e.srv.Advance(5*time.Minute - time.Second)
	r = e.do(http.MethodPost, "/v1/otp/send", otpBody("08025671695")).wantError(429, "rate_limited")
	assert.Equal(t, "1", r.Header.Get("Retry-After"))
	e.srv.Advance(time.Second) // the first send leaves the window
	e.otp(otpBody("08025671695"))
	r = e.do(http.MethodPost, "/v1/otp/send", otpBody("08025671695")).wantError(429, "rate_limited")
	assert.Equal(t, "60", r.Header.Get("Retry-After"))

	e.srv.Advance(10 * time.Minute)
	for range 5 {
		e.otp(otpBody("08025671695"))
	}
	e.do(http.MethodPost, "/v1/otp/send", otpBody("08025671695")).wantError(429, "rate_limited")
}

func TestOTPPins(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		body  M
		pin   string // pattern
		parts int
	}{
		{"default", otpBody(num(1)), `^[0-9]{6}$`, 1},
		{"numeric 4", otpBody(num(1), "pin_type", "numeric", "pin_length", 4), `^[0-9]{4}$`, 1},
		{"numeric 8", otpBody(num(1), "pin_length", 8), `^[0-9]{8}$`, 1},
		{"alphanumeric 8", otpBody(num(1), "pin_type", "alphanumeric", "pin_length", 8), `^[A-Z0-9]{8}$`, 1},
		{"alphanumeric default length", otpBody(num(1), "pin_type", "alphanumeric"), `^[A-Z0-9]{6}$`, 1},
		{"custom placeholder", otpBody(num(1), "pin_placeholder", "{code}", "message_text", "Code: {code}"), `^[0-9]{6}$`, 1},
		{"one-character placeholder", otpBody(num(1), "pin_placeholder", "#", "message_text", "Pin #"), `^[0-9]{6}$`, 1},
		{"20-character placeholder", otpBody(num(1), "pin_placeholder", strings.Repeat("*", 20), "message_text", "Pin "+strings.Repeat("*", 20)), `^[0-9]{6}$`, 1},
		{"local number", otpBody("08025671695"), `^[0-9]{6}$`, 1},
		// 152 + 8-character placeholder: 160, but the 6-digit pin makes it 158: one part.
		{"placeholder longer than the pin", otpBody(num(1), "message_text", strings.Repeat("a", 152)+"< 1234 >"), `^[0-9]{6}$`, 1},
		// 155 + 6 = 161: two parts.
		{"two parts with the pin", otpBody(num(1), "message_text", strings.Repeat("a", 155)+"< 1234 >"), `^[0-9]{6}$`, 2},
		{"UCS-2 message", otpBody(num(1), "message_text", "Kóòdù rẹ: < 1234 >"), `^[0-9]{6}$`, 1},
		{"ten parts with the pin", otpBody(num(1), "message_text", strings.Repeat("a", 1524)+"< 1234 >"), `^[0-9]{6}$`, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			r := e.do(http.MethodPost, "/v1/otp/send", tc.body).wantStatus(http.StatusOK)
			assert.Equal(t, int64(tc.parts*gp), r.kobo("data.amount"))
			assert.Equal(t, int64(mockserver.DefaultBalance-tc.parts*gp), e.balance(mockserver.Live))
			id, pin, err := e.srv.LatestOTP(tc.body["to"].(string))
			require.NoError(t, err)
			assert.Equal(t, r.str("data.pinId"), id)
			assert.Regexp(t, tc.pin, pin)
			assert.True(t, e.verify(id, pin).wantStatus(200).bool("data.verified"))
		})
	}
}

// --- balance and modes -------------------------------------------------------------------------

func TestBalancePerMode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, opt := range []reqOpt{e.live(), e.test()} {
		r := e.do(http.MethodGet, "/v1/balance", nil, opt).wantStatus(http.StatusOK)
		assert.Equal(t, map[string]any{"balance": r.get("data.balance"), "cashback": r.get("data.cashback"), "currency": "NGN"}, r.get("data"))
		assert.Equal(t, "10000.00", r.str("data.balance"))
		assert.Equal(t, "0.00", r.str("data.cashback"))
	}
	e.setBalance(mockserver.Live, 12345)
	e.setBalance(mockserver.Test, 7)
	assert.Equal(t, "123.45", e.do(http.MethodGet, "/v1/balance", nil).wantStatus(200).str("data.balance"))
	assert.Equal(t, "0.07", e.do(http.MethodGet, "/v1/balance", nil, e.test()).wantStatus(200).str("data.balance"))

	assert.Error(t, e.srv.SetBalance(e.ws.WorkspaceID, mockserver.Live, -1))
	assert.Error(t, e.srv.SetBalance(e.ws.WorkspaceID, mockserver.Mode("prod"), 1))
	assert.Error(t, e.srv.SetBalance("0123456789abcdef01234567", mockserver.Live, 1))
	_, err := e.srv.Balance("nope", mockserver.Live)
	assert.Error(t, err)

	w := newEnv(t, mockserver.WithBalances(5, 70_000))
	assert.Equal(t, "0.05", w.do(http.MethodGet, "/v1/balance", nil).wantStatus(200).str("data.balance"))
	assert.Equal(t, "700.00", w.do(http.MethodGet, "/v1/balance", nil, w.test()).wantStatus(200).str("data.balance"))
	other := w.newWorkspace()
	assert.Equal(t, "0.05", w.do(http.MethodGet, "/v1/balance", nil, withKey(other.LiveKey, other.LiveSecret)).wantStatus(200).str("data.balance"))
}

func TestTestKeysUseTheirOwnWalletAndData(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tid := e.send(sms([]string{num(1), num(2)}), e.test()).str("campaign.id")
	assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.Test))
	assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.Live))
	assert.Equal(t, 1, e.campaignTotal(e.test()))
	assert.Equal(t, 0, e.campaignTotal(e.live()))
	e.do(http.MethodGet, "/v1/sms/campaigns/"+tid+"/status", nil).wantError(404, "not_found")
	e.do(http.MethodGet, "/v1/sms/campaigns/"+tid+"/status", nil, e.test()).wantStatus(200)

	lid := e.campaign(sms([]string{num(3)})).str("campaign.id")
	assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.Live))
	l := e.do(http.MethodGet, "/v1/sms/campaigns", nil, e.test()).wantStatus(200)
	assert.Equal(t, []string{tid}, ids(l, "data", "_id"))
	l = e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(200)
	assert.Equal(t, []string{lid}, ids(l, "data", "_id"))

	// A key created with pk_test is in the same test mode as the default test key.
	pub, sec, _ := e.createKey(M{"name": "ci", "scopes": M{"campaigns": true, "balance": true}, "prefix": "pk_test"})
	l = e.do(http.MethodGet, "/v1/sms/campaigns", nil, withKey(pub, sec)).wantStatus(200)
	assert.Equal(t, []string{tid}, ids(l, "data", "_id"))
	assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantStatus(200).kobo("data.balance"))

	// Sender IDs are shared: requested in test mode, approved, used in live mode.
	sid := e.requestSender("Shared1", e.test())
	require.NoError(t, e.srv.ApproveSenderID(sid))
	e.send(sms(num(1), "from", "Shared1"))
}

// --- idempotency -------------------------------------------------------------------------------

func TestIdempotency(t *testing.T) {
	t.Parallel()

	t.Run("replay", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		body := sms([]string{num(1), num(2)}, "reference", "order-1")
		first := e.send(body)
		assert.Empty(t, first.Header.Get("Idempotent-Replayed"))
		second := e.send(body)
		assert.Equal(t, "true", second.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, first.get("campaign"), second.get("campaign"))
		assert.Equal(t, first.get("message"), second.get("message"))
		assert.NotEqual(t, first.str("requestId"), second.str("requestId"))
		assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.Live), "one debit")
		assert.Equal(t, 1, e.campaignTotal())

		// Another key of the same workspace and mode replays too.
		pub, sec, _ := e.createKey(M{"name": "k2", "scopes": M{"sms": true}})
		third := e.send(body, withKey(pub, sec))
		assert.Equal(t, "true", third.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, first.str("campaign.id"), third.str("campaign.id"))
	})

	t.Run("member order and white space do not matter", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		a := e.send(M{"to": []string{num(1)}, "from": "MOCKSMS", "message": "Hi", "reference": "r-2"})
		b := e.do(http.MethodPost, "/v1/sms/send", rawBody("{ \"reference\" : \"r-2\",\n\t\"message\":\"Hi\", \"from\": \"MOCKSMS\",  \"to\": [ \""+num(1)+"\" ] }\n")).wantStatus(202)
		assert.Equal(t, "true", b.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, a.str("campaign.id"), b.str("campaign.id"))
		// The same number written another way is another JSON value: another body.
		e.do(http.MethodPost, "/v1/sms/send", M{"to": []string{"+" + num(1)}, "from": "MOCKSMS", "message": "Hi", "reference": "r-2"}).wantError(409, "conflict")
		e.do(http.MethodPost, "/v1/sms/send", M{"to": num(1), "from": "MOCKSMS", "message": "Hi", "reference": "r-2"}).wantError(409, "conflict")
		assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.Live))
	})

	t.Run("another body is a conflict", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.campaign(sms([]string{num(1)}, "reference", "r-3"))
		r := e.do(http.MethodPost, "/v1/sms/campaigns", sms([]string{num(1)}, "reference", "r-3", "message", "Other")).wantError(409, "conflict")
		assert.Equal(t, "reference", r.str("error.field"))
		e.do(http.MethodPost, "/v1/sms/campaigns", sms([]string{num(1)}, "reference", "r-3", "channel", "generic")).wantError(409, "conflict")
		e.do(http.MethodPost, "/v1/sms/send", sms([]string{num(1)}, "reference", "r-3")).wantError(409, "conflict")
		assert.Equal(t, 1, e.campaignTotal())
	})

	t.Run("a 402 does not burn the reference", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		body := sms(num(1), "reference", "r-4")
		e.setBalance(mockserver.Live, gp-1)
		e.do(http.MethodPost, "/v1/sms/send", body).wantError(402, "insufficient_balance")
		e.do(http.MethodPost, "/v1/sms/send", body).wantError(402, "insufficient_balance")
		e.setBalance(mockserver.Live, gp)
		r := e.send(body)
		assert.Empty(t, r.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, int64(0), e.balance(mockserver.Live))
		again := e.send(body)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, r.str("campaign.id"), again.str("campaign.id"))
	})

	t.Run("a 400 or an injected 5xx does not burn the reference", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "reference", "r-5", "from", "NOSUCH")).wantError(400, "bad_request")
		r := e.send(sms(num(1), "reference", "r-5")) // another body: no conflict
		assert.Empty(t, r.Header.Get("Idempotent-Replayed"))

		e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 503, Times: 1})
		e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "reference", "r-6")).wantError(503, "server_error")
		r = e.send(sms(num(1), "reference", "r-6"))
		assert.Empty(t, r.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, 2, e.campaignTotal())
	})

	t.Run("the window is 24 hours", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		body := sms(num(1), "reference", "r-7")
		first := e.send(body)
		e.srv.Advance(24*time.Hour - time.Second)
		assert.Equal(t, "true", e.send(body).Header.Get("Idempotent-Replayed"))
		assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.Live))
		e.srv.Advance(time.Second)
		later := e.send(body)
		assert.Empty(t, later.Header.Get("Idempotent-Replayed"))
		assert.NotEqual(t, first.str("campaign.id"), later.str("campaign.id"))
		assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.Live))
		assert.Equal(t, 2, e.campaignTotal())
		// The new window starts with the new request.
		e.srv.Advance(time.Hour)
		assert.Equal(t, later.str("campaign.id"), e.send(body).str("campaign.id"))
	})

	t.Run("per workspace and mode", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		body := sms(num(1), "reference", "r-8")
		live := e.send(body)
		test := e.send(body, e.test())
		assert.Empty(t, test.Header.Get("Idempotent-Replayed"))
		assert.NotEqual(t, live.str("campaign.id"), test.str("campaign.id"))
		other := e.newWorkspace()
		theirs := e.send(body, withKey(other.LiveKey, other.LiveSecret))
		assert.Empty(t, theirs.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.Live))
		assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.Test))
		// Still a conflict in its own scope.
		e.do(http.MethodPost, "/v1/sms/send", with(body, "message", "x"), e.test()).wantError(409, "conflict")
	})

	t.Run("no reference, no deduplication", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		a := e.send(sms(num(1)))
		b := e.send(sms(num(1)))
		assert.NotEqual(t, a.str("campaign.id"), b.str("campaign.id"))
		assert.Empty(t, b.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.Live))
	})
}

// --- mock controls over HTTP -------------------------------------------------------------------

func TestMockControls(t *testing.T) {
	t.Parallel()

	t.Run("workspaces", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		r := e.do(http.MethodPost, "/_mock/workspaces", M{"liveBalance": 50.5, "testBalance": 0, "country": "Ghana"}).wantStatus(http.StatusCreated)
		assert.ElementsMatch(t, []string{"url", "workspaceId", "dashboardToken", "liveKey", "liveSecret", "testKey", "testSecret", "senderId", "requestId"}, keysOf(r.Body))
		assert.Equal(t, e.srv.URL(), r.str("url"))
		assert.Regexp(t, oidRe, r.str("workspaceId"))
		assert.NotEqual(t, e.ws.WorkspaceID, r.str("workspaceId"))
		assert.Regexp(t, `^pk_live_[0-9A-Za-z]{24}$`, r.str("liveKey"))
		assert.Regexp(t, `^sk_live_[0-9A-Za-z]{40}$`, r.str("liveSecret"))
		assert.Regexp(t, `^pk_test_[0-9A-Za-z]{24}$`, r.str("testKey"))
		assert.Regexp(t, `^sk_test_[0-9A-Za-z]{40}$`, r.str("testSecret"))
		assert.Equal(t, "MOCKSMS", r.str("senderId"))
		lk, tk := withKey(r.str("liveKey"), r.str("liveSecret")), withKey(r.str("testKey"), r.str("testSecret"))

		assert.Equal(t, "50.50", e.do(http.MethodGet, "/v1/balance", nil, lk).wantStatus(200).str("data.balance"))
		assert.Equal(t, "0.00", e.do(http.MethodGet, "/v1/balance", nil, tk).wantStatus(200).str("data.balance"))
		s := e.do(http.MethodGet, "/v1/sender-ids", nil, lk).wantStatus(200)
		assert.Equal(t, []string{"MOCKSMS"}, ids(s, "data", "title"))
		assert.Equal(t, "Ghana", s.str("data.0.country"))
		assert.Equal(t, "active", s.str("data.0.status"))
		assert.Equal(t, 2, e.do(http.MethodGet, "/v1/keys", nil, withBearer(r.str("dashboardToken"))).wantStatus(200).int("count"))
		e.do(http.MethodPost, "/v1/sms/send", sms(num(1)), tk).wantError(402, "insufficient_balance")

		d := e.do(http.MethodPost, "/_mock/workspaces", nil).wantStatus(http.StatusCreated)
		dk := withKey(d.str("liveKey"), d.str("liveSecret"))
		assert.Equal(t, "10000.00", e.do(http.MethodGet, "/v1/balance", nil, dk).wantStatus(200).str("data.balance"))
		s = e.do(http.MethodGet, "/v1/sender-ids", nil, dk).wantStatus(200)
		assert.Equal(t, "Nigeria", s.str("data.0.country"))

		e.do(http.MethodPost, "/_mock/workspaces", M{"liveBalance": -1}).wantError(400, "bad_request")
		e.do(http.MethodPost, "/_mock/workspaces", M{"liveBalance": 1, "extra": 1}).wantError(400, "bad_request")
	})

	t.Run("balance", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		path := "/_mock/workspaces/" + e.ws.WorkspaceID + "/balance"
		r := e.do(http.MethodPost, path, M{"mode": "test", "balance": 12.34}).wantStatus(http.StatusOK)
		assert.Equal(t, e.ws.WorkspaceID, r.str("workspaceId"))
		assert.Equal(t, "test", r.str("mode"))
		assert.Equal(t, int64(1234), r.kobo("balance"))
		assert.Equal(t, "NGN", r.str("currency"))
		assert.Equal(t, int64(1234), e.balance(mockserver.Test))
		assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.Live))
		e.do(http.MethodPost, path, rawBody(`{"mode":"live","balance":0.07}`)).wantStatus(http.StatusOK)
		assert.Equal(t, int64(7), e.balance(mockserver.Live))

		e.do(http.MethodPost, path, M{"mode": "prod", "balance": 1}).wantError(400, "bad_request")
		e.do(http.MethodPost, path, M{"mode": "live", "balance": -1}).wantError(400, "bad_request")
		e.do(http.MethodPost, path, M{"mode": "live"}).wantError(400, "bad_request")
		e.do(http.MethodPost, path, rawBody(`{"mode":"live","balance":1.234}`)).wantError(400, "bad_request")
		e.do(http.MethodPost, "/_mock/workspaces/0123456789abcdef01234567/balance", M{"mode": "live", "balance": 1}).wantError(404, "not_found")
		assert.Equal(t, int64(7), e.balance(mockserver.Live))
	})

	t.Run("sender IDs", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		a, b := e.requestSender("Approve1"), e.requestSender("Block1")
		r := e.do(http.MethodPost, "/_mock/sender-ids/"+a+"/approve", nil).wantStatus(http.StatusOK)
		assert.Equal(t, a, r.str("_id"))
		assert.Equal(t, "active", r.str("status"))
		assert.Equal(t, "Approve1", r.str("title"))
		e.send(sms(num(1), "from", "Approve1"))
		r = e.do(http.MethodPost, "/_mock/sender-ids/"+b+"/block", nil).wantStatus(http.StatusOK)
		assert.Equal(t, "blocked", r.str("status"))
		e.do(http.MethodPost, "/_mock/sender-ids/"+a+"/block", nil).wantError(409, "conflict")
		e.do(http.MethodPost, "/_mock/sender-ids/"+b+"/approve", nil).wantError(409, "conflict")
		e.do(http.MethodPost, "/_mock/sender-ids/0123456789abcdef01234567/approve", nil).wantError(404, "not_found")
		e.do(http.MethodPost, "/_mock/sender-ids/nope/block", nil).wantError(404, "not_found")
	})

	t.Run("deliver", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		id := e.send(sms(nums(1, 3))).str("campaign.id")
		path := "/_mock/campaigns/" + id + "/deliver"
		r := e.do(http.MethodPost, path, M{"delivered": 1, "failed": 1}).wantStatus(http.StatusOK)
		assert.Equal(t, id, r.str("campaignId"))
		assert.Equal(t, "sent", r.str("status"))
		assert.Equal(t, map[string]any{"sent": r.get("counts.sent"), "delivered": r.get("counts.delivered"), "failed": r.get("counts.failed"), "dnd": r.get("counts.dnd")}, r.get("counts"))
		assert.Equal(t, []int{1, 1, 1, 0}, []int{r.int("counts.sent"), r.int("counts.delivered"), r.int("counts.failed"), r.int("counts.dnd")})
		e.do(http.MethodPost, path, M{"delivered": 2}).wantError(400, "bad_request")
		e.do(http.MethodPost, path, M{"dnd": -1}).wantError(400, "bad_request")
		r = e.do(http.MethodPost, path, nil).wantStatus(http.StatusOK)
		assert.Equal(t, "partially_delivered", r.str("status"))
		assert.Equal(t, 2, r.int("counts.delivered"))
		e.do(http.MethodPost, "/_mock/campaigns/0123456789abcdef01234567/deliver", nil).wantError(404, "not_found")

		big := e.campaign(sms(nums(100, 101))).str("campaign.id")
		e.do(http.MethodPost, "/_mock/campaigns/"+big+"/deliver", nil).wantError(409, "conflict")
		e.srv.Advance(time.Second)
		r = e.do(http.MethodPost, "/_mock/campaigns/"+big+"/deliver", M{"failed": 100}).wantStatus(http.StatusOK)
		assert.Equal(t, "sent", r.str("status"))
		assert.Equal(t, 100, r.int("counts.failed"))

		// Test-mode campaigns too.
		tid := e.send(sms(nums(1, 2)), e.test()).str("campaign.id")
		r = e.do(http.MethodPost, "/_mock/campaigns/"+tid+"/deliver", M{"delivered": 1}).wantStatus(200)
		assert.Equal(t, 1, r.int("counts.delivered"))
		assert.Equal(t, 1, r.int("counts.sent"))
	})

	t.Run("deliver with an empty object delivers all", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		id := e.send(sms(nums(1, 2))).str("campaign.id")
		r := e.do(http.MethodPost, "/_mock/campaigns/"+id+"/deliver", M{}).wantStatus(http.StatusOK)
		assert.Equal(t, 2, r.int("counts.delivered"))
		assert.Equal(t, 0, r.int("counts.sent"))
	})

	t.Run("dnd", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		r := e.do(http.MethodPost, "/_mock/dnd", M{"numbers": []string{"08025671695", "+2348031234567"}}).wantStatus(http.StatusOK)
		assert.Equal(t, 2, r.int("count"))
		r = e.do(http.MethodPost, "/_mock/dnd", M{"numbers": []string{"2348025671695"}}).wantStatus(http.StatusOK)
		assert.Equal(t, 2, r.int("count"), "already on the register")
		r = e.do(http.MethodPost, "/_mock/dnd", M{"numbers": []string{num(1), "123"}}).wantError(400, "bad_request")
		assert.Equal(t, "numbers[1]", r.str("error.field"))
		id := e.send(sms([]string{"2348031234567", num(5)})).str("campaign.id")
		st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(200)
		assert.Equal(t, []string{"dnd", "sent"}, ids(st, "data.recipients", "status"))
	})

	t.Run("latest OTP", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.do(http.MethodGet, "/_mock/otps/latest?to=08025671695", nil).wantError(404, "not_found")
		e.do(http.MethodGet, "/_mock/otps/latest?to=12", nil).wantError(400, "bad_request")
		e.do(http.MethodGet, "/_mock/otps/latest", nil).wantError(400, "bad_request")
		e.otp(otpBody("08025671695"))
		id, pin := e.otp(otpBody("08025671695", "pin_type", "alphanumeric"))
		r := e.do(http.MethodGet, "/_mock/otps/latest?to=%2B2348025671695", nil).wantStatus(http.StatusOK)
		assert.Equal(t, id, r.str("pinId"))
		assert.Equal(t, pin, r.str("pin"))
		assert.True(t, e.verify(r.str("pinId"), r.str("pin")).wantStatus(200).bool("data.verified"))
	})

	t.Run("clock", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		r := e.do(http.MethodPost, "/_mock/clock", M{"advance": "10m"}).wantStatus(http.StatusOK)
		assertTime(t, fixedNow.Add(10*time.Minute), r, "now")
		assert.WithinDuration(t, fixedNow.Add(10*time.Minute), e.srv.Now(), 0)
		r = e.do(http.MethodPost, "/_mock/clock", nil).wantStatus(http.StatusOK)
		assertTime(t, fixedNow.Add(10*time.Minute), r, "now")
		r = e.do(http.MethodPost, "/_mock/clock", M{"advance": "1h30m15s"}).wantStatus(http.StatusOK)
		assertTime(t, fixedNow.Add(100*time.Minute+15*time.Second), r, "now")
		e.do(http.MethodPost, "/_mock/clock", M{"advance": "-1m"}).wantError(400, "bad_request")
		e.do(http.MethodPost, "/_mock/clock", M{"advance": "soon"}).wantError(400, "bad_request")
		e.do(http.MethodPost, "/_mock/clock", M{"advance": 60}).wantError(400, "bad_request")
		assert.WithinDuration(t, fixedNow.Add(100*time.Minute+15*time.Second), e.srv.Now(), 0)
		e.srv.Advance(-time.Hour) // ignored
		assert.WithinDuration(t, fixedNow.Add(100*time.Minute+15*time.Second), e.srv.Now(), 0)

		// The clock moves what depends on it: here a pin's lifetime.
		id, pin := e.otp(otpBody(num(1), "pin_time_to_live", 1))
		e.do(http.MethodPost, "/_mock/clock", M{"advance": "1m"}).wantStatus(http.StatusOK)
		e.verify(id, pin).wantError(400, "bad_request")
	})

	t.Run("faults", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		r := e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"path": "/v1/balance", "status": 503, "times": 2, "retryAfter": 3}}}).wantStatus(http.StatusOK)
		require.Len(t, r.list("rules"), 1)
		assert.Equal(t, 2, r.int("rules.0.times"))
		f := e.do(http.MethodGet, "/v1/balance", nil).wantError(503, "server_error")
		assert.Equal(t, "3", f.Header.Get("Retry-After"))
		assert.Equal(t, 1, e.do(http.MethodGet, "/_mock/faults", nil).wantStatus(200).int("rules.0.times"))
		e.do(http.MethodGet, "/v1/balance", nil).wantError(503, "server_error")
		e.do(http.MethodGet, "/v1/balance", nil).wantStatus(http.StatusOK)
		assert.Empty(t, e.do(http.MethodGet, "/_mock/faults", nil).wantStatus(200).list("rules"))

		// Method filter, path prefix, order, and DELETE.
		r = e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{
			{"method": "GET", "path": "/v1/sms/*", "status": 500},
			{"path": "/v1/sms/*", "status": 502, "times": 1},
		}}).wantStatus(http.StatusOK)
		assert.Len(t, r.list("rules"), 2)
		e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantError(500, "server_error")
		e.do(http.MethodPost, "/v1/sms/campaigns", sms([]string{num(1)})).wantError(502, "server_error")
		e.send(sms(num(1)))
		e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantError(500, "server_error") // no times: until cleared
		e.do(http.MethodGet, "/v1/balance", nil).wantStatus(http.StatusOK)
		r = e.do(http.MethodDelete, "/_mock/faults", nil).wantStatus(http.StatusOK)
		assert.Empty(t, r.list("rules"))
		assert.Equal(t, 1, e.campaignTotal())
		assert.Empty(t, e.srv.Faults())

		e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"status": 200}}}).wantError(400, "bad_request")
		e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"latency": "2m"}}}).wantError(400, "bad_request")
		e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"latency": "fast"}}}).wantError(400, "bad_request")
		e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"times": -1}}}).wantError(400, "bad_request")
		e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"colour": "red"}}}).wantError(400, "bad_request")
		assert.Empty(t, e.srv.Faults(), "a rejected list adds nothing")
	})

	t.Run("latency", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		const latency = 150 * time.Millisecond
		r := e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"path": "/v1/balance", "latency": "150ms", "times": 1}}}).wantStatus(http.StatusOK)
		assert.Equal(t, "150ms", r.str("rules.0.latency"))
		start := time.Now()
		e.do(http.MethodGet, "/v1/balance", nil).wantStatus(http.StatusOK)
		assert.GreaterOrEqual(t, time.Since(start), latency)
		assert.Empty(t, e.srv.Faults())
	})

	t.Run("drop", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"path": "/v1/sms/send", "drop": true, "times": 1}}}).wantStatus(http.StatusOK)
		body := sms([]string{num(1), num(2)}, "reference", "dropped-1")
		_, err := e.try(http.MethodPost, "/v1/sms/send", body)
		require.Error(t, err, "the client sees a broken connection")

		// Yet the campaign exists and was charged.
		assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.Live))
		l := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
		require.Equal(t, 1, l.int("pagination.total"))
		assert.Equal(t, "dropped-1", l.str("data.0.reference"))
		reqs := e.srv.Requests()
		require.NotEmpty(t, reqs)
		assert.Equal(t, "/v1/sms/send", reqs[0].Path)
		assert.Equal(t, http.StatusAccepted, reqs[0].Status)

		// A retry with the reference replays it: no second debit.
		r := e.send(body)
		assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, l.str("data.0._id"), r.str("campaign.id"))
		assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.Live))
	})

	t.Run("provider failure", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"path": "/v1/sms/campaigns", "providerFailure": true, "times": 1}}}).wantStatus(http.StatusOK)
		r := e.campaign(sms([]string{num(1)}))
		assert.Equal(t, "failed", r.str("campaign.status"))
		assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.Live))
		assert.Equal(t, "sent", e.campaign(sms([]string{num(1)})).str("campaign.status"))
	})

	t.Run("requests are recorded with secrets redacted", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		bal := e.do(http.MethodGet, "/v1/balance", nil)
		list := e.do(http.MethodGet, "/v1/sms/campaigns?page=2&limit=5", nil, e.test())
		key := e.do(http.MethodPost, "/v1/keys", M{"name": "k", "scopes": M{"sms": true}}).wantStatus(201)
		id, pin := e.otp(otpBody(num(1), "pin_type", "alphanumeric", "pin_length", 8))
		verify := e.verify(id, pin).wantStatus(200)
		e.do(http.MethodGet, "/_mock/faults", nil) // controls are not recorded

		r := e.do(http.MethodGet, "/_mock/requests", nil).wantStatus(http.StatusOK)
		for _, s := range []string{e.ws.LiveSecret, e.ws.TestSecret, e.ws.DashboardToken, pin, key.str("data.secret")} {
			assert.NotContains(t, string(r.Raw), s, "a secret was recorded")
		}
		all := r.list("data")
		require.Len(t, all, 5)
		assert.Equal(t, []string{"/v1/balance", "/v1/sms/campaigns", "/v1/keys", "/v1/otp/send", "/v1/otp/verify"}, ids(r, "data", "path"))
		assert.Equal(t, []string{"GET", "GET", "POST", "POST", "POST"}, ids(r, "data", "method"))
		assert.Equal(t, bal.str("requestId"), r.str("data.0.requestId"))
		assert.Equal(t, list.str("requestId"), r.str("data.1.requestId"))
		assert.Equal(t, key.str("requestId"), r.str("data.2.requestId"))
		assert.Equal(t, verify.str("requestId"), r.str("data.4.requestId"))
		assert.Equal(t, "page=2&limit=5", r.str("data.1.query"))
		assert.Equal(t, 200, r.int("data.0.status"))
		assert.Equal(t, 201, r.int("data.2.status"))
		assertTime(t, fixedNow, r, "data.0.time")

		assert.Equal(t, []any{"[REDACTED]"}, r.get("data.0.headers.X-Api-Secret"))
		assert.Equal(t, []any{e.ws.LiveKey}, r.get("data.0.headers.X-Api-Key"))
		assert.Equal(t, []any{"[REDACTED]"}, r.get("data.1.headers.X-Api-Secret"))
		assert.Equal(t, []any{"[REDACTED]"}, r.get("data.2.headers.Authorization"))
		assert.Equal(t, "k", r.str("data.2.body.name"))
		assert.Equal(t, "[REDACTED]", r.str("data.4.body.pin"))
		assert.Equal(t, id, r.str("data.4.body.pin_id"))

		got := e.srv.Requests()
		require.Len(t, got, 5)
		assert.Equal(t, "[REDACTED]", got[4].Headers["X-Api-Secret"][0])
		assert.NotContains(t, string(got[4].Body), pin)
	})

	t.Run("the request log keeps the newest 1,000", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		h := e.srv.Handler()
		for i := range 1003 { // in process: the log is the point here, not the responses
			req, err := http.NewRequest(http.MethodGet, "/v1/sms/campaigns?page="+itoa(i+1), nil)
			require.NoError(t, err)
			req.Header.Set("X-API-Key", e.ws.LiveKey)
			req.Header.Set("X-API-Secret", e.ws.LiveSecret)
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
		got := e.srv.Requests()
		require.Len(t, got, 1000)
		assert.Equal(t, "page=4", got[0].Query, "oldest first")
		assert.Equal(t, "page=1003", got[999].Query)
		r := e.do(http.MethodGet, "/_mock/requests", nil).wantStatus(http.StatusOK)
		assert.Len(t, r.list("data"), 1000)
		assert.Equal(t, "page=4", r.str("data.0.query"))
	})

	t.Run("reset", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		other := e.newWorkspace()
		e.send(sms(num(1)))
		e.send(sms(num(1)), e.test())
		pub, sec, _ := e.createKey(M{"name": "k", "scopes": M{"balance": true}})
		sid := e.requestSender("Brand1")
		e.otp(otpBody(num(1)))
		require.NoError(t, e.srv.AddDND(num(2)))
		e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/nothing", Status: 500})
		e.srv.Advance(time.Hour)

		r := e.do(http.MethodPost, "/_mock/reset", nil).wantStatus(http.StatusOK)
		assert.Equal(t, true, r.get("reset"))

		assert.Equal(t, e.ws, e.srv.Default(), "the default workspace keeps its credentials")
		assert.WithinDuration(t, fixedNow, e.srv.Now(), 0)
		assert.Empty(t, e.srv.Faults())
		assert.Empty(t, e.srv.Requests())
		assert.Equal(t, "10000.00", e.do(http.MethodGet, "/v1/balance", nil).wantStatus(200).str("data.balance"))
		assert.Equal(t, "10000.00", e.do(http.MethodGet, "/v1/balance", nil, e.test()).wantStatus(200).str("data.balance"))
		assert.Equal(t, 0, e.campaignTotal(e.live()))
		assert.Equal(t, 0, e.campaignTotal(e.test()))
		assert.Equal(t, 2, e.do(http.MethodGet, "/v1/keys", nil).wantStatus(200).int("count"))
		e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantError(401, "unauthorized")
		e.do(http.MethodGet, "/v1/balance", nil, withKey(other.LiveKey, other.LiveSecret)).wantError(401, "unauthorized")
		assert.Error(t, e.srv.ApproveSenderID(sid))
		assert.Equal(t, []string{"MOCKSMS"}, ids(e.do(http.MethodGet, "/v1/sender-ids", nil).wantStatus(200), "data", "title"))
		_, _, err := e.srv.LatestOTP(num(1))
		assert.Error(t, err)
		st := e.do(http.MethodGet, "/v1/sms/campaigns/"+e.send(sms(num(2))).str("campaign.id")+"/status", nil).wantStatus(200)
		assert.Equal(t, "sent", st.str("data.recipients.0.status"), "the DND register is empty again")
	})

	t.Run("unknown control", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.do(http.MethodPost, "/_mock/nothing", nil).wantError(404, "not_found")
		r := e.do(http.MethodPut, "/_mock/faults", nil).wantError(405, "method_not_allowed")
		assert.Equal(t, "POST, GET, DELETE", r.Header.Get("Allow"))
	})
}

func keysOf(m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// assertProcessingStatus checks the delivery status of a campaign that is still processing:
// 200, no message ID, nothing counted and no recipients yet.
func assertProcessingStatus(t *testing.T, st *resp, id string) {
	t.Helper()
	assert.Equal(t, id, st.str("data.campaignId"))
	assert.Equal(t, "processing", st.str("data.status"))
	assertNull(t, st, "data.messageId")
	for _, k := range []string{"sent", "delivered", "failed", "dnd"} {
		assert.Equal(t, 0, st.int("data.counts."+k), k)
	}
	assert.NotNil(t, st.get("data.recipients"), "an empty array, not null")
	assert.Empty(t, st.list("data.recipients"))
	assert.Equal(t, 0, st.int("pagination.total"))
}

// assertFailedStatus checks the delivery status of a campaign the provider refused: 200, no
// message ID, every recipient failed; want is the page of recipients expected.
func assertFailedStatus(t *testing.T, st *resp, id string, want []string) {
	t.Helper()
	assert.Equal(t, id, st.str("data.campaignId"))
	assert.Equal(t, "failed", st.str("data.status"))
	assertNull(t, st, "data.messageId")
	assert.Equal(t, []int{0, 0, 2, 0}, []int{st.int("data.counts.sent"), st.int("data.counts.delivered"), st.int("data.counts.failed"), st.int("data.counts.dnd")})
	assert.Equal(t, want, ids(st, "data.recipients", "to"))
	for i := range want {
		assert.Equal(t, "failed", st.str("data.recipients."+itoa(i)+".status"))
	}
}
