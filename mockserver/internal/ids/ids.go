// Package ids makes the identifiers of everything the mock stores (12-byte ids that sort in
// creation order) and the random tokens it hands out (key secrets, pin IDs).
//
// It is a leaf: it imports nothing of the mock's.
package ids

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync/atomic"
)

// ID is a 12-byte identifier written as 24 lowercase hex characters. The first five bytes are
// random per generator, the last seven a counter, so ids of one generator sort in creation
// order and a slice of records appended in creation order can be searched by id.
type ID [12]byte

// String is the id as 24 lowercase hex characters.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// Parse reads an id written as 24 hex characters.
func Parse(s string) (ID, bool) {
	var id ID
	if len(s) != 24 {
		return id, false
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, false
	}
	return id, true
}

// MessageIDLen is the length of a message ID: 25 digits, as the live service's samples show.
const MessageIDLen = 25

// AppendMessageID appends the provider message ID of id: 25 decimal digits, "3", seven digits
// from the generator's random prefix and seventeen of the counter. Ids of one generator give
// distinct message IDs, since the counter (seven bytes, below 10^17) differs.
func (id ID) AppendMessageID(b []byte) []byte {
	var p, n uint64
	for _, c := range id[:5] {
		p = p<<8 | uint64(c)
	}
	for _, c := range id[5:] {
		n = n<<8 | uint64(c)
	}
	start := len(b)
	b = append(b, "3000000000000000000000000"...) // the digits are written in place
	d := b[start : start+MessageIDLen]
	putDigits(d[1:8], uint32(p%1e7))
	putDigits(d[8:16], uint32(n/1e9)) // the counter below 10^17: eight digits, then nine
	putDigits(d[16:], uint32(n%1e9))
	return b
}

// MessageID is AppendMessageID as a string.
func (id ID) MessageID() string { return string(id.AppendMessageID(make([]byte, 0, MessageIDLen))) }

// putDigits writes v into d as len(d) digits, zero-padded, two at a time (v < 10^len(d)).
func putDigits(d []byte, v uint32) {
	i := len(d)
	for ; i >= 2; i -= 2 {
		q := v % 100
		v /= 100
		d[i-1], d[i-2] = byte('0'+q%10), byte('0'+q/10)
	}
	if i == 1 {
		d[0] = byte('0' + v%10)
	}
}

// Less reports whether id was made before o by the same generator.
func (id ID) Less(o ID) bool { return bytes.Compare(id[:], o[:]) < 0 }

// Gen makes IDs. It is safe for concurrent use.
type Gen struct {
	prefix [5]byte
	n      atomic.Uint64
}

// NewGen returns a generator with a random prefix.
func NewGen() *Gen {
	g := &Gen{}
	_, _ = rand.Read(g.prefix[:])
	return g
}

// Next returns a new id, greater than every id the generator made before.
func (g *Gen) Next() ID {
	var id ID
	copy(id[:5], g.prefix[:])
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], g.n.Add(1))
	copy(id[5:], b[1:])
	return id
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Random62 returns n characters of [0-9A-Za-z] from crypto/rand, without modulo bias.
func Random62(n int) string {
	out := make([]byte, 0, n)
	var buf [64]byte
	for len(out) < n {
		_, _ = rand.Read(buf[:])
		for _, b := range buf {
			if b < 248 { // 248 = 4*62: keeps the distribution uniform
				out = append(out, base62[b%62])
				if len(out) == n {
					break
				}
			}
		}
	}
	return string(out)
}

// RequestID returns a request ID: "req-" and id's 24 lowercase hex characters (the live
// service's samples show "req-123").
func (id ID) RequestID() string {
	b := make([]byte, 0, 28)
	b = append(b, "req-"...)
	return string(hex.AppendEncode(b, id[:]))
}

// UUID returns a random (version 4) UUID.
func UUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
