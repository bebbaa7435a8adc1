package wire

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/seedsms/sms-go/internal/rules"
)

// Naira is money in kobo that is written and read as a JSON number of naira with two
// decimals, exactly: no float on the way.
type Naira int64

// MarshalJSON writes the amount in naira.
func (n Naira) MarshalJSON() ([]byte, error) { return []byte(rules.FormatNaira(int64(n))), nil }

// UnmarshalJSON reads the number exactly, with no float on the way. A value that is not an
// amount is errAmount, which Decode words for the member that holds it.
func (n *Naira) UnmarshalJSON(b []byte) error {
	k, err := rules.ParseNaira(string(b))
	if err != nil {
		return errAmount
	}
	*n = Naira(k)
	return nil
}

var errAmount = errors.New("not an amount")

// strict is what makes Decode strict besides the library's defaults (members matched by their
// exact name, a name given twice refused, invalid UTF-8 refused, values nested at most 10,000
// deep): a member the struct does not declare is refused. The size of a body is bounded before
// it is read (rules.MaxBodyBytes).
var strict = json.RejectUnknownMembers(true)

// CheckBody refuses what no body may hold before anything reads it: invalid UTF-8, naming
// the member that holds it, and a null body.
func CheckBody(b []byte) *Error {
	if !utf8.Valid(b) {
		if field := invalidUTF8Field(b); field != "" {
			return errorf(field, "%s is not valid UTF-8.", field)
		}
		return errorf("", "Request body is not valid UTF-8.")
	}
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return errorf("", "Request body must be a JSON object, not null.")
	}
	return nil
}

// invalidUTF8Field is the member whose string holds the first invalid UTF-8 of b, or "" when
// it is not in a member's string or the JSON is malformed before it.
func invalidUTF8Field(b []byte) string {
	bad := int64(-1) // the offset of the first invalid byte
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			bad = int64(i)
			break
		}
		i += size
	}
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	for {
		_, err := dec.ReadToken()
		var syn *jsontext.SyntacticError
		switch {
		case errors.As(err, &syn) && syn.ByteOffset == bad && errors.Is(syn.Err, errInvalidUTF8):
			if kind, n := dec.StackIndex(dec.StackDepth()); kind == '{' && n%2 == 0 {
				// In a member's name: the member is the name, its invalid bytes as U+FFFD.
				return memberOf(syn.JSONPointer.AppendToken(nameAt(b, int(bad))))
			}
			return fieldOf(syn.JSONPointer)
		case err != nil:
			return ""
		}
	}
}

// errInvalidUTF8 is the library's error for invalid UTF-8 in a string (it does not export it).
var errInvalidUTF8 = func() error {
	_, err := jsontext.NewDecoder(strings.NewReader("\"\xff\"")).ReadToken()
	var syn *jsontext.SyntacticError
	if !errors.As(err, &syn) {
		panic("jsontext accepts invalid UTF-8")
	}
	return syn.Err
}()

// nameAt is the name of the string around offset i of b, its invalid UTF-8 as U+FFFD.
func nameAt(b []byte, i int) string {
	start := bytes.LastIndexByte(b[:i], '"') + 1
	end := i
	for end < len(b) && b[end] != '"' {
		if b[end] == '\\' {
			end++
		}
		end++
	}
	raw := bytes.ToValidUTF8(b[start:min(end, len(b))], []byte("\uFFFD"))
	var name string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &name) != nil {
		return string(raw)
	}
	return name
}

// Decode decodes body strictly into v: one JSON object, the contract's exact member names,
// each once, no null, no unknown member at any depth, no trailing data, every member of the
// right type. Its errors are the contract's 400s, naming the member at fault; a malformed
// body is told as malformed, and of several other faults the first in the body is told.
func Decode(body []byte, v any) *Error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errorf("", "Request body is required.")
	}
	err := json.Unmarshal(body, v, strict)
	if err != nil && !jsontext.Value(body).IsValid() {
		// The library may stop at a member before the body turns out malformed: the body's
		// syntax is told first.
		var raw jsontext.Value
		err = json.Unmarshal(body, &raw)
	}
	// A null anywhere is refused: no member of the contract is nullable, and null is not the
	// same as leaving a member out. The library reads one as the zero value, so it is looked
	// for apart, in the bodies that spell it at all.
	if bytes.Contains(body, []byte("null")) {
		if at, field, ok := firstNull(body); ok && (err == nil || at < offsetOf(err)) {
			return errorf(field, "%s cannot be null; leave it out instead.", field)
		}
	}
	if err != nil {
		return jsonError(body, err)
	}
	return nil
}

// firstNull is the offset and the member of the first null in body, read up to its first
// fault.
func firstNull(body []byte) (int64, string, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	for {
		if dec.PeekKind() == 'n' {
			p := dec.StackPointer()
			if kind, n := dec.StackIndex(dec.StackDepth()); kind == '[' {
				if n > 0 { // p names the element read last
					p = p.Parent()
				}
				p = p.AppendToken(strconv.FormatInt(n, 10)) // the element about to be read
			}
			return dec.InputOffset(), fieldOf(p), true
		}
		if _, err := dec.ReadToken(); err != nil {
			return 0, "", false
		}
	}
}

// offsetOf is where the library found err.
func offsetOf(err error) int64 {
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.As(err, &syn):
		return syn.ByteOffset
	case errors.As(err, &sem):
		return sem.ByteOffset
	}
	return 0
}

// jsonError words an error of the library as the contract's 400.
func jsonError(body []byte, err error) *Error {
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf("", "Malformed JSON: unexpected end of input.")
	case errors.As(err, &syn) && errors.Is(syn.Err, jsontext.ErrDuplicateName):
		field := memberOf(syn.JSONPointer)
		return errorf(field, "%s is given twice.", field)
	case syn != nil && jsontext.Value(bytes.TrimSpace(body[:syn.ByteOffset])).IsValid():
		return errorf("", "Request body must hold one JSON object and nothing after it.")
	case syn != nil:
		return errorf("", "Malformed JSON at byte %d.", syn.ByteOffset)
	case !errors.As(err, &sem):
		return errorf("", "Invalid JSON body.")
	}
	field := fieldOf(sem.JSONPointer)
	switch {
	case errors.Is(sem.Err, json.ErrUnknownName):
		return errorf(memberOf(sem.JSONPointer), "Unknown field %q.", sem.JSONPointer.LastToken())
	case errors.Is(sem.Err, errAmount):
		return errorf(field, "%s must be an amount in naira, at least 0 and with at most 2 decimals.", field)
	case field == "":
		return errorf("", "Request body must be a JSON object.")
	}
	return errorf(field, "%s must be %s.", field, kindOf(sem.GoType))
}

// fieldOf is a JSON Pointer in the form the API's errors name a member: "/to/3/name" is
// "to[3].name". A token of digits alone is an array's index.
func fieldOf(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.ParseUint(tok, 10, 0); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// memberOf is fieldOf of a pointer whose last token is a member's name, whatever it spells.
func memberOf(p jsontext.Pointer) string {
	parent, name := fieldOf(p.Parent()), p.LastToken()
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// kindOf says which JSON value a Go type reads.
func kindOf(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "of another type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
		return "an integer"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "of another type"
}
