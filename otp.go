package sms

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/internal/safetext"
)

// PinType is the alphabet of an OTP pin.
type PinType string

// The pin alphabets.
const (
	PinTypeNumeric      PinType = "numeric"      // digits
	PinTypeAlphanumeric PinType = "alphanumeric" // A-Z and digits
)

// OTPService sends one-time passwords by SMS and verifies them.
//
// Its calls are not repeated after the request may have reached the server: they are retried
// only when no byte of the request was written (the connection or its TLS handshake failed),
// or on a 429. After an ambiguous failure (the connection dropped or a malformed TLS record
// came after sending, a timeout, a 5xx) they return an error matching ErrOutcomeUnknown, and
// the caller decides. WithReferenceDeduplication does not change this.
type OTPService struct{ c *core }

// SendOTPParams is the input of OTPService.Send.
type SendOTPParams struct {
	// To is the phone number, international or local Nigerian.
	To string
	// From is an active sender ID of the workspace.
	From string
	// Message is the SMS text, optional as the service documents it. When given, it must
	// contain PinPlaceholder, which is replaced by the pin, and then fit 10 parts. When
	// empty, it is left out of the request, and the server sends a default text with the
	// pin.
	Message string
	// PinType is PinTypeNumeric (when empty) or PinTypeAlphanumeric.
	PinType PinType
	// PinLength is 4 to 8 characters (0: 6).
	PinLength int
	// PinTimeToLive is how long the pin stays valid: whole minutes from 1 to 60 (0: 10
	// minutes).
	PinTimeToLive time.Duration
	// PinPlaceholder is 1 to 20 characters (empty: "< 1234 >").
	PinPlaceholder string
}

// OTP is a pin sent by OTPService.Send. The service's otp-send answer shows the pin ID, the
// number and smsStatus; what it cost is not shown, so Amount is nil (and Currency empty)
// unless the server sends it, as the mock server does.
type OTP struct {
	PinID     string    // pass it to Verify
	To        string    // the normalized number; empty when the server did not send it
	SMSStatus SMSStatus // such as SMSStatusSent; the mock answers SMSStatusFailed (and Amount 0.00) when the provider refused it
	Amount    *Amount   // what the SMS cost; nil when the server did not say
	Currency  string    // "NGN"; empty when the server did not say
	// Response is the HTTP answer, with its request ID (the service's OTP answers show no
	// requestId: it is then the X-Request-Id header's, or empty).
	Response *Response
}

// Send sends a new pin to p.To and charges it like one SMS. A new pin voids the earlier
// pending pins of the same number; at most 5 pins per number per 10 minutes (then 429).
//
// Endpoint: POST /v1/otp/send (scope otp), documented by the live page
// https://developers.nairasms.com.ng/otp-send.
func (s *OTPService) Send(ctx context.Context, p *SendOTPParams) (*OTP, error) {
	if p == nil {
		return nil, invalid("SendOTPParams", "parameters are required")
	}
	body, err := validateOTP(p)
	if err != nil {
		return nil, err
	}
	var out struct {
		envelope // its Status is the answer's status member ("200", or "400" on a failure)
		Data     struct {
			SMSStatus   text      `json:"smsStatus"`
			PhoneNumber text      `json:"phone_number"`
			PinID       text      `json:"pinId"`
			Amount      optAmount `json:"amount"`
			Currency    text      `json:"currency"`
			Unit        text      `json:"unit"` // of amount: see optAmount.inUnit
			Status      text      `json:"status"`
		} `json:"data"`
	}
	cl := &call{
		method: http.MethodPost, path: "/v1/otp/send", body: body, policy: retryUnsent,
		attrs: []slog.Attr{slog.String("to", safetext.MaskPhone(body.To))},
	}
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	d := &out.Data
	d.Amount = d.Amount.inUnit(d.Unit.s)
	bad := unreadable(nil, "data.", flaw{"smsStatus", d.SMSStatus.bad}, flaw{"phone_number", d.PhoneNumber.bad},
		flaw{"amount", d.Amount.bad}, flaw{"currency", d.Currency.bad}, flaw{"status", d.Status.bad})
	otp := &OTP{
		PinID: d.PinID.s, To: d.PhoneNumber.s, SMSStatus: SMSStatus(d.SMSStatus.s), Amount: d.Amount.ptr(), Currency: d.Currency.s,
		Response: cl.responseOf(out.envelope, unreadable(bad, "", flaw{"status", out.Status.bad})),
	}
	if failedSMSStatus(d.SMSStatus.s) || failedStatus(d.Status.s) || failedStatus(out.Status.s) {
		return nil, &SendFailedError{OTP: otp, Status: AnswerStatus(cmp.Or(d.Status.s, out.Status.s))}
	}
	if err := cl.need(member{"data.pinId", d.PinID.s != ""}); err != nil {
		return nil, err
	}
	if err := checkAmount(cl, "data.amount", otp.Amount); err != nil {
		return nil, cl.unbuildable(err)
	}
	return otp, nil
}

