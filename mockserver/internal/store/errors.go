package store

import (
	"errors"
	"fmt"
)

// FieldError is input the store refuses: Field names the member at fault, in the form the
// API's errors use ("to[3].name"), or is empty when the request as a whole is.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Message }

func fieldError(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrNotFound is what every *NotFoundError is (errors.Is).
var ErrNotFound = errors.New("not found")

// NotFoundError says that what was named does not exist (or no longer does).
type NotFoundError struct {
	What string // "Campaign", "Key", ...
}

func (e *NotFoundError) Error() string { return e.What + " not found." }

// Is makes every *NotFoundError match ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

func notFound(what string) *NotFoundError { return &NotFoundError{What: what} }

// ErrInsufficientBalance is a send or an OTP that costs more than the wallet holds.
var ErrInsufficientBalance = errors.New("insufficient wallet balance")

// ConflictError is a request at odds with the state: a sender ID that exists already, a
// campaign not ready for delivery, a store at its limit.
type ConflictError struct {
	Message string
}

func (e *ConflictError) Error() string { return e.Message }

func conflict(format string, args ...any) *ConflictError {
	return &ConflictError{Message: fmt.Sprintf(format, args...)}
}

// RateLimitError is a request refused until RetryAfter seconds have passed.
type RateLimitError struct {
	Message    string
	RetryAfter int // seconds, at least 1
}

func (e *RateLimitError) Error() string { return e.Message }

func rateLimited(message string, retryAfter int) *RateLimitError {
	return &RateLimitError{Message: message, RetryAfter: max(retryAfter, 1)}
}

// AuthError is a key that does not authenticate: unknown, wrong secret, revoked or expired.
type AuthError struct {
	Message string
}

func (e *AuthError) Error() string { return e.Message }

// errBadCredentials is the one answer for an unknown key and a wrong secret alike.
var errBadCredentials = &AuthError{Message: "Invalid API key or secret."}
