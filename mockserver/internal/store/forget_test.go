package store

import (
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