// failedSMSStatus reports whether s, the smsStatus of an OTP send, says the SMS was not sent:
// a word of failure (see Status) or of a number on the Do-Not-Disturb register ("DND Active
// on Phone Number": the OTP cannot reach it), or words of a refusal ("Insufficient Balance", "Invalid
// sender", "Error: ...").
func failedSMSStatus(s string) bool {
	if st := statusOf(s); st == "failed" || st == "dnd" || statusOfWords(s) != 0 { // DND: blocked, never delivered
		return true
	}
	m := strings.ToLower(s)
	for _, w := range [...]string{"insufficient", "fail", "error", "invalid", "reject", "refused", "denied"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// failedStatus reports whether s, the status member of an answer, is an HTTP status of
// failure: 400 to 599.
func failedStatus(s string) bool {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return err == nil && n >= 400 && n <= 599
}

// ErrSendFailed matches a *SendFailedError: a send the server accepted (its status line was
// a 2xx) but whose answer says the SMS failed.
var ErrSendFailed = errors.New("sms: the server says the send failed")

// SendFailedError is the error of OTPService.Send when the server's 2xx answer says the SMS
// failed: its smsStatus is "Message Failed" (or another word of failure, such as "Rejected"), or its status member, in data or beside it, is 400 to 599 (the provider's
// answers carry "status": "200" when all went well).
//
// It is not ErrOutcomeUnknown: the server answered, and says what happened. Nor is it a
// plain failure of the request: the server took it, and may have charged it (OTP.Amount says
// so when the server did) and created a pin (OTP.PinID, when the answer has one, which will
// not reach the user). Send a new pin, or report the failure; do not assume nothing happened.
// It matches ErrSendFailed.
type SendFailedError struct {
	// OTP is the answer as read: SMSStatus, and PinID, To, Amount and Currency when the
	// server sent them; its Response holds the request ID.
	OTP *OTP
	// Status is the status member of the answer, as the server wrote it ("400"), or empty.
	Status AnswerStatus
}

// Error describes the failure with the server's words, printable and bounded as in
// Error.Error.
func (e *SendFailedError) Error() string {
	msg := "sms: POST /v1/otp/send: the server accepted the request but says the SMS failed"
	if e.OTP != nil && e.OTP.SMSStatus != "" {
		msg += ": smsStatus " + strconv.Quote(printable(string(e.OTP.SMSStatus)))
	}
	if e.Status != "" {
		msg += ", status " + strconv.Quote(printable(string(e.Status)))
	}
	if e.OTP != nil && e.OTP.PinID != "" {
		msg += " (pin " + printable(e.OTP.PinID) + ")"
	}
	if e.OTP != nil && e.OTP.Response != nil && e.OTP.Response.RequestID != "" {
		msg += " [request " + printable(e.OTP.Response.RequestID) + "]"
	}
	return msg
}

// Is reports whether target is ErrSendFailed, or the sentinel the smsStatus names plainly
// (ErrInsufficientBalance for "Insufficient Balance"; see Error.Is).
func (e *SendFailedError) Is(target error) bool {
	if target == ErrSendFailed {
		return true
	}
	if e.OTP == nil {
		return false
	}
	s := sentinelFor(statusOfWords(string(e.OTP.SMSStatus)))
	return s != nil && s == target
}

type otpBody struct {
	To             string  `json:"to"`
	From           string  `json:"from"`
	MessageText    string  `json:"message_text,omitempty"`
	PinType        PinType `json:"pin_type,omitempty"`
	PinLength      int     `json:"pin_length,omitempty"`
	PinTimeToLive  int     `json:"pin_time_to_live,omitempty"` // minutes
	PinPlaceholder string  `json:"pin_placeholder,omitempty"`
}

func validateOTP(p *SendOTPParams) (*otpBody, error) {
	to, err := rules.NormalizePhone(p.To)
	if err != nil {
		return nil, invalid("To", err.Error())
	}
	if err := validateFrom("From", p.From); err != nil {
		return nil, err
	}
	switch p.PinType {
	case "", PinTypeNumeric, PinTypeAlphanumeric:
	default:
		return nil, invalid("PinType", "the pin type is numeric or alphanumeric")
	}
	length := cmp.Or(p.PinLength, rules.DefaultPinLength)
	if p.PinLength != 0 && (p.PinLength < rules.MinPinLength || p.PinLength > rules.MaxPinLength) {
		return nil, invalid("PinLength", "a pin is "+strconv.Itoa(rules.MinPinLength)+" to "+strconv.Itoa(rules.MaxPinLength)+" characters")
	}
	ttl := p.PinTimeToLive
	if ttl != 0 && (ttl%time.Minute != 0 || ttl < rules.MinPinTTL*time.Minute || ttl > rules.MaxPinTTL*time.Minute) {
		return nil, invalid("PinTimeToLive", "the pin's time to live is whole minutes from "+strconv.Itoa(rules.MinPinTTL)+" to "+strconv.Itoa(rules.MaxPinTTL))
	}
	if err := validateUTF8("PinPlaceholder", p.PinPlaceholder); err != nil {
		return nil, err
	}
	placeholder := p.PinPlaceholder
	if placeholder == "" {
		placeholder = rules.DefaultPinPlaceholder
	} else if utf8.RuneCountInString(placeholder) > rules.MaxPinPlaceholderLen {
		return nil, invalid("PinPlaceholder", "the placeholder is 1 to "+strconv.Itoa(rules.MaxPinPlaceholderLen)+" characters")
	}
	if p.Message != "" { // optional: the server has a text of its own
		if err := validateUTF8("Message", p.Message); err != nil {
			return nil, err
		}
		if !strings.Contains(p.Message, placeholder) {
			return nil, invalid("Message", "the message text must contain the pin placeholder "+strconv.Quote(placeholder))
		}
		// Pins are ASCII letters and digits: every pin of this length takes the same parts.
		if err := validateParts("Message", strings.ReplaceAll(p.Message, placeholder, strings.Repeat("0", length))); err != nil {
			return nil, err
		}
	}
	return &otpBody{
		To: to, From: p.From, MessageText: p.Message, PinType: p.PinType, PinLength: p.PinLength,
		PinTimeToLive: int(ttl / time.Minute), PinPlaceholder: p.PinPlaceholder,
	}, nil
}

// VerifyOTPParams is the input of OTPService.Verify. Its String, Format (every verb, %#v
// too), LogValue and MarshalJSON never show the Pin.
type VerifyOTPParams struct {
	PinID string // from OTP.PinID
	// Pin is what the user typed. A pin is 4 to 8 ASCII letters and digits: anything else
	// (such as "12", " 123456" or "12-34") is refused before any request, as a
	// *ValidationError, so that it does not use up one of the pin's attempts. Trim what
	// people type before passing it.
	Pin string
	// PinType, when set, is the type the pin was sent with: PinTypeNumeric refuses a pin that
	// is not all digits. Empty: digits and letters are both accepted.
	PinType PinType
	// PinLength, when set (4 to 8), is the length the pin was sent with: a pin of another
	// length is refused. 0: any length from 4 to 8.
	PinLength int
}

// String describes the parameters without the pin.
func (p VerifyOTPParams) String() string {
	s := fmt.Sprintf("sms.VerifyOTPParams{PinID: %q, Pin: %s", p.PinID, redacted(p.Pin))
	if p.PinType != "" {
		s += fmt.Sprintf(", PinType: %q", p.PinType)
	}
	if p.PinLength != 0 {
		s += fmt.Sprintf(", PinLength: %d", p.PinLength)
	}
	return s + "}"
}

// MarshalJSON encodes the parameters without the pin, as {"PinID": ..., "Pin": "[REDACTED]",
// ...}, so that a JSON log of a value holding them (such as slog's JSON handler writes) does
// not show it. The request body of Verify is built separately and carries the pin.
func (p VerifyOTPParams) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		PinID, Pin string
		PinType    PinType `json:",omitempty"`
		PinLength  int     `json:",omitempty"`
	}{p.PinID, redacted(p.Pin), p.PinType, p.PinLength})
}

