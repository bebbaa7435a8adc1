package httpapi

import (
	"net/http"
	"sync"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// deliveryTimer is the one timer of automatic delivery: armed for the earliest time a send's
// recipients fall due, it settles the store then, off any request's path, and arms itself
// again for what is left. A request settles on its way in only when something is due and the
// timer has not settled it yet (see settle), so that a read never shows what is due unsettled.
type deliveryTimer struct {
	mu      sync.Mutex
	t       *time.Timer
	at      int64 // the mock time it is armed for
	stopped bool  // by StopDelivery: it is not armed again until ResumeDelivery
}

// due arms the timer for at, of the mock's clock, unless it is armed for earlier.
func (a *API) due(at int64) {
	dt := &a.delivery
	dt.mu.Lock()
	defer dt.mu.Unlock()
	if dt.stopped || dt.t != nil && dt.at <= at {
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

// StopDelivery stops the timer of automatic delivery, and keeps it from being armed again
// until ResumeDelivery: the server is closed. Requests still settle what is due on their way
// in.
func (a *API) StopDelivery() {
	dt := &a.delivery
	dt.mu.Lock()
	defer dt.mu.Unlock()
	dt.stopped = true
	if dt.t != nil {
		dt.t.Stop()
		dt.t = nil
	}
}

// ResumeDelivery undoes StopDelivery: the server serves again. It settles what fell due
// meanwhile and arms the timer for what is left.
func (a *API) ResumeDelivery() {
	dt := &a.delivery
	dt.mu.Lock()
	dt.stopped = false
	dt.mu.Unlock()
	if next, more := a.Store().Settle(a.clock.Now().UnixNano()); more {
		a.due(next)
	}
}

// settle settles what automatic delivery has due by now in st, and arms the timer for what is
// left. When nothing is due, it costs one atomic read.
func (a *API) settle(st *store.Store, now int64) {
	if !st.Due(now) {
		return
	}
	if next, more := st.Settle(now); more {
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
