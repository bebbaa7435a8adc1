package store

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refMessage is a message as the reference reads it: straight from the workspaces' lists.
type refMessage struct {
	id string // as Message.ID
	to string
}

// reference lists every kept message of the store, newest first, by walking each workspace's
// campaigns and OTP messages and sorting them, as the store did before it kept an index.
func reference(st *Store, ws *workspace) []refMessage {
	type item struct {
		id string
		w  *workspace
		c  *campaign
		o  *otpMessage
	}
	var items []item
	for _, w := range st.allWorkspaces() {
		if ws != nil && w != ws {
			continue
		}
		w.mu.Lock()
		for mi := range w.modes {
			md := &w.modes[mi]
			for _, c := range md.campaigns[md.msgFrom:] {
				items = append(items, item{id: c.ID.String(), w: w, c: c})
			}
			for _, o := range md.otpMsgs {
				items = append(items, item{id: o.id.String(), w: w, o: o})
			}
		}
		w.mu.Unlock()
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(b.id, a.id) }) // hex ids sort as they were issued
	var out []refMessage
	for _, it := range items {
		it.w.mu.Lock()
		if it.o != nil {
			out = append(out, refMessage{it.id + "-0", strconv.FormatUint(it.o.phone, 10)})
		} else {
			for i := len(it.c.recipients) - 1; i >= 0; i-- {
				out = append(out, refMessage{it.id + "-" + strconv.Itoa(i), strconv.FormatUint(it.c.recipients[i].phone(), 10)})
			}
		}
		it.w.mu.Unlock()
	}
	return out
}

// refConversations is the conversations of msgs (newest first): each number once, where its
// newest message is, with its count.
func refConversations(msgs []refMessage) (tos []string, counts map[string]int, latest map[string]string) {
	counts, latest = map[string]int{}, map[string]string{}
	for _, m := range msgs {
		if counts[m.to] == 0 {
			tos = append(tos, m.to)
			latest[m.to] = m.id
		}
		counts[m.to]++
	}
	return tos, counts, latest
}

// checkIndex checks the index against the reference, for the server and each workspace: the
// messages' order and total, every page of them, the conversations, and the lists' own
// invariants (id order, a bounded share of dead entries, counts that add up).
func checkIndex(t *testing.T, st *Store) {
	t.Helper()
	scopes := append([]*workspace{nil}, st.allWorkspaces()...)
	for _, w := range scopes {
		q := Query{mode: -1, kind: -1}
		name := "server"
		if w != nil {
			q.ws, q.hasWS, name = w.id, true, "workspace "+w.id.String()
		}
		want := reference(st, w)
		got, total := st.Messages(q, 0, len(want)+5)
		require.Equal(t, len(want), total, name)
		require.Len(t, got, len(want), name)
		for i := range want {
			require.Equal(t, want[i].id, got[i].ID, "%s: message %d", name, i)
			require.Equal(t, want[i].to, got[i].To, "%s: message %d", name, i)
		}
		for _, limit := range []int{1, 3} { // every page, cut where campaigns are not
			for off := 0; off < len(want); off += limit {
				page, _ := st.Messages(q, off, limit)
				require.Len(t, page, min(limit, len(want)-off), name)
				for k, m := range page {
					require.Equal(t, want[off+k].id, m.ID, "%s: offset %d+%d", name, off, k)
				}
			}
		}

		tos, counts, latest := refConversations(want)
		convs, n, err := st.Conversations(context.Background(), q, 0, len(tos)+5, false)
		require.NoError(t, err)
		require.Equal(t, len(tos), n, name)
		require.Len(t, convs, len(tos), name)
		for i, cv := range convs {
			require.Equal(t, tos[i], cv.Latest.To, "%s: conversation %d", name, i)
			require.Equal(t, counts[cv.Latest.To], cv.Count, "%s: conversation of %s", name, cv.Latest.To)
			require.Equal(t, latest[cv.Latest.To], cv.Latest.ID, "%s: conversation of %s", name, cv.Latest.To)
		}
		// The same answers from a scan: a filter the index has no list for.
		scan := q
		scan.since = 1
		sc, sn, err := st.Conversations(context.Background(), scan, 0, len(tos)+5, false)
		require.NoError(t, err)
		require.Equal(t, n, sn, name)
		require.Equal(t, convs, sc, name)
		sm, stotal := st.Messages(scan, 0, len(want)+5)
		require.Equal(t, total, stotal, name)
		require.Equal(t, got, sm, name)
	}
	checkLists(t, st)
}

