package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watchEnv is a store with a second workspace, a test-mode caller and a second active sender
// ID, for the watch tests.
type watchEnv struct {
	st              *Store
	live, test, ws2 Caller
}

func newWatchEnv(t *testing.T, maxMessages int) watchEnv {
	t.Helper()
	st, live := newTestStore(t, func(c *Config) {
		c.Watchers = &Watchers{}
		if maxMessages > 0 {
			c.MaxMessages = maxMessages
		}
	})
	creds, err := st.NewWorkspace(WorkspaceParams{}, testNow.UnixNano())
	require.NoError(t, err)
	ws2, err := st.Workspace(creds.WorkspaceID)
	require.NoError(t, err)
	test := live
	test.Mode = Test
	s, err := st.RequestSenderID(live, SenderIDParams{Title: "SHOPCO", Usecase: "orders", Company: "Shop"}, testNow.UnixNano())
	require.NoError(t, err)
	_, err = st.MoveSenderID(s.ID.String(), SenderActive)
	require.NoError(t, err)
	return watchEnv{st: st, live: live, test: test, ws2: ws2}
}

func (e watchEnv) sendFrom(t *testing.T, c Caller, from, message string, at time.Time, targets ...Target) Accepted {
	t.Helper()
	a, err := e.st.Send(c, SendParams{From: from, Message: message, Targets: targets, Personalize: true}, at)
	require.NoError(t, err)
	return a
}

func (e watchEnv) otp(t *testing.T, c Caller, phone uint64) {
	t.Helper()
	_, err := e.st.SendOTP(c, OTPParams{From: DefaultSenderID, Phone: phone, Text: "Your code is <>",
		Placeholder: "<>", Alphabet: "0123456789", Length: 4, TTL: time.Minute}, testNow)
	require.NoError(t, err)
}

func to(phones ...uint64) []Target {
	out := make([]Target, len(phones))
	for i, p := range phones {
		out[i] = Target{Phone: p, Index: i}
	}
	return out
}

// TestWatchMatchesOnlyWhatArrives: a watch is handed the first new messages its filter
// selects, whichever filter, and nothing that it does not select wakes it; in a campaign
// where one recipient of three matches, it gets that one.
func TestWatchMatchesOnlyWhatArrives(t *testing.T) {
	t.Parallel()
	const a, b, c = 2348000000001, 2348000000002, 2348000000003
	later := testNow.Add(2 * time.Hour)
	tests := []struct {
		name   string
		filter func(t *testing.T, e watchEnv) Filter
		miss   func(t *testing.T, e watchEnv) // sends the filter does not select
		hit    func(t *testing.T, e watchEnv) // sends it selects
		want   []string                       // the numbers handed, newest first
		check  func(t *testing.T, m Message)
	}{
		{
			name:   "to, one recipient of a campaign",
			filter: func(*testing.T, watchEnv) Filter { return Filter{To: "+234 800 000 0002"} },
			miss:   func(t *testing.T, e watchEnv) { e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(a, c)...) },
			hit:    func(t *testing.T, e watchEnv) { e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(a, b, c)...) },
			want:   []string{"2348000000002"},
		},
		{
			name:   "from, in any case",
			filter: func(*testing.T, watchEnv) Filter { return Filter{From: "shopco"} },
			miss:   func(t *testing.T, e watchEnv) { e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(a)...) },
			hit:    func(t *testing.T, e watchEnv) { e.sendFrom(t, e.live, "SHOPCO", "hi", testNow, to(a, b)...) },
			want:   []string{"2348000000002", "2348000000001"},
		},
		{
			name: "campaignId of a campaign already sent: nothing new is of it",
			filter: func(t *testing.T, e watchEnv) Filter {
				return Filter{CampaignID: e.sendFrom(t, e.live, DefaultSenderID, "old", testNow, to(a)...).ID.String()}
			},
			miss: func(t *testing.T, e watchEnv) {
				e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(a, b)...)
				e.otp(t, e.live, a)
			},
		},
		{
			name:   "kind otp",
			filter: func(*testing.T, watchEnv) Filter { return Filter{Kind: "otp", To: "2348000000001"} },
			miss:   func(t *testing.T, e watchEnv) { e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(a)...) },
			hit:    func(t *testing.T, e watchEnv) { e.otp(t, e.live, a) },
			want:   []string{"2348000000001"},
			check: func(t *testing.T, m Message) {
				assert.Equal(t, "otp", m.Kind)
				assert.Len(t, m.Pin, 4)
			},
		},
		{
			name:   "kind sms",
			filter: func(*testing.T, watchEnv) Filter { return Filter{Kind: "sms"} },
			miss:   func(t *testing.T, e watchEnv) { e.otp(t, e.live, a) },
			hit:    func(t *testing.T, e watchEnv) { e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(c)...) },
			want:   []string{"2348000000003"},
		},
		{
			name:   "contains, in any case, one personalised recipient of three",
			filter: func(*testing.T, watchEnv) Filter { return Filter{Contains: "PARCEL"} },
			miss:   func(t *testing.T, e watchEnv) { e.sendFrom(t, e.live, DefaultSenderID, "hello", testNow, to(a, b)...) },
			hit: func(t *testing.T, e watchEnv) {
				e.sendFrom(t, e.live, DefaultSenderID, "Hi {{name}}", testNow,
					Target{Phone: a, Name: "Ada", Index: 0}, Target{Phone: b, Name: "Parcelia", Index: 1}, Target{Phone: c, Name: "Chi", Index: 2})
			},
			want:  []string{"2348000000002"},
			check: func(t *testing.T, m Message) { assert.Equal(t, "Hi Parcelia", m.Text) },
		},
		{
			name:   "since",
			filter: func(*testing.T, watchEnv) Filter { return Filter{Since: testNow.Add(time.Hour)} },
			miss: func(t *testing.T, e watchEnv) {
				e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(a)...)
				e.otp(t, e.live, b) // sent at testNow
			},
			hit:  func(t *testing.T, e watchEnv) { e.sendFrom(t, e.live, DefaultSenderID, "hi", later, to(b)...) },
			want: []string{"2348000000002"},
		},
		{
			name:   "workspace",
			filter: func(t *testing.T, e watchEnv) Filter { return Filter{WorkspaceID: e.ws2.Workspace.String()} },
			miss: func(t *testing.T, e watchEnv) {
				e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(a)...)
				e.otp(t, e.live, b)
			},
			hit:  func(t *testing.T, e watchEnv) { e.otp(t, e.ws2, c) },
			want: []string{"2348000000003"},
		},
		{
			name:   "mode",
			filter: func(*testing.T, watchEnv) Filter { return Filter{Mode: "test"} },
			miss:   func(t *testing.T, e watchEnv) { e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(a)...) },
			hit:    func(t *testing.T, e watchEnv) { e.sendFrom(t, e.test, DefaultSenderID, "hi", testNow, to(b)...) },
			want:   []string{"2348000000002"},
			check:  func(t *testing.T, m Message) { assert.Equal(t, Test, m.Mode) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newWatchEnv(t, 0)
			q, err := NewQuery(tt.filter(t, e))
			require.NoError(t, err)
			wt := e.st.cfg.Watchers.Watch(q, 0, 20)
			defer wt.Stop()
			tt.miss(t, e)
			select {
			case <-wt.Done():
				list, _ := wt.Messages()
				t.Fatalf("woken by messages the filter does not select: %+v", list)
			default:
			}
			if tt.hit == nil {
				return
			}
			tt.hit(t, e)
			select {
			case <-wt.Done():
			default:
				t.Fatal("not woken by messages the filter selects")
			}
			list, total := wt.Messages()
			assert.Equal(t, len(tt.want), total)
			got := make([]string, len(list))
			for i, m := range list {
				got[i] = m.To
			}
			assert.Equal(t, tt.want, got)
			// What the watch hands is what a look at the store now finds.
			now, n := e.st.Messages(q, 0, 20)
			assert.Equal(t, n, total)
			assert.Equal(t, now, list)
			if tt.check != nil {
				tt.check(t, list[0])
			}
			assert.Zero(t, e.st.cfg.Watchers.count.Load(), "a matched watch leaves the set")
		})
	}
}

