package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOTPStoresShrink: after otpRetention, sending one more OTP leaves only its own pin
// record, pending entry, send times and latest pin: the OTP stores do not grow with the OTPs
// sent over the mock's life.
func TestOTPStoresShrink(t *testing.T) {
	t.Parallel()
	s, w := benchServer(t)
	st := s.state.Load().store
	send := func(phone string, now time.Time) {
		t.Helper()
		o, _, e := w.sendOTP(Live, &otpOp{id: s.ids.Next(), from: DefaultSenderID, phone: phone,
			text: "Your code is 1234", parts: 1, ttl: time.Minute, pin: "1234"}, DefaultGenericPrice, now)
		require.Nil(t, e)
		st.deliverPin(phone, o.pinID, "1234", now.UnixNano())
	}
	start := s.clock.Now()
	for i := range 50 {
		send(strconv.Itoa(2348000000000+i%10), start.Add(time.Duration(i)*time.Minute))
	}
	md := &w.modes[Live.index()]
	sizes := func() []int {
		w.mu.Lock()
		defer w.mu.Unlock()
		st.inboxMu.Lock()
		defer st.inboxMu.Unlock()
		return []int{len(md.otps), md.otpOrder.Len(), len(md.pending), len(md.otpSends), len(st.inbox), st.inboxOrder.Len()}
	}
	assert.Equal(t, []int{50, 50, 10, 10, 10, 50}, sizes())

	send("2348000000099", start.Add(49*time.Minute+otpRetention))
	assert.Equal(t, []int{1, 1, 1, 1, 1, 1}, sizes())
}

// TestMadeKeyAndSenderIDLimits: past maxMadeKeys a new key is 400, past maxMadeSenderIDs a new
// sender ID is 409, both with a message naming the limit; a sender ID refused for another
// reason does not use up the quota.
func TestMadeKeyAndSenderIDLimits(t *testing.T) {
	t.Parallel()
	s, w := benchServer(t)
	st := s.state.Load().store
	h := s.Handler()
	ws := s.Default()
	post := func(path, body string, jwt bool) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if jwt {
			req.Header.Set("Authorization", "Bearer "+ws.DashboardToken)
		} else {
			req.Header.Set("X-API-Key", ws.LiveKey)
			req.Header.Set("X-API-Secret", ws.LiveSecret)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	key := `{"name":"CI","scopes":{"sms":true}}`
	sender := func(title string) string {
		return `{"sender_id":"` + title + `","usecase":"Alerts","company":"Acme"}`
	}

	st.madeKeys.n.Store(maxMadeKeys - 1)
	st.madeSenderIDs.n.Store(maxMadeSenderIDs - 1)
	w.mu.Lock()
	keys, senders := len(w.keys), len(w.senderIDs)
	w.mu.Unlock()

	require.Equal(t, http.StatusConflict, post("/v1/sender-ids", sender(DefaultSenderID), false).Code, "a duplicate")
	tests := []struct {
		name, path, body string
		jwt              bool
		first, next      int
		code             string
	}{
		{"key", "/v1/keys", key, true, http.StatusCreated, http.StatusBadRequest, "bad_request"},
		{"sender ID", "/v1/sender-ids", sender("ACME"), false, http.StatusCreated, http.StatusConflict, "conflict"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.first, post(tt.path, tt.body, tt.jwt).Code, tt.name+": the last one within the limit")
		body := sender("OTHER")
		if tt.jwt {
			body = tt.body
		}
		rec := post(tt.path, body, tt.jwt)
		require.Equal(t, tt.next, rec.Code, tt.name)
		assert.Contains(t, rec.Body.String(), `"code":"`+tt.code+`"`, tt.name)
		assert.Contains(t, rec.Body.String(), "100000", tt.name)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	assert.Equal(t, keys+1, len(w.keys), "one key made, the refused one not stored")
	assert.Equal(t, senders+1, len(w.senderIDs), "one sender ID made, the refused one not stored")
}

// TestTrimLeavesASixtyFourth: past a limit of 640 spread over many workspaces, a trim leaves at
// most 630 (a 64th less), so the next trims wait; the count never passes the limit once a send
// is kept, and what is left is the newest.
func TestTrimLeavesASixtyFourth(t *testing.T) {
	t.Parallel()
	s := New(WithMessageLimit(640), WithBalances(1<<40, 1<<40))
	st := s.state.Load().store
	var ws []*workspace
	for range 20 {
		made, err := s.NewWorkspace(WorkspaceParams{})
		require.NoError(t, err)
		id, _ := ids.Parse(made.WorkspaceID)
		ws = append(ws, st.workspace(id))
	}
	now := s.clock.Now()
	trims, last := 0, int64(0)
	var newest []ids.ID
	for i := range 400 {
		op := &sendOp{from: DefaultSenderID, maxParts: 1, totalParts: 3, template: "Hi",
			recipients: []recipient{{packed: 2348000000001}, {packed: 2348000000002}, {packed: 2348000000003}}}
		c, e := ws[i%len(ws)].send(Live, s.ids, op, DefaultGenericPrice, now)
		require.Nil(t, e)
		newest = append(newest, c.id)
		s.keep(st, 3)
		n := st.stored.Load()
		require.LessOrEqual(t, n, int64(640), "after send %d", i)
		if n < last {
			trims++
			require.LessOrEqual(t, n, int64(630))
		}
		last = n
	}
	// 1,200 recipients sent, 560 past the limit: a trim at most every 10 of them (without the
	// 64th, every send past the limit would trim).
	require.Positive(t, trims)
	assert.LessOrEqual(t, trims, (400*3-640)/10+1)
	total := 0
	for _, w := range ws {
		w.mu.Lock()
		for _, c := range w.modes[0].campaigns {
			assert.Contains(t, newest[len(newest)-int(last)/3:], c.id, "only the newest are left")
			total += len(c.recipients)
		}
		w.mu.Unlock()
	}
	assert.Equal(t, int(last), total)
}
