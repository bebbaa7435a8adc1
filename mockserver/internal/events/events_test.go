package events

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func types(evs []Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// TestBusKeepsTheNewest: After returns what followed an id, and says so when the ring no
// longer holds it or the id is from the future.
func TestBusKeepsTheNewest(t *testing.T) {
	t.Parallel()
	b := NewBus(3)
	for _, typ := range []string{"a", "b", "c", "d"} {
		b.Publish(typ, nil)
	}
	evs, newest, lost := b.After(1, nil)
	assert.Equal(t, []string{"b", "c", "d"}, types(evs))
	assert.Equal(t, uint64(4), newest)
	assert.False(t, lost)
	_, _, lost = b.After(0, nil)
	assert.True(t, lost, "event 1 is no longer in the ring")
	_, _, lost = b.After(5, nil)
	assert.True(t, lost, "an id from the future")
	evs, _, lost = b.After(4, nil)
	assert.Empty(t, evs)
	assert.False(t, lost)
}

// TestBusWakesWithoutBlocking: a publish wakes every subscriber once, however many
// publishes it misses, and past MaxSubscribers Subscribe refuses.
func TestBusWakesWithoutBlocking(t *testing.T) {
	t.Parallel()
	b := NewBus(RingSize)
	subs := make([]chan struct{}, 0, MaxSubscribers)
	for range MaxSubscribers {
		ch, _, ok := b.Subscribe()
		require.True(t, ok)
		subs = append(subs, ch)
	}
	_, _, ok := b.Subscribe()
	assert.False(t, ok)
	for range 10 {
		b.Publish("x", nil) // nobody reads: must not block
	}
	for _, ch := range subs {
		<-ch
		select {
		case <-ch:
			t.Fatal("woken once per missed run of publishes")
		default:
		}
	}
	b.Unsubscribe(subs[0])
	_, last, ok := b.Subscribe()
	assert.True(t, ok)
	assert.Equal(t, uint64(10), last)
	b.Stop()
	b.Stop()
	<-b.Stopped()
}
