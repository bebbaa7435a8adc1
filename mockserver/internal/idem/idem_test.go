package idem

import (
	"strconv"
	"sync"

	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answer leads a new reference of ws and answers it with a 202 at now.
func answer(t *testing.T, m *Table, ws ids.ID, ref string, now int64) {
	t.Helper()
	e, _, lead := m.Begin(ws, NewKey(0, ref), [32]byte{1}, now)
	require.True(t, lead, "reference %q must be new", ref)
	m.Finish(ws, e, 202, []byte(`{"ref":"`+ref+`"}`), now)
}

// replays reports whether ref of ws is remembered at now: a duplicate waits on nothing and
// gets the stored answer. A reference that is not remembered is led, then failed, which
// frees it again.
func replays(t *testing.T, m *Table, ws ids.ID, ref string, now int64) bool {
	t.Helper()
	e, done, lead := m.Begin(ws, NewKey(0, ref), [32]byte{1}, now)
	if lead {
		m.Finish(ws, e, 500, nil, now)
		return false
	}
	require.Nil(t, done, "an answered reference has nothing to wait for")
	assert.Equal(t, `{"ref":"`+ref+`"}`, string(e.body))
	return true
}

func (m *Table) stored(ws ids.ID) int {
	sp := m.space(ws)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return len(sp.entries)
}

func TestIdempotencyLimitEvictsOldestFirst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		limit     int
		refs      []string
		forgotten []string
		kept      []string
	}{
		{"under the limit", 4, []string{"a", "b", "c"}, nil, []string{"a", "b", "c"}},
		{"at the limit", 3, []string{"a", "b", "c"}, nil, []string{"a", "b", "c"}},
		{"one past", 3, []string{"a", "b", "c", "d"}, []string{"a"}, []string{"b", "c", "d"}},
		{"three past", 2, []string{"a", "b", "c", "d", "e"}, []string{"a", "b", "c"}, []string{"d", "e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, ws := New(tt.limit), ids.ID{1}
			for i, ref := range tt.refs {
				answer(t, m, ws, ref, int64(i))
			}
			assert.Equal(t, min(tt.limit, len(tt.refs)), m.stored(ws))
			now := int64(len(tt.refs))
			// Newest first, so that checking does not evict what is checked next.
			for i := len(tt.kept) - 1; i >= 0; i-- {
				assert.True(t, replays(t, m, ws, tt.kept[i], now), "%q must still be remembered", tt.kept[i])
			}
			for _, ref := range tt.forgotten {
				assert.False(t, replays(t, m, ws, ref, now), "%q must be forgotten", ref)
			}
		})
	}
}

func TestIdempotencyLimitIsPerWorkspace(t *testing.T) {
	t.Parallel()
	m, a, b := New(2), ids.ID{1}, ids.ID{2}
	answer(t, m, a, "x", 0)
	answer(t, m, a, "y", 0)
	for i, ref := range []string{"p", "q", "r", "s"} {
		answer(t, m, b, ref, int64(i))
	}
	assert.True(t, replays(t, m, a, "x", 10), "another workspace's references do not evict these")
	assert.True(t, replays(t, m, a, "y", 10))
	assert.Equal(t, 2, m.stored(b))
}

func TestIdempotencyLimitSparesRunningRequests(t *testing.T) {
	t.Parallel()
	m, ws := New(1), ids.ID{1}
	running, _, lead := m.Begin(ws, NewKey(0, "running"), [32]byte{1}, 0)
	require.True(t, lead)
	answer(t, m, ws, "a", 1) // over the limit, but a running request is never evicted
	answer(t, m, ws, "b", 2)
	_, done, lead := m.Begin(ws, NewKey(0, "running"), [32]byte{1}, 3)
	require.False(t, lead, "a duplicate of a running request waits for it")
	require.NotNil(t, done)
	m.Finish(ws, running, 202, []byte(`{"ref":"running"}`), 4)
	<-done
	assert.True(t, replays(t, m, ws, "running", 5))
	assert.Equal(t, `{"ref":"running"}`, string(running.body))
}

