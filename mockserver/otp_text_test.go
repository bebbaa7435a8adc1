package mockserver_test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestOTPDefaultText: message_text is optional (the live docs say so); without it the phone
// gets the mock's default text with the pin in place of the placeholder, and the TTL in it.
func TestOTPDefaultText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		body M
		want string // with PIN where the pin goes
	}{
		{"defaults", otpBody(num(1), "message_text", "-"), "Your verification code is PIN. It expires in 10 minutes."},
		{"ttl of one", otpBody(num(2), "message_text", "-", "pin_time_to_live", 1), "Your verification code is PIN. It expires in 1 minute."},
		{"own placeholder", otpBody(num(3), "message_text", "-", "pin_placeholder", "{code}", "pin_time_to_live", 5), "Your verification code is PIN. It expires in 5 minutes."},
		{"own text", otpBody(num(4), "message_text", "Code: < 1234 >"), "Code: PIN"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			pinID, pin := e.otp(tc.body)
			msgs := e.srv.Messages(mockserver.Filter{To: tc.body["to"].(string), Kind: "otp"})
			require.Len(t, msgs, 1)
			assert.Equal(t, regexp.MustCompile("PIN").ReplaceAllLiteralString(tc.want, pin), msgs[0].Text)
			assert.True(t, e.verify(pinID, pin).wantStatus(http.StatusOK).bool("data.verified"))
		})
	}
}
