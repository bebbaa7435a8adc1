package wire

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The package's one JSON reader. The send bodies' one-pass decoder reads with it strictly
// (it declines what it does not fully understand); every other use reads a whole value with
// it into a small tree (value): the member checks of Decode, the reference and fingerprint of
// a body, and the member that holds a body's invalid UTF-8. It accepts exactly what
// encoding/json accepts, with the same nesting limit, and decodes strings as it does (invalid
// UTF-8 and lone surrogates become U+FFFD), so that the checks it makes agree with the values
// encoding/json then assigns.

// maxDepth is encoding/json's nesting limit: a deeper value is not JSON to it, nor to us.
const maxDepth = 10000

// scanner reads JSON text s from offset i.
type scanner struct {
	s      string
	i      int
	strict bool // refuse invalid UTF-8 and lone surrogates instead of decoding them to U+FFFD

	// Where the reader stands, kept while locating a byte (see invalidUTF8Field).
	track bool
	stop  int       // the offset to locate
	path  []segment // the members and elements the reader is in
	found string    // the path of the first string token that ends past stop
	done  bool
}

// segment is one step of a path: an object's member, or an array's element.
type segment struct {
	array bool
	key   string
	index int
}

func (d *scanner) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and reports whether the next byte is c, consuming it if so.
func (d *scanner) next(c byte) bool {
	d.space()
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *scanner) peek() byte {
	d.space()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

// str reads a string after its opening quote. Without escapes and invalid UTF-8 it is a view
// of s.
func (d *scanner) str() (string, bool) {
	start := d.i
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return d.s[start : d.i-1], true
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			if r == utf8.RuneError && size == 1 {
				if d.strict {
					return "", false
				}
				return d.escaped(start)
			}
			d.i += size
		}
	}
	return "", false
}

// escaped reads the rest of a string that needs decoding (an escape, or invalid UTF-8), from
// its start.
func (d *scanner) escaped(start int) (string, bool) {
	b := []byte(d.s[start:d.i])
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return string(b), true
		case c < 0x20:
			return "", false
		case c == '\\':
			if d.i+1 >= len(d.s) {
				return "", false
			}
			e := d.s[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(r) {
					r2, pair := d.lowSurrogate(r)
					switch {
					case pair:
						r = r2
					case d.strict: // only a pair is a character
						return "", false
					default:
						r = utf8.RuneError // as encoding/json: the next escape is read on its own
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", false
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.i++
		default:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			if r == utf8.RuneError && size == 1 {
				if d.strict {
					return "", false
				}
				b = utf8.AppendRune(b, utf8.RuneError)
				d.i++
				continue
			}
			b = append(b, d.s[d.i:d.i+size]...)
			d.i += size
		}
	}
	return "", false
}

// lowSurrogate reads the escape after the high surrogate r, if it is one that makes a pair
// with it, and returns the character of the pair.
func (d *scanner) lowSurrogate(r rune) (rune, bool) {
	if d.i+6 > len(d.s) || d.s[d.i] != '\\' || d.s[d.i+1] != 'u' {
		return 0, false
	}
	save := d.i
	d.i += 2
	r2, ok := d.hex4()
	if ok {
		if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
			return pair, true
		}
	}
	d.i = save
	return 0, false
}

