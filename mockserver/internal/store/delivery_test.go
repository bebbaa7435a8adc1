package store

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkDueQueue asserts the due queue's invariants: a heap ordered by due time then id and a
// run in that order with no hole at either end, each campaign knowing its place, earliest no
// later than the first entry (a settle, which runs last in these tests, puts it right), and
// no campaign queued twice.
func checkDueQueue(t *testing.T, q *dueQueue) {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	seen := make(map[*campaign]bool, len(q.h)+q.run.n)
	for i, e := range q.h {
		require.Equal(t, int32(i+1), e.c.dueIdx, "entry %d knows its place", i)
		require.False(t, seen[e.c], "entry %d queued twice", i)
		seen[e.c] = true
		if i > 0 {
			require.False(t, q.less(i, (i-1)/2), "entry %d comes before its parent", i)
		}
	}
	r := &q.run
	var prev *dueEntry
	for i := range r.n {
		slot := (r.head + i) % len(r.ring)
		e := &r.ring[slot]
		if e.c == nil {
			require.True(t, i > 0 && i < r.n-1, "a hole at an end of the run (%d of %d)", i, r.n)
			continue
		}
		require.Equal(t, -int32(slot)-2, e.c.dueIdx, "run entry %d knows its slot", i)
		require.False(t, seen[e.c], "run entry %d queued twice", i)
		seen[e.c] = true
		if prev != nil {
			require.True(t, before(prev, e), "run entry %d comes before the one ahead of it", i)
		}
		prev = e
	}
	require.Equal(t, r.live, len(seen)-len(q.h), "the run counts its entries")
	if len(r.ring) > 64 {
		require.GreaterOrEqual(t, r.live, len(r.ring)/4, "the ring is no more than four times its entries")
	}
	if e := q.top(); e != nil {
		assert.LessOrEqual(t, q.earliest.Load(), e.at)
	} else {
		assert.LessOrEqual(t, q.earliest.Load(), int64(never))
	}
}

// queued is how many campaigns q holds, in the heap and the run; q.mu must be held.
func queued(q *dueQueue) int {
	n := len(q.h)
	for i := range q.run.n {
		if q.run.ring[(q.run.head+i)%len(q.run.ring)].c != nil {
			n++
		}
	}
	return n
}

// counts is the counts of every campaign of c's mode, newest first.
func counts(t *testing.T, st *Store, c Caller, now int64) [][4]int32 {
	t.Helper()
	list, _ := st.Campaigns(c, 1, 1000, now)
	out := make([][4]int32, len(list))
	for i, cp := range list {
		out[i] = cp.Counts
	}
	return out
}

