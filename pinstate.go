package sms

import (
	"cmp"
	"errors"
	"net/http"
	"strings"
)

// PinState is the state of an OTP pin as the answer to OTPService.Verify shows it, for a
// handler to branch on without reading the server's English. PinStateOf gives it.
//
// The service documents no error codes for pins: only bad_request (400), not_found (404) and
// rate_limited (429, "too many requests or OTP attempts"). The SDK classifies from the status
// and the code first, then from the message, read from any of the error shapes Error reads
// ({"error": {...}}, {"error": "..."}, {"message": "..."}, {"errors": [...]}), relying on
// these answers (the mock server's, which follow this project's contract):
//
//	200 {"verified": true}                              PinStateVerified ("True" too)
//	200 {"verified": false}                             PinStateWrong    ("False" too)
//	200 {"verified": false, "attemptsRemaining": 0}     PinStateLocked   (no try left)
//	200 {"verified": "Expired"}                         PinStateExpired  (the provider's answer)
//	2xx whose body says it failed                       by its words: expired, replaced or already
//	                                                    verified as below; else PinStateUnknown
//	400 "This pin has expired."                         PinStateExpired   (any message containing "expired")
//	400 "This pin was replaced by a newer one."         PinStateReplaced  ("replaced", "voided" or "newer")
//	400 "This pin was already verified."                PinStateAlreadyVerified ("already verified", "already used")
//	400 with field "pin"                                PinStateMalformed
//	400 otherwise                                       PinStateUnusable
//	422                                                 as a 400 (Laravel's and NestJS's refusals)
//	404 "Pin not found."                                PinStateNotFound  (any 404 whose body is an API error
//	                                                    not speaking of a route, a path, an endpoint or a URL)
//	409                                                 PinStateAlreadyVerified, unless the words say
//	                                                    expired or replaced
//	410                                                 PinStateExpired (the pin is gone), unless the words say
//	                                                    replaced or already verified
//	429 "Too many wrong attempts; this pin is locked."  PinStateLocked: a code naming the pin, an OTP, a lock
//	                                                    or attempts, or words naming the pin, an OTP, a
//	                                                    lock, a wrong or incorrect pin
//
// Any other 429 is a request throttle, whatever its headers: the key's request limit (the
// mock's "Rate limit exceeded; try again later."), Django REST's "Request was throttled.",
// Laravel's "Too Many Attempts.", "Limit Exceeded", or no words at all. It is
// PinStateUnknown: the answer does not say the pin is locked, and a new pin sent now would
// meet the same throttle.
// A pin the SDK refused before any request (a *ValidationError of Pin) is PinStateMalformed.
type PinState string

// The pin states.
const (
	// PinStateUnknown: the answer says nothing about the pin (a network error, a 5xx, a 401,
	// the key's request limit, an outcome unknown). Trying again later may help.
	PinStateUnknown PinState = ""
	// PinStateVerified: the pin matched; it is now used up.
	PinStateVerified PinState = "verified"
	// PinStateWrong: the pin did not match; Verification.AttemptsRemaining says how many more
	// tries are allowed, when the server says.
	PinStateWrong PinState = "wrong"
	// PinStateMalformed: the pin cannot be valid (too short, not letters and digits, not of the
	// type or length given): ask the user to type it again. When the SDK found it, no
	// attempt was used up.
	PinStateMalformed PinState = "malformed"
	// PinStateExpired: the pin's time to live ran out: send a new one.
	PinStateExpired PinState = "expired"
	// PinStateReplaced: a newer pin sent to the same number voided this one: ask for the newest.
	PinStateReplaced PinState = "replaced"
	// PinStateAlreadyVerified: the pin was verified before; a pin is single-use.
	PinStateAlreadyVerified PinState = "already_verified"
	// PinStateUnusable: the server refused to verify the pin (400) in words the SDK does not
	// know; by the contract it is expired, replaced or already verified: send a new one.
	PinStateUnusable PinState = "unusable"
	// PinStateLocked: too many wrong pins; the pin is locked until it expires (Error.RetryAfter):
	// send a new one.
	PinStateLocked PinState = "locked"
	// PinStateNotFound: no pin has this ID (or the server forgot it).
	PinStateNotFound PinState = "not_found"
)

// PinStateOf classifies the outcome of OTPService.Verify: pass it Verify's two results. It
// returns PinStateUnknown for the results of any other call.
//
//	v, err := client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: id, Pin: typed, PinLength: 6})
//	switch sms.PinStateOf(v, err) {
//	case sms.PinStateVerified: // log in
//	case sms.PinStateWrong, sms.PinStateMalformed: // "wrong code, try again"
//	case sms.PinStateExpired, sms.PinStateReplaced, sms.PinStateAlreadyVerified, sms.PinStateUnusable, sms.PinStateLocked, sms.PinStateNotFound: // "send a new code"
//	default: // "try again later"; log err
//	}
func PinStateOf(v *Verification, err error) PinState {
	if err == nil {
		switch {
		case v == nil:
			return PinStateUnknown
		case v.Verified:
			return PinStateVerified
		case v.expired:
			return PinStateExpired
		case v.AttemptsRemaining != nil && *v.AttemptsRemaining <= 0:
			return PinStateLocked // wrong, and no try left: the next is refused
		}
		return PinStateWrong
	}
	var pe *pinError
	if errors.As(err, &pe) {
		return pe.state
	}
	return PinStateUnknown
}

