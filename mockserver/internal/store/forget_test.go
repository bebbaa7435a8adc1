package store

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeleteWorkspaceForgetsItAll: deleting a workspace takes its messages out of the index
// and the message limit, its campaigns out of the due queue, its keys out of authentication
// and its made keys out of the quota; the index of the others still follows the store.
func TestDeleteWorkspaceForgetsItAll(t *testing.T) {
	t.Parallel()
	st, def := newTestStore(t, func(c *Config) { c.DeliveryDelay = time.Minute })
	send(t, st, def, testNow, "stays", 2348030000001, 2348030000002)
	otpAt(t, st, def, 2348030000003, testNow)
	stored := st.stored.Load()

	creds, err := st.NewWorkspace(WorkspaceParams{}, testNow.UnixNano())
	require.NoError(t, err)
	c, err := st.Workspace(creds.WorkspaceID)
	require.NoError(t, err)
	for m := range [...]Mode{Live, Test} {
		c.Mode = Mode(m)
		send(t, st, c, testNow, "goes", 2348030000001, 2348030000009)
		otpAt(t, st, c, 2348030000008, testNow)
	}
	_, _, err = st.CreateKey(c, KeyParams{Name: "made", Prefix: "pk_live", Scopes: AllScopes}, testNow.UnixNano())
	require.NoError(t, err)
	require.Equal(t, stored+6, st.stored.Load())
	require.Equal(t, int64(1), st.madeKeys.n.Load())
	checkIndex(t, st)

	d, err := st.DeleteWorkspace(creds.WorkspaceID)
	require.NoError(t, err)
	assert.Equal(t, WorkspaceDeleted{WorkspaceID: creds.WorkspaceID, Campaigns: 2, Messages: 6}, d)
	assert.Equal(t, stored, st.stored.Load())
	assert.Zero(t, st.madeKeys.n.Load())
	_, err = st.Authenticate(creds.LiveKey, creds.LiveSecret, testNow.UnixNano())
	require.Error(t, err)
	_, _, ok := st.latestPins.Latest("2348030000008")
	assert.False(t, ok)
	_, _, ok = st.latestPins.Latest("2348030000003")
	assert.True(t, ok)
	checkIndex(t, st)
	st.idx.mu.RLock()
	assert.Len(t, st.idx.byWS, 1, "only the default workspace's list is left")
	st.idx.mu.RUnlock()
	st.due.mu.Lock()
	assert.Equal(t, 1, len(st.due.h)+st.due.run.live, "only the default workspace's campaign awaits delivery")
	st.due.mu.Unlock()

	_, err = st.DeleteWorkspace(creds.WorkspaceID)
	require.Error(t, err)
	// A request of the deleted workspace still in flight adds nothing to it.
	_, _, err = st.CreateKey(c, KeyParams{Name: "late", Prefix: "pk_live", Scopes: AllScopes}, testNow.UnixNano())
	if err == nil {
		st.mu.RLock()
		assert.Len(t, st.keys, 2, "the default workspace's keys only")
		st.mu.RUnlock()
	}
}

// TestDeleteWorkspacesKeepsTheIndex: workspaces made, sent from (to numbers they share with
// each other and with the default workspace, so that a deleted one led shared conversations)
// and deleted in a random order, trims included; after each deletion the index is the store's.
func TestDeleteWorkspacesKeepsTheIndex(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{0, 30} {
		t.Run("limit="+strconv.Itoa(limit), func(t *testing.T) {
			t.Parallel()
			st, def := newTestStore(t, func(c *Config) {
				if limit > 0 {
					c.MaxMessages = limit
				}
			})
			rng := rand.New(rand.NewPCG(uint64(limit), 5))
			var made []string
			for step := range 120 {
				switch r := rng.IntN(10); {
				case r < 2 || len(made) == 0:
					creds, err := st.NewWorkspace(WorkspaceParams{}, testNow.UnixNano())
					require.NoError(t, err)
					made = append(made, creds.WorkspaceID)
				case r < 4:
					k := rng.IntN(len(made))
					_, err := st.DeleteWorkspace(made[k])
					require.NoError(t, err)
					made = append(made[:k], made[k+1:]...)
					checkIndex(t, st)
				default:
					c := def
					if k := rng.IntN(len(made) + 1); k < len(made) {
						var err error
						c, err = st.Workspace(made[k])
						require.NoError(t, err)
					}
					if rng.IntN(4) == 0 {
						otpAt(t, st, c, 2348000000000+uint64(rng.IntN(5)), testNow.Add(time.Duration(step)*time.Minute))
						continue
					}
					send(t, st, c, testNow, "step "+strconv.Itoa(step), 2348000000000+uint64(rng.IntN(5)), 2348000000100+uint64(step))
				}
			}
			for _, id := range made {
				_, err := st.DeleteWorkspace(id)
				require.NoError(t, err)
			}
			checkIndex(t, st)
		})
	}
}

// TestDeleteEmptyWorkspaceCostsNothingOfTheServer: making and deleting an empty workspace
// allocates as much with 20,000 messages (to as many numbers) kept in another workspace as
// with none: the server's list is not made anew. Not parallel: AllocsPerRun counts the
// process's allocations.
func TestDeleteEmptyWorkspaceCostsNothingOfTheServer(t *testing.T) {
	allocs := func(messages int) float64 {
		st, def := newTestStore(t, nil)
		phones := make([]uint64, 0, 1000)
		for i := range messages {
			phones = append(phones, 2348000000000+uint64(i))
			if len(phones) == cap(phones) {
				send(t, st, def, testNow, "hello", phones...)
				phones = phones[:0]
			}
		}
		return testing.AllocsPerRun(20, func() {
			creds, err := st.NewWorkspace(WorkspaceParams{}, testNow.UnixNano())
			require.NoError(t, err)
			_, err = st.DeleteWorkspace(creds.WorkspaceID)
			require.NoError(t, err)
		})
	}
	empty, full := allocs(0), allocs(20_000)
	assert.LessOrEqual(t, full, empty+8, "allocations of a workspace made and deleted, with 0 and with 20,000 messages kept")
}

// TestDeleteWorkspaceRecentRelead: a deleted workspace's conversation that another
// workspace's recent message leads again takes its place among the recent conversations:
// the index's work is that workspace's entries and the last blocks of the order, not the
// server's 5,000 conversations.
func TestDeleteWorkspaceRecentRelead(t *testing.T) {
	t.Parallel()
	st, def := newTestStore(t, nil)
	phones := make([]uint64, 0, 5000)
	for i := range 5000 {
		phones = append(phones, 2348000000000+uint64(i))
	}
	for k := 0; k < len(phones); k += 500 {
		send(t, st, def, testNow, "old", phones[k:k+500]...)
	}
	send(t, st, def, testNow, "recent", 2349000000001)
	creds, err := st.NewWorkspace(WorkspaceParams{}, testNow.UnixNano())
	require.NoError(t, err)
	c, err := st.Workspace(creds.WorkspaceID)
	require.NoError(t, err)
	send(t, st, c, testNow, "newest", 2349000000001)
	before := st.idx.steps.Load()
	_, err = st.DeleteWorkspace(creds.WorkspaceID)
	require.NoError(t, err)
	steps := st.idx.steps.Load() - before
	assert.LessOrEqual(t, steps, int64(2*convBlock+10), "steps of the index for a delete that leads one conversation again")
	checkIndex(t, st)
}
