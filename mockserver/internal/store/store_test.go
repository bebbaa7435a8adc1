package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver/internal/events"
	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// testNow is where the tests' clock starts.
var testNow = time.Date(2026, 3, 4, 5, 6, 5, 0, time.UTC)

// newTestStore is a store of generous bounds and wallets, changed by edit, and its default
// workspace's live caller.
func newTestStore(t testing.TB, edit func(*Config)) (*Store, Caller) {
	t.Helper()
	cfg := Config{
		GenericPrice: 320, DNDPrice: 450, LiveBalance: 1 << 40, TestBalance: 1 << 40, Country: "Nigeria",
		MaxWorkspaces: DefaultMaxWorkspaces, MaxDND: DefaultMaxDND, MaxMessages: DefaultMaxMessages,
		IDs: ids.NewGen(), Events: events.NewBus(events.RingSize), Watchers: &Watchers{},
	}
	if edit != nil {
		edit(&cfg)
	}
	st, creds := New(cfg, Credentials{}, testNow.UnixNano())
	c, err := st.Workspace(creds.WorkspaceID)
	require.NoError(t, err)
	return st, c
}

// send sends message to phones from the default sender ID, at now.
func send(t testing.TB, st *Store, c Caller, now time.Time, message string, phones ...uint64) Accepted {
	t.Helper()
	targets := make([]Target, len(phones))
	for i, p := range phones {
		targets[i] = Target{Phone: p, Index: i}
	}
	a, err := st.Send(c, SendParams{From: DefaultSenderID, Message: message, Targets: targets}, now)
	require.NoError(t, err)
	return a
}