// checkLists checks the index's lists' own invariants: entries in id order, a bounded share of
// dead entries and holes, counts that add up, conversations in the order of their newest
// messages.
func checkLists(t *testing.T, st *Store) {
	t.Helper()
	st.idx.mu.RLock()
	defer st.idx.mu.RUnlock()
	for w, sc := range st.idx.byWS {
		require.NotEmpty(t, sc.list, "no empty list is kept for %s", w.id)
	}
	for _, sc := range append([]*scope{st.idx.all}, slices.Collect(mapValues(st.idx.byWS))...) {
		live, dead := 0, 0
		for k, e := range sc.list {
			if k > 0 {
				require.True(t, sc.list[k-1].id.Less(e.id), "the list is in id order")
			}
			if e.dead {
				dead++
			} else {
				live += int(e.n)
			}
		}
		require.Equal(t, dead, sc.dead)
		require.Equal(t, live, sc.msgs)
		require.LessOrEqual(t, 2*dead, len(sc.list), "at most half the entries are dead")
		if len(sc.list) > 0 {
			require.False(t, sc.list[0].dead, "no dead entry at the head")
		}
		n, holes := 0, 0
		var prev *conv
		for k, cv := range sc.order {
			if cv == nil {
				holes++
				continue
			}
			if prev != nil {
				require.True(t, prev.latest.id.Less(cv.latest.id) || prev.latest == cv.latest && prev.i < cv.i,
					"conversations oldest first in order")
			}
			require.Equal(t, int32(k), cv.slot)
			require.Same(t, cv, sc.convs[cv.phone])
			prev = cv
			n++
		}
		require.Equal(t, holes, sc.holes)
		require.LessOrEqual(t, 2*holes, len(sc.order), "at most half the slots are holes")
		require.Len(t, sc.live, (len(sc.order)+convBlock-1)/convBlock)
		for b, live := range sc.live {
			k := 0
			for _, cv := range sc.order[b*convBlock : min((b+1)*convBlock, len(sc.order))] {
				if cv != nil {
					k++
				}
			}
			require.Equal(t, int32(k), live, "block %d's count", b)
		}
		require.Equal(t, len(sc.convs), n, "every conversation is on the list")
	}
}

// otpAt sends an OTP to phone at at.
func otpAt(t *testing.T, st *Store, c Caller, phone uint64, at time.Time) {
	t.Helper()
	_, err := st.SendOTP(c, OTPParams{From: DefaultSenderID, Phone: phone, Text: "Your code is <>",
		Placeholder: "<>", Alphabet: "0123456789", Length: 4, TTL: time.Minute}, at)
	require.NoError(t, err)
}

