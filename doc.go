// Package sms is a client for a bulk-SMS developer API (/v1): send SMS and personalized
// campaigns, send and verify one-time passwords, read delivery status, request sender IDs,
// read the NGN wallet balance, and manage API keys.
//
// # Clients
//
// NewClient takes an API key pair (pk_live_/pk_test_ and the matching sk_live_/sk_test_) for
// the developer endpoints; NewDashboardClient takes a dashboard user's JWT for key management.
// Both check the credentials' shape and the options before any request, and are safe for
// concurrent use. Their fields group the endpoints by resource:
//
//	client, err := sms.NewClient(key, secret, sms.WithBaseURL("https://api.example.com"))
//	res, err := client.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "Hi"})
//
// Credentials travel only in headers; the clients and keys never print them, and plain
// http:// is refused for hosts other than loopback unless WithInsecureHTTP is given.
//
// # Errors
//
// Parameters that can be checked locally (phone numbers, sender IDs, message parts, pin
// settings, pages, scopes, references) fail with a *ValidationError before any request. An
// error answered by the API is an *Error (a *ScopeError for a 403), which matches the sentinel
// of its status with errors.Is: ErrBadRequest, ErrUnauthorized, ErrInsufficientBalance,
// ErrInsufficientScope, ErrNotFound, ErrConflict, ErrRateLimited or ErrServer.
//
// # Retries
//
// GET requests, SMS.Send and Campaigns.Create are retried on connection errors, 429, 500, 502,
// 503 and 504, with exponential backoff and jitter, honouring a Retry-After of up to the
// maximum wait; a longer one returns the error at once. Sends are safe to retry because every
// attempt carries the same reference, which the server deduplicates. OTP.Send, OTP.Verify,
// SenderIDs.Request and Keys.Create and Revoke are retried only when the request cannot have
// been processed (no byte of it was written, or a 429); after any other failure they return
// an error matching ErrOutcomeUnknown. The final error is the API's error of the last
// response, and a cancelled context ends a wait at once, with an error that matches both the
// context's error and the last response's.
//
// # Money and lists
//
// Amounts are Amount values: integer kobo read exactly from the API's JSON numbers.
// Campaigns.All and Campaigns.Recipients return iterators (iter.Seq2) that fetch pages lazily
// and yield each item once.
//
// # Testing
//
// The module's mockserver package serves the whole API in memory, with controls to approve
// sender IDs, deliver campaigns, read OTPs, move the clock and inject faults.
package sms
