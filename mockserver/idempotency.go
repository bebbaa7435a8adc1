package mockserver

import (
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

type idemKey struct {
	ws   oid
	mode Mode
	ref  string
}

// idemEntry is one reference: the request it was first used with, and once that finished with
// a 2xx, the answer to replay. done is closed when the first request finished.
type idemEntry struct {
	fingerprint [32]byte
	done        chan struct{}
	status      int    // set before done is closed
	body        []byte // nil: the first request failed and the reference is free again
	expires     int64
}

// idempotency remembers references per workspace and mode.
type idempotency struct {
	mu      sync.Mutex
	entries map[idemKey]*idemEntry
	inserts int
}

func newIdempotency() *idempotency { return &idempotency{entries: make(map[idemKey]*idemEntry)} }

// begin returns the entry of k and whether the caller leads: a leader runs the request and
// must call finish; anyone else waits on the entry's done.
func (m *idempotency) begin(k idemKey, fp [32]byte, now int64) (*idemEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.entries[k]; e != nil {
		select {
		case <-e.done:
			if now < e.expires {
				return e, false
			}
		default:
			return e, false
		}
	}
	e := &idemEntry{fingerprint: fp, done: make(chan struct{})}
	m.entries[k] = e
	if m.inserts++; m.inserts%1024 == 0 {
		m.sweep(now)
	}
	return e, true
}

// finish records the leader's answer: a 2xx is kept for replays, anything else frees k.
func (m *idempotency) finish(k idemKey, e *idemEntry, status int, body []byte, now int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if status >= 200 && status < 300 && body != nil {
		e.status, e.body, e.expires = status, body, now+int64(idempotencyWindow)
	} else if m.entries[k] == e {
		delete(m.entries, k)
	}
	close(e.done)
}

// sweep drops expired entries; m.mu must be held.
func (m *idempotency) sweep(now int64) {
	for k, e := range m.entries {
		select {
		case <-e.done:
			if now >= e.expires {
				delete(m.entries, k)
			}
		default:
		}
	}
}

// serveIdempotent runs a request whose body may carry a reference: the first request with a
// reference runs, later ones with the same body replay its answer, ones with another body are
// 409, and ones arriving while it runs wait for it.
func (s *Server) serveIdempotent(w http.ResponseWriter, rq *request, rt *route) {
	ref, ok := referenceOf(rq.body)
	if !ok {
		s.run(w, rq, rt)
		return
	}
	fp, ok := fingerprint(rq.r.URL.Path, rq.body)
	if !ok {
		s.run(w, rq, rt)
		return
	}
	k := idemKey{ws: rq.ws.id, mode: rq.mode, ref: ref}
	for {
		e, lead := rq.st.idem.begin(k, fp, rq.now.UnixNano())
		if lead {
			var status int
			var body []byte
			// Deferred, so that a panicking handler frees the reference instead of leaving
			// its duplicates waiting.
			defer func() { rq.st.idem.finish(k, e, status, body, s.clock.Now().UnixNano()) }()
			status, body = s.run(w, rq, rt)
			return
		}
		if e.fingerprint != fp {
			e := conflict("reference %q was already used with a different request.", ref)
			e.field = "reference"
			writeError(w, rq.id, e)
			return
		}
		if !wait(rq.r.Context(), e.done) {
			return // the client went away
		}
		if e.body != nil {
			w.Header().Set("Idempotent-Replayed", "true")
			writeBody(w, e.status, rq.id, e.body)
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