func mapValues[K comparable, V any](m map[K]V) func(func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// TestIndexFollowsTheStore: after random sends and OTPs over two workspaces and both modes, to
// a few numbers, with the message limit forgetting the oldest and clears now and then, the
// index's pages and conversations are those of the store's lists, in order, and its lists
// keep their invariants.
func TestIndexFollowsTheStore(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{7, 40, 1000} {
		t.Run("limit="+strconv.Itoa(limit), func(t *testing.T) {
			t.Parallel()
			e := newWatchEnv(t, limit)
			rng := rand.New(rand.NewPCG(uint64(limit), 1))
			callers := []Caller{e.live, e.test, e.ws2}
			for step := range 300 {
				c := callers[rng.IntN(len(callers))]
				switch r := rng.IntN(20); {
				case r == 0:
					e.st.ClearMessages()
				case r < 4:
					otpAt(t, e.st, c, 2348000000000+uint64(rng.IntN(6)), testNow.Add(time.Duration(step)*time.Hour))
				default:
					seen := map[uint64]bool{}
					var phones []uint64
					for range 1 + rng.IntN(4) {
						if p := 2348000000000 + uint64(rng.IntN(6)); !seen[p] {
							seen[p] = true
							phones = append(phones, p)
						}
					}
					send(t, e.st, c, testNow, "step "+strconv.Itoa(step), phones...)
				}
				if step%25 == 0 {
					checkIndex(t, e.st)
				}
			}
			checkIndex(t, e.st)
		})
	}
}

// TestIndexUnderConcurrency: sends and OTPs in three workspaces, reads of every kind, trims
// and clears at once (run with -race); afterwards the index is the store's.
func TestIndexUnderConcurrency(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t, 64)
	callers := []Caller{e.live, e.test, e.ws2}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 150 {
				c := callers[(g+i)%len(callers)]
				p := 2348000000000 + uint64((g*7+i)%9)
				switch {
				case g == 0 && i%50 == 49:
					e.st.ClearMessages()
				case i%5 == 0:
					otpAt(t, e.st, c, 2348100000000+uint64(g*1000+i), testNow)
				default:
					send(t, e.st, c, testNow, "hello", p, p+100)
				}
			}
		})
	}
	for g := range 3 {
		wg.Go(func() {
			q := []Query{{mode: -1, kind: -1}, {mode: -1, kind: -1, ws: e.ws2.Workspace, hasWS: true}, {mode: 1, kind: -1}}[g]
			for range 100 {
				msgs, _ := e.st.Messages(q, 0, 10)
				for _, m := range msgs {
					assert.NotEmpty(t, m.Text, "a kept message is whole")
				}
				_, _, err := e.st.Conversations(context.Background(), q, 0, 10, true)
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	checkIndex(t, e.st)
}

// TestClearEmptiesTheIndex: a clear leaves no entry and no conversation, and what is sent
// afterwards is indexed again.
func TestClearEmptiesTheIndex(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t, 0)
	send(t, e.st, e.live, testNow, "one", 2348000000001, 2348000000002)
	e.otp(t, e.ws2, 2348000000001)
	e.st.ClearMessages()
	assert.Empty(t, e.st.idx.all.list)
	assert.Empty(t, e.st.idx.all.convs)
	assert.Empty(t, e.st.idx.byWS)
	send(t, e.st, e.ws2, testNow, "two", 2348000000003)
	checkIndex(t, e.st)
	msgs, total := e.st.Messages(Query{mode: -1, kind: -1}, 0, 10)
	require.Equal(t, 1, total)
	assert.Equal(t, "two", msgs[0].Text)
}

// holdTurns takes every turn, and returns what gives them back.
func holdTurns(t *testing.T, st *Store) func() {
	t.Helper()
	var releases []func()
	for range MaxSearches {
		release, err := st.idx.turn(context.Background(), false)
		require.NoError(t, err)
		releases = append(releases, release)
	}
	return func() {
		for _, r := range releases {
			r()
		}
	}
}

// waiting is how many reads wait for a turn, and how many of them count against
// MaxQueuedSearches.
func waiting(st *Store) (int, int) {
	t := &st.idx.turns
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.queue), t.capped
}

// TestSearchTurns: while MaxSearches scans run, a read that scans waits for a turn (until
// its context ends), a read from the index still answers, and so does a read of one
// campaign alone; one of a campaign by text, a page of messages past MaxOffsetFree, waits.
func TestSearchTurns(t *testing.T) {
	t.Parallel()
	st, c := newTestStore(t, nil)
	a := send(t, st, c, testNow, "hello", 2348000000001, 2348000000002)
	release := holdTurns(t, st)
	defer release()

	queries := []struct {
		name   string
		f      Filter
		offset int
		waits  bool
	}{
		{"contains", Filter{Contains: "hell"}, 0, true},
		{"to", Filter{To: "2348000000001"}, 0, true},
		{"campaign and contains", Filter{CampaignID: a.ID.String(), Contains: "hell"}, 0, true},
		{"campaign and to", Filter{CampaignID: a.ID.String(), To: "2348000000001"}, 0, true},
		{"deep page", Filter{}, MaxOffsetFree + 1, true},
		{"unfiltered", Filter{}, 0, false},
		{"page at MaxOffsetFree", Filter{}, MaxOffsetFree, false},
		{"campaign alone", Filter{CampaignID: a.ID.String()}, 0, false},
	}
	for _, tt := range queries {
		q, err := NewQuery(tt.f)
		require.NoError(t, err)
		for _, queue := range []bool{false, true} {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			_, _, err := st.ReadMessages(ctx, q, tt.offset, 10, queue)
			cancel()
			if tt.waits {
				require.ErrorIs(t, err, context.DeadlineExceeded, "%s: waits for a turn", tt.name)
			} else {
				require.NoError(t, err, tt.name)
			}
			if tt.offset > 0 {
				continue // conversations: every page from the index
			}
			ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
			_, _, err = st.Conversations(ctx, q, tt.offset, 10, queue)
			cancel()
			if tt.waits {
				require.ErrorIs(t, err, context.DeadlineExceeded, "%s: conversations wait for a turn", tt.name)
			} else {
				require.NoError(t, err, tt.name)
			}
		}
	}
	n, capped := waiting(st)
	assert.Zero(t, n, "a read whose context ended left the queue")
	assert.Zero(t, capped)
	list, total, err := st.ReadMessages(context.Background(), Query{mode: -1, kind: -1}, 0, 10, false)
	require.NoError(t, err)
	assert.Equal(t, 2, total)
	assert.Len(t, list, 2)
}

// TestSearchTurnsInArrivalOrder: reads that wait for a turn are served in the order they came,
// so one that came back after a refusal is not passed by others asking again and again; past
// MaxQueuedSearches waiting, a read is refused with Retry-After 1, an in-process read (the Go
// controls) still queues.
func TestSearchTurnsInArrivalOrder(t *testing.T) {
	t.Parallel()
	st, c := newTestStore(t, nil)
	send(t, st, c, testNow, "hello", 2348000000001)
	search, err := NewQuery(Filter{Contains: "hell"})
	require.NoError(t, err)
	var held []func()
	for range MaxSearches {
		release, err := st.idx.turn(context.Background(), false)
		require.NoError(t, err)
		held = append(held, release)
	}

	// First in the queue: a search through ReadMessages, as a client that honours
	// Retry-After sends it; then waiters that hold their turn until told.
	read := make(chan error, 1)
	go func() {
		_, _, err := st.ReadMessages(context.Background(), search, 0, 10, false)
		read <- err
	}()
	require.Eventually(t, func() bool { n, _ := waiting(st); return n == 1 }, time.Minute, time.Millisecond)
	const n = MaxQueuedSearches + MaxQueuedSearches/2 - 1 // the read and these: MaxQueuedSearches plain
	got := make(chan int, n)
	done := make([]chan struct{}, n)
	var wg sync.WaitGroup
	for k := range n {
		queue := k < MaxQueuedSearches && k%2 == 1 // long polls and plain reads alike
		done[k] = make(chan struct{})
		wg.Go(func() {
			release, err := st.idx.turn(context.Background(), queue)
			if !assert.NoError(t, err) {
				return
			}
			got <- k
			<-done[k]
			release()
		})
		require.Eventually(t, func() bool { w, _ := waiting(st); return w == k+2 }, time.Minute, time.Millisecond,
			"waiter %d queues", k)
	}
	_, capped := waiting(st)
	require.Equal(t, MaxQueuedSearches, capped, "the plain reads wait to the bound")
	_, _, err = st.ReadMessages(context.Background(), search, 0, 10, false)
	var rl *RateLimitError
	require.True(t, errors.As(err, &rl), "past MaxQueuedSearches waiting: %v", err)
	assert.Equal(t, 1, rl.RetryAfter)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	_, _, err = st.ReadMessages(ctx, search, 0, 10, true)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded, "an in-process read queues past the bound")

	// One turn goes round: each waiter has it in its place.
	held[0]()
	require.NoError(t, <-read, "the first to wait is served first")
	for k := range n {
		assert.Equal(t, k, <-got, "served in arrival order")
		close(done[k])
	}
	wg.Wait()
	for _, release := range held[1:] {
		release()
	}
	w, capped := waiting(st)
	assert.Zero(t, w)
	assert.Zero(t, capped)
	assert.Equal(t, MaxSearches, st.idx.turns.free, "every turn is back")
}

