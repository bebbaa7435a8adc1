package httpapi

import (
	"context"
	"net/http"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/idem"
	"github.com/seedsms/sms-go/mockserver/internal/ids"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// serveIdempotent runs a request whose body may carry a reference: the first request with a
// reference runs, later ones with the same body replay its answer, ones with another body are
// 409, and ones arriving while it runs wait for it. It is the one place that decides whether
// references are deduplicated: without Config.DeduplicateReferences every request runs, and
// its reference is only stored with its campaign.
func (a *API) serveIdempotent(w http.ResponseWriter, rq *request, rt *route) {
	if !a.cfg.DeduplicateReferences {
		a.run(w, rq, rt)
		return
	}
	var ref string
	var fp [32]byte
	if f, e := wire.DecodeSend(rq.body); e == nil {
		rq.send = f // decoded once, for the handler too
		if f.Reference == nil || !rules.ValidReference(*f.Reference) {
			a.run(w, rq, rt)
			return
		}
		ref, fp = *f.Reference, f.Fingerprint(rq.r.URL.Path)
	} else { // a body the handler refuses: it still conflicts with the reference's first use
		var ok bool
		if ref, ok = wire.ReferenceOf(rq.body); !ok {
			a.run(w, rq, rt)
			return
		}
		if fp, ok = wire.Fingerprint(rq.r.URL.Path, rq.body); !ok {
			a.run(w, rq, rt)
			return
		}
	}
	k, ws := idem.NewKey(uint8(rq.caller.Mode), ref), rq.caller.Workspace
	for {
		e, done, lead := rq.st.idem.Begin(ws, k, fp, rq.now.UnixNano())
		if lead {
			a.lead(w, rq, rt, ws, e)
			return
		}
		if e.Fingerprint() != fp {
			e := conflict("reference %q was already used with a different request.", ref)
			e.field = "reference"
			rq.fail(w, e)
			return
		}
		if done != nil && !wait(rq.r.Context(), done) {
			return // the client went away
		}
		if status, body := e.Answer(); body != nil {
			w.Header().Set("Idempotent-Replayed", "true")
			wire.WriteBody(w, status, rq.id, body)
			return
		}
		// The first request failed, so the reference is free: try to lead this time.
	}
}

// lead runs the request that leads a reference, and records its answer for the duplicates.
func (a *API) lead(w http.ResponseWriter, rq *request, rt *route, ws ids.ID, e *idem.Entry) {
	var status int
	var body []byte
	// Deferred, so that a panicking handler frees the reference instead of leaving its
	// duplicates waiting.
	defer func() { rq.st.idem.Finish(ws, e, status, body, a.clock.Now().UnixNano()) }()
	rq.leads = true
	status, body = a.run(w, rq, rt)
}

func wait(ctx context.Context, done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}
