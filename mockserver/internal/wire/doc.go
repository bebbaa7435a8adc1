// Package wire is the API's shared JSON: the decoding of request bodies (strict: the contract's
// exact member names, no nulls, valid UTF-8, errors that name the member at fault), the
// one-pass decoder of the send bodies, the fingerprint of a request for idempotency, and the
// encoders of the hot answers, whose hand-written paths write exactly what encoding/json
// writes. An answer written by one handler only keeps its shape beside that handler, in
// httpapi (ARCHITECTURE.md, "Who owns which JSON").
//
// It imports the store for the values it reads into and writes out, and must not import the
// HTTP layer (httpapi); its errors are *Error, which the HTTP layer turns into 400s.
package wire

import "fmt"

// Error is a request body the API refuses as malformed: Field names the member at fault, in
// the form the API's errors use ("to[3].name"), or is empty when the body as a whole is.
type Error struct {
	Field   string
	Message string
}

func (e *Error) Error() string { return e.Message }

func errorf(field, format string, args ...any) *Error {
	return &Error{Field: field, Message: fmt.Sprintf(format, args...)}
}
