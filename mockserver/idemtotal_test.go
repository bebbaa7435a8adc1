package mockserver_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seedsms/sms-go/mockserver"
)

// Past WithIdempotencyTotalLimit, over every workspace together, the oldest references are
// forgotten even though each workspace is under its own limit (issue 16, item 5).
func TestIdempotencyTotalLimitOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithIdempotencyTotalLimit(2))
	other := e.newWorkspace()
	otherKey := withKey(other.LiveKey, other.LiveSecret)
	first := e.send(sms(num(1), "reference", "r-1")).str("campaign.id")
	e.send(sms(num(1), "reference", "r-2"))
	e.send(sms(num(1), "reference", "o-1"), otherKey) // the other workspace: the total is full, so r-1 goes
	again := e.send(sms(num(1), "reference", "r-1"))
	assert.Empty(t, again.Header.Get("Idempotent-Replayed"), "r-1 was forgotten")
	assert.NotEqual(t, first, again.str("campaign.id"))
	replay := e.send(sms(num(1), "reference", "o-1"), otherKey)
	assert.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"))

	// The option's policy: negative is an error, 0 the default.
	_, err := mockserver.New(mockserver.WithIdempotencyTotalLimit(-1))
	assert.ErrorContains(t, err, "WithIdempotencyTotalLimit")
	e0 := newEnv(t, mockserver.WithIdempotencyTotalLimit(0))
	e0.do(http.MethodGet, "/v1/balance", nil).wantStatus(http.StatusOK)
}
