// Package wire is the API's shared JSON: the strict decoding of request bodies (the contract's
// exact member names, each once, no unknown member, no null, valid UTF-8, errors that name the
// member at fault), with github.com/go-json-experiment/json; the send bodies, decoded once,
// their recipients and their fingerprint for idempotency; and the writing of answers, encoded
// with encoding/json (or by an Appender, the campaign list), with the shapes every answer
// shares. An answer's own shape is a struct beside the handler that writes it, in httpapi
// (ARCHITECTURE.md, "How the mock reads and writes JSON").
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
