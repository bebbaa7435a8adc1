package backoff

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestJitter(t *testing.T) {
	t.Parallel()
	lo, hi := 100*time.Millisecond, 2*time.Second
	tests := []struct {
		attempt  int
		ceil     time.Duration
		reachTop bool
	}{
		{0, lo, true},
		{1, 2 * lo, true},
		{3, 8 * lo, true},
		{10, hi, true},
	}
	for _, tt := range tests {
		top := time.Duration(0)
		for range 2000 {
			d := Jitter(lo, hi, tt.attempt)
			assert.GreaterOrEqual(t, d, lo, "attempt %d", tt.attempt)
			assert.LessOrEqual(t, d, tt.ceil, "attempt %d", tt.attempt)
			top = max(top, d)
		}
		assert.Greater(t, top, tt.ceil*3/4, "attempt %d: the waits spread up to the ceiling", tt.attempt)
	}
	assert.Equal(t, lo, Jitter(lo, lo, 5), "no room: the minimum")
	assert.Equal(t, time.Duration(0), Jitter(0, hi, 5), "a zero minimum never doubles")
}