// TestScanLetsSendsThrough: while a scan is stopped between two campaigns (a slow match), a
// send to the same workspace and its indexing go through: the scan holds no lock a send
// takes.
func TestScanLetsSendsThrough(t *testing.T) {
	t.Parallel()
	st, c := newTestStore(t, nil)
	for i := range 3 * walkChunk {
		send(t, st, c, testNow, "hello "+strconv.Itoa(i), 2348000000001)
	}
	q, err := NewQuery(Filter{Contains: "hello"})
	require.NoError(t, err)
	paused, resume := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		n := 0
		st.each(&q, func(msgRef) bool {
			if n++; n == walkChunk+10 {
				close(paused)
				<-resume
			}
			return true
		})
	}()
	<-paused
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		send(t, st, c, testNow, "meanwhile", 2348000000002)
	}()
	select {
	case <-sent:
	case <-time.After(time.Minute): // a deadlock detector, not a measure
		t.Fatal("a send waited on a paused scan")
	}
	close(resume)
	<-done
}

// TestContainsLower: the search by text ignores case, in ASCII and beyond, as
// strings.Contains of the lower-case text does.
func TestContainsLower(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s, sub string
		want   bool
	}{
		{"Your Code is 1234", "code is", true},
		{"Your Code is 1234", "", true},
		{"abc", "abcd", false},
		{"ABC", "abc", true},
		{"aaab", "aab", true},
		{"Ünïcode TEXT", "text", true},
		{"ÜNÏCODE", "ünï", true},
		{"hello", "world", false},
		{"[Z]", "[z]", true},
		{"@", "`", false}, // the bytes next to A and Z stay as they are
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, containsLower(tt.s, tt.sub), "%q in %q", tt.sub, tt.s)
		assert.Equal(t, strings.Contains(strings.ToLower(tt.s), tt.sub), containsLower(tt.s, tt.sub), "%q in %q", tt.sub, tt.s)
	}
}

