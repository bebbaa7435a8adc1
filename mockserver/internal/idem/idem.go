// Package idem remembers the references of idempotent requests per workspace: the first
// request with a reference runs, and until the window passes, later ones with the same
// fingerprint replay its answer. Each workspace has its own lock, map and queue, so that one
// workspace's traffic does not wait on another's, and nothing walks a workspace's references.
//
// It is a leaf: it imports only the mock's ids and fifo.
package idem

import (
	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"github.com/seedsms/sms-go/mockserver/internal/fifo"

	"crypto/sha256"
	"sync"
	"sync/atomic"
	"time"
)

// Window is how long a reference is remembered.
const Window = 24 * time.Hour

// DefaultLimit is how many references a workspace remembers at most unless New is told
// otherwise (mockserver.DefaultIdempotencyLimit documents its memory).
const DefaultLimit = 100_000

// DefaultTotalLimit is how many references the whole server remembers at most unless
// NewTotal is told otherwise (mockserver.DefaultIdempotencyTotalLimit documents its memory).
const DefaultTotalLimit = 1_000_000

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
// 2xx, the answer to replay. While the first request runs, running is set, and done is made
// by the first duplicate that waits (most references have none), then closed when the request
// finishes; both are guarded by the space's lock.
type Entry struct {
	key         Key
	fingerprint [32]byte
	done        chan struct{}
	body        []byte // nil: the first request failed and the reference is free again
	expires     int64
	status      int32 // set before done is closed
	running     bool
	held        bool // the map holds it: neither forgotten nor taken over by a newer request
}

// Fingerprint is the fingerprint of the request that first used the reference.
func (e *Entry) Fingerprint() [32]byte { return e.fingerprint }

// Answer is the status and body to replay, once the entry's first request finished (its done
// channel is closed); a nil body means that request failed and the reference is free again.
func (e *Entry) Answer() (status int, body []byte) { return int(e.status), e.body }

// Table remembers references per workspace. It is safe for concurrent use.
type Table struct {
	limit      int
	totalLimit int64
	total      atomic.Int64 // entries in every space
	spaces     sync.Map     // ids.ID -> *space
}

// space is the references of one workspace. queue holds the answered entries in the
// order they were answered, which is the order they expire in (the window is the same for
// all and the clock only moves forward): expiry and eviction pop its head, and nothing ever
// walks the whole map.
type space struct {
	total   *atomic.Int64 // the table's
	mu      sync.Mutex
	entries map[Key]*Entry
	queue   fifo.Queue[*Entry]
}

// New returns a table that remembers at most limit references per workspace (DefaultLimit
// when limit < 1). Past it, the oldest answered reference is forgotten first, before its
// window is up.
func New(limit int) *Table { return NewTotal(limit, 0) }

// NewTotal is New with a bound on the whole table too: at most total references in all
// workspaces (DefaultTotalLimit when total < 1). Past it, a new reference first forgets the
// oldest answered one of its own workspace, or when that has none, the oldest of the other
// workspace that holds the most. References whose first request is still running are never
// forgotten, so the table may pass the bound by as many requests as run at once.
func NewTotal(limit, total int) *Table {
	if limit < 1 {
		limit = DefaultLimit
	}
	if total < 1 {
		total = DefaultTotalLimit
	}
	return &Table{limit: limit, totalLimit: int64(total)}
}

// Len is how many references the table holds in all.
func (m *Table) Len() int { return int(m.total.Load()) }

// evictElsewhere forgets the oldest answered reference of the workspace other than sp that
// holds the most of them, so that the heaviest user gives way first and the choice does not
// depend on map order. It walks the workspaces, not their references, takes one space's lock
// at a time, and none may be held by the caller.
func (m *Table) evictElsewhere(sp *space) {
	var (
		victim *space
		most   int
	)
	m.spaces.Range(func(_, v any) bool {
		if other := v.(*space); other != sp {
			if n := other.answered(); n > most {
				victim, most = other, n
			}
		}
		return true
	})
	if victim != nil {
		victim.popLocked()
	}
}

// answered is how many answered references sp holds, under its lock.
func (sp *space) answered() int {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.queue.Len()
}

// popLocked is pop under sp's lock.
func (sp *space) popLocked() bool {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.pop()
}

func (m *Table) space(ws ids.ID) *space {
	if sp, ok := m.spaces.Load(ws); ok {
		return sp.(*space)
	}
	sp, _ := m.spaces.LoadOrStore(ws, &space{total: &m.total, entries: make(map[Key]*Entry)})
	return sp.(*space)
}

// Begin returns the entry of k, the channel to wait on, and whether the caller leads: a
// leader runs the request and must call Finish (its channel is nil); anyone else waits on
// the channel (nil: the entry is already finished).
func (m *Table) Begin(ws ids.ID, k Key, fp [32]byte, now int64) (*Entry, <-chan struct{}, bool) {
	sp := m.space(ws)
	sp.mu.Lock()
	sp.expire(now)
	old := sp.entries[k]
	if e := old; e != nil && (e.running || now < e.expires) {
		var done chan struct{}
		if e.running {
			if e.done == nil {
				e.done = make(chan struct{})
			}
			done = e.done
		}
		sp.mu.Unlock()
		return e, done, false
	}
	for len(sp.entries) >= m.limit && sp.pop() {
	}
	// Past the total, the workspace forgets its own oldest first; when it has none, another
	// workspace does, once this lock is released.
	elsewhere := m.total.Load() >= m.totalLimit && !sp.pop()
	defer func() {
		if elsewhere {
			m.evictElsewhere(sp)
		}
	}()
	defer sp.mu.Unlock()
	e := &Entry{key: k, fingerprint: fp, running: true, held: true}
	if old != nil && old.held { // expired, and not popped above: the queue still holds it
		old.held = false
		sp.total.Add(-1)
	}
	sp.entries[k] = e
	sp.total.Add(1)
	return e, nil, true
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
	} else if e.held {
		e.held = false
		delete(sp.entries, e.key)
		sp.total.Add(-1)
	}
	e.running = false
	if e.done != nil {
		close(e.done)
		e.done = nil
	}
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
	if e.held { // a newer request may have taken the reference over
		e.held = false
		delete(sp.entries, e.key)
		sp.total.Add(-1)
	}
	return true
}
