package mockserver

import "github.com/seedsms/sms-go/mockserver/internal/store"

// Bounds of the stores that are not the campaigns' (see DefaultMaxMessages), so that a mock
// that runs for weeks does not grow without end. docs/api.md lists every bound with its memory
// figure.

// DefaultMaxWorkspaces is how many workspaces a server holds unless WithWorkspaceLimit says
// otherwise, the default one included. A new workspace (its two keys, its sender ID, its maps
// and its entries in the store's) costs about 1.4 KB, so the default allows about 14 MB of
// them; their campaigns count in the message limit.
const DefaultMaxWorkspaces = store.DefaultMaxWorkspaces

// DefaultMaxDND is how many numbers the Do-Not-Disturb register holds unless WithDNDLimit says
// otherwise: at most about 24 MB, at up to 24 bytes a number (the map's slots, more or less
// full as it grows).
const DefaultMaxDND = store.DefaultMaxDND

// WithWorkspaceLimit lets the server hold at most n workspaces, the default one included
// (default DefaultMaxWorkspaces; n < 1 keeps the default). Creating one more is refused with
// 409 and a message saying so; Reset forgets them all but the default.
func WithWorkspaceLimit(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxWorkspaces = n
		}
	}
}

// WithDNDLimit lets the Do-Not-Disturb register hold at most n numbers (default DefaultMaxDND;
// n < 1 keeps the default). A request that would take it past n is refused with 400 naming
// numbers, and adds none of its numbers.
func WithDNDLimit(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxDND = n
		}
	}
}
