package fifo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQueue: the queue gives items back in order through pushes, pops and compactions.
func TestQueue(t *testing.T) {
	t.Parallel()
	var q Queue[int]
	next, want := 0, 0
	for round := range 20 {
		for range round * 7 {
			q.Push(next)
			next++
		}
		for range round * 5 {
			require.Equal(t, want, q.Front())
			q.Pop()
			want++
		}
		require.Equal(t, next-want, q.Len())
		require.LessOrEqual(t, len(q.items), 2*q.Len()+64, "the popped front is reclaimed")
	}
	for q.Len() > 0 {
		require.Equal(t, want, q.Front())
		q.Pop()
		want++
	}
	assert.Equal(t, next, want)
}
