package wire

// The decoders as they were before the one scanner: encoding/json's Decoder and Token, with a
// map decode for the member check and the unknown-member error read from its text. They are
// the oracles that the scanner's decoders answer exactly as (oracle_test.go's tests and fuzz
// targets).

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
)

// oldDecode decodes body strictly into v: one JSON object, no unknown members, no trailing
// data, every member of the right type. Its errors are the contract's 400s, naming the field.
func oldDecode(body []byte, v any) *Error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errorf("", "Request body is required.")
	}
	if e := oldCheckMembers(body, v); e != nil {
		return e
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return oldJSONError(err)
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		return errorf("", "Request body must hold one JSON object and nothing after it.")
	}
	return nil
}

// oldCheckMembers holds the body's members to the contract's spelling, which encoding/json does
// not: it matches names in any case. A member v does not declare (exactly) is unknown, and a
// member whose value is null is refused too: no member of the contract is nullable, and null
// is not the same as leaving a member out. Bodies that are not objects are left to the strict
// decode, which says what is wrong with them.
func oldCheckMembers(body []byte, v any) *Error {
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

func oldJSONError(err error) *Error {
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

// oldInvalidUTF8Field returns the member that holds the body's first invalid UTF-8 byte, in the
// form errors name fields ("message", "to[3]", "to[0].name"), or "" when the body is not JSON
// enough to say (or the bad byte is in a top-level string). It runs only on bodies already
// known to be invalid, so it may be slow.
func oldInvalidUTF8Field(body []byte) string {
	bad := oldFirstInvalidUTF8(body)
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
func oldFirstInvalidUTF8(b []byte) int {
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

// oldReferenceOf returns the body's reference when it is a valid one.
func oldReferenceOf(body []byte) (string, bool) {
	var v struct {
		Reference json.RawMessage `json:"reference"`
	}
	if json.Unmarshal(body, &v) != nil || len(v.Reference) == 0 || v.Reference[0] != '"' {
		return "", false
	}
	var ref string
	if json.Unmarshal(v.Reference, &ref) != nil || !rules.ValidReference(ref) {
		return "", false
	}
	return ref, true
}

// oldFingerprint identifies a request by its path and its JSON value, so that member order and
// white space do not matter.
func oldFingerprint(path string, body []byte) ([32]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return [32]byte{}, false
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return [32]byte{}, false
	}
	h := sha256.New()
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write(canon)
	var out [32]byte
	h.Sum(out[:0])
	return out, true
}

// The bodies the differential tests decode into: the shapes of the API's request bodies.
type (
	FaultRule struct {
		Method      string        `json:"method,omitempty"`
		Path        string        `json:"path,omitempty"`
		Status      int           `json:"status,omitempty"`
		Times       int           `json:"times,omitempty"`
		Latency     time.Duration `json:"-"`
		Drop        bool          `json:"drop,omitempty"`
		Probability float64       `json:"probability,omitempty"`
	}
	faultsBody struct {
		Rules []struct {
			FaultRule
			Latency string `json:"latency,omitempty"`
		} `json:"rules"`
	}
	keyBody struct {
		Name          *string         `json:"name"`
		Scopes        json.RawMessage `json:"scopes"`
		ExpiresInDays *int            `json:"expiresInDays"`
	}
	balanceBody struct {
		Mode    string `json:"mode"`
		Balance *Naira `json:"balance"`
	}
	dndBody struct {
		Numbers []string `json:"numbers"`
	}
	recipientBody struct {
		Phone *string `json:"phone"`
		Name  *string `json:"name"`
	}
)

// bodyTypes make a new value of each body shape.
var bodyTypes = []func() any{
	func() any { return new(SendFields) },
	func() any { return new(faultsBody) },
	func() any { return new(keyBody) },
	func() any { return new(balanceBody) },
	func() any { return new(dndBody) },
	func() any { return new(recipientBody) },
}

// names are member names of the bodies, in their spelling and others, and unknown ones.
var names = []string{"to", "from", "message", "channel", "reference", "rules", "method", "path", "status",
	"times", "drop", "probability", "latency", "name", "scopes", "expiresInDays", "mode", "balance", "numbers",
	"phone", "TO", "Times", "LATENCY", "bogus", "", "t\\u006f", "r\\u00e9f", "na\\u006De"}

// randomJSON writes a value of depth at most depth, often not quite JSON.
func randomJSON(r *rand.Rand, b *strings.Builder, depth int) {
	switch n := r.IntN(12); {
	case n < 3 && depth > 0:
		b.WriteByte('{')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + names[r.IntN(len(names))] + `":`)
			randomJSON(r, b, depth-1)
		}
		b.WriteByte('}')
	case n < 5 && depth > 0:
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			randomJSON(r, b, depth-1)
		}
		b.WriteByte(']')
	case n < 8:
		b.WriteString([]string{`"2348025671695"`, `"x"`, `""`, `"\ud800"`, `"\ud83d\ude00"`, "\"\xff\"", `"\u00e9<&>"`,
			`"a\"b"`, `"\x"`, "\"\x01\"", `"10.50"`, `"live"`, `"1m"`}[r.IntN(13)])
	case n < 10:
		b.WriteString([]string{"0", "-1", "1.5", "1e3", "01", "-", "1.", "10.50", "12345678901234567890", "2"}[r.IntN(10)])
	default:
		b.WriteString([]string{"true", "false", "null", "nul", "tru"}[r.IntN(5)])
	}
}

