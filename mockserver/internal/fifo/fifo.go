// Package fifo is a first-in-first-out queue whose pops are amortised O(1), for the mock's
// stores that forget their oldest entries first (pin records, idempotency answers).
//
// It is a leaf: it imports nothing of the mock's.
package fifo

// Queue is a first-in-first-out queue. The popped front is reclaimed once it is at least half
// of the backing array. Its zero value is an empty queue; it is not safe for concurrent use.
type Queue[T any] struct {
	items []T
	head  int
}

// Push adds v at the back.
func (q *Queue[T]) Push(v T) { q.items = append(q.items, v) }

// Len is the number of items queued.
func (q *Queue[T]) Len() int { return len(q.items) - q.head }

// Front returns the oldest item; the queue must not be empty.
func (q *Queue[T]) Front() T { return q.items[q.head] }

// Pop removes the oldest item; the queue must not be empty.
func (q *Queue[T]) Pop() {
	var zero T
	q.items[q.head] = zero
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head >= len(q.items)/2 && q.head >= 32 {
		q.items, q.head = append(q.items[:0:0], q.items[q.head:]...), 0
	}
}