// redacted returns "[REDACTED]" for a secret, or "" when there is none.
func redacted(secret string) string {
	if secret == "" {
		return ""
	}
	return "[REDACTED]"
}

// Format prints the parameters without the pin, whatever the verb.
func (p VerifyOTPParams) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, p.String()) }

// LogValue logs the parameters without the pin, whatever the slog handler.
func (p VerifyOTPParams) LogValue() slog.Value { return slog.StringValue(p.String()) }

// verifyBody is the body of POST /v1/otp/verify: the one place the pin is encoded.
type verifyBody struct {
	PinID string `json:"pin_id"`
	Pin   string `json:"pin"`
}

// Verification is the answer to OTPService.Verify. PinStateOf classifies it, and Verify's
// errors, for a handler to branch on.
type Verification struct {
	// PinID is the pin's ID: the server's, or the one asked for when the answer does not
	// repeat it.
	PinID    string
	Verified bool   // the pin matched; it is now used up
	To       string // the number the pin was sent to; empty when the server did not send it
	// AttemptsRemaining is how many wrong pins are still allowed, or nil when the server did
	// not say (the service's otp-verify answer does not show it; the mock server sends it).
	// After the fifth wrong pin, Verify answers 429 (PinStateLocked) until the pin expires.
	AttemptsRemaining *int
	// Response is the HTTP answer, with its request ID.
	Response *Response

	expired bool // the provider's "verified": "Expired": PinStateOf says PinStateExpired
}