// TestDueQueueSettlesInOrder: campaigns sent at shuffled times with the magic numbers are
// settled exactly when each falls due, in due order, and only those due are visited.
func TestDueQueueSettlesInOrder(t *testing.T) {
	t.Parallel()
	const delay = time.Second
	st, c := newTestStore(t, func(cfg *Config) { cfg.DeliveryDelay = delay })
	rng := rand.New(rand.NewPCG(1, 2))
	type sent struct {
		id    string
		at    time.Time
		phone uint64
	}
	var all []sent
	for i := range 200 {
		at := testNow.Add(time.Duration(rng.IntN(3600)) * time.Second)
		phone := []uint64{2348000000000 + uint64(i), MagicFailed, MagicSlow, MagicPending}[i%4]
		a := send(t, st, c, at, "hello", phone)
		all = append(all, sent{a.ID.String(), at, phone})
		checkDueQueue(t, &st.due)
	}
	assert.Equal(t, int64(0), st.due.visits.Load(), "a send visits nothing")

	// Step the clock over two hours; after each step, exactly what is due is settled.
	for now := testNow; now.Before(testNow.Add(2 * time.Hour)); now = now.Add(7 * time.Second) {
		before := st.due.visits.Load()
		due := 0
		for _, s := range all {
			if !s.at.Add(delay).After(now) && s.at.Add(delay).After(now.Add(-7*time.Second)) {
				due++
			}
			if s.phone == MagicSlow && !s.at.Add(SlowDeliveryDelay).After(now) && s.at.Add(SlowDeliveryDelay).After(now.Add(-7*time.Second)) {
				due++
			}
		}
		assert.Equal(t, due > 0, st.Due(now.UnixNano()), "Due at %v", now)
		st.Settle(now.UnixNano())
		assert.Equal(t, int64(due), st.due.visits.Load()-before, "visits at %v", now)
		checkDueQueue(t, &st.due)
		for _, s := range all {
			_, rs, err := st.CampaignStatus(c, s.id, 1, 1, now.UnixNano())
			require.NoError(t, err)
			want, wantAt := RecipientSent, s.at
			switch {
			case s.phone == MagicPending:
			case s.phone == MagicSlow:
				if !s.at.Add(SlowDeliveryDelay).After(now) {
					want, wantAt = RecipientDelivered, s.at.Add(SlowDeliveryDelay)
				}
			case !s.at.Add(delay).After(now):
				want, wantAt = RecipientDelivered, s.at.Add(delay)
				if s.phone == MagicFailed {
					want = RecipientFailed
				}
			}
			require.Equal(t, want, rs[0].Status, "%d at %v", s.phone, now)
			require.Equal(t, wantAt.UnixNano(), rs[0].UpdatedAt, "%d at %v", s.phone, now)
		}
	}
	st.due.mu.Lock()
	assert.Zero(t, queued(&st.due), "only MagicPending is left, and it is not queued")
	st.due.mu.Unlock()
	assert.False(t, st.Due(1<<62))
}

// TestDueQueueManyWorkspacesAreNotVisited: 10,000 workspaces each with a campaign waiting
// for MagicSlow cost a request nothing until their time comes: no workspace is visited, and
// Due is false; when it comes, each is visited once.
func TestDueQueueManyWorkspacesAreNotVisited(t *testing.T) {
	t.Parallel()
	const n = 10_000
	st, _ := newTestStore(t, func(cfg *Config) { cfg.DeliveryDelay = time.Second; cfg.MaxWorkspaces = n + 1 })
	for range n {
		creds, err := st.NewWorkspace(WorkspaceParams{}, testNow.UnixNano())
		require.NoError(t, err)
		c, err := st.Workspace(creds.WorkspaceID)
		require.NoError(t, err)
		send(t, st, c, testNow, "hello", MagicSlow)
	}
	// At the delay, each campaign's first pass finds only MagicSlow, which waits.
	st.Settle(testNow.Add(time.Second).UnixNano())
	require.Equal(t, int64(n), st.due.visits.Load())
	for _, d := range []time.Duration{2 * time.Second, time.Minute, SlowDeliveryDelay - time.Nanosecond} {
		now := testNow.Add(d).UnixNano()
		assert.False(t, st.Due(now), "nothing due at %v", d)
		next, more := st.Settle(now)
		assert.True(t, more)
		assert.Equal(t, testNow.Add(SlowDeliveryDelay).UnixNano(), next)
	}
	assert.Equal(t, int64(n), st.due.visits.Load(), "no request visited a workspace")
	st.Settle(testNow.Add(SlowDeliveryDelay).UnixNano())
	assert.Equal(t, int64(2*n), st.due.visits.Load())
	_, more := st.Settle(testNow.Add(time.Hour).UnixNano())
	assert.False(t, more)
	assert.Equal(t, int64(2*n), st.due.visits.Load())
}

