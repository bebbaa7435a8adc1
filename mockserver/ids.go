package mockserver

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync/atomic"
)

// oid is a 12-byte identifier written as 24 lowercase hex characters. The first five bytes are
// random per server, the last seven a counter, so ids of one server sort in creation order and
// a slice of records appended in creation order can be searched by id.
type oid [12]byte

func (id oid) String() string { return hex.EncodeToString(id[:]) }

func parseOID(s string) (oid, bool) {
	var id oid
	if len(s) != 24 {
		return id, false
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, false
	}
	return id, true
}

func (id oid) less(o oid) bool {
	for i := range id {
		if id[i] != o[i] {
			return id[i] < o[i]
		}
	}
	return false
}

// idGen makes oids. It is safe for concurrent use.
type idGen struct {
	prefix [5]byte
	n      atomic.Uint64
}

func newIDGen() *idGen {
	g := &idGen{}
	_, _ = rand.Read(g.prefix[:])
	return g
}

func (g *idGen) next() oid {
	var id oid
	copy(id[:5], g.prefix[:])
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], g.n.Add(1))
	copy(id[5:], b[1:])
	return id
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomBase62 returns n characters from crypto/rand, without modulo bias.
func randomBase62(n int) string {
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

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