// Verify checks a pin. A wrong pin is not an error: Verified is false (and so it is when the
// server answers the provider's "verified": "Expired", which PinStateOf tells apart). An unknown PinID is a
// 404 (ErrNotFound); an expired, voided or already verified pin a 400 (ErrBadRequest); a pin
// locked after too many wrong ones a 429 (ErrRateLimited). PinStateOf tells these apart.
//
// A pin that cannot be valid (see VerifyOTPParams.Pin) is a *ValidationError, matching
// ErrInvalidParams, before any request: it uses up no attempt.
//
// Endpoint: POST /v1/otp/verify (scope otp), documented by the live page
// https://developers.nairasms.com.ng/otp-verify.
func (s *OTPService) Verify(ctx context.Context, p *VerifyOTPParams) (*Verification, error) {
	if p == nil {
		return nil, invalid("VerifyOTPParams", "parameters are required")
	}
	if p.PinID == "" {
		return nil, invalid("PinID", "a pin ID is required")
	}
	if err := validateUTF8("PinID", p.PinID); err != nil {
		return nil, err
	}
	if err := validatePin(p); err != nil {
		return nil, classifyVerifyError(err)
	}
	var out struct {
		envelope
		Data struct {
			PinID             text     `json:"pinId"`
			PinID2            text     `json:"pin_id"`
			Verified          *verdict `json:"verified"`
			MSISDN            text     `json:"msisdn"`
			AttemptsRemaining optInt   `json:"attemptsRemaining"`
		} `json:"data"`
	}
	body := verifyBody{PinID: p.PinID, Pin: p.Pin}
	cl := &call{method: http.MethodPost, path: "/v1/otp/verify", body: body, policy: retryUnsent}
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, classifyVerifyError(err)
	}
	d := &out.Data
	if err := cl.need(member{"data.verified", d.Verified != nil}); err != nil {
		return nil, err
	}
	for _, named := range [...]text{d.PinID, d.PinID2} { // under any of its names
		if named.s != "" && !strings.EqualFold(named.s, p.PinID) {
			// An answer about another pin says nothing of this one: never a verified pin.
			return nil, cl.unbuildable(fmt.Errorf("the %d answer is about pin %s, not the pin %s asked about",
				cl.status, strconv.Quote(printable(named.s)), strconv.Quote(printable(p.PinID))))
		}
	}
	bad := unreadable(nil, "data.", flaw{"pinId", d.PinID.bad}, flaw{"pin_id", d.PinID2.bad}, flaw{"msisdn", d.MSISDN.bad}, flaw{"attemptsRemaining", d.AttemptsRemaining.bad})
	return &Verification{
		PinID: cmp.Or(d.PinID.s, p.PinID), Verified: d.Verified.verified, To: d.MSISDN.s,
		AttemptsRemaining: d.AttemptsRemaining.ptr(), Response: cl.responseOf(out.envelope, bad), expired: d.Verified.expired,
	}, nil
}

