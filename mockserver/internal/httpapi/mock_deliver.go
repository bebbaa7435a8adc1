package httpapi

import (
	"net/http"
	"sync"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// deliveryTimer is the one timer of automatic delivery: armed for the earliest time a send's
// recipients fall due, it settles the store then, off any request's path, and arms itself
// again for what is left, at least deliveryGap later: under a stream of sends, which fall due
// one after the other, each firing settles what fell due since the last in one pass instead
// of waking once a send. A request settles on its way in only when something is due and the
// timer has not settled it yet (see settle), so that a read never shows what is due unsettled;
// a send, whose answer shows nothing that settling changes, leaves it to the timer. The gap
// delays only what nobody reads (events, long polls), by at most deliveryGap.
type deliveryTimer struct {
	mu      sync.Mutex
	t       *time.Timer // made on first use, then Reset
	armed   bool
	at      int64 // the mock time it is armed for
	stopped bool  // by StopDelivery: it is not armed again until ResumeDelivery
	fired   int   // times it fired, for tests
}

// deliveryGap is the least time between two firings of the delivery timer.
const deliveryGap = time.Millisecond

// due arms the timer for at, of the mock's clock, unless it is armed for earlier.
func (a *API) due(at int64) {
	dt := &a.delivery
	dt.mu.Lock()
	defer dt.mu.Unlock()
	if dt.stopped || dt.armed && dt.at <= at {
		return
	}
	dt.at, dt.armed = at, true
	d := max(time.Duration(at-a.clock.Now().UnixNano()), 0)
	if dt.t == nil {
		dt.t = time.AfterFunc(d, a.tick)
		return
	}
	dt.t.Reset(d) // a firing already under way runs too: one more settle, which finds nothing
}

func (a *API) tick() {
	dt := &a.delivery
	dt.mu.Lock()
	dt.armed = false
	dt.fired++
	dt.mu.Unlock()
	now := a.clock.Now().UnixNano()
	if next, more := a.Store().Settle(now); more {
		a.due(max(next, now+int64(deliveryGap)))
	}
}

// StopDelivery stops the timer of automatic delivery, and keeps it from being armed again
// until ResumeDelivery: the server is closed. Requests that read still settle what is due on
// their way in.
func (a *API) StopDelivery() {
	dt := &a.delivery
	dt.mu.Lock()
	defer dt.mu.Unlock()
	dt.stopped = true
	if dt.t != nil {
		dt.t.Stop()
		dt.armed = false
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
		a.due(max(next, now+int64(deliveryGap))) // as tick does: never sooner than the gap
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