// pinError is an error of Verify that says what state the pin is in. It is the error it
// wraps in every other respect.
type pinError struct {
	state PinState
	err   error
}

func (e *pinError) Error() string { return e.err.Error() }

func (e *pinError) Unwrap() error { return e.err }

// classifyVerifyError wraps the error of a Verify request in
// a *pinError when it says what state the pin is in (see PinState), and returns it as it is
// otherwise.
func classifyVerifyError(err error) error {
	if state := verifyErrorState(err); state != PinStateUnknown {
		return &pinError{state: state, err: err}
	}
	return err
}

func verifyErrorState(err error) PinState {
	var ve *ValidationError
	if errors.As(err, &ve) {
		if ve.Field == "Pin" {
			return PinStateMalformed
		}
		return PinStateUnknown
	}
	var e *Error
	if !errors.As(err, &e) {
		return PinStateUnknown
	}
	msg := strings.ToLower(e.Code + " " + e.Message)
	if e.inBody {
		// A 2xx whose body says it failed ({"status": false, "message": "Pin has expired"}):
		// the request's outcome is unknown, but words that name a state of the pin say it.
		if state := pinWords(msg); state != PinStateUnknown {
			return state
		}
		return PinStateUnknown
	}
	if errors.Is(err, ErrOutcomeUnknown) {
		return PinStateUnknown
	}
	switch e.StatusCode {
	case http.StatusNotFound:
		if e.notAPI || routeWords(msg) {
			return PinStateUnknown // a proxy's or a router's 404, not the service's word on the pin
		}
		return PinStateNotFound
	case http.StatusGone: // the pin is gone: expired, unless the words say how else
		if e.notAPI || routeWords(msg) {
			return PinStateUnknown
		}
		return cmp.Or(pinWords(msg), PinStateExpired)
	case http.StatusConflict: // the pin's state forbids it: used, unless the words say how else
		return cmp.Or(pinWords(msg), PinStateAlreadyVerified)
	case http.StatusTooManyRequests:
		return lockedOrThrottled(strings.ToLower(e.Code), strings.ToLower(e.Message))
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		if state := pinWords(msg); state != PinStateUnknown {
			return state
		}
		if e.Field == "pin" {
			return PinStateMalformed
		}
		return PinStateUnusable
	}
	return PinStateUnknown
}

// pinWords returns the state of the pin that words (lower case) name: expired, replaced or
// already verified; else PinStateUnknown.
func pinWords(msg string) PinState {
	switch {
	case strings.Contains(msg, "expired"):
		return PinStateExpired
	case strings.Contains(msg, "replaced"), strings.Contains(msg, "voided"), strings.Contains(msg, "newer"):
		return PinStateReplaced
	case strings.Contains(msg, "already verified"), strings.Contains(msg, "already been verified"), strings.Contains(msg, "already used"):
		return PinStateAlreadyVerified
	}
	return PinStateUnknown
}

// lockedOrThrottled tells a 429 about the pin (too many wrong pins: PinStateLocked) from a
// request throttle (the key's quota, Django REST's "Request was throttled", Laravel's "Too
// Many Attempts.", "Limit Exceeded": PinStateUnknown, as a new pin would be sent into the same
// throttle). The code decides first: one that names the pin, an OTP, a lock or attempts is
// the pin's. Then the words: only words that name the pin (pin, OTP, lock, wrong, incorrect)
// make it the pin's, whatever the headers say of the key's quota. Anything else, a 429
// without words included, is a throttle: the answer does not say that the pin is locked.
func lockedOrThrottled(code, msg string) PinState {
	if code != "" && code != "rate_limited" {
		for _, w := range [...]string{"pin", "otp", "lock", "attempt"} {
			if strings.Contains(code, w) {
				return PinStateLocked
			}
		}
	}
	for _, w := range [...]string{"pin", "otp", "lock", "wrong", "incorrect"} {
		if strings.Contains(msg, w) {
			return PinStateLocked
		}
	}
	return PinStateUnknown
}

// routeWords reports whether the message of a 404 speaks of the route rather than of a pin:
// the mock's "No route for POST /x.", Express's "Cannot POST /x", a framework's "path" or
// "endpoint" not found. A wrong base path gives such an answer for every pin.
func routeWords(msg string) bool {
	for _, w := range [...]string{"route", "cannot post", "endpoint", "path", "url", "no handler"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}