// validatePin refuses a pin that cannot be valid: not 4 to 8 ASCII letters and digits, or not
// of the type and length given. Reasons never repeat the pin.
func validatePin(p *VerifyOTPParams) error {
	switch p.PinType {
	case "", PinTypeNumeric, PinTypeAlphanumeric:
	default:
		return invalid("PinType", "the pin type is numeric or alphanumeric")
	}
	if p.PinLength != 0 && (p.PinLength < rules.MinPinLength || p.PinLength > rules.MaxPinLength) {
		return invalid("PinLength", "a pin is "+strconv.Itoa(rules.MinPinLength)+" to "+strconv.Itoa(rules.MaxPinLength)+" characters")
	}
	if p.Pin == "" {
		return invalid("Pin", "a pin is required")
	}
	if err := validateUTF8("Pin", p.Pin); err != nil {
		return err
	}
	for i := 0; i < len(p.Pin); i++ {
		c := p.Pin[i]
		digit := '0' <= c && c <= '9'
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		switch {
		case p.PinType == PinTypeNumeric && !digit:
			return invalid("Pin", "this pin is numeric: digits only (trim spaces and separators)")
		case !digit && !letter:
			return invalid("Pin", "a pin is ASCII letters and digits only (trim spaces and separators)")
		}
	}
	switch {
	case p.PinLength != 0 && len(p.Pin) != p.PinLength:
		return invalid("Pin", "this pin is "+strconv.Itoa(p.PinLength)+" characters long")
	case len(p.Pin) < rules.MinPinLength || len(p.Pin) > rules.MaxPinLength:
		return invalid("Pin", "a pin is "+strconv.Itoa(rules.MinPinLength)+" to "+strconv.Itoa(rules.MaxPinLength)+" characters")
	}
	return nil
}
