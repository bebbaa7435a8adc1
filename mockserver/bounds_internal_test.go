package mockserver

import (
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
	s, w := benchServer(t)
	st := s.state.Load().store
	send := func(phone string, now time.Time) {
		t.Helper()
		o, _, e := w.sendOTP(Live, &otpOp{id: s.ids.next(), from: DefaultSenderID, phone: phone,
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
		return []int{len(md.otps), md.otpOrder.len(), len(md.pending), len(md.otpSends), len(st.inbox), st.inboxOrder.len()}
	}
	assert.Equal(t, []int{50, 50, 10, 10, 10, 50}, sizes())

	send("2348000000099", start.Add(49*time.Minute+otpRetention))
	assert.Equal(t, []int{1, 1, 1, 1, 1, 1}, sizes())
}

// TestFIFO: the queue gives items back in order through pushes, pops and compactions.
func TestFIFO(t *testing.T) {
	t.Parallel()
	var q fifo[int]
	next, want := 0, 0
	for round := range 20 {
		for range round * 7 {
			q.push(next)
			next++
		}
		for range round * 5 {
			require.Equal(t, want, q.front())
			q.pop()
			want++
		}
		require.Equal(t, next-want, q.len())
		require.LessOrEqual(t, len(q.items), 2*q.len()+64, "the popped front is reclaimed")
	}
	for q.len() > 0 {
		require.Equal(t, want, q.front())
		q.pop()
		want++
	}
	assert.Equal(t, next, want)
}