func TestIdempotencyExpiresFromTheQueue(t *testing.T) {
	t.Parallel()
	const h = int64(time.Hour)
	m, ws := New(0), ids.ID{1}
	for i := range 5 {
		answer(t, m, ws, string(rune('a'+i)), int64(i)*h) // a at 0h, ..., e at 4h
	}
	window := int64(Window)
	tests := []struct {
		at     int64
		stored int
	}{
		{window - 1, 5},       // none has expired
		{window, 4},           // a's window has passed
		{window + 2*h, 2},     // a, b and c
		{window + 4*h - 1, 1}, // e is left
		{window + 4*h, 0},
	}
	for _, tt := range tests {
		m.expireAt(ws, tt.at)
		assert.Equal(t, tt.stored, m.stored(ws), "at %v", time.Duration(tt.at))
	}
	sp := m.space(ws)
	assert.Zero(t, sp.queue.Len(), "the queue is empty")
}

func (m *Table) expireAt(ws ids.ID, now int64) {
	sp := m.space(ws)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.expire(now)
}

func TestIdempotencyReusedReferenceOutlivesItsOldQueueEntry(t *testing.T) {
	t.Parallel()
	window := int64(Window)
	m, ws := New(0), ids.ID{1}
	answer(t, m, ws, "a", 0)
	// a's window has passed: a new request leads and is answered at window+1, while a's old
	// entry is still in the queue. Popping that old entry must not forget the new answer.
	answer(t, m, ws, "a", window)
	assert.True(t, replays(t, m, ws, "a", window+1))
	assert.True(t, replays(t, m, ws, "a", 2*window-1))
	assert.False(t, replays(t, m, ws, "a", 2*window))
}

// Requests finish in an order other than that of their clocks, so an expired reference may
// sit behind one that has not expired, where expiry does not reach it; a new request with
// that reference takes it over. Neither popping the old entry later nor evicting it on the
// way in may forget the new one or miscount the table.
func TestIdempotencyTakeoverOfAnExpiredReference(t *testing.T) {
	t.Parallel()
	window := int64(Window)
	tests := []struct {
		name  string
		limit int
		held  int // references held once a is taken over
	}{
		{"the old a stays queued", 0, 2},
		{"the way in evicts b and the old a", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, ws := New(tt.limit), ids.ID{1}
			b, _, _ := m.Begin(ws, NewKey(0, "b"), [32]byte{1}, 0)
			a, _, _ := m.Begin(ws, NewKey(0, "a"), [32]byte{1}, 0)
			m.Finish(ws, b, 202, []byte(`{"ref":"b"}`), 20) // queued first, expires last
			m.Finish(ws, a, 202, []byte(`{"ref":"a"}`), 10)
			answer(t, m, ws, "a", 10+window) // a has expired behind b: taken over
			require.Equal(t, tt.held, m.Len())
			assert.True(t, replays(t, m, ws, "a", 20+window), "popping the old a forgot the new one")
			assert.Equal(t, 1, m.Len())
			assert.False(t, replays(t, m, ws, "a", 10+2*window))
			assert.Zero(t, m.Len())
		})
	}
}

// TestIdempotencyQueueStaysAtTheLimit: evicted entries leave the queue too (the queue itself
// reclaims its popped front: fifo's TestQueue).
func TestIdempotencyQueueStaysAtTheLimit(t *testing.T) {
	t.Parallel()
	m, ws := New(10), ids.ID{1}
	for i := range 5000 {
		answer(t, m, ws, "r"+strconv.Itoa(i), int64(i))
	}
	sp := m.space(ws)
	assert.Equal(t, 10, m.stored(ws))
	assert.Less(t, sp.queue.Len(), 11)
}

// Duplicates that arrive while the leader finishes each get either the channel to wait on or
// the stored answer: under -race, reading the entry's channel after the lock was released
// (while Finish cleared it) was a data race.
func TestDuplicatesWhileTheLeaderFinishes(t *testing.T) {
	t.Parallel()
	m := New(10)
	var ws ids.ID
	for round := range 200 {
		k := NewKey(0, "ref-"+strconv.Itoa(round))
		e, _, lead := m.Begin(ws, k, [32]byte{1}, 0)
		require.True(t, lead)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				d, done, lead := m.Begin(ws, k, [32]byte{1}, 0)
				if assert.False(t, lead, "a running reference has one leader") && done != nil {
					<-done
				}
				status, body := d.Answer()
				assert.Equal(t, 202, status)
				assert.NotNil(t, body)
			})
		}
		m.Finish(ws, e, 202, []byte(`{}`), 0)
		wg.Wait()
	}
}
