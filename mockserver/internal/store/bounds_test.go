package store

import (
	"errors"
	"strconv"
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
	st, c := newTestStore(t, nil)
	sendOTP := func(phone uint64, now time.Time) {
		t.Helper()
		_, err := st.SendOTP(c, OTPParams{From: DefaultSenderID, Phone: phone, Text: "Your code is <>",
			Placeholder: "<>", Alphabet: "0123456789", Length: 4, TTL: time.Minute}, now)
		require.NoError(t, err)
	}
	for i := range 50 {
		sendOTP(uint64(2348000000000+i%10), testNow.Add(time.Duration(i)*time.Minute))
	}
	md := &c.w.modes[Live]
	sizes := func() []int {
		c.w.mu.Lock()
		defer c.w.mu.Unlock()
		st.latestPins.mu.Lock()
		defer st.latestPins.mu.Unlock()
		return []int{len(md.otps), md.otpOrder.Len(), len(md.pending), len(md.otpSends), len(st.latestPins.pins), st.latestPins.order.Len()}
	}
	assert.Equal(t, []int{50, 50, 10, 10, 10, 50}, sizes())

	sendOTP(2348000000099, testNow.Add(49*time.Minute+otpRetention))
	assert.Equal(t, []int{1, 1, 1, 1, 1, 1}, sizes())
}

// TestMadeKeyAndSenderIDLimits: past maxMadeKeys a new key is refused as bad input, past
// maxMadeSenderIDs a new sender ID as a conflict, both with a message naming the limit; a
// sender ID refused for another reason does not use up the quota.
func TestMadeKeyAndSenderIDLimits(t *testing.T) {
	t.Parallel()
	st, c := newTestStore(t, nil)
	st.madeKeys.n.Store(maxMadeKeys - 1)
	st.madeSenderIDs.n.Store(maxMadeSenderIDs - 1)
	keys, senders := len(c.w.keys), len(c.w.senderIDs)
	sender := func(title string) SenderIDParams {
		return SenderIDParams{Title: title, Usecase: "Alerts", Company: "Acme"}
	}
	now := testNow.UnixNano()

	_, err := st.RequestSenderID(c, sender(DefaultSenderID), now)
	var cf *ConflictError
	require.True(t, errors.As(err, &cf), "a duplicate: %v", err)

	_, _, err = st.CreateKey(c, KeyParams{Name: "CI", Prefix: "pk_live", Scopes: ScopeSMS}, now)
	require.NoError(t, err, "the last key within the limit")
	_, _, err = st.CreateKey(c, KeyParams{Name: "CI", Prefix: "pk_live", Scopes: ScopeSMS}, now)
	var fe *FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Contains(t, fe.Message, "100000")

	_, err = st.RequestSenderID(c, sender("ACME"), now)
	require.NoError(t, err, "the last sender ID within the limit (the duplicate used none)")
	_, err = st.RequestSenderID(c, sender("OTHER"), now)
	require.True(t, errors.As(err, &cf), "%v", err)
	assert.Contains(t, cf.Message, "100000")

	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	assert.Equal(t, keys+1, len(c.w.keys), "one key made, the refused one not stored")
	assert.Equal(t, senders+1, len(c.w.senderIDs), "one sender ID made, the refused one not stored")
}

// TestTrimLeavesASixtyFourth: past a limit of 640 spread over many workspaces, a trim leaves at
// most 630 (a 64th less), so the next trims wait; the count never passes the limit once a send
// is kept, and what is left is the newest.
func TestTrimLeavesASixtyFourth(t *testing.T) {
	t.Parallel()
	st, _ := newTestStore(t, func(c *Config) { c.MaxMessages = 640 })
	var callers []Caller
	for range 20 {
		creds, err := st.NewWorkspace(WorkspaceParams{}, testNow.UnixNano())
		require.NoError(t, err)
		c, err := st.Workspace(creds.WorkspaceID)
		require.NoError(t, err)
		callers = append(callers, c)
	}
	trims, last := 0, int64(0)
	var newest []string
	for i := range 400 {
		a := send(t, st, callers[i%len(callers)], testNow, "Hi", 2348000000001, 2348000000002, 2348000000003)
		newest = append(newest, a.ID.String())
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
	for _, c := range callers {
		list, n := st.Campaigns(c, 1, 100, testNow.UnixNano())
		for _, cp := range list {
			assert.Contains(t, newest[len(newest)-int(last)/3:], cp.ID.String(), "only the newest are left")
			total += cp.Total()
		}
		assert.Equal(t, n, len(list))
	}
	assert.Equal(t, int(last), total)
}

// TestLatestPins: the newest pin per phone, pins past otpRetention forgotten at the next
// delivery.
func TestLatestPins(t *testing.T) {
	t.Parallel()
	var l LatestPins
	now := testNow.UnixNano()
	l.Deliver("2348000000001", "a", "1111", now)
	l.Deliver("2348000000001", "b", "2222", now+1)
	l.Deliver("2348000000002", "c", "3333", now+2)
	id, pin, ok := l.Latest("2348000000001")
	require.True(t, ok)
	assert.Equal(t, []string{"b", "2222"}, []string{id, pin})
	l.Deliver("2348000000003", "d", "4444", now+2+int64(otpRetention))
	for i, phone := range []string{"2348000000001", "2348000000002"} {
		_, _, ok := l.Latest(phone)
		assert.False(t, ok, strconv.Itoa(i))
	}
	_, _, ok = l.Latest("2348000000003")
	assert.True(t, ok)
}
