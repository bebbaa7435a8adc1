// Package clock is the mock's time: a base clock (the wall clock unless the server is given
// another) moved forward by Advance. Pin lifetimes, key expiry, the idempotency window,
// rate-limit windows, processing campaigns and JWT expiry all read it.
//
// It is a leaf: it imports nothing of the mock's.
package clock

import (
	"sync/atomic"
	"time"
)

// Latest (2200-01-01T00:00:00Z) is as far as the clock can be moved: well inside the range of
// time.Time.UnixNano (year 2262), which the store keeps times in, with room for the longest
// lifetime it adds to now (a key's 3,650 days).
var Latest = time.Date(2200, time.January, 1, 0, 0, 0, 0, time.UTC)

// Clock is a base clock plus an offset. It is safe for concurrent use.
type Clock struct {
	base   func() time.Time
	offset atomic.Int64
}

// New returns a clock that reads base, not moved yet.
func New(base func() time.Time) *Clock { return &Clock{base: base} }

// Now is the base clock's time moved forward by every Advance since New or Reset, in UTC.
func (c *Clock) Now() time.Time {
	return c.base().Add(time.Duration(c.offset.Load())).UTC()
}

// Advance moves the clock forward by d >= 0, or reports false and leaves it where it was when
// d is negative or the move would pass Latest: time never wraps backwards.
func (c *Clock) Advance(d time.Duration) bool {
	for {
		off := c.offset.Load()
		next := off + int64(d)
		if d < 0 || next < off || c.base().Add(time.Duration(next)).After(Latest) {
			return false
		}
		if c.offset.CompareAndSwap(off, next) {
			return true
		}
	}
}

// Reset undoes every Advance: the clock reads its base again.
func (c *Clock) Reset() { c.offset.Store(0) }
