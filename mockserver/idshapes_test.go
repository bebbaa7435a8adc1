package mockserver_test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mockids "github.com/seedsms/sms-go/mockserver/internal/ids"
)

// messageIDOf is the message ID the mock gives the campaign of the given id.
func messageIDOf(t testing.TB, campaignID string) string {
	t.Helper()
	id, ok := mockids.Parse(campaignID)
	require.True(t, ok, campaignID)
	return id.MessageID()
}

// TestLiveIDShapes: message IDs are 25 digits and request IDs "req-" and 24 hex, as the live
// service's samples show; pin IDs are UUID-shaped.
func TestLiveIDShapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seen := map[string]bool{}
	for i := range 5 {
		r := e.send(sms(num(i + 1)))
		m := r.str("campaign.message_id")
		assert.Regexp(t, `^[0-9]{25}$`, m)
		assert.False(t, seen[m], "message ID %s repeated", m)
		seen[m] = true
		assert.Regexp(t, `^req-[0-9a-f]{24}$`, r.str("requestId"))
		assert.Equal(t, r.str("requestId"), r.Header.Get("X-Request-Id"))
	}
	pinID, _ := e.otp(otpBody(num(9)))
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`), pinID)
	e.do(http.MethodGet, "/v1/nowhere", nil).wantError(http.StatusNotFound, "not_found")
}
