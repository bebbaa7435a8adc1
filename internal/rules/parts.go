package rules

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Encoding is the character set a message is sent in.
type Encoding int

const (
	// GSM7 is the GSM 03.38 7-bit alphabet: 160 characters in one part, 153 per part when split.
	GSM7 Encoding = iota + 1
	// UCS2 is UTF-16: 70 code units in one part, 67 per part when split.
	UCS2
)

// String returns "GSM-7" or "UCS-2".
func (e Encoding) String() string {
	switch e {
	case GSM7:
		return "GSM-7"
	case UCS2:
		return "UCS-2"
	}
	return "Encoding(" + strconv.Itoa(int(e)) + ")"
}

// gsmBasic is the GSM 03.38 basic character set; gsmExtension the characters sent with an escape
// (two septets each).
const (
	gsmBasic = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
		"¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
	gsmExtension = "\f^{}\\[~]|€"
)

var gsmWidth = func() map[rune]uint8 {
	m := make(map[rune]uint8, 140)
	for _, r := range gsmBasic {
		m[r] = 1
	}
	for _, r := range gsmExtension {
		m[r] = 2
	}
	return m
}()

// gsmASCII caches gsmWidth for the ASCII range, where almost every message lives.
var gsmASCII = func() (t [128]uint8) {
	for r := range rune(128) {
		t[r] = gsmWidth[r]
	}
	return t
}()

// CountParts returns how many SMS parts message is sent in and in which encoding. A message is
// GSM-7 when every character is in the GSM 03.38 basic or extension table (extension characters
// take two septets), else UCS-2 (UTF-16 code units). A single part holds 160 septets or 70 code
// units; a split message holds 153 or 67 per part, and an escape sequence or a surrogate pair is
// never split across parts. Invalid UTF-8 counts as U+FFFD. The empty message has 0 parts.
func CountParts(message string) (parts int, enc Encoding) {
	if message == "" {
		return 0, GSM7
	}
	if units, ok := gsmUnits(message); ok {
		return split(units, 160, 153, func(r rune) int {
			if r < 128 {
				return int(gsmASCII[r])
			}
			return int(gsmWidth[r])
		}, message), GSM7
	}
	units := 0
	for _, r := range message {
		units += utf16Len(r)
	}
	return split(units, 70, 67, utf16Len, message), UCS2
}

// gsmUnits returns the septet count of s and whether s is all GSM-7.
func gsmUnits(s string) (int, bool) {
	n := 0
	for _, r := range s {
		var w uint8
		if r < 128 {
			w = gsmASCII[r]
		} else {
			w = gsmWidth[r]
		}
		if w == 0 {
			return 0, false
		}
		n += int(w)
	}
	return n, true
}

func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}

// split counts parts for a message of total units: one part when it fits single, else parts of
// multi units in which no character is cut in two.
func split(total, single, multi int, width func(rune) int, s string) int {
	if total <= single {
		return 1
	}
	parts, used := 1, 0
	for _, r := range s {
		w := width(r)
		if used+w > multi {
			parts++
			used = 0
		}
		used += w
	}
	return parts
}

// CountPartsWith returns CountParts(strings.ReplaceAll(message, tag, value)), the parts of a
// template's message for one recipient, without building that message when it fits one part:
// a bulk job checks it for every distinct name. message and value are valid UTF-8; an empty tag
// replaces nothing.
func CountPartsWith(message, tag, value string) (parts int, enc Encoding) {
	if tag == "" || !strings.Contains(message, tag) {
		return CountParts(message)
	}
	// The units of the message are those of its pieces between tags and of value once per
	// tag. Only a message longer than one part needs its characters in order, to split it.
	if vu, ok := gsmUnits(value); ok {
		units := 0
		for rest := message; ; {
			head, tail, found := strings.Cut(rest, tag)
			u, ok := gsmUnits(head)
			if !ok {
				units = -1
				break
			}
			units += u
			if !found {
				break
			}
			units += vu
			rest = tail
		}
		switch {
		case units == 0:
			return 0, GSM7
		case units > 0 && units <= 160:
			return 1, GSM7
		case units > 0:
			return CountParts(strings.ReplaceAll(message, tag, value))
		}
	}
	units, vu := 0, ucs2Units(value)
	for rest := message; ; {
		head, tail, found := strings.Cut(rest, tag)
		units += ucs2Units(head)
		if !found {
			break
		}
		units += vu
		rest = tail
	}
	if units <= 70 {
		return 1, UCS2
	}
	return CountParts(strings.ReplaceAll(message, tag, value))
}

// ucs2Units is the UTF-16 code units of s.
func ucs2Units(s string) int {
	n := 0
	for _, r := range s {
		n += utf16Len(r)
	}
	return n
}
