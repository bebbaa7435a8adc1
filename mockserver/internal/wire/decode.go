package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"reflect"
	"slices"
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

// Decode decodes body strictly into v: one JSON object, the contract's exact member names
// and no null member, no unknown member in nested objects either, no trailing data, every
// member of the right type. Its errors are the contract's 400s, naming the field.
//
// The package's scanner reads the body first, for what encoding/json does not check: the
// members' spelling (it matches names in any case), null members, unknown members with where
// they stand; encoding/json then assigns the values, and says what is wrong with the syntax
// or a member's type. Of an unknown member and a wrong type, the first in the body is told.
func Decode(body []byte, v any) *Error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errorf("", "Request body is required.")
	}
	root, ok, whole := parseFirst(string(body))
	if whole {
		if e := checkMembers(&root, v); e != nil {
			return e
		}
	}
	var unknown *member
	if ok {
		unknown = firstUnknown(&root, reflect.TypeOf(v))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(v)
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil && unknown != nil,
		unknown != nil && errors.As(err, &typ) && int64(unknown.at) < typ.Offset:
		return errorf(unknown.name, "Unknown field %q.", unknown.name)
	case err != nil:
		return jsonError(err)
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		return errorf("", "Request body must hold one JSON object and nothing after it.")
	}
	return nil
}

// checkMembers holds a body's members to the contract's spelling, which encoding/json does
// not: it matches names in any case. A member v does not declare (exactly) is unknown, and a
// member whose value is null is refused too: no member of the contract is nullable, and null
// is not the same as leaving a member out. Of a member given twice, the last counts, as
// encoding/json assigns it; the members are checked in the order of their names. Bodies that
// are not objects are left to encoding/json, which says what is wrong with them.
func checkMembers(root *value, v any) *Error {
	if root.kind != kObject || len(root.members) == 0 {
		return nil
	}
	last := make(map[string]kind, len(root.members))
	for _, m := range root.members {
		last[m.name] = m.value.kind
	}
	known := memberNames(reflect.TypeOf(v))
	for _, name := range slices.Sorted(maps.Keys(last)) {
		switch {
		case !known[name]:
			return errorf(name, "Unknown field %q.", name)
		case last[name] == kNull:
			return errorf(name, "%s cannot be null; leave it out instead.", name)
		}
	}
	return nil
}

// firstUnknown is the first member, in the body, that the struct it would be assigned to does
// not declare in any case (the name encoding/json would match), or nil. It follows the body
// only where it matches t: into objects of structs, elements of slices and arrays, pointers.
func firstUnknown(v *value, t reflect.Type) *member {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	switch {
	case t.Kind() == reflect.Struct && v.kind == kObject:
		known := memberNames(t)
		for i := range v.members {
			m := &v.members[i]
			ft, ok := memberType(t, known, m.name)
			if !ok {
				return m
			}
			if u := firstUnknown(&m.value, ft); u != nil {
				return u
			}
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && v.kind == kArray:
		for i := range v.items {
			if u := firstUnknown(&v.items[i], t.Elem()); u != nil {
				return u
			}
		}
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// memberType is the type of the member of struct t that name is assigned to, as encoding/json
// finds it: by its exact name, or else in any case.
func memberType(t reflect.Type, known map[string]bool, name string) (reflect.Type, bool) {
	if !known[name] {
		found := false
		for k := range known {
			if strings.EqualFold(k, name) {
				name, found = k, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return fieldOf(t, name), true
}

// fieldOf is the type of the field of struct t whose JSON name is name, following embedded
// structs; a field of no known type (it cannot be told) is an empty interface's.
func fieldOf(t reflect.Type, name string) reflect.Type {
	for f := range t.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == "-":
		case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
			if memberNames(f.Type)[name] {
				return fieldOf(f.Type, name)
			}
		case !f.IsExported():
		case tag == name, tag == "" && f.Name == name:
			return f.Type
		}
	}
	return reflect.TypeFor[any]()
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