// randomBody is an object of the bodies' members, mutated now and then.
func randomObject(r *rand.Rand) []byte {
	var b strings.Builder
	if r.IntN(10) == 0 {
		randomJSON(r, &b, 3)
	} else {
		b.WriteString(" {")
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(`"` + names[r.IntN(len(names))] + `": `)
			randomJSON(r, &b, 3)
		}
		b.WriteString("} ")
	}
	if r.IntN(8) == 0 {
		b.WriteString([]string{"x", "{}", "\n", " null"}[r.IntN(4)])
	}
	s := []byte(b.String())
	if len(s) > 0 && r.IntN(6) == 0 { // one byte off
		i := r.IntN(len(s))
		switch r.IntN(3) {
		case 0:
			s = append(s[:i], s[i+1:]...)
		case 1:
			s = s[:i]
		default:
			s[i] = "{}[]\":,\\\xff"[r.IntN(9)]
		}
	}
	return s
}

// agreesWithOracle checks the decoders against the oracles on one body.
func agreesWithOracle(t *testing.T, body []byte) {
	t.Helper()
	for _, newBody := range bodyTypes {
		got, want := newBody(), newBody()
		e, we := Decode(body, got), oldDecode(body, want)
		if (e == nil) != (we == nil) || e != nil && *e != *we {
			t.Fatalf("%T %q: Decode says %v, the oracle %v", got, body, e, we)
		}
		if e == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%T %q: Decode gives %+v, the oracle %+v", got, body, got, want)
		}
	}
	ref, ok := ReferenceOf(body)
	wref, wok := oldReferenceOf(body)
	if ref != wref || ok != wok {
		t.Fatalf("%q: ReferenceOf %q %v, the oracle %q %v", body, ref, ok, wref, wok)
	}
	fp, ok := Fingerprint("/v1/sms/send", body)
	wfp, wok := oldFingerprint("/v1/sms/send", body)
	if fp != wfp || ok != wok {
		t.Fatalf("%q: Fingerprint %v, the oracle %v", body, ok, wok)
	}
	if f, wf := invalidUTF8Field(body), oldInvalidUTF8Field(body); f != wf {
		t.Fatalf("%q: invalidUTF8Field %q, the oracle %q", body, f, wf)
	}
}

// TestDecodersAgreeWithTheOracles: on random bodies of the API's members, valid or one byte
// off, the scanner's decoders say and give exactly what the encoding/json ones said and gave.
func TestDecodersAgreeWithTheOracles(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 22))
	for range 20000 {
		agreesWithOracle(t, randomObject(r))
	}
	for _, body := range []string{
		`{"rules":[{"times":"x","bogus":1}]}`, `{"rules":[{"bogus":1,"times":"x"}]}`, `{"rules":[{"TIMES":2}]}`,
		`{"cc":1} x`, `{"TO":"1"} x`, `{"to":null,"to":"1"}`, `{"to":"1","to":null}`, `{"REFERENCE":"r","reference":5}`,
		`{"reference":"r","Reference":"s"}`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000), `{"balance":10.505}`, `{"balance":"1"}`,
		"{\"rules\":[{\"path\":\"\xff\"}]}", `{"rules":[null]}`, `{"rules":{"times":1}}`, `{"a":{"b":[1,{"c":[true,null,"x"]}]}}`,
	} {
		agreesWithOracle(t, []byte(body))
	}
}

// FuzzDecoders: whatever the body, the scanner's decoders agree with the oracles.
func FuzzDecoders(f *testing.F) {
	r := rand.New(rand.NewPCG(23, 24))
	for range 30 {
		f.Add(randomObject(r))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		agreesWithOracle(t, body)
	})
}
