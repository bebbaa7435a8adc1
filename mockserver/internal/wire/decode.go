package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
)

// Naira is money in kobo that is written and read as a JSON number of naira with two
// decimals, exactly: no float on the way.
type Naira int64

// MarshalJSON writes the amount in naira.
func (n Naira) MarshalJSON() ([]byte, error) { return []byte(rules.FormatNaira(int64(n))), nil }

// UnmarshalJSON reads the number exactly, with no float on the way. A value that is not an
// amount is an *json.UnmarshalTypeError, so that the error names its member (see jsonError).
func (n *Naira) UnmarshalJSON(b []byte) error {
	k, err := rules.ParseNaira(string(b))
	if err != nil {
		return &json.UnmarshalTypeError{Value: "amount", Type: nairaType}
	}
	*n = Naira(k)
	return nil
}

var nairaType = reflect.TypeFor[Naira]()

// CheckBody refuses what the JSON decoder would let through: a null body (it would decode as
// {}) and invalid UTF-8 (it would become U+FFFD), naming the member that holds it.
func CheckBody(b []byte) *Error {
	if !utf8.Valid(b) {
		field := invalidUTF8Field(b)
		if field == "" {
			return errorf("", "Request body is not valid UTF-8.")
		}
		return errorf(field, "%s is not valid UTF-8.", field)
	}
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return errorf("", "Request body must be a JSON object, not null.")
	}
	return nil
}

// Decode decodes body strictly into v: one JSON object, no unknown members, no trailing
// data, every member of the right type. Its errors are the contract's 400s, naming the field.
func Decode(body []byte, v any) *Error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errorf("", "Request body is required.")
	}
	if e := checkMembers(body, v); e != nil {
		return e
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		return errorf("", "Request body must hold one JSON object and nothing after it.")
	}
	return nil
}

// checkMembers holds the body's members to the contract's spelling, which encoding/json does
// not: it matches names in any case. A member v does not declare (exactly) is unknown, and a
// member whose value is null is refused too: no member of the contract is nullable, and null
// is not the same as leaving a member out. Bodies that are not objects are left to the strict
// decode, which says what is wrong with them.
func checkMembers(body []byte, v any) *Error {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || len(m) == 0 {
		return nil
	}
	known := memberNames(reflect.TypeOf(v))
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		switch {
		case !known[name]:
			return errorf(name, "Unknown field %q.", name)
		case string(m[name]) == "null":
			return errorf(name, "%s cannot be null; leave it out instead.", name)
		}
	}
	return nil
}

var memberCache sync.Map // reflect.Type -> map[string]bool

// memberNames returns the JSON member names of a struct type (or pointer to one), following
// embedded structs as encoding/json does.
func memberNames(t reflect.Type) map[string]bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if names, ok := memberCache.Load(t); ok {
		return names.(map[string]bool)
	}
	names := map[string]bool{}
	if t.Kind() == reflect.Struct {
		for f := range t.Fields() {
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case tag == "-":
			case f.Anonymous && tag == "":
				for name := range memberNames(f.Type) {
					names[name] = true
				}
			case !f.IsExported():
			case tag != "":
				names[tag] = true
			default:
				names[f.Name] = true
			}
		}
	}
	memberCache.Store(t, names)
	return names
}

func jsonError(err error) *Error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return errorf("", "Malformed JSON at byte %d.", syn.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf("", "Malformed JSON: unexpected end of input.")
	case errors.As(err, &typ) && typ.Type == nairaType:
		return errorf(typ.Field, "%s must be an amount in naira, at least 0 and with at most 2 decimals.", typ.Field)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return errorf("", "Request body must be a JSON object.")
		}
		return errorf(typ.Field, "%s must be %s.", typ.Field, jsonKind(typ.Type.Kind().String()))
	}
	if quoted, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if name, err := strconv.Unquote(quoted); err == nil {
			return errorf(name, "Unknown field %q.", name)
		}
	}
	return errorf("", "Invalid JSON body.")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int64", "int32":
		return "an integer"
	case "bool":
		return "a boolean"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return "of another type"
}

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
