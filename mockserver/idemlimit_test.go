package mockserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seedsms/sms-go/mockserver"
)

// Past WithIdempotencyLimit, the oldest reference of the workspace is forgotten: sending it
// again is a new send, while the newer ones still replay without a second charge.
func TestIdempotencyLimitOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithIdempotencyLimit(2))
	first := map[string]string{}
	for _, ref := range []string{"r-1", "r-2", "r-3"} {
		first[ref] = e.send(sms(num(1), "reference", ref)).str("campaign.id")
	}
	spent := int64(mockserver.DefaultBalance - e.balance(mockserver.Live))
	for _, ref := range []string{"r-3", "r-2"} {
		r := e.send(sms(num(1), "reference", ref))
		assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"), ref)
		assert.Equal(t, first[ref], r.str("campaign.id"), ref)
	}
	assert.Equal(t, spent, int64(mockserver.DefaultBalance-e.balance(mockserver.Live)), "replays are not charged")
	again := e.send(sms(num(1), "reference", "r-1"))
	assert.Empty(t, again.Header.Get("Idempotent-Replayed"), "r-1 was the oldest: forgotten")
	assert.NotEqual(t, first["r-1"], again.str("campaign.id"))
	assert.Equal(t, 4, e.campaignTotal())
}