// TestDueQueueRemoval: DeliverAll leaves nothing queued and earliest at never, so that no
// later request settles; a forgotten campaign leaves the queue; the queue's slice shrinks.
func TestDueQueueRemoval(t *testing.T) {
	t.Parallel()
	t.Run("DeliverAll", func(t *testing.T) {
		t.Parallel()
		st, c := newTestStore(t, func(cfg *Config) { cfg.DeliveryDelay = time.Hour })
		for i := range 1000 {
			send(t, st, c, testNow, "hello", 2348000000000+uint64(i), MagicSlow, MagicPending)
		}
		require.True(t, st.Due(testNow.Add(time.Hour).UnixNano()))
		assert.Equal(t, 1000, st.DeliverAll(testNow.UnixNano()))
		checkDueQueue(t, &st.due)
		st.due.mu.Lock()
		assert.Empty(t, st.due.h)
		assert.LessOrEqual(t, cap(st.due.h), 64, "the slice shrank")
		assert.Zero(t, st.due.run.n)
		assert.LessOrEqual(t, len(st.due.run.ring), 64, "the ring shrank")
		st.due.mu.Unlock()
		assert.False(t, st.Due(testNow.Add(time.Hour).UnixNano()), "nothing left to settle")
		st.Settle(testNow.Add(2 * time.Hour).UnixNano())
		assert.Equal(t, int64(0), st.due.visits.Load())
		for _, cs := range counts(t, st, c, testNow.UnixNano()) {
			assert.Equal(t, [4]int32{RecipientSent: 1, RecipientDelivered: 2}, cs, "MagicPending stays sent")
		}
	})
	t.Run("forgotten", func(t *testing.T) {
		t.Parallel()
		st, c := newTestStore(t, func(cfg *Config) { cfg.DeliveryDelay = time.Hour; cfg.MaxMessages = 640 })
		for i := range 1000 {
			send(t, st, c, testNow.Add(time.Duration(i)), "hello", 2348000000000+uint64(i))
		}
		_, kept := st.Campaigns(c, 1, 1, testNow.UnixNano())
		require.Less(t, kept, 1000)
		checkDueQueue(t, &st.due)
		st.due.mu.Lock()
		assert.Equal(t, kept, queued(&st.due), "one entry per kept campaign")
		st.due.mu.Unlock()
		st.Settle(testNow.Add(2 * time.Hour).UnixNano())
		assert.Equal(t, int64(kept), st.due.visits.Load(), "forgotten campaigns are not visited")
	})
}

// TestDueQueueConcurrent: sends, settles at a clock that moves forward, DeliverAll and trims
// at once, under -race: the queue's invariants hold, money is conserved, and once the clock
// is past every due time nothing is left sent but MagicPending.
func TestDueQueueConcurrent(t *testing.T) {
	t.Parallel()
	const price = 320
	st, c := newTestStore(t, func(cfg *Config) { cfg.DeliveryDelay = time.Second; cfg.MaxMessages = 2000 })
	start := st.Balance(c)
	var clock sync.Mutex
	now := testNow
	tick := func(d time.Duration) time.Time {
		clock.Lock()
		defer clock.Unlock()
		now = now.Add(d)
		return now
	}
	var wg sync.WaitGroup
	var sentMu sync.Mutex
	charged := int64(0)
	for g := range 4 {
		wg.Go(func() {
			for i := range 300 {
				phones := []uint64{2348000000000 + uint64(g*1000+i), []uint64{MagicSlow, MagicFailed, MagicPending, MagicRefused}[i%4]}
				a := send(t, st, c, tick(0), "hello", phones...)
				sentMu.Lock()
				charged += a.Amount
				sentMu.Unlock()
			}
		})
	}
	wg.Go(func() {
		for range 300 {
			st.Settle(tick(3 * time.Second).UnixNano())
		}
	})
	wg.Go(func() {
		for range 20 {
			st.DeliverAll(tick(0).UnixNano())
		}
	})
	wg.Wait()
	checkDueQueue(t, &st.due)
	assert.Equal(t, start-charged, st.Balance(c), "every kobo charged is the wallet's loss, refunds included")
	assert.Equal(t, int64(2*price)*300*3, charged, "a quarter refused and refunded")

	st.Settle(tick(time.Hour).UnixNano())
	checkDueQueue(t, &st.due)
	st.due.mu.Lock()
	assert.Zero(t, queued(&st.due))
	st.due.mu.Unlock()
	for _, cs := range counts(t, st, c, tick(0).UnixNano()) {
		assert.LessOrEqual(t, cs[RecipientSent], int32(1), "at most MagicPending is left sent: %v", cs)
	}
}

