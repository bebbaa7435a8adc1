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

func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }
