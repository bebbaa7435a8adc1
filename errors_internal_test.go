package sms

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorMatchesTheSentinelOfItsStatus(t *testing.T) {
	t.Parallel()
	sentinels := []error{ErrBadRequest, ErrUnauthorized, ErrInsufficientBalance, ErrInsufficientScope, ErrForbidden,
		ErrNotFound, ErrConflict, ErrRateLimited, ErrServer, ErrOutcomeUnknown, ErrInvalidParams}
	tests := []struct {
		status int
		want   error
	}{
		{400, ErrBadRequest}, {401, ErrUnauthorized}, {402, ErrInsufficientBalance}, {403, ErrForbidden}, // no API error: no scope would help
		{404, ErrNotFound}, {405, ErrBadRequest}, {409, ErrConflict}, {413, ErrBadRequest}, {415, ErrBadRequest},
		{429, ErrRateLimited}, {500, ErrServer}, {501, ErrServer}, {503, ErrServer}, {599, ErrServer}, {307, nil},
	}
	for _, tt := range tests {
		err := apiError(tt.status, http.Header{}, nil)
		for _, s := range sentinels {
			assert.Equal(t, s == tt.want, errors.Is(err, s), "%d and %v", tt.status, s)
		}
	}
	// A local refusal matches ErrInvalidParams only: no status, no server.
	ve := invalid("Pin", "too short")
	for _, s := range sentinels {
		assert.Equal(t, s == ErrInvalidParams, errors.Is(ve, s), "a *ValidationError and %v", s)
	}
}

// A 403 that is not insufficient_scope (the mock's refusal of a foreign Host or a cross-site
// Origin) is no *ScopeError: no scope would help.
func TestForbiddenIsNotAScopeError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body      string
		forbidden bool
	}{
		{`{"error":{"code":"forbidden","message":"Host not allowed."},"requestId":"req_1"}`, true},
		{`{"error":{"code":"insufficient_scope","message":"no","scope":"otp"},"requestId":"req_1"}`, false},
		{`{"error":{"message":"Forbidden."}}`, true}, // no code: the server's words, not a scope
		{`{"message":"IP address not whitelisted."}`, true},
		{`{"type":"about:blank","title":"Forbidden","status":403,"detail":"IP address not whitelisted."}`, true},
		{`{"error":{"message":"Missing scope.","scope":"otp"}}`, false}, // a scope named: the key lacks it
		{``, true},   // not the API's error: a gateway's or a firewall's
		{`{}`, true}, // no error in it
		{`<html><head><title>403 Forbidden</title></head><body>Request blocked by WAF</body></html>`, true},
		{"\ufeff<!doctype html>", true},
	}
	for _, tt := range tests {
		err := apiError(http.StatusForbidden, http.Header{}, []byte(tt.body))
		var se *ScopeError
		assert.Equal(t, tt.forbidden, errors.Is(err, ErrForbidden), tt.body)
		assert.Equal(t, !tt.forbidden, errors.Is(err, ErrInsufficientScope), tt.body)
		assert.Equal(t, !tt.forbidden, errors.As(err, &se), tt.body)
		var e *Error
		require.True(t, errors.As(err, &e), tt.body)
		assert.Equal(t, http.StatusForbidden, e.StatusCode)
	}
}

