package mockserver_test

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestOTPMagicNumbers: an OTP follows the magic numbers' and the register's rules as an SMS
// does (an OTP has no delivery delay: what is not magic is delivered at once). The provider
// refuses MagicRefused, and any OTP under a providerFailure rule: failed, refunded, its pin
// neither verifiable nor the phone's. The wallet moves by what the answer says it cost.
func TestOTPMagicNumbers(t *testing.T) {
	t.Parallel()
	const onRegister = "2348039990001"
	tests := []struct {
		name, to  string
		fault     bool
		cost      int64  // kobo the wallet loses
		smsStatus string // of the answer
		atSend    string // the message's status at the send
		slow      string // after SlowDeliveryDelay on the mock's clock
		pinStatus string
	}{
		{"any other", "2348039990002", false, gp, "Message Sent", "delivered", "delivered", "pending"},
		{"on the register", onRegister, false, gp, "Message Sent", "dnd", "dnd", "pending"},
		{"MagicFailed", mockserver.MagicFailed, false, gp, "Message Sent", "failed", "failed", "pending"},
		{"MagicPending", mockserver.MagicPending, false, gp, "Message Sent", "sent", "sent", "pending"},
		{"MagicDND", mockserver.MagicDND, false, gp, "Message Sent", "dnd", "dnd", "pending"},
		{"MagicRefused", mockserver.MagicRefused, false, 0, "Message Failed", "failed", "failed", "failed"},
		{"MagicSlow", mockserver.MagicSlow, false, gp, "Message Sent", "sent", "delivered", "pending"},
		{"providerFailure", "2348039990003", true, 0, "Message Failed", "failed", "failed", "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			require.NoError(t, e.srv.AddDND(onRegister))
			if tt.fault {
				e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"path": "/v1/otp/send", "providerFailure": true, "times": 1}}}).wantStatus(http.StatusOK)
			}
			before := e.balance(mockserver.ModeLive)
			r := e.do(http.MethodPost, "/v1/otp/send", otpBody(tt.to, "pin_time_to_live", 60)).wantStatus(http.StatusOK)
			assert.Equal(t, tt.smsStatus, r.str("data.smsStatus"))
			assert.Equal(t, tt.cost, r.kobo("data.amount"))
			assert.Equal(t, before-tt.cost, e.balance(mockserver.ModeLive), "the wallet moves by the answer's amount")
			pinID := r.str("data.pinId")

			message := func() *resp {
				m := e.do(http.MethodGet, "/_mock/messages?kind=otp&to="+tt.to, nil).wantStatus(http.StatusOK)
				require.Equal(t, 1, m.int("pagination.total"))
				return m
			}
			m := message()
			assert.Equal(t, tt.atSend, m.str("data.0.status"), "at the send")
			assert.Equal(t, tt.cost, m.kobo("data.0.cost"))
			assert.Equal(t, tt.pinStatus, m.str("data.0.pinStatus"))

			latest, pin, err := e.srv.LatestOTP(tt.to)
			if tt.cost == 0 {
				require.Error(t, err, "a refused pin never reached the phone")
				pin = m.str("data.0.pin")
				assert.Equal(t, "pin_id", e.verify(pinID, pin).wantError(http.StatusBadRequest, "bad_request").str("error.field"))
			} else {
				require.NoError(t, err)
				assert.Equal(t, pinID, latest)
			}

			require.NoError(t, e.srv.Advance(mockserver.SlowDeliveryDelay))
			assert.Equal(t, tt.slow, message().str("data.0.status"), "after SlowDeliveryDelay")

			// An SMS to the same number ends where the OTP ends, once everything is settled.
			e.send(sms([]string{tt.to}))
			e.srv.DeliverAll()
			sent := e.do(http.MethodGet, "/_mock/messages?kind=sms&to="+tt.to, nil).wantStatus(http.StatusOK)
			if !tt.fault { // the rule was used up by the OTP
				assert.Equal(t, sent.str("data.0.status"), message().str("data.0.status"), "the SMS's and the OTP's final status")
			}
			if tt.cost > 0 && tt.atSend != "dnd" {
				e.verify(pinID, pin).wantStatus(http.StatusOK)
			}
		})
	}
}

