package mockserver_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

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
	assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.ModeLive))
	assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.ModeTest))

	latestID, pin, err := e.srv.LatestOTP("+2348025671695")
	require.NoError(t, err)
	assert.Equal(t, pinID, latestID)
	assert.Regexp(t, `^[0-9]{6}$`, pin)
	assert.NotContains(t, string(r.Raw), `"`+pin+`"`, "the pin is not in the send response")

	ok := e.verify(pinID, pin).wantStatus(http.StatusOK)
	assert.Equal(t, map[string]any{"pinId": pinID, "verified": true, "msisdn": "2348025671695"}, ok.get("data"), "a verified pin's answer has no attemptsRemaining")
	assert.Equal(t, "pin_id", e.verify(pinID, pin).wantError(400, "bad_request").str("error.field"), "single use")
	e.verify(pinID, "000000").wantError(400, "bad_request")

	// Test mode: the test wallet, and pins that the live key cannot see.
	tr := e.do(http.MethodPost, "/v1/otp/send", otpBody(num(5)), e.test()).wantStatus(http.StatusOK)
	assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.ModeTest))
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
	assert.False(t, r.has("data.attemptsRemaining"), "a verified pin's answer has no attemptsRemaining")
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
	assert.Equal(t, int64(mockserver.DefaultBalance-5*gp), e.balance(mockserver.ModeLive), "the 429 is not charged")

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
			assert.Equal(t, int64(mockserver.DefaultBalance-tc.parts*gp), e.balance(mockserver.ModeLive))
			id, pin, err := e.srv.LatestOTP(tc.body["to"].(string))
			require.NoError(t, err)
			assert.Equal(t, r.str("data.pinId"), id)
			assert.Regexp(t, tc.pin, pin)
			assert.True(t, e.verify(id, pin).wantStatus(200).bool("data.verified"))
		})
	}
}

// TestOTPRecordsExpire: an OTP's pin record, its per-number bookkeeping and its latest-pin
// entry go two hours after it was sent (an hour at least after any pin expired), once the
// workspace sends again; until then an expired pin says so. Its message stays, verified or not.
func TestOTPRecordsExpire(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	verifiedID, verifiedPin := e.otp(otpBody(num(1)))
	e.verify(verifiedID, verifiedPin).wantStatus(http.StatusOK)
	expiredID, expiredPin := e.otp(otpBody(num(2), "pin_time_to_live", 60))

	require.NoError(t, e.srv.Advance(2*time.Hour-time.Second))
	e.otp(otpBody(num(3)))
	r := e.verify(expiredID, expiredPin).wantError(http.StatusBadRequest, "bad_request")
	assert.Contains(t, r.str("error.message"), "expired", "kept a little under two hours")
	_, _, err := e.srv.LatestOTP(num(2))
	require.NoError(t, err)

	require.NoError(t, e.srv.Advance(time.Second))
	e.otp(otpBody(num(3))) // sending is what forgets the old records
	e.verify(expiredID, expiredPin).wantError(http.StatusNotFound, "not_found")
	e.verify(verifiedID, verifiedPin).wantError(http.StatusNotFound, "not_found")
	for _, n := range []string{num(1), num(2)} {
		_, _, err := e.srv.LatestOTP(n)
		require.Error(t, err, n)
		e.do(http.MethodGet, "/_mock/otps/latest?to="+n, nil).wantError(http.StatusNotFound, "not_found")
	}
	_, _, err = e.srv.LatestOTP(num(3))
	require.NoError(t, err, "the newest pin stays")

	msgs := e.srv.Messages(mockserver.Filter{Kind: "otp", To: num(1)})
	require.Len(t, msgs, 1, "the message outlives its pin record")
	assert.True(t, msgs[0].Verified)
	msgs = e.srv.Messages(mockserver.Filter{Kind: "otp", To: num(2)})
	require.Len(t, msgs, 1)
	assert.False(t, msgs[0].Verified)
}

// TestConcurrentOTP: the per-number limit, single use and the attempt limit hold under
// concurrent requests.
func TestConcurrentOTP(t *testing.T) {
	t.Parallel()

	t.Run("five sends per number", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		rs := e.parallel(16, func(int) call { return post("/v1/otp/send", otpBody(num(1))) })
		count := map[int]int{}
		for _, r := range rs {
			count[r.Status]++
		}
		assert.Equal(t, map[int]int{200: 5, 429: 11}, count)
		assert.Equal(t, int64(mockserver.DefaultBalance-5*gp), e.balance(mockserver.ModeLive))
	})

	t.Run("a pin verifies once", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		id, pin := e.otp(otpBody(num(1)))
		rs := e.parallel(16, func(int) call { return post("/v1/otp/verify", M{"pin_id": id, "pin": pin}) })
		count := map[int]int{}
		for _, r := range rs {
			count[r.Status]++
			if r.Status == http.StatusOK {
				assert.True(t, r.bool("data.verified"))
			}
		}
		assert.Equal(t, map[int]int{200: 1, 400: 15}, count)
	})

	t.Run("five wrong pins lock it", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		id, pin := e.otp(otpBody(num(1)))
		rs := e.parallel(16, func(int) call { return post("/v1/otp/verify", M{"pin_id": id, "pin": "x" + pin}) })
		var left []int
		locked := 0
		for _, r := range rs {
			switch r.Status {
			case http.StatusOK:
				assert.False(t, r.bool("data.verified"))
				left = append(left, r.int("data.attemptsRemaining"))
			case http.StatusTooManyRequests:
				locked++
			default:
				t.Errorf("%d %s", r.Status, r.Raw)
			}
		}
		assert.ElementsMatch(t, []int{4, 3, 2, 1, 0}, left)
		assert.Equal(t, 11, locked)
		e.verify(id, pin).wantError(http.StatusTooManyRequests, "rate_limited")
	})
}

// TestLatestOTPControl: GET /_mock/otps/latest and LatestOTP.
func TestLatestOTPControl(t *testing.T) {
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
}