// TestDueTimeOfTheLongestDelay: a send at the mock's latest time with the longest delay falls
// due at a time the store can keep, after its send.
func TestDueTimeOfTheLongestDelay(t *testing.T) {
	t.Parallel()
	latest := time.Date(2200, time.January, 1, 0, 0, 0, 0, time.UTC)
	st, c := newTestStore(t, func(cfg *Config) { cfg.DeliveryDelay = MaxDeliveryDelay })
	a := send(t, st, c, latest, "hello", 2348000000001)
	st.Settle(latest.UnixNano())
	_, rs, err := st.CampaignStatus(c, a.ID.String(), 1, 1, latest.UnixNano())
	require.NoError(t, err)
	assert.Equal(t, RecipientSent, rs[0].Status)
	next, more := st.Settle(latest.UnixNano())
	require.True(t, more)
	assert.Equal(t, latest.Add(MaxDeliveryDelay), time.Unix(0, next).UTC())
}

// FuzzDueQueue runs a sequence of sends, clock moves with a settle, and DeliverAlls read from
// the input, in a store small enough to forget campaigns, and checks after each step the due
// queue's invariants and that every kept campaign is settled exactly as far as the clock says.
func FuzzDueQueue(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 5, 0, 3, 1, 200, 2, 0, 0, 1, 1, 255})
	f.Add([]byte{0, 0, 0, 1, 0, 2, 0, 3, 1, 1, 1, 60, 1, 255, 1, 255, 1, 255})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const delay = 30 * time.Second
		st, c := newTestStore(t, func(cfg *Config) { cfg.DeliveryDelay = delay; cfg.MaxMessages = 40 })
		type sent struct {
			id      string
			at      time.Time
			phone   uint64
			settled bool // by DeliverAll
		}
		var all []sent
		now, settledTo := testNow, testNow // the last Settle's time
		for i := 0; i+1 < len(ops); i += 2 {
			switch arg := ops[i+1]; ops[i] % 3 {
			case 0:
				phone := []uint64{2348000000000 + uint64(i), MagicFailed, MagicSlow, MagicPending}[arg%4]
				a := send(t, st, c, now, "hello", phone)
				all = append(all, sent{id: a.ID.String(), at: now, phone: phone})
			case 1:
				now = now.Add(time.Duration(arg) * 5 * time.Second)
				settledTo = now
				st.Settle(now.UnixNano())
			case 2:
				st.DeliverAll(now.UnixNano())
				for j := range all {
					all[j].settled = true
				}
			}
			checkDueQueue(t, &st.due)
			for _, s := range all {
				_, rs, err := st.CampaignStatus(c, s.id, 1, 1, now.UnixNano())
				if err != nil {
					continue // forgotten
				}
				due := s.at.Add(delay)
				if s.phone == MagicSlow {
					due = s.at.Add(SlowDeliveryDelay)
				}
				want, wantAt := RecipientSent, s.at
				switch {
				case s.phone == MagicPending:
				case !due.After(settledTo) && !s.settled:
					wantAt = due
					fallthrough
				case s.settled:
					want = RecipientDelivered
					if s.phone == MagicFailed {
						want = RecipientFailed
					}
				}
				require.Equal(t, want, rs[0].Status, "%d sent at %v, now %v", s.phone, s.at, now)
				if !s.settled {
					require.Equal(t, wantAt.UnixNano(), rs[0].UpdatedAt, "%d sent at %v, now %v", s.phone, s.at, now)
				}
			}
		}
		st.Settle(now.Add(time.Hour).UnixNano())
		checkDueQueue(t, &st.due)
		st.due.mu.Lock()
		defer st.due.mu.Unlock()
		require.Zero(t, queued(&st.due), "only MagicPending is left, and it is not queued")
	})
}

