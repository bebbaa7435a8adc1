// Package sms is a client for a bulk-SMS developer API (/v1): send SMS and personalized
// campaigns and read their delivery, send and verify one-time passwords, request sender IDs,
// read the NGN wallet balance, and manage API keys. Package
// [github.com/seedsms/sms-go/bulk] sends jobs of any size over it.
//
// # Clients
//
// [NewClient] takes an API key pair (pk_live_/pk_test_ and the matching sk_live_/sk_test_)
// for the developer endpoints; [NewDashboardClient] takes a dashboard user's JWT for key
// management. Both check the credentials' shape and the options before any request, and are
// safe for concurrent use. The fields of [Client] group the endpoints by resource:
// [Client.SMS], [Client.Campaigns], [Client.OTP], [Client.Balance], [Client.SenderIDs], one
// method per endpoint, each making one request (the iterators All and AllRecipients make one
// per page). Package bulk holds the jobs that make many requests over it.
//
//	client, err := sms.NewClient(key, secret, sms.WithBaseURL("https://api.example.com"))
//	res, err := client.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "Hi"})
//
// Credentials travel only in headers; the clients and keys never print them, and plain
// http:// is refused for hosts other than loopback unless [WithInsecureHTTP] is given.
//
// # Bulk sending and waiting
//
// Package [github.com/seedsms/sms-go/bulk] is built on this client, through its exported API
// alone: bulk jobs that send one message to any number of recipients in campaigns of up to
// 10,000, resumed by running them again, with a journal that keeps a batch from being sent
// twice whatever the server does, and waits for a job's delivery. What it reads of the client
// is exported for any tool built the same way: [ContextWithTrace] reports every attempt of a
// call ([Attempt], with [Attempt.MaybeProcessed]), and [Client.Account],
// [Client.ReferenceDeduplication] and [Client.MaxCallDuration] say what the client sends to
// and how it retries.
//
// # Errors
//
// Parameters that can be checked locally (phone numbers, sender IDs, message parts, pin
// settings, pins, pages, scopes, references) fail with a [*ValidationError] before any request;
// it matches [ErrInvalidParams], and not [ErrBadRequest], so that a caller can tell its own bad
// input (nothing was sent) from a server's refusal. An error answered by the API is an *Error
// (a *ScopeError for a 403), which matches the sentinel of its status with errors.Is:
// ErrBadRequest, ErrUnauthorized, ErrInsufficientBalance, ErrInsufficientScope, ErrNotFound,
// ErrConflict, ErrRateLimited or ErrServer. [PinStateOf] classifies the outcome of [OTPService.Verify]
// (expired, replaced, already verified, locked, ...) without reading the server's English.
//
// # Retries
//
// GET requests are retried on connection errors, 429, 500, 502, 503 and 504, with exponential
// backoff and jitter, honouring a Retry-After of up to the maximum wait; a longer one returns
// the error at once. A request that changes something is retried only when it cannot have
// been processed (no byte of it was written, or a 429); after an ambiguous failure (a
// connection dropped after sending, a timeout, a 5xx) it returns an error matching
// ErrOutcomeUnknown, and the caller decides. So does a write whose answer's status line was a
// 2xx when its result cannot be built, or when the context ended before its body was read
// whole: the server accepted it, and the *OutcomeError names the status, the request ID, the
// reference and the start of the body. A 2xx read whole is the result even when the context
// ended afterwards. The final error is the API's error of the last
// response, and a cancelled context ends a wait at once, with an error that matches both the
// context's error and the last response's.
//
// Sends (SMS.Send, Campaigns.Create, the batches of bulk.Send) carry a reference, which this
// project's mock server deduplicates: a send repeated with the same reference is answered
// from the first, without sending or charging again. The service's own pages call reference
// "your idempotency or business reference" but never show that it deduplicates, so by
// default the SDK does not rely on it: sends are retried like the other writes, never after
// an ambiguous failure, and the error names the reference to repeat the send with once the
// server is known to deduplicate it. [WithReferenceDeduplication] declares that it does: sends
// are then retried after ambiguous failures too, every attempt with the same reference.
//
// # Reading answers
//
// The SDK is a tolerant reader. It requires only the members of an answer that the service's
// pages show and that a result cannot be built without, and fails with an error naming a
// missing one: the campaign's id and status of a send; the pin ID of a sent OTP; verified of
// a verification; the balance; the title and status of each sender ID; the data list and
// pagination of a campaign page, with each campaign's _id and status; the status of a
// delivery report, with each recipient's to and status; a key's _id and publicKey (and the
// secret after Create, revokedAt after Revoke). Answers the service does not show (campaign
// lists, delivery status, keys) follow this project's contract, with the same rule. Members
// it does not know are ignored; ids are any non-empty string; requestId may be missing.
//
// A member an answer may lack reads so that absent differs from zero: numbers, booleans
// and times that the service's pages do not promise are pointers, nil when the server did
// not send them (OTP.Amount, Verification.AttemptsRemaining, Campaign.Parts, every time);
// a string is empty, never a valid value, when absent. Times are RFC 3339, or the provider's
// "YYYY-MM-DD HH:MM:SS", read as UTC. Money is an integer or a decimal number of naira.
//
// Every result carries the HTTP Response it was read from, with its request ID and the
// X-RateLimit-* headers when present: quote the request ID when asking for support.
//
// # Money and lists
//
// Amounts are [Amount] values: integer kobo read exactly from the API's JSON numbers (a
// number finer than a kobo is rounded to the nearest, half away from zero).
// Every List returns a [Page]: its items, its [Pagination] and its [Response]. Each list has
// an iterator (iter.Seq2), [CampaignsService.All], [CampaignsService.AllRecipients],
// [KeysService.All] and [SenderIDsService.All], which fetches pages lazily and yields each
// item once.
//
// # Testing
//
// The module's mockserver package serves the whole API in memory, with controls to approve
// sender IDs, deliver campaigns, read OTPs, move the clock and inject faults.
package sms
