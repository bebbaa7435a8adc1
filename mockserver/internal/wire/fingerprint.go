package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"

	"github.com/seedsms/sms-go/internal/rules"
)

// ReferenceOf returns the body's reference when it is a valid one.
func ReferenceOf(body []byte) (string, bool) {
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

// Fingerprint identifies a request by its path and its JSON value, so that member order and
// white space do not matter.
func Fingerprint(path string, body []byte) ([32]byte, bool) {
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
