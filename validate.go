package sms

// Local validation shared by the services: what can be checked before any request fails
// with a *ValidationError naming the parameter, and nothing is sent.

import (
	"crypto/rand"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
)

func validateFrom(field, from string) error {
	if reason := rules.SenderIDReason(from); reason != "" {
		return invalid(field, reason)
	}
	return nil
}

func validateMessage(field, message string) error {
	if message == "" {
		return invalid(field, "a message is required")
	}
	if err := validateUTF8(field, message); err != nil {
		return err
	}
	return validateParts(field, message)
}

// validateUTF8 refuses text that is not valid UTF-8: JSON would carry U+FFFD in place of
// each invalid byte, so the server would get other text than was given.
func validateUTF8(field, text string) error {
	if !utf8.ValidString(text) {
		return invalid(field, "the text is not valid UTF-8")
	}
	return nil
}

func validateParts(field, message string) error {
	if reason := rules.PartsReason(message); reason != "" {
		return invalid(field, reason)
	}
	return nil
}

func validateChannel(ch Channel) error {
	switch ch {
	case "", ChannelGeneric, ChannelDND:
		return nil
	}
	return invalid("Channel", "the channel is generic or dnd")
}

func validateReference(ref string) error {
	if ref != "" && !rules.ValidReference(ref) {
		return invalid("Reference", "a reference is 1 to "+strconv.Itoa(rules.MaxReferenceLen)+" printable ASCII characters")
	}
	return nil
}

// referenceFor returns ref, or a new random reference when ref is empty.
func referenceFor(ref string) string {
	if ref != "" {
		return ref
	}
	return "sms-go-" + rand.Text()
}

func validatePage(page, limit int) error {
	if page < 0 {
		return invalid("Page", "the page is 1 or more (0 for the first)")
	}
	if limit < 0 || limit > rules.MaxLimit {
		return invalid("Limit", "the limit is 1 to "+strconv.Itoa(rules.MaxLimit)+" (0 for the default)")
	}
	return nil
}

// validateText checks a required free-text field of at most maxLen characters.
func validateText(field, v string, maxLen int) error {
	if strings.TrimSpace(v) == "" {
		return invalid(field, "a value is required")
	}
	if err := validateUTF8(field, v); err != nil {
		return err
	}
	if utf8.RuneCountInString(v) > maxLen {
		return invalid(field, "at most "+strconv.Itoa(maxLen)+" characters")
	}
	return nil
}
