package mockserver_test

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClockControl: POST /_mock/clock and Advance move the clock forward, never back, and
// what depends on it (a pin's lifetime) follows.
func TestClockControl(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do(http.MethodPost, "/_mock/clock", M{"advance": "10m"}).wantStatus(http.StatusOK)
	assertTime(t, fixedNow.Add(10*time.Minute), r, "now")
	assert.WithinDuration(t, fixedNow.Add(10*time.Minute), e.srv.Now(), 0)
	r = e.do(http.MethodPost, "/_mock/clock", nil).wantStatus(http.StatusOK)
	assertTime(t, fixedNow.Add(10*time.Minute), r, "now")
	r = e.do(http.MethodPost, "/_mock/clock", M{"advance": "1h30m15s"}).wantStatus(http.StatusOK)
	assertTime(t, fixedNow.Add(100*time.Minute+15*time.Second), r, "now")
	e.do(http.MethodPost, "/_mock/clock", M{"advance": "-1m"}).wantError(400, "bad_request")
	e.do(http.MethodPost, "/_mock/clock", M{"advance": "soon"}).wantError(400, "bad_request")
	e.do(http.MethodPost, "/_mock/clock", M{"advance": 60}).wantError(400, "bad_request")
	assert.WithinDuration(t, fixedNow.Add(100*time.Minute+15*time.Second), e.srv.Now(), 0)
	assert.Error(t, e.srv.Advance(-time.Hour))
	assert.WithinDuration(t, fixedNow.Add(100*time.Minute+15*time.Second), e.srv.Now(), 0)

	// The clock moves what depends on it: here a pin's lifetime.
	id, pin := e.otp(otpBody(num(1), "pin_time_to_live", 1))
	e.do(http.MethodPost, "/_mock/clock", M{"advance": "1m"}).wantStatus(http.StatusOK)
	e.verify(id, pin).wantError(400, "bad_request")
}

// TestClockNeverWrapsBackwards: a move past 2200-01-01 is refused and leaves the clock where it
// was; an expired pin stays expired whatever was tried.
func TestClockNeverWrapsBackwards(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pinID, pin := e.otp(otpBody(num(7)))
	require.NoError(t, e.srv.Advance(11*time.Minute))
	e.verify(pinID, pin).wantError(http.StatusBadRequest, "bad_request")

	before := e.srv.Now()
	for _, advance := range []string{"2562047h47m16s", "2000000h", "1600000h"} { // 292, 228, 183 years
		r := e.do(http.MethodPost, "/_mock/clock", M{"advance": advance}).wantError(http.StatusBadRequest, "bad_request")
		assert.Equal(t, "advance", r.str("error.field"))
		assert.Equal(t, before, e.srv.Now(), "the clock did not move")
	}
	e.do(http.MethodPost, "/_mock/clock", M{"advance": "876000h"}).wantStatus(http.StatusOK) // 100 years
	assert.Error(t, e.srv.Advance(876000*time.Hour), "200 years from 2026 is past 2200")
	assert.Error(t, e.srv.Advance(math.MaxInt64))
	assert.False(t, e.srv.Now().After(time.Date(2200, time.January, 1, 0, 0, 0, 0, time.UTC)))
	e.verify(pinID, pin).wantError(http.StatusBadRequest, "bad_request") // still expired
}
