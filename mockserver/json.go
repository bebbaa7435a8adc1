package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/seedsms/sms-go/internal/rules"
)

// naira is money in kobo that marshals as a JSON number of naira with two decimals.
type naira int64

func (n naira) MarshalJSON() ([]byte, error) { return []byte(rules.FormatNaira(int64(n))), nil }

// UnmarshalJSON reads the number exactly, with no float on the way. A value that is not an
// amount is an *json.UnmarshalTypeError, so that the error names its member (see jsonError).
func (n *naira) UnmarshalJSON(b []byte) error {
	k, err := rules.ParseNaira(string(b))
	if err != nil {
		return &json.UnmarshalTypeError{Value: "amount", Type: nairaType}
	}
	*n = naira(k)
	return nil
}

var nairaType = reflect.TypeFor[naira]()

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encodeBody marshals v, a value that encodes as a JSON object, without a trailing newline.
func encodeBody(v any) ([]byte, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// writeBody writes body, a JSON object, with requestId added as its last member.
func writeBody(w http.ResponseWriter, status int, requestID string, body []byte) {
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	buf.Write(body[:len(body)-1])
	if len(body) > 2 {
		buf.WriteByte(',')
	}
	buf.WriteString(`"requestId":"`)
	buf.WriteString(requestID)
	buf.WriteString("\"}\n")
	h := w.Header()
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// writeJSON encodes v and writes it with requestId.
func writeJSON(w http.ResponseWriter, status int, requestID string, v any) {
	body, err := encodeBody(v)
	if err != nil {
		body, _ = encodeBody(newError(http.StatusInternalServerError, "Could not encode the response.").body())
		status = http.StatusInternalServerError
	}
	writeBody(w, status, requestID, body)
}

// writeError writes e as the contract's error body, with Retry-After when e has one.
func writeError(w http.ResponseWriter, requestID string, e *apiError) {
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", itoa(e.retryAfter))
	}
	writeJSON(w, e.status, requestID, e.body())
}

// decodeJSON decodes body strictly into v: one JSON object, no unknown members, no trailing
// data, every member of the right type. Its errors are the contract's 400s, naming the field.
func decodeJSON(body []byte, v any) *apiError {
	if len(bytes.TrimSpace(body)) == 0 {
		return badRequest("", "Request body is required.")
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
		return badRequest("", "Request body must hold one JSON object and nothing after it.")
	}
	return nil
}

// checkMembers holds the body's members to the contract's spelling, which encoding/json does
// not: it matches names in any case. A member v does not declare (exactly) is unknown, and a
// member whose value is null is refused too: no member of the contract is nullable, and null
// is not the same as leaving a member out. Bodies that are not objects are left to the strict
// decode, which says what is wrong with them.
func checkMembers(body []byte, v any) *apiError {
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
			return badRequest(name, "Unknown field %q.", name)
		case string(m[name]) == "null":
			return badRequest(name, "%s cannot be null; leave it out instead.", name)
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

func jsonError(err error) *apiError {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return badRequest("", "Malformed JSON at byte %d.", syn.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("", "Malformed JSON: unexpected end of input.")
	case errors.As(err, &typ) && typ.Type == nairaType:
		return badRequest(typ.Field, "%s must be an amount in naira, at least 0 and with at most 2 decimals.", typ.Field)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return badRequest("", "Request body must be a JSON object.")
		}
		return badRequest(typ.Field, "%s must be %s.", typ.Field, jsonKind(typ.Type.Kind().String()))
	}
	if quoted, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if name, err := strconv.Unquote(quoted); err == nil {
			return badRequest(name, "Unknown field %q.", name)
		}
	}
	return badRequest("", "Invalid JSON body.")
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
