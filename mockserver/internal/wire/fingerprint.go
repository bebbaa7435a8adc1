package wire

import (
	"crypto/sha256"
	"maps"
	"slices"
	"strings"

	"github.com/seedsms/sms-go/internal/jsonenc"
	"github.com/seedsms/sms-go/internal/rules"
)

// A request's fingerprint is the SHA-256 of its path, a zero byte, and the canonical form of
// its body's JSON value: what encoding/json writes for the value decoded into interface
// values with UseNumber. Members are sorted by name, the last of a name kept; strings are
// escaped as encoding/json escapes them (HTML characters too); numbers are written as they
// came. Member order and white space do not change it; any other difference does.

// ReferenceOf returns the body's reference when it is a valid one: the last member of the
// body's object named reference in any case (as encoding/json would assign it), a string.
func ReferenceOf(body []byte) (string, bool) {
	root, _, whole := parseFirst(string(body))
	if !whole || root.kind != kObject {
		return "", false
	}
	ref, found := "", false
	for _, m := range root.members {
		if strings.EqualFold(m.name, "reference") {
			ref, found = m.value.text, m.value.kind == kString
		}
	}
	if !found || !rules.ValidReference(ref) {
		return "", false
	}
	return ref, true
}

// Fingerprint is the fingerprint of a request by its path and the first JSON value of its
// body, or false when that is not JSON.
func Fingerprint(path string, body []byte) ([32]byte, bool) {
	root, ok, _ := parseFirst(string(body))
	if !ok {
		return [32]byte{}, false
	}
	p := Buffer()
	defer Release(p)
	b := append((*p)[:0], path...)
	b = append(b, 0)
	b = appendCanonical(b, &root)
	*p = b
	return sha256.Sum256(b), true
}

// appendCanonical appends the canonical form of v.
func appendCanonical(b []byte, v *value) []byte {
	switch v.kind {
	case kString:
		return jsonenc.AppendString(b, v.text, true)
	case kNumber:
		return append(b, v.text...)
	case kTrue:
		return append(b, "true"...)
	case kFalse:
		return append(b, "false"...)
	case kNull:
		return append(b, "null"...)
	case kArray:
		b = append(b, '[')
		for i := range v.items {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, &v.items[i])
		}
		return append(b, ']')
	}
	last := make(map[string]int, len(v.members))
	for i, m := range v.members {
		last[m.name] = i
	}
	b = append(b, '{')
	for i, name := range slices.Sorted(maps.Keys(last)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, name, true)
		b = append(b, ':')
		b = appendCanonical(b, &v.members[last[name]].value)
	}
	return append(b, '}')
}

// hash is the fingerprint of a send body decoded in one pass: the same as Fingerprint(path,
// body), written straight from the decoded members, which the decoder holds in canonical
// order already (channel, from, message, reference, to; a recipient's name, phone) and each
// once.
func (in *SendInput) hash(path string) [32]byte {
	buf := bytesPool.Get().(*[]byte)
	b := append((*buf)[:0], path...)
	b = append(b, 0, '{')
	comma := false
	member := func(name string, v *string) {
		if v == nil {
			return
		}
		if comma {
			b = append(b, ',')
		}
		comma = true
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = jsonenc.AppendString(b, *v, true)
	}
	member("channel", in.Channel)
	member("from", in.From)
	member("message", in.Message)
	member("reference", in.Reference)
	if in.to != nil {
		if comma {
			b = append(b, ',')
		}
		b = append(b, `"to":`...)
		if in.single {
			b = jsonenc.AppendString(b, in.to[0].phone, true)
		} else {
			b = append(b, '[')
			for i, it := range in.to {
				if i > 0 {
					b = append(b, ',')
				}
				if !it.object {
					b = jsonenc.AppendString(b, it.phone, true)
					continue
				}
				b = append(b, '{')
				if it.hasName {
					b = append(b, `"name":`...)
					b = jsonenc.AppendString(b, it.name, true)
					b = append(b, ',')
				}
				b = append(b, `"phone":`...)
				b = jsonenc.AppendString(b, it.phone, true)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
	}
	b = append(b, '}')
	sum := sha256.Sum256(b)
	*buf = b
	bytesPool.Put(buf)
	return sum
}
