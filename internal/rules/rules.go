// Package rules holds what the SDK and the mock server must agree on: how a message is split
// into SMS parts, how phone numbers are normalized, what money looks like on the wire, and the
// limits of every field. Both sides import it, so they count the same way.
package rules

import "strconv"

// Field limits of the /v1 contract.
const (
	MaxSendRecipients     = 100    // POST /v1/sms/send: to
	MaxCampaignRecipients = 10_000 // POST /v1/sms/campaigns: to
	MaxParts              = 10     // sms_parts of one message
	MaxReferenceLen       = 100
	MaxNameLen            = 100 // key name, recipient name
	MaxUsecaseLen         = 500
	MaxCompanyLen         = 100
	MinSenderIDLen        = 3
	MaxSenderIDLen        = 11
	MinPinLength          = 4
	MaxPinLength          = 8
	DefaultPinLength      = 6
	MinPinTTL             = 1 // minutes
	MaxPinTTL             = 60
	DefaultPinTTL         = 10
	MaxPinPlaceholderLen  = 20
	DefaultPinPlaceholder = "< 1234 >"
	MaxPinAttempts        = 5
	MaxExpiresInDays      = 3650
	DefaultPage           = 1
	DefaultLimit          = 20
	MaxLimit              = 100
	MaxBodyBytes          = 1 << 20 // larger request bodies are 413
)

// SenderIDReason says why from cannot be the sender ID of a send, in the words the SDK's
// errors use, or returns "" when it can.
func SenderIDReason(from string) string {
	switch {
	case from == "":
		return "a sender ID is required"
	case !ValidSenderID(from):
		return "a sender ID is 3 to 11 ASCII letters and digits"
	}
	return ""
}

// PartsReason says why message is too long to send, in the words the SDK's errors use, or
// returns "" when it fits MaxParts.
func PartsReason(message string) string {
	if parts, _ := CountParts(message); parts > MaxParts {
		return "the message takes " + strconv.Itoa(parts) + " SMS parts; at most " + strconv.Itoa(MaxParts) + " are allowed"
	}
	return ""
}

// ValidSenderID reports whether s is 3 to 11 ASCII letters and digits.
func ValidSenderID(s string) bool {
	if len(s) < MinSenderIDLen || len(s) > MaxSenderIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// ValidReference reports whether s is 1 to 100 printable ASCII characters (0x20 to 0x7E).
func ValidReference(s string) bool {
	if len(s) == 0 || len(s) > MaxReferenceLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// The scope names on the wire: the one vocabulary of the SDK's sms.Scope and the mock's
// mockserver.Scope, whose constants are these.
const (
	ScopeSMS       = "sms"
	ScopeOTP       = "otp"
	ScopeCampaigns = "campaigns"
	ScopeSenderIDs = "sender_ids"
	ScopeBalance   = "balance"
)

// ScopeNames are the scope names on the wire, in the contract's order.
var ScopeNames = [...]string{ScopeSMS, ScopeOTP, ScopeCampaigns, ScopeSenderIDs, ScopeBalance}

// ValidScope reports whether name is one of ScopeNames.
func ValidScope(name string) bool {
	for _, s := range ScopeNames {
		if s == name {
			return true
		}
	}
	return false
}
