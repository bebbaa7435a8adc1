// Package store is the mock's state and every lock that guards it: workspaces, their keys,
// sender IDs, wallets, campaigns with their recipients, OTPs, the Do-Not-Disturb register,
// the newest pin per number, and the messages the phones received.
//
// Each method does one atomic thing under one lock (debit-and-create, verify-and-consume)
// and returns values: copies, never a pointer into what it guards, so that a caller may read
// what it got back while the store moves on. Its errors are domain errors (*FieldError,
// *NotFoundError, ErrInsufficientBalance, *ConflictError, *RateLimitError, *AuthError); the
// HTTP layer decides what each one is on the wire. It publishes what changed on the event bus
// itself, from the results of its own methods, so that every change is announced once
// whoever made it (an HTTP handler or a Go control).
//
// It must not import net/http, nor any package of the mock's HTTP layer (httpapi, wire); it
// imports only the leaves ids, fifo and events, and the rules the SDK shares.
//
// Lock order: a workspace's lock is never held while taking the store's, the register's or the
// latest pins' lock, and those three are never held together. The watchers' lock (watch.go) and
// the automatic delivery queue's lock are taken inside a workspace's, never the other way round,
// and nothing is taken under either. One Settle at a time holds the due queue's settling lock
// (delivery.go) while it takes workspaces' locks, and it is never taken under one.
package store
