package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/clock"
)

// Advance moves the mock's clock forward by d: pins and keys expire, idempotency and
// rate-limit windows pass, processing campaigns are sent, automatic delivery delivers what
// falls due. A negative d, or one that would
// take the clock past 2200-01-01T00:00:00Z, is an error and the clock does not move.
func (a *API) Advance(d time.Duration) error {
	if d < 0 {
		return badRequest("advance", "advance cannot be negative.")
	}
	if !a.clock.Advance(d) {
		return badRequest("advance", "advance would take the mock's clock past %s.", clock.Latest.Format(time.RFC3339))
	}
	if d > 0 {
		a.publish("clock.advanced", struct {
			Now time.Time `json:"now"`
		}{a.clock.Now()})
		a.settle(a.Store(), a.clock.Now().UnixNano())
	}
	return nil
}

// ctlClock is POST /_mock/clock.
func ctlClock(a *API, rq *request) (int, any, error) {
	var in struct {
		Advance string `json:"advance"`
	}
	if e := decodeOptional(rq.body, &in); e != nil {
		return 0, nil, e
	}
	if in.Advance != "" {
		d, err := time.ParseDuration(in.Advance)
		if err != nil || d < 0 || strings.HasPrefix(in.Advance, "-") { // "-0s" too, as the document's pattern says
			return 0, nil, badRequest("advance", "advance must be a non-negative Go duration such as 10m.")
		}
		if err := a.Advance(d); err != nil {
			return 0, nil, err
		}
	}
	return http.StatusOK, struct {
		Now time.Time `json:"now"`
	}{a.clock.Now()}, nil
}
