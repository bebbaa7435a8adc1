package main

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Server answers and CSV files are text this command does not control. Printed raw, an ESC
// starts a terminal sequence (OSC 0 retitles the window, OSC 52 writes the clipboard, CSI moves
// the cursor), a carriage return overwrites what was printed, and a bidirectional override
// reorders it. Everything printed from such text goes through the helpers below: printable for
// table cells and the arguments of notes, printableText for error messages, and escapeJSON
// for --json output.

// printable returns s with every character a terminal could act on escaped as in a Go string
// literal: C0 and C1 control characters (\x1b, \r, \n, \t, \u009b), DEL, and format
// characters such as the bidirectional overrides (\u202e, \u2066) and zero-width characters;
// every byte that is not UTF-8 becomes \xNN. Other characters, quotes and backslashes
// included, are kept as they are.
func printable(s string) string { return escape(s, false) }

// printableText is printable for a message of several lines: it keeps line feeds and tabs,
// which cobra's own messages use, and escapes the rest.
func printableText(s string) string { return escape(s, true) }

func escape(s string, layout bool) string {
	keep := func(r rune) bool { return strconv.IsPrint(r) || layout && (r == '\n' || r == '\t') }
	clean := true
	for _, r := range s { // an invalid byte is utf8.RuneError, which IsPrint accepts
		if !keep(r) {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keep(r):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRune(r) // '\x1b', '\r', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// printableArgs escapes the arguments of a note that are text: strings (of any string type),
// errors and Stringers. Numbers are left to the format.
func printableArgs(args []any) []any {
	out := make([]any, len(args))
	for i, arg := range args {
		switch v := arg.(type) {
		case string:
			out[i] = printable(v)
		case error:
			out[i] = printable(v.Error())
		case fmt.Stringer:
			out[i] = printable(v.String())
		default:
			if rv := reflect.ValueOf(arg); rv.Kind() == reflect.String {
				out[i] = printable(rv.String())
			} else {
				out[i] = arg
			}
		}
	}
	return out
}

// escapeJSON escapes, in JSON that encoding/json wrote, the characters it leaves raw although a
// terminal could act on them: DEL, the C1 controls and format characters such as U+202E (it
// escapes C0 controls already). They can only occur inside strings, where \uXXXX is the same
// text, so the document means the same.
func escapeJSON(b []byte) []byte {
	i := 0
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x7f && !strconv.IsPrint(r) {
			break
		}
		i += size
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r >= 0x7f && !strconv.IsPrint(r) && r <= 0xffff:
			out = fmt.Appendf(out, `\u%04x`, r)
		case r >= 0x7f && !strconv.IsPrint(r):
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// fit cuts s to at most width characters, ending it with an ellipsis when it was cut, so that
// a line fits a terminal of that width.
func fit(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	n := 0
	for i := range s {
		if n == width-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// plural writes a count and its noun: "1 batch", "2 batches".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