// TestDueQueueRunAndHeap drives the queue alone with random work, as sends, settles, trims and
// DeliverAll do: entries mostly in order (the run), some out of it (the heap), some leaving
// from anywhere. After every step the invariants hold, and what comes out, and when, is what a
// sorted list of the same entries gives.
func TestDueQueueRunAndHeap(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	var q dueQueue
	q.init()
	var (
		model []*campaign             // queued, in no order
		at    = map[*campaign]int64{} // each queued campaign's time
		clock int64
		seq   uint32
		lanes = map[bool]int{} // pushes to the heap (true) and to the run
	)
	newCampaign := func() *campaign {
		seq++
		c := &campaign{}
		c.ID[8], c.ID[9], c.ID[10], c.ID[11] = byte(seq>>24), byte(seq>>16), byte(seq>>8), byte(seq)
		return c
	}
	drop := func(c *campaign) {
		i := slices.Index(model, c)
		model = slices.Delete(model, i, i+1)
		delete(at, c)
	}
	for step := range 20_000 {
		switch op := rng.IntN(10); {
		case op < 6: // a send: mostly a little later than the last, sometimes earlier
			clock += rng.Int64N(1000)
			t0 := clock
			if rng.IntN(8) == 0 {
				t0 -= rng.Int64N(5000)
			}
			c := newCampaign()
			q.mu.Lock()
			c.dueIdx = notQueued
			q.mu.Unlock()
			q.push(nil, c, t0)
			q.mu.Lock()
			lanes[c.dueIdx > 0]++
			q.mu.Unlock()
			model = append(model, c)
			at[c] = t0
		case op < 8 && len(model) > 0: // a trim or DeliverAll takes one out
			c := model[rng.IntN(len(model))]
			q.mu.Lock()
			q.remove(c)
			q.mu.Unlock()
			drop(c)
		default: // a settle up to a time
			now := clock - rng.Int64N(3000)
			var want []*campaign
			for _, c := range model {
				if at[c] <= now {
					want = append(want, c)
				}
			}
			slices.SortFunc(want, func(a, b *campaign) int {
				if before(&dueEntry{at: at[a], c: a}, &dueEntry{at: at[b], c: b}) {
					return -1
				}
				return 1
			})
			q.settling.Lock()
			var got []*campaign
			for {
				e, ok := q.popDue(now)
				if !ok {
					break
				}
				got = append(got, e.c)
			}
			q.settling.Unlock()
			require.Equal(t, len(want), len(got), "step %d: settled up to %d", step, now)
			for i := range want {
				require.Same(t, want[i], got[i], "step %d: entry %d of the settle", step, i)
				drop(got[i])
			}
		}
		checkDueQueue(t, &q)
		q.mu.Lock()
		require.Equal(t, len(model), queued(&q), "step %d", step)
		q.mu.Unlock()
	}
	assert.Greater(t, lanes[false], 5*lanes[true], "most entries went to the run")
	assert.Positive(t, lanes[true], "some went to the heap")
}

// TestDueQueueRunHolesAreBounded: behind a first entry that waits (a long delay), a stream of
// campaigns that come and leave (trimmed, delivered) leaves the run no larger than its
// entries need.
func TestDueQueueRunHolesAreBounded(t *testing.T) {
	t.Parallel()
	var q dueQueue
	q.init()
	mk := func(i int) *campaign {
		c := &campaign{}
		c.ID[10], c.ID[11] = byte(i>>8), byte(i)
		return c
	}
	q.push(nil, mk(0), 1) // waits
	var kept []*campaign
	for i := 1; i < 20_000; i++ {
		c := mk(i)
		q.push(nil, c, int64(1+i))
		kept = append(kept, c)
		if len(kept) > 10 { // the oldest but the first leaves
			q.mu.Lock()
			q.remove(kept[0])
			q.mu.Unlock()
			kept = kept[1:]
		}
	}
	checkDueQueue(t, &q)
	assert.Equal(t, 11, q.run.live)
	assert.LessOrEqual(t, len(q.run.ring), 64, "the ring holds 11 entries, not 20,000 slots")
}