func TestAPIErrorDecoding(t *testing.T) {
	t.Parallel()
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		want   Error
		scope  Scope
	}{
		{"full", 400, hdr("X-Request-Id", "req_h"),
			`{"error":{"code":"bad_request","message":"to[3]: bad number.","field":"to[3]"},"requestId":"req_b"}`,
			Error{StatusCode: 400, Code: "bad_request", Message: "to[3]: bad number.", Field: "to[3]", RequestID: "req_b"}, ""},
		{"request ID from the header", 404, hdr("X-Request-Id", "req_h"), `{"error":{"code":"not_found","message":"Campaign not found."}}`,
			Error{StatusCode: 404, Code: "not_found", Message: "Campaign not found.", RequestID: "req_h"}, ""},
		{"scope", 403, nil, `{"error":{"code":"insufficient_scope","message":"no","scope":"otp"},"requestId":"req_1"}`,
			Error{StatusCode: 403, Code: "insufficient_scope", Message: "no", RequestID: "req_1"}, ScopeOTP},
		{"403 without scope", 403, nil, `{"error":{"code":"insufficient_scope","message":"Forbidden"}}`,
			Error{StatusCode: 403, Code: "insufficient_scope", Message: "Forbidden"}, ""},
		{"403 that is not the API's", 403, nil, "<html>\x1b[2JBlocked</html>",
			Error{StatusCode: 403, Code: "forbidden", Message: "Forbidden", Snippet: `<html>\x1b[2JBlocked</html>`, notAPI: true}, ""},
		{"Retry-After seconds", 429, hdr("Retry-After", "30"), `{"error":{"code":"rate_limited","message":"m"}}`,
			Error{StatusCode: 429, Code: "rate_limited", Message: "m", RetryAfter: 30 * time.Second}, ""},
		{"HTML", 502, hdr("Content-Type", "text/html"), `<html><body>Bad Gateway</body></html>`,
			Error{StatusCode: 502, Code: "server_error", Message: "Bad Gateway", Snippet: `<html><body>Bad Gateway</body></html>`, notAPI: true}, ""},
		{"empty", 401, nil, ``, Error{StatusCode: 401, Code: "unauthorized", Message: "Unauthorized", notAPI: true}, ""},
		{"error is a string", 409, nil, `{"error":"Sender ID exists."}`, Error{StatusCode: 409, Code: "conflict", Message: "Sender ID exists."}, ""},
		{"message beside a code", 400, nil, `{"code":"invalid_phone","message":"Bad number.","requestId":7}`,
			Error{StatusCode: 400, Code: "invalid_phone", Message: "Bad number.", RequestID: "7"}, ""},
		{"message alone", 400, nil, `{"message":"Pin has expired"}`, Error{StatusCode: 400, Code: "bad_request", Message: "Pin has expired"}, ""},
		{"errors of strings", 400, nil, `{"errors":["to is required","from is too long"]}`,
			Error{StatusCode: 400, Code: "bad_request", Message: "to is required; from is too long"}, ""},
		{"errors of objects", 400, nil, `{"errors":[{"code":"invalid","message":"Bad number.","field":"to[0]"},{"message":"Bad sender."}]}`,
			Error{StatusCode: 400, Code: "invalid", Message: "Bad number.; Bad sender.", Field: "to[0]"}, ""},
		{"Laravel", 422, nil, `{"message":"The given data was invalid.","errors":{"to":["The to field is required."],"from":["The from field is required."]}}`,
			Error{StatusCode: 422, Code: "bad_request", Message: "The given data was invalid.; The from field is required.; The to field is required.", Field: "from"}, ""},
		{"NestJS", 400, nil, `{"statusCode":400,"message":["to must be a phone number","from should not be empty"],"error":"Bad Request"}`,
			Error{StatusCode: 400, Code: "bad_request", Message: "to must be a phone number; from should not be empty"}, ""},
		{"NestJS, one message", 401, nil, `{"statusCode":401,"message":"Invalid API key"}`,
			Error{StatusCode: 401, Code: "unauthorized", Message: "Invalid API key"}, ""},
		{"RFC 7807", 403, nil, `{"type":"about:blank","title":"Forbidden","status":403,"detail":"IP address not whitelisted."}`,
			Error{StatusCode: 403, Code: "forbidden", Message: "IP address not whitelisted."}, ""},
		{"JSON:API errors", 422, nil, `{"errors":[{"status":"422","title":"Invalid Attribute","detail":"to is not a phone number"}]}`,
			Error{StatusCode: 422, Code: "bad_request", Message: "Invalid Attribute; to is not a phone number"}, ""},
		{"OAuth", 401, nil, `{"error":"invalid_token","error_description":"The token expired."}`,
			Error{StatusCode: 401, Code: "unauthorized", Message: "invalid_token; The token expired."}, ""},
		{"error is null", 402, nil, `{"error":null,"requestId":"req_x"}`,
			Error{StatusCode: 402, Code: "insufficient_balance", Message: "Payment Required", RequestID: "req_x", Snippet: `{"error":null,"requestId":"req_x"}`, notAPI: true}, ""},
		{"truncated", 500, nil, `{"error":{"code":"server_er`, Error{StatusCode: 500, Code: "server_error", Message: "Internal Server Error", Snippet: `{"error":{"code":"server_er`, notAPI: true}, ""},
		{"array", 413, nil, `[1,2]`, Error{StatusCode: 413, Code: "payload_too_large", Message: "Request Entity Too Large", Snippet: "[1,2]", notAPI: true}, ""},
		{"unknown status", 418, nil, `nope`, Error{StatusCode: 418, Code: "bad_request", Message: "I'm a teapot", Snippet: "nope", notAPI: true}, ""},
		{"redirect", 307, nil, ``, Error{StatusCode: 307, Code: "unexpected_status", Message: "Temporary Redirect", notAPI: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := tt.header
			if h == nil {
				h = http.Header{}
			}
			err := apiError(tt.status, h, []byte(tt.body))
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.want, *e)
			var se *ScopeError
			if tt.status == 403 && e.Code == "insufficient_scope" {
				require.ErrorAs(t, err, &se)
				assert.Equal(t, tt.scope, se.Scope)
				assert.Same(t, e, se.Err)
			} else {
				assert.False(t, errors.As(err, &se))
			}
		})
	}
}

