// Package idem remembers the references of idempotent requests per workspace: the first
// request with a reference runs, and until the window passes, later ones with the same
// fingerprint replay its answer. Each workspace has its own lock, map and queue, so that one
// workspace's traffic does not wait on another's, and nothing ever walks a whole map.
//
// It is a leaf: it imports only the mock's ids and fifo.
package idem

import (
	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"github.com/seedsms/sms-go/mockserver/internal/fifo"

	"crypto/sha256"
	"sync"
	"time"
)

// Window is how long a reference is remembered.
const Window = 24 * time.Hour

// DefaultLimit is how many references a workspace remembers at most unless New is told
// otherwise (mockserver.DefaultIdempotencyLimit documents its memory).
const DefaultLimit = 100_000

// Key names a reference inside a workspace: a hash of the mode and the reference, so that the
// map holds no string of its own.
type Key [16]byte

// NewKey is the key of a reference used in mode (0 live, 1 test).
func NewKey(mode uint8, ref string) Key {
	h := sha256.New()
	h.Write([]byte{mode})
	h.Write([]byte(ref))
	var sum [32]byte
	h.Sum(sum[:0])
	return Key(sum[:16])
}

// Entry is one reference: the request it was first used with, and once that finished with a
// 2xx, the answer to replay. done is closed when the first request finished, then dropped: a
// nil done means finished.
type Entry struct {
	key         Key
	fingerprint [32]byte
	done        chan struct{}
	body        []byte // nil: the first request failed and the reference is free again
	expires     int64
	status      int32 // set before done is closed
}

// Fingerprint is the fingerprint of the request that first used the reference.
func (e *Entry) Fingerprint() [32]byte { return e.fingerprint }

// Answer is the status and body to replay, once the entry's first request finished (its done
// channel is closed); a nil body means that request failed and the reference is free again.
func (e *Entry) Answer() (status int, body []byte) { return int(e.status), e.body }

// Table remembers references per workspace. It is safe for concurrent use.
type Table struct {
	limit  int
	spaces sync.Map // ids.ID -> *space
}

// space is the references of one workspace. queue holds the answered entries in the
// order they were answered, which is the order they expire in (the window is the same for
// all and the clock only moves forward): expiry and eviction pop its head, and nothing ever
// walks the whole map.
type space struct {
	mu      sync.Mutex
	entries map[Key]*Entry
	queue   fifo.Queue[*Entry]
}

// New returns a table that remembers at most limit references per workspace (DefaultLimit
// when limit < 1). Past it, the oldest answered reference is forgotten first, before its
// window is up.
func New(limit int) *Table {
	if limit < 1 {
		limit = DefaultLimit
	}
	return &Table{limit: limit}
}

func (m *Table) space(ws ids.ID) *space {
	if sp, ok := m.spaces.Load(ws); ok {
		return sp.(*space)
	}
	sp, _ := m.spaces.LoadOrStore(ws, &space{entries: make(map[Key]*Entry)})
	return sp.(*space)
}

// Begin returns the entry of k, the channel to wait on, and whether the caller leads: a
// leader runs the request and must call Finish; anyone else waits on the channel (nil: the
// entry is already finished).
func (m *Table) Begin(ws ids.ID, k Key, fp [32]byte, now int64) (*Entry, <-chan struct{}, bool) {
	sp := m.space(ws)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.expire(now)
	if e := sp.entries[k]; e != nil && (e.done != nil || now < e.expires) {
		return e, e.done, false
	}
	for len(sp.entries) >= m.limit && sp.pop() {
	}
	e := &Entry{key: k, fingerprint: fp, done: make(chan struct{})}
	sp.entries[k] = e
	return e, e.done, true
}

// Finish records the leader's answer: a 2xx is kept for replays, anything else frees the
// reference.
func (m *Table) Finish(ws ids.ID, e *Entry, status int, body []byte, now int64) {
	sp := m.space(ws)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if status >= 200 && status < 300 && body != nil {
		e.status, e.body, e.expires = int32(status), body, now+int64(Window)
		sp.queue.Push(e)
	} else if sp.entries[e.key] == e {
		delete(sp.entries, e.key)
	}
	close(e.done)
	e.done = nil
}

// expire forgets the answered entries whose window has passed; sp.mu must be held.
func (sp *space) expire(now int64) {
	for sp.queue.Len() > 0 && now >= sp.queue.Front().expires {
		sp.pop()
	}
}

// pop forgets the oldest answered entry and reports whether there was one; sp.mu must be held.
func (sp *space) pop() bool {
	if sp.queue.Len() == 0 {
		return false
	}
	e := sp.queue.Front()
	sp.queue.Pop()
	if sp.entries[e.key] == e { // a newer request may have taken the reference over
		delete(sp.entries, e.key)
	}
	return true
}
