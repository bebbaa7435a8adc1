package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"github.com/seedsms/sms-go/mockserver/internal/fifo"

	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
)

// idempotencyWindow is how long a reference is remembered.
const idempotencyWindow = 24 * time.Hour

// DefaultIdempotencyLimit is how many references a workspace remembers at most, live and test
// together, unless WithIdempotencyLimit says otherwise. Past it, the oldest answered
// reference is forgotten first, before its 24 hours are up. An entry costs about 140 bytes
// plus the answer it replays (208 bytes for a send's), so a workspace at the limit holds about
// 35 MB (BenchmarkIdempotencyMemory, docs/benchmarks.md).
const DefaultIdempotencyLimit = 100_000

// idemKey names a reference inside a workspace: a hash of the mode and the reference, so that
// the map holds no string of its own.
type idemKey [16]byte

func newIdemKey(mode Mode, ref string) idemKey {
	h := sha256.New()
	h.Write([]byte{byte(mode.index())})
	h.Write([]byte(ref))
	var sum [32]byte
	h.Sum(sum[:0])
	return idemKey(sum[:16])
}

// idemEntry is one reference: the request it was first used with, and once that finished with
// a 2xx, the answer to replay. done is closed when the first request finished, then dropped:
// a nil done means finished.
type idemEntry struct {
	key         idemKey
	fingerprint [32]byte
	done        chan struct{}
	body        []byte // nil: the first request failed and the reference is free again
	expires     int64
	status      int32 // set before done is closed
}

// idempotency remembers references per workspace. Each workspace has its own lock, map and
// queue, so that one workspace's traffic does not wait on another's.
type idempotency struct {
	limit  int
	spaces sync.Map // ids.ID -> *idemSpace
}

// idemSpace is the references of one workspace. queue holds the answered entries in the
// order they were answered, which is the order they expire in (the window is the same for
// all and the clock only moves forward): expiry and eviction pop its head, and nothing ever
// walks the whole map.
type idemSpace struct {
	mu      sync.Mutex
	entries map[idemKey]*idemEntry
	queue   fifo.Queue[*idemEntry]
}

func newIdempotency(limit int) *idempotency {
	if limit <= 0 {
		limit = DefaultIdempotencyLimit
	}
	return &idempotency{limit: limit}
}

func (m *idempotency) space(ws ids.ID) *idemSpace {
	if sp, ok := m.spaces.Load(ws); ok {
		return sp.(*idemSpace)
	}
	sp, _ := m.spaces.LoadOrStore(ws, &idemSpace{entries: make(map[idemKey]*idemEntry)})
	return sp.(*idemSpace)
}

// begin returns the entry of k, the channel to wait on, and whether the caller leads: a
// leader runs the request and must call finish; anyone else waits on the channel (nil: the
// entry is already finished).
func (m *idempotency) begin(ws ids.ID, k idemKey, fp [32]byte, now int64) (*idemEntry, <-chan struct{}, bool) {
	sp := m.space(ws)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.expire(now)
	if e := sp.entries[k]; e != nil && (e.done != nil || now < e.expires) {
		return e, e.done, false
	}
	for len(sp.entries) >= m.limit && sp.pop() {
	}
	e := &idemEntry{key: k, fingerprint: fp, done: make(chan struct{})}
	sp.entries[k] = e
	return e, e.done, true
}

// finish records the leader's answer: a 2xx is kept for replays, anything else frees the
// reference.
func (m *idempotency) finish(ws ids.ID, e *idemEntry, status int, body []byte, now int64) {
	sp := m.space(ws)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if status >= 200 && status < 300 && body != nil {
		e.status, e.body, e.expires = int32(status), body, now+int64(idempotencyWindow)
		sp.queue.Push(e)
	} else if sp.entries[e.key] == e {
		delete(sp.entries, e.key)
	}
	close(e.done)
	e.done = nil
}

// expire forgets the answered entries whose window has passed; sp.mu must be held.
func (sp *idemSpace) expire(now int64) {
	for sp.queue.Len() > 0 && now >= sp.queue.Front().expires {
		sp.pop()
	}
}

// pop forgets the oldest answered entry and reports whether there was one; sp.mu must be held.
func (sp *idemSpace) pop() bool {
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

// serveIdempotent runs a request whose body may carry a reference: the first request with a
// reference runs, later ones with the same body replay its answer, ones with another body are
// 409, and ones arriving while it runs wait for it.
func (s *Server) serveIdempotent(w http.ResponseWriter, rq *request, rt *route) {
	var ref string
	var fp [32]byte
	// Both idempotent routes send: POST /v1/sms/campaigns is the one that needs the campaigns scope.
	if in, ok := decodeSend(rq.r.URL.Path, rq.body, rt.scope == scopeCampaigns); ok {
		rq.send = in
		if in.reference == nil || !rules.ValidReference(*in.reference) {
			s.run(w, rq, rt)
			return
		}
		ref, fp = *in.reference, in.fingerprint
	} else { // the general way, which also finds what is wrong with the body
		if ref, ok = referenceOf(rq.body); !ok {
			s.run(w, rq, rt)
			return
		}
		if fp, ok = fingerprint(rq.r.URL.Path, rq.body); !ok {
			s.run(w, rq, rt)
			return
		}
	}
	k, ws := newIdemKey(rq.mode, ref), rq.ws.id
	for {
		e, done, lead := rq.st.idem.begin(ws, k, fp, rq.now.UnixNano())
		if lead {
			var status int
			var body []byte
			// Deferred, so that a panicking handler frees the reference instead of leaving
			// its duplicates waiting.
			defer func() { rq.st.idem.finish(ws, e, status, body, s.clock.Now().UnixNano()) }()
			status, body = s.run(w, rq, rt)
			return
		}
		if e.fingerprint != fp {
			e := conflict("reference %q was already used with a different request.", ref)
			e.field = "reference"
			writeError(w, rq.id, e)
			return
		}
		if done != nil && !wait(rq.r.Context(), done) {
			return // the client went away
		}
		if e.body != nil {
			w.Header().Set("Idempotent-Replayed", "true")
			writeBody(w, int(e.status), rq.id, e.body)
			return
		}
		// The first request failed, so the reference is free: try to lead this time.
	}
}

func wait(ctx context.Context, done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// referenceOf returns the body's reference when it is a valid one.
func referenceOf(body []byte) (string, bool) {
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

// fingerprint identifies a request by its path and its JSON value, so that member order and
// white space do not matter.
func fingerprint(path string, body []byte) ([32]byte, bool) {
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
