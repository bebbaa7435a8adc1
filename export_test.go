package sms

// MaxErrorBody is how much of an error response is read.
const MaxErrorBody = maxErrorBody

// Limits and defaults that go doc states in words.
const DefaultRetryWaitMax = defaultRetryWaitMax
