package mockserver

import (
	"sync/atomic"
	"time"
)

// clock is the mock's time: a base clock (the wall clock unless WithClock is given) moved
// forward by Advance. Pin lifetimes, key expiry, the idempotency window, rate-limit windows and
// JWT expiry all read it.
type clock struct {
	base   func() time.Time
	offset atomic.Int64
}

func (c *clock) Now() time.Time {
	return c.base().Add(time.Duration(c.offset.Load())).UTC()
}

// latestTime (2200-01-01T00:00:00Z) is as far as the mock's clock can be moved: well inside
// the range of time.Time.UnixNano (year 2262), which the store keeps times in, with room for
// the longest lifetime it adds to now (a key's 3,650 days).
var latestTime = time.Date(2200, time.January, 1, 0, 0, 0, 0, time.UTC)

// advance moves the clock forward by d >= 0, or reports false and leaves it where it was when
// that would pass latestTime: time never wraps backwards.
func (c *clock) advance(d time.Duration) bool {
	for {
		off := c.offset.Load()
		next := off + int64(d)
		if d < 0 || next < off || c.base().Add(time.Duration(next)).After(latestTime) {
			return false
		}
		if c.offset.CompareAndSwap(off, next) {
			return true
		}
	}
}