// TestOTPSlowDeliveredByDeliverAll: /_mock/deliver delivers a slow OTP at once, as it does a
// slow SMS, and its history says when.
func TestOTPSlowDeliveredByDeliverAll(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	to := mockserver.MagicSlow
	e.do(http.MethodPost, "/v1/otp/send", otpBody(to)).wantStatus(http.StatusOK)
	msgs := e.srv.Messages(mockserver.Filter{To: to})
	require.Len(t, msgs, 1)
	assert.Equal(t, mockserver.Status("sent"), msgs[0].Status)
	e.do(http.MethodPost, "/_mock/deliver", M{}).wantStatus(http.StatusOK)
	msgs = e.srv.Messages(mockserver.Filter{To: to})
	require.Len(t, msgs, 1)
	assert.Equal(t, mockserver.Status("delivered"), msgs[0].Status)
	d := e.do(http.MethodGet, "/_mock/messages/"+msgs[0].ID, nil).wantStatus(http.StatusOK)
	assert.Equal(t, "sent", d.str("data.history.0.status"))
	assert.Equal(t, "delivered", d.str("data.history.1.status"))
}

// TestProviderFailureFaultMustApplyToASend: a providerFailure rule whose method and path can
// match no send (SMS, campaign, OTP) is refused, saying why; one that can is taken.
func TestProviderFailureFaultMustApplyToASend(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule M
		ok   bool
	}{
		{M{"providerFailure": true}, true},
		{M{"path": "/v1/otp/send", "providerFailure": true}, true},
		{M{"path": "/v1/otp/*", "method": "post", "providerFailure": true}, true},
		{M{"path": "/v1/*", "providerFailure": true}, true},
		{M{"path": "/v1/sms/campaigns", "providerFailure": true}, true},
		{M{"path": "/v1/otp/verify", "providerFailure": true}, false},
		{M{"path": "/v1/balance", "status": 500, "providerFailure": true}, false},
		{M{"method": "GET", "providerFailure": true}, false},
		{M{"path": "/v1/sms/campaigns/*", "providerFailure": true}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.rule), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			r := e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"drop": true, "path": "/v1/balance"}, tt.rule}})
			if tt.ok {
				r.wantStatus(http.StatusOK)
				return
			}
			r.wantError(http.StatusBadRequest, "bad_request")
			assert.Equal(t, "rules[1].providerFailure", r.str("error.field"))
			assert.Contains(t, r.str("error.message"), "/v1/otp/send")
			assert.Empty(t, e.srv.Faults(), "all or none")
		})
	}
}

// TestOTPWalletConservedUnderFaults: concurrent OTPs to the magic numbers, half of them
// refused by a providerFailure rule, move the wallet by exactly the sum of what their
// answers say they cost.
func TestOTPWalletConservedUnderFaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"path": "/v1/otp/send", "providerFailure": true, "probability": 0.5}}}).wantStatus(http.StatusOK)
	numbers := []string{mockserver.MagicFailed, mockserver.MagicPending, mockserver.MagicDND, mockserver.MagicRefused, mockserver.MagicSlow, "2348039990009"}
	before := e.balance(mockserver.ModeLive)
	var (
		wg      sync.WaitGroup
		charged atomic.Int64
		refused atomic.Int32
	)
	for _, to := range numbers {
		for range 5 { // the per-number limit
			wg.Go(func() {
				r, err := e.try(http.MethodPost, "/v1/otp/send", otpBody(to))
				if !assert.NoError(t, err) || !assert.Equal(t, http.StatusOK, r.Status, string(r.Raw)) {
					return
				}
				amount := r.kobo("data.amount")
				if amount == 0 {
					refused.Add(1)
				}
				charged.Add(amount)
			})
		}
	}
	wg.Wait()
	assert.Equal(t, before-charged.Load(), e.balance(mockserver.ModeLive), "the wallet moved by what the answers said")
	assert.GreaterOrEqual(t, refused.Load(), int32(5), "MagicRefused is refused every time")
	assert.Less(t, refused.Load(), int32(30), "not every OTP is refused")
	assert.Len(t, e.srv.Messages(mockserver.Filter{Kind: mockserver.KindOTP}), 30)
}
