package wire

import (
	"bytes"
	"crypto/sha256"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/seedsms/sms-go/internal/rules"
)

// A request's fingerprint tells whether a request that reuses a reference is the same request.
// That of a send body that decodes is SendFields.Fingerprint; that of one that does not (it
// is refused, but must still conflict with the reference's first use) is the SHA-256 of its
// path, a zero byte and the canonical form of its body (RFC 8785,
// jsontext.Value.Canonicalize): members sorted by name, no white space, strings and numbers
// in one spelling each. Member order and white space change neither. A body with no
// canonical form (malformed, a name given twice) has no fingerprint.

// ReferenceOf returns the body's reference when it is a valid one: the string of the body's
// member named reference.
func ReferenceOf(body []byte) (string, bool) {
	var v struct {
		Reference jsontext.Value `json:"reference"`
	}
	var ref string
	if json.Unmarshal(body, &v) != nil || v.Reference.Kind() != '"' || json.Unmarshal(v.Reference, &ref) != nil {
		return "", false
	}
	return ref, rules.ValidReference(ref)
}

// Fingerprint is the fingerprint of a request by its path and its body, or false when the
// body has no canonical form.
func Fingerprint(path string, body []byte) ([32]byte, bool) {
	v := jsontext.Value(bytes.Clone(body))
	if v.Canonicalize() != nil {
		return [32]byte{}, false
	}
	h := sha256.New()
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write(v)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum, true
}