func (d *scanner) hex4() (rune, bool) {
	if d.i+4 > len(d.s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(d.s[d.i : d.i+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

// number reads a number as JSON writes it: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *scanner) number() (string, bool) {
	start := d.i
	digits := func() bool {
		n := d.i
		for d.i < len(d.s) && '0' <= d.s[d.i] && d.s[d.i] <= '9' {
			d.i++
		}
		return d.i > n
	}
	if d.i < len(d.s) && d.s[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.s) && d.s[d.i] == '0':
		d.i++
	case !digits():
		return "", false
	}
	if d.i < len(d.s) && d.s[d.i] == '.' {
		d.i++
		if !digits() {
			return "", false
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if !digits() {
			return "", false
		}
	}
	return d.s[start:d.i], true
}

// kind is the kind of a JSON value.
type kind uint8

const (
	kString kind = iota + 1
	kNumber
	kTrue
	kFalse
	kNull
	kObject
	kArray
)

// value is a JSON value read whole.
type value struct {
	kind    kind
	text    string   // a string decoded, a number as written
	members []member // an object's, in their order
	items   []value  // an array's
}

// member is one member of an object: its name decoded and where the name starts.
type member struct {
	name  string
	at    int
	value value
}

// value reads the value at d.i, at the given depth of nesting; false if it is not JSON.
func (d *scanner) value(depth int) (value, bool) {
	switch c := d.peek(); {
	case c == '"':
		d.i++
		s, ok := d.str()
		if ok {
			d.reached()
		}
		return value{kind: kString, text: s}, ok
	case c == '-' || '0' <= c && c <= '9':
		n, ok := d.number()
		return value{kind: kNumber, text: n}, ok
	case c == 't':
		return value{kind: kTrue}, d.literal("true")
	case c == 'f':
		return value{kind: kFalse}, d.literal("false")
	case c == 'n':
		return value{kind: kNull}, d.literal("null")
	case c == '{' || c == '[':
		if depth >= maxDepth && !d.track {
			return value{}, false
		}
		d.i++
		if c == '{' {
			return d.object(depth + 1)
		}
		return d.array(depth + 1)
	}
	return value{}, false
}

func (d *scanner) literal(word string) bool {
	if !strings.HasPrefix(d.s[d.i:], word) {
		return false
	}
	d.i += len(word)
	return true
}

// object reads the members of an object after its '{'.
func (d *scanner) object(depth int) (value, bool) {
	v := value{kind: kObject}
	if d.next('}') {
		return v, true
	}
	if d.track {
		d.path = append(d.path, segment{})
		defer func() { d.path = d.path[:len(d.path)-1] }()
	}
	for {
		d.space()
		at := d.i
		if !d.next('"') {
			return v, false
		}
		name, ok := d.str()
		if !ok {
			return v, false
		}
		if d.track {
			d.path[len(d.path)-1].key = name
			d.reached()
		}
		if d.done || !d.next(':') {
			return v, false
		}
		mv, ok := d.value(depth)
		if !ok || d.done {
			return v, false
		}
		v.members = append(v.members, member{name: name, at: at, value: mv})
		if d.next('}') {
			return v, true
		}
		if !d.next(',') {
			return v, false
		}
	}
}

// array reads the elements of an array after its '['.
func (d *scanner) array(depth int) (value, bool) {
	v := value{kind: kArray}
	if d.next(']') {
		return v, true
	}
	if d.track {
		d.path = append(d.path, segment{array: true, index: -1})
		defer func() { d.path = d.path[:len(d.path)-1] }()
	}
	for {
		if d.track {
			d.path[len(d.path)-1].index++
		}
		item, ok := d.value(depth)
		if !ok || d.done {
			return v, false
		}
		v.items = append(v.items, item)
		if d.next(']') {
			return v, true
		}
		if !d.next(',') {
			return v, false
		}
	}
}

// reached notes, while locating, a string token that ends past the offset located: its path
// is found and reading stops.
func (d *scanner) reached() {
	if !d.track || d.done || d.i <= d.stop {
		return
	}
	var b strings.Builder
	for _, seg := range d.path {
		switch {
		case seg.array:
			b.WriteString("[" + strconv.Itoa(seg.index) + "]")
		case seg.key != "":
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(seg.key)
		}
	}
	d.found, d.done = b.String(), true
}

// parseFirst reads the first value of body and reports whether it is JSON, and whether
// nothing but white space follows it.
func parseFirst(body string) (v value, ok, whole bool) {
	d := scanner{s: body}
	v, ok = d.value(0)
	if !ok {
		return value{}, false, false
	}
	d.space()
	return v, true, d.i == len(d.s)
}

// invalidUTF8Field returns the member that holds the body's first invalid UTF-8 byte, in the
// form errors name fields ("message", "to[3]", "to[0].name"), or "" when the body is not JSON
// enough to say (or the bad byte is in a top-level string). It runs only on bodies already
// known to be invalid.
func invalidUTF8Field(body []byte) string {
	bad := firstInvalidUTF8(body)
	if bad < 0 {
		return ""
	}
	d := scanner{s: string(body), track: true, stop: bad}
	for !d.done && d.peek() != 0 { // a stream of values, as encoding/json's Decoder reads them
		if _, ok := d.value(0); !ok {
			break
		}
	}
	return d.found
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