// TestIndexWorkIsLinearWhateverTheOrder: campaigns sent at once from many goroutines (their
// ids taken in one order, their sends finished in another) cost the index a bounded number of
// steps per message, as campaigns sent one after another do; before, a campaign indexed after a
// newer one walked every newer conversation for each of its numbers.
func TestIndexWorkIsLinearWhateverTheOrder(t *testing.T) {
	t.Parallel()
	const senders, campaigns, per = 8, 6, 400
	for _, concurrent := range []bool{false, true} {
		t.Run(map[bool]string{false: "one after another", true: "at once"}[concurrent], func(t *testing.T) {
			t.Parallel()
			st, c := newTestStore(t, nil)
			before := st.idx.steps.Load()
			sendAll := func(g int) {
				for k := range campaigns {
					phones := make([]uint64, per)
					for j := range phones {
						if j%4 == 0 { // a number every sender sends to: its conversation moves
							phones[j] = 2347000000000 + uint64(j)
						} else {
							phones[j] = 2348000000000 + uint64((g*campaigns+k)*per+j)
						}
					}
					send(t, st, c, testNow, "hello", phones...)
				}
			}
			var wg sync.WaitGroup
			for g := range senders {
				if concurrent {
					wg.Go(func() { sendAll(g) })
				} else {
					sendAll(g)
				}
			}
			wg.Wait()
			arrivals := int64(2 * senders * campaigns * per) // each message, in the server's list and its workspace's
			steps := st.idx.steps.Load() - before
			assert.LessOrEqual(t, steps, 2*arrivals, "steps of the index for %d arrivals", arrivals)
			checkLists(t, st)
			q := Query{mode: -1, kind: -1}
			convs, n, err := st.Conversations(context.Background(), q, 0, senders*campaigns*per, false)
			require.NoError(t, err)
			q.since = 1 // the same from a scan
			scan, sn, err := st.Conversations(context.Background(), q, 0, senders*campaigns*per, false)
			require.NoError(t, err)
			require.Equal(t, sn, n)
			require.Equal(t, scan, convs)
		})
	}
}

// TestDeepConversationPageCostsThePage: a page of conversations deep in the list costs the
// page and a count per block of conversations, not a walk of every conversation before it,
// and holds the right ones.
func TestDeepConversationPageCostsThePage(t *testing.T) {
	t.Parallel()
	const campaigns, per, limit = 40, 1000, 10
	st, c := newTestStore(t, nil)
	for k := range campaigns {
		phones := make([]uint64, per)
		for j := range phones {
			phones[j] = 2348000000000 + uint64(k*per+j)
		}
		send(t, st, c, testNow, "hello", phones...)
	}
	q := Query{mode: -1, kind: -1}
	for _, offset := range []int{0, 1, 999, 1000, 20_000, 20_555, campaigns*per - limit, campaigns*per - 3} {
		before := st.idx.steps.Load()
		convs, total, err := st.Conversations(context.Background(), q, offset, limit, false)
		require.NoError(t, err)
		steps := st.idx.steps.Load() - before
		require.Equal(t, campaigns*per, total)
		require.Len(t, convs, min(limit, total-offset))
		for i, cv := range convs {
			n := campaigns*per - 1 - (offset + i) // the newest first: the last number sent
			assert.Equal(t, strconv.FormatUint(2348000000000+uint64(n), 10), cv.Latest.To, "offset %d+%d", offset, i)
		}
		blocks := (campaigns*per + convBlock - 1) / convBlock
		assert.LessOrEqual(t, steps, int64(blocks+2*convBlock), "steps of a page at offset %d", offset)
	}
}
