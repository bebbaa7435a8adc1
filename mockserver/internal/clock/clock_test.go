package clock

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdvanceAndReset(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("WAT", 3600))
	c := New(func() time.Time { return base })
	assert.Equal(t, base.UTC(), c.Now())
	assert.Equal(t, time.UTC, c.Now().Location())
	require.True(t, c.Advance(time.Hour))
	require.True(t, c.Advance(0))
	assert.Equal(t, base.Add(time.Hour).UTC(), c.Now())
	c.Reset()
	assert.Equal(t, base.UTC(), c.Now())
}

// TestAdvanceNeverWraps: a negative move, one past Latest and one that overflows leave the
// clock where it was.
func TestAdvanceNeverWraps(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := New(func() time.Time { return base })
	for _, d := range []time.Duration{-time.Nanosecond, Latest.Sub(base) + 1, math.MaxInt64} {
		assert.False(t, c.Advance(d), "%v", d)
		assert.Equal(t, base, c.Now())
	}
	require.True(t, c.Advance(Latest.Sub(base)))
	assert.Equal(t, Latest, c.Now())
	assert.False(t, c.Advance(1))
	assert.False(t, c.Advance(math.MaxInt64), "an offset that would overflow")
}
