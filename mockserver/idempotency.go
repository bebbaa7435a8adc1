package mockserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/idem"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// DefaultIdempotencyLimit is how many references a workspace remembers at most, live and test
// together, unless WithIdempotencyLimit says otherwise. Past it, the oldest answered
// reference is forgotten first, before its 24 hours are up. An entry costs about 140 bytes
// plus the answer it replays (208 bytes for a send's), so a workspace at the limit holds about
// 35 MB (BenchmarkIdempotencyMemory, docs/benchmarks.md).
const DefaultIdempotencyLimit = idem.DefaultLimit

// serveIdempotent runs a request whose body may carry a reference: the first request with a
// reference runs, later ones with the same body replay its answer, ones with another body are
// 409, and ones arriving while it runs wait for it.
func (s *Server) serveIdempotent(w http.ResponseWriter, rq *request, rt *route) {
	var ref string
	var fp [32]byte
	// Both idempotent routes send: POST /v1/sms/campaigns is the one that needs the campaigns scope.
	if in, ok := decodeSend(rq.r.URL.Path, rq.body, rt.scope == store.ScopeCampaigns); ok {
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
	k, ws := idem.NewKey(uint8(rq.caller.Mode), ref), rq.caller.Workspace
	for {
		e, done, lead := rq.st.idem.Begin(ws, k, fp, rq.now.UnixNano())
		if lead {
			var status int
			var body []byte
			// Deferred, so that a panicking handler frees the reference instead of leaving
			// its duplicates waiting.
			defer func() { rq.st.idem.Finish(ws, e, status, body, s.clock.Now().UnixNano()) }()
			status, body = s.run(w, rq, rt)
			return
		}
		if e.Fingerprint() != fp {
			e := conflict("reference %q was already used with a different request.", ref)
			e.field = "reference"
			writeError(w, rq.id, e)
			return
		}
		if done != nil && !wait(rq.r.Context(), done) {
			return // the client went away
		}
		if status, body := e.Answer(); body != nil {
			w.Header().Set("Idempotent-Replayed", "true")
			writeBody(w, status, rq.id, body)
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
