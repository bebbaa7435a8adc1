package store

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkDueQueue asserts the due queue's invariants: a heap ordered by due time then id, each
// campaign knowing its place, earliest no later than the top (a settle, which runs last in
// these tests, puts it right), and no campaign queued twice.
func checkDueQueue(t *testing.T, q *dueQueue) {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	seen := make(map[*campaign]bool, len(q.h))
	for i, e := range q.h {
		require.Equal(t, int32(i+1), e.c.dueIdx, "entry %d knows its place", i)
		require.False(t, seen[e.c], "entry %d queued twice", i)
		seen[e.c] = true
		if i > 0 {
			require.False(t, q.less(i, (i-1)/2), "entry %d comes before its parent", i)
		}
	}
	if len(q.h) > 0 {
		assert.LessOrEqual(t, q.earliest.Load(), q.h[0].at)
	} else {
		assert.LessOrEqual(t, q.earliest.Load(), int64(never))
	}
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
	assert.Empty(t, st.due.h, "only MagicPending is left, and it is not queued")
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
		assert.Len(t, st.due.h, kept, "one entry per kept campaign")
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
	assert.Empty(t, st.due.h)
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
		require.Empty(t, st.due.h, "only MagicPending is left, and it is not queued")
	})
}
