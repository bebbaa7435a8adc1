package mockserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// invalidUTF8Field returns the member that holds the body's first invalid UTF-8 byte, in the
// form errors name fields ("message", "to[3]", "to[0].name"), or "" when the body is not JSON
// enough to say (or the bad byte is in a top-level string). It runs only on bodies already
// known to be invalid, so it may be slow.
func invalidUTF8Field(body []byte) string {
	bad := firstInvalidUTF8(body)
	if bad < 0 {
		return ""
	}
	type frame struct {
		array bool
		key   string // object: the current member
		index int    // array: the current element
		inKey bool   // object: the next string is a member name
	}
	var stack []frame
	// value marks the start of a value in the enclosing container.
	value := func() {
		if n := len(stack); n > 0 && stack[n-1].array {
			stack[n-1].index++
		}
	}
	// done marks the end of a value in the enclosing container.
	done := func() {
		if n := len(stack); n > 0 && !stack[n-1].array {
			stack[n-1].inKey = true
		}
	}
	field := func() string {
		var b strings.Builder
		for _, f := range stack {
			switch {
			case f.array:
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			case f.key != "":
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			}
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		end := dec.InputOffset() // just past tok: the first token ending past bad holds it
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				value()
				stack = append(stack, frame{array: t == '[', index: -1, inKey: t == '{'})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].inKey {
				stack[n-1].key, stack[n-1].inKey = t, false
				if end > int64(bad) {
					return field()
				}
				continue
			}
			value()
			if end > int64(bad) {
				return field()
			}
			done()
		default:
			value()
			done()
		}
	}
}

// firstInvalidUTF8 is the offset of the first byte of b that is not valid UTF-8, or -1.
func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}