// TestWatchPage: a watch keeps only the page its waiter reads, and counts every match.
func TestWatchPage(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t, 0)
	wt := e.st.cfg.Watchers.Watch(Query{mode: -1, kind: -1}, 2, 2)
	defer wt.Stop()
	e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(2348000000001, 2348000000002, 2348000000003, 2348000000004, 2348000000005)...)
	<-wt.Done()
	list, total := wt.Messages()
	assert.Equal(t, 5, total)
	require.Len(t, list, 2)
	assert.Equal(t, "2348000000003", list[0].To)
	assert.Equal(t, "2348000000002", list[1].To)
	assert.Len(t, wt.refs, 4, "only offset+limit matches are kept")
}

// TestWatchAcrossTrims: in a full store that forgets its oldest campaigns at every few sends,
// a watch is still handed its message, and never one that was forgotten.
func TestWatchAcrossTrims(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t, 10)
	const want = 2348000000099
	q, err := NewQuery(Filter{To: "2348000000099"})
	require.NoError(t, err)
	wt := e.st.cfg.Watchers.Watch(q, 0, 20)
	defer wt.Stop()
	for i := range 30 { // three times the limit: every campaign of the start is forgotten
		e.sendFrom(t, e.live, DefaultSenderID, "filler", testNow, to(2348000000001+uint64(i)%50)...)
	}
	select {
	case <-wt.Done():
		t.Fatal("woken by messages the filter does not select")
	default:
	}
	e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(2348000000001, want, 2348000000002)...)
	<-wt.Done()
	list, total := wt.Messages()
	assert.Equal(t, 1, total)
	require.Len(t, list, 1)
	assert.Equal(t, "2348000000099", list[0].To)
	assert.Equal(t, "hi", list[0].Text)

	// A campaign forgotten before its waiter reads it is left out, as a look at the store
	// leaves it out.
	wt2 := e.st.cfg.Watchers.Watch(q, 0, 20)
	defer wt2.Stop()
	e.sendFrom(t, e.live, DefaultSenderID, "again", testNow, to(want)...)
	<-wt2.Done()
	for i := range 20 {
		e.sendFrom(t, e.live, DefaultSenderID, "filler", testNow, to(2348000000001+uint64(i))...)
	}
	list, total = wt2.Messages()
	assert.Equal(t, 1, total)
	assert.Empty(t, list)
	now, n := e.st.Messages(q, 0, 20)
	assert.Zero(t, n)
	assert.Empty(t, now)
}

// TestWatchStop: a stopped watch is never handed anything and leaves the set.
func TestWatchStop(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t, 0)
	wt := e.st.cfg.Watchers.Watch(Query{mode: -1, kind: -1}, 0, 20)
	wt.Stop()
	wt.Stop()
	assert.Zero(t, e.st.cfg.Watchers.count.Load())
	e.sendFrom(t, e.live, DefaultSenderID, "hi", testNow, to(2348000000001)...)
	select {
	case <-wt.Done():
		t.Fatal("a stopped watch was handed messages")
	default:
	}
	list, total := wt.Messages()
	assert.Empty(t, list)
	assert.Zero(t, total)
}