func TestErrorStrings(t *testing.T) {
	t.Parallel()
	e := &Error{StatusCode: 400, Code: "bad_request", Message: "Bad number.", Field: "to[0]", RequestID: "req_1"}
	assert.Equal(t, "sms: 400 bad_request: Bad number. (field to[0]) [request req_1]", e.Error())
	assert.Equal(t, "sms: 500 server_error", (&Error{StatusCode: 500, Code: "server_error"}).Error())
	se := &ScopeError{Scope: ScopeBalance, Err: &Error{StatusCode: 403, RequestID: "req_2"}}
	assert.Equal(t, `sms: 403 insufficient_scope: the API key lacks the "balance" scope [request req_2]`, se.Error())
	assert.Nil(t, (&ScopeError{}).Unwrap())
	assert.Equal(t, "sms: invalid To[0]: bad", invalid("To[0]", "bad").Error())
	oe := &OutcomeError{Op: "POST /v1/otp/send", Err: io.EOF}
	assert.Equal(t, "sms: POST /v1/otp/send: outcome unknown, the request may have been processed: EOF", oe.Error())
	assert.ErrorIs(t, oe, io.EOF)
	assert.ErrorIs(t, oe, ErrOutcomeUnknown)
	oe.hint = "repeat it"
	assert.Equal(t, "sms: POST /v1/otp/send: outcome unknown, the request may have been processed: EOF; repeat it", oe.Error())
	accepted := &OutcomeError{Op: "POST /v1/sms/send", StatusCode: 202, RequestID: "req_3", Reference: "r1",
		Body: "<html>", Err: errors.New("decoding the 202 response: bad"), ctx: context.Canceled}
	assert.Equal(t, `sms: POST /v1/sms/send: outcome unknown, the server accepted the request (202 Accepted) but its answer cannot be read: `+
		`decoding the 202 response: bad (context canceled) [request req_3] (body: "<html>")`, accepted.Error())
	assert.ErrorIs(t, accepted, context.Canceled)
	redirect := &OutcomeError{Op: "POST /v1/sms/send", StatusCode: 303, Err: errors.New("the answer redirects to \"/x\"")}
	assert.Equal(t, `sms: POST /v1/sms/send: outcome unknown, the server redirected the request (303 See Other), which may have been processed; redirects are not followed: the answer redirects to "/x"`, redirect.Error())
	assert.Nil(t, (&OutcomeError{}).Unwrap())
}

// An error's snippet of a body never shows a secret or a pin, even cut short, and masks phone
// numbers.
func TestSnippetRedacts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ body, want string }{
		{`{"data":{"secret":"sk_live_abc","publicKey":"pk_live_x"}}`, `{"data":{"secret":"[REDACTED]","publicKey":"pk_live_x"}}`},
		{`{"pin": 123456, "pinId":"p1"}`, `{"pin": "[REDACTED]", "pinId":"p1"}`},
		{`{"Secret":"a\"b"}`, `{"Secret":"[REDACTED]"}`},
		{`key sk_test_abc123 leaked`, `key [REDACTED] leaked`},
		{strings.Repeat(" ", maxSnippetScan-12) + `{"secret":"sk_live_0123456789"}`, ""},
		{"line\n\x1b[31m", `line\n\x1b[31m`},
		{`{"data":{"phone_number":"2348025671695","msisdn":2348025671695}}`, `{"data":{"phone_number":"234802****695","msisdn":"234802****695"}}`},
		{`{"to":[2348025671695, "0803 123 4567"],"x":"0803-123-4567","y":"to_2348025671695"}`, `{"to":["234802****695", "0803****567"],"x":"0803****567","y":"to_234802****695"}`},
		{`{"otp_code":"123456","pinCode":123456,"text":"Your code is 123456"}`, `{"otp_code":"[REDACTED]","pinCode":"[REDACTED]","text":"Your code is [REDACTED]"}`},
	} {
		got := snippet([]byte(tt.body), (&call{}).redactor())
		assert.NotContains(t, got, "sk_", tt.body)
		assert.NotContains(t, got, "123456", tt.body)
		if tt.want != "" {
			assert.Equal(t, tt.want, got, tt.body)
		}
	}
}
