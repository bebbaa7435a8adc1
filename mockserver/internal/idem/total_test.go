package idem

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// TestTotalLimit: the whole table holds at most its total; past it a workspace first forgets
// its own oldest reference, and a workspace with none takes one from another (issue 16,
// item 5).
func TestTotalLimit(t *testing.T) {
	t.Parallel()
	g := ids.NewGen()
	a, b, c := g.Next(), g.Next(), g.Next()
	m := NewTotal(100, 10)
	for i := range 8 {
		answer(t, m, a, "a"+strconv.Itoa(i), 1)
	}
	for i := range 4 {
		answer(t, m, b, "b"+strconv.Itoa(i), 1)
	}
	assert.Equal(t, 10, m.Len(), "the total holds")
	assert.Equal(t, 8, m.stored(a), "a had room")
	assert.Equal(t, 2, m.stored(b), "b forgot its own oldest")

	answer(t, m, c, "c0", 1) // c has none to forget: a's oldest goes
	assert.Equal(t, 10, m.Len())
	assert.Equal(t, 1, m.stored(c))
	assert.Equal(t, 7, m.stored(a))
	assert.True(t, replays(t, m, a, "a7", 1), "a replay forgets nothing")
	assert.True(t, replays(t, m, b, "b3", 1))
	assert.True(t, replays(t, m, c, "c0", 1))
	assert.False(t, replays(t, m, a, "a0", 1))
	assert.False(t, replays(t, m, b, "b0", 1))

	// Failed first requests free their reference and their place in the total.
	e, _, lead := m.Begin(c, NewKey(0, "failed"), [32]byte{2}, 1)
	assert.True(t, lead)
	m.Finish(c, e, 500, nil, 1)
	assert.LessOrEqual(t, m.Len(), 10)
}

// TestTotalLimitDefault: NewTotal takes the default below 1.
func TestTotalLimitDefault(t *testing.T) {
	t.Parallel()
	assert.Equal(t, int64(DefaultTotalLimit), NewTotal(0, 0).totalLimit)
	assert.Equal(t, int64(DefaultTotalLimit), New(5).totalLimit)
}
