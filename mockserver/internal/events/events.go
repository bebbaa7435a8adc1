// Package events is how the mock tells what changed: a Bus of the newest events, which the
// event stream (GET /_mock/events) reads. Who waits for new messages (long polls,
// WaitMessage) is handed them by the store itself (store.Watchers).
//
// Publishing appends to a ring of the newest events and wakes each subscriber without
// blocking; a subscriber reads the ring from its last id at its own pace, and one that fell
// behind by more than the ring learns that it lost events.
//
// It is a leaf: it imports nothing of the mock's.
package events

import "sync"

// Bounds of the bus.
const (
	RingSize       = 1024 // events kept for resuming; about 200 KB
	MaxSubscribers = 64   // subscribers at once; Subscribe refuses more
)

// Event is one published change. Its data is encoded to JSON when a stream writes it, not
// when it is published, so that publishing costs nothing while no one listens.
type Event struct {
	ID   uint64
	Type string
	Data any // a plain struct of strings and numbers, never changed once published
}

// Bus is the ring of recent events and the subscribers to wake. It is safe for concurrent
// use.
type Bus struct {
	mu   sync.Mutex
	ring []Event
	last uint64 // id of the newest event; ids start at 1
	subs map[chan struct{}]struct{}

	stopOnce sync.Once
	stopped  chan struct{}
}

// NewBus returns a bus that keeps the newest size events.
func NewBus(size int) *Bus {
	return &Bus{ring: make([]Event, size), subs: map[chan struct{}]struct{}{}, stopped: make(chan struct{})}
}

// Publish adds an event of type typ with data, and wakes every subscriber.
func (b *Bus) Publish(typ string, data any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.last++
	b.ring[b.last%uint64(len(b.ring))] = Event{ID: b.last, Type: typ, Data: data}
	for ch := range b.subs {
		select {
		case ch <- struct{}{}:
		default: // already woken
		}
	}
}

// Subscribe returns a channel woken after each publish and the id of the newest event, or
// false when MaxSubscribers are subscribed already. Unsubscribe must follow.
func (b *Bus) Subscribe() (wake chan struct{}, last uint64, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.subs) >= MaxSubscribers {
		return nil, 0, false
	}
	ch := make(chan struct{}, 1)
	b.subs[ch] = struct{}{}
	return ch, b.last, true
}

// Unsubscribe forgets a channel Subscribe returned.
func (b *Bus) Unsubscribe(wake chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.subs, wake)
}

// After appends the events newer than id to buf, oldest first, and returns the newest id and
// whether events after id were lost (no longer in the ring, or id is from the future).
func (b *Bus) After(id uint64, buf []Event) (evs []Event, newest uint64, lost bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	size := uint64(len(b.ring))
	oldest := uint64(1)
	if b.last > size {
		oldest = b.last - size + 1
	}
	if id > b.last || id+1 < oldest {
		return buf, b.last, true
	}
	for i := id + 1; i <= b.last; i++ {
		buf = append(buf, b.ring[i%size])
	}
	return buf, b.last, false
}

// Stop closes Stopped, once: the server is shutting down and streams should end.
func (b *Bus) Stop() { b.stopOnce.Do(func() { close(b.stopped) }) }

// Stopped is closed by Stop.
func (b *Bus) Stopped() <-chan struct{} { return b.stopped }
