// Package sms is a client for a bulk-SMS developer API (/v1): send SMS and personalized
// campaigns, send bulk jobs and wait for their delivery, send and verify one-time passwords,
// request sender IDs, read the NGN wallet balance, and manage API keys.
//
// # Clients
//
// [NewClient] takes an API key pair (pk_live_/pk_test_ and the matching sk_live_/sk_test_)
// for the developer endpoints; [NewDashboardClient] takes a dashboard user's JWT for key
// management. Both check the credentials' shape and the options before any request, and are
// safe for concurrent use. The fields of [Client] group the endpoints by resource:
// [Client.SMS], [Client.Campaigns], [Client.OTP], [Client.Balance], [Client.SenderIDs].
//
//	client, err := sms.NewClient(key, secret, sms.WithBaseURL("https://api.example.com"))
//	res, err := client.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "Hi"})
//
// Credentials travel only in headers; the clients and keys never print them, and plain
// http:// is refused for hosts other than loopback unless [WithInsecureHTTP] is given.
//
// # Bulk sending and waiting
//
// [CampaignsService.SendBulk] sends one message to any number of [Recipient] values read
// from an iterator, in batches of up to [MaxBulkBatchSize], with numbers normalized and
// de-duplicated over the whole job. Batch k carries the reference JobID:k, so that running
// the same job again sends only what an earlier run did not, given a server that
// deduplicates references (see Retries). The [BulkReport] counts what was sent, replayed,
// skipped and charged; [ErrBulkIncomplete] says that some batches failed.
// [CampaignsService.Wait] polls one campaign's delivery status until it is final, and
// [CampaignsService.WaitBulk] does so for every campaign of a report.
//
// # Errors
//
// Parameters that can be checked locally (phone numbers, sender IDs, message parts, pin
// settings, pins, pages, scopes, references) fail with a [*ValidationError] before any
// request; it matches [ErrInvalidParams], not [ErrBadRequest], so that a caller can tell its
// own bad input from a server's refusal. An error answered by the API is an [*Error] (a
// [*ScopeError] for a 403), which matches the sentinel of its status with [errors.Is]:
// [ErrBadRequest], [ErrUnauthorized], [ErrInsufficientBalance], [ErrInsufficientScope],
// [ErrNotFound], [ErrConflict], [ErrRateLimited] or [ErrServer]. [PinStateOf] classifies the
// outcome of [OTPService.Verify] without reading the server's English.
//
// # Retries
//
// GET requests are retried on connection errors, 429, 500, 502, 503 and 504, with
// exponential backoff and jitter, honouring a Retry-After of up to the maximum wait; a longer
// one returns the error at once. A request that changes something is retried only when it
// cannot have been processed (no byte of it was written, or a 429); after an ambiguous
// failure (a connection dropped after sending, a timeout, a 5xx) it returns an error
// matching [ErrOutcomeUnknown], and the caller decides. A cancelled context ends a wait at
// once, with an error that matches both the context's error and the last response's.
//
// Sends ([SMSService.Send], [CampaignsService.Create] and the batches of SendBulk) carry a
// reference. The service's pages call it "your idempotency or business reference" but never
// show that the server deduplicates it, so by default the SDK does not rely on it.
// [WithReferenceDeduplication] declares that the server does (this module's mock server
// does): sends are then retried after ambiguous failures too, every attempt with the same
// reference.
//
// # Reading answers
//
// The client is a tolerant reader: it requires only the members of an answer that the
// service's pages show and that a result cannot be built without, fails with an error naming
// a missing one, and ignores members it does not know. Members the pages do not promise are
// pointers, nil when absent; a string is empty when absent. Times are RFC 3339 or the
// provider's "YYYY-MM-DD HH:MM:SS"; ids are any non-empty string. Amounts are [Amount]
// values: integer kobo read exactly from the API's JSON numbers, integer or decimal.
// [CampaignsService.All] and [CampaignsService.Recipients] return iterators that fetch pages
// lazily and yield each item once.
//
// # Testing
//
// The module's mockserver package serves the whole API in memory, with controls to approve
// sender IDs, deliver campaigns, read OTPs, move the clock and inject faults.
package sms
