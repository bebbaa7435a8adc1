// Package httpapi is the mock's HTTP side: the routes of /v1 and /_mock/, the one pipeline
// every request takes (request ID -> recover -> record -> Host and Origin guard -> faults ->
// route -> credentials -> scope -> rate limit -> Content-Type -> body -> idempotency ->
// handler), one file per resource, and apiErrorOf, the one place where an error becomes the
// API's error body.
//
// A handler decodes its request (package wire), calls the store once and encodes the
// answer; it never holds a lock or touches a wallet. The API also holds what a Reset forgets
// and what it does not (the event bus, the waiters for messages, the clock's base).
//
// It may import every package of the mock's below it (store, wire, idem, events, faults,
// reqlog, clock, ids, inbox) and must not import the mockserver facade.
package httpapi
