package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

type otpSentJSON struct {
	SMSStatus   string     `json:"smsStatus"`
	PhoneNumber string     `json:"phone_number"`
	PinID       string     `json:"pinId"`
	Status      string     `json:"status"`
	Amount      wire.Naira `json:"amount"`
	Currency    string     `json:"currency"`
}

// otpSentDocumented is the otp-send sample's data.
type otpSentDocumented struct {
	SMSStatus   string `json:"smsStatus"`
	PhoneNumber string `json:"phone_number"`
	PinID       string `json:"pinId"`
	Status      string `json:"status"`
}

// sendOTP is POST /v1/otp/send.
func sendOTP(_ *API, rq *request) (int, any, error) {
	var in struct {
		To             *string `json:"to"`
		From           *string `json:"from"`
		MessageText    *string `json:"message_text"`
		PinType        *string `json:"pin_type"`
		PinLength      *int    `json:"pin_length"`
		PinTimeToLive  *int    `json:"pin_time_to_live"`
		PinPlaceholder *string `json:"pin_placeholder"`
	}
	if err := wire.Decode(rq.body, &in); err != nil {
		return 0, nil, err
	}
	if in.To == nil {
		return 0, nil, badRequest("to", "to is required.")
	}
	p, err := store.ParsePhone("to", *in.To)
	if err != nil {
		return 0, nil, err
	}
	if err := checkSender(in.From); err != nil {
		return 0, nil, err
	}
	alphabet := "0123456789"
	if in.PinType != nil {
		switch *in.PinType {
		case "numeric":
		case "alphanumeric":
			alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		default:
			return 0, nil, badRequest("pin_type", "pin_type must be numeric or alphanumeric.")
		}
	}
	length := rules.DefaultPinLength
	if in.PinLength != nil {
		if length = *in.PinLength; length < rules.MinPinLength || length > rules.MaxPinLength {
			return 0, nil, badRequest("pin_length", "pin_length must be from %d to %d.", rules.MinPinLength, rules.MaxPinLength)
		}
	}
	ttl := rules.DefaultPinTTL
	if in.PinTimeToLive != nil {
		if ttl = *in.PinTimeToLive; ttl < rules.MinPinTTL || ttl > rules.MaxPinTTL {
			return 0, nil, badRequest("pin_time_to_live", "pin_time_to_live must be from %d to %d minutes.", rules.MinPinTTL, rules.MaxPinTTL)
		}
	}
	placeholder := rules.DefaultPinPlaceholder
	if in.PinPlaceholder != nil {
		placeholder = *in.PinPlaceholder
		if placeholder == "" || utf8.RuneCountInString(placeholder) > rules.MaxPinPlaceholderLen {
			return 0, nil, badRequest("pin_placeholder", "pin_placeholder must be 1 to %d characters.", rules.MaxPinPlaceholderLen)
		}
	}
	text := defaultOTPText(placeholder, ttl)
	if in.MessageText != nil {
		if text = *in.MessageText; text == "" {
			return 0, nil, badRequest("message_text", "message_text must not be empty; leave it out for the default text.")
		}
		if !strings.Contains(text, placeholder) {
			return 0, nil, badRequest("message_text", "message_text must contain the pin placeholder %q.", placeholder)
		}
	}
	o, err := rq.st.store.SendOTP(rq.caller, store.OTPParams{From: *in.From, Phone: p, Text: text,
		Placeholder: placeholder, Alphabet: alphabet, Length: length, TTL: time.Duration(ttl) * time.Minute,
		ProviderFailure: rq.providerFailure}, rq.now)
	if err != nil {
		return 0, nil, err
	}
	smsStatus := "Message Sent"
	if o.Refused {
		smsStatus = "Message Failed"
	}
	if rq.documented { // the otp-send sample: no amount, currency or requestId
		return http.StatusOK, bare{wire.Data{Data: otpSentDocumented{SMSStatus: smsStatus, PhoneNumber: o.Phone, PinID: o.PinID, Status: "200"}}}, nil
	}
	return http.StatusOK, wire.Data{Data: otpSentJSON{SMSStatus: smsStatus, PhoneNumber: o.Phone, PinID: o.PinID,
		Status: "200", Amount: wire.Naira(o.Amount), Currency: "NGN"}}, nil
}

// defaultOTPText is the text of an OTP sent without message_text (the live docs make it
// optional and do not show the service's own text): "Your verification code is < 1234 >. It
// expires in 10 minutes.", the placeholder standing where the pin goes.
func defaultOTPText(placeholder string, ttlMinutes int) string {
	unit := " minutes."
	if ttlMinutes == 1 {
		unit = " minute."
	}
	return "Your verification code is " + placeholder + ". It expires in " + strconv.Itoa(ttlMinutes) + unit
}

// verificationJSON is the verify answer's data: attemptsRemaining only when the pin did not
// match (docs/api.md: a verified pin, used up, has no attempts left to count).
type verificationJSON struct {
	PinID             string `json:"pinId"`
	Verified          bool   `json:"verified"`
	MSISDN            string `json:"msisdn"`
	AttemptsRemaining *int   `json:"attemptsRemaining,omitempty"`
}

// verificationDocumented is the otp-verify sample's data.
type verificationDocumented struct {
	PinID    string `json:"pinId"`
	Verified bool   `json:"verified"`
	MSISDN   string `json:"msisdn"`
}

// verifyOTP is POST /v1/otp/verify.
func verifyOTP(_ *API, rq *request) (int, any, error) {
	var in struct {
		PinID *string `json:"pin_id"`
		Pin   *string `json:"pin"`
	}
	if err := wire.Decode(rq.body, &in); err != nil {
		return 0, nil, err
	}
	if in.PinID == nil || *in.PinID == "" {
		return 0, nil, badRequest("pin_id", "pin_id is required.")
	}
	if in.Pin == nil || *in.Pin == "" {
		return 0, nil, badRequest("pin", "pin is required.")
	}
	v, err := rq.st.store.VerifyOTP(rq.caller, *in.PinID, *in.Pin, rq.now)
	if err != nil {
		return 0, nil, err
	}
	if rq.documented { // the otp-verify sample: no attemptsRemaining or requestId
		return http.StatusOK, bare{wire.Data{Data: verificationDocumented{PinID: v.PinID, Verified: v.Verified, MSISDN: v.Phone}}}, nil
	}
	out := verificationJSON{PinID: v.PinID, Verified: v.Verified, MSISDN: v.Phone}
	if !v.Verified {
		out.AttemptsRemaining = &v.AttemptsLeft
	}
	return http.StatusOK, wire.Data{Data: out}, nil
}
