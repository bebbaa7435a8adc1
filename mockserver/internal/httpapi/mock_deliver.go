package httpapi

import (
	"net/http"
	"sync"
	"time"
)

// deliveryTimer is the one timer of automatic delivery: armed for the earliest time a send's
// recipients fall due, it settles the store then, and arms itself again for what is left.
// Reads settle too (see ServeHTTP), so the timer only matters to those who wait for events.
type deliveryTimer struct {
	mu sync.Mutex
	t  *time.Timer
	at int64 // the mock time it is armed for
}

// due arms the timer for at, of the mock's clock, unless it is armed for earlier.
func (a *API) due(at int64) {
	dt := &a.delivery
	dt.mu.Lock()
	defer dt.mu.Unlock()
	if dt.t != nil && dt.at <= at {
		return
	}
	if dt.t != nil {
		dt.t.Stop()
	}
	dt.at = at
	dt.t = time.AfterFunc(max(time.Duration(at-a.clock.Now().UnixNano()), 0), a.tick)
}

func (a *API) tick() {
	dt := &a.delivery
	dt.mu.Lock()
	dt.t = nil
	dt.mu.Unlock()
	if next, more := a.Store().Settle(a.clock.Now().UnixNano()); more {
		a.due(next)
	}
}

// StopDelivery stops the timer of automatic delivery; the next send arms it again, and reads
// settle what is due meanwhile.
func (a *API) StopDelivery() {
	dt := &a.delivery
	dt.mu.Lock()
	defer dt.mu.Unlock()
	if dt.t != nil {
		dt.t.Stop()
		dt.t = nil
	}
}

// settle settles what automatic delivery has due by now, and arms the timer for what is left.
func (a *API) settle() {
	if next, more := a.Store().Settle(a.clock.Now().UnixNano()); more {
		a.due(next)
	}
}

// DeliverAll settles every recipient still sent, by the rules of automatic delivery (the
// magic numbers, the Do-Not-Disturb register), and returns how many campaigns changed.
func (a *API) DeliverAll() int {
	return a.Store().DeliverAll(a.clock.Now().UnixNano())
}

func ctlDeliverAll(a *API, rq *request) (int, any, error) {
	var in struct{}
	if e := decodeOptional(rq.body, &in); e != nil {
		return 0, nil, e
	}
	return http.StatusOK, struct {
		Campaigns int `json:"campaigns"`
	}{rq.st.store.DeliverAll(rq.now.UnixNano())}, nil
}
