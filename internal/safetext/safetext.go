// Package safetext makes text from a server fit for an error string or a terminal line, and
// holds the module's one rule for what such text must not show (see Redactor): secrets, pins,
// and phone numbers in full.
package safetext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Printable returns s as valid UTF-8 (invalid bytes become U+FFFD), with every character that
// strconv.IsPrint refuses (control characters such as newline and ESC, format characters such
// as U+202E) escaped as in a Go string literal, and cut at max bytes, on a character boundary,
// with an ellipsis.
func Printable(s string, max int) string {
	if len(s) <= max && utf8.ValidString(s) && strings.IndexFunc(s, notPrint) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s { // an invalid byte comes as utf8.RuneError, which is printable
		piece := string(r)
		if notPrint(r) {
			q := strconv.QuoteRune(r)
			piece = q[1 : len(q)-1]
		}
		if b.Len()+len(piece) > max {
			b.WriteString("…")
			break
		}
		b.WriteString(piece)
	}
	return b.String()
}

func notPrint(r rune) bool { return !strconv.IsPrint(r) }
