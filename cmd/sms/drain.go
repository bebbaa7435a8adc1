package main

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// drain is the transport of a bulk job's client. It lets the batches in flight finish when
// the user interrupts: from the interrupt on, new requests are held, and the job's context is
// cancelled as soon as no request is in flight, so that Bulk.Send records the batches that
// finished and starts no other. Without it, cancelling the context would abort the requests
// in flight, whose outcome would then be unknown until the job runs again.
type drain struct {
	base   http.RoundTripper
	cancel context.CancelFunc // ends the job's context

	mu       sync.Mutex
	inflight int  // requests sent whose response body is not closed yet
	closing  bool // interrupted
}

// newDrain wraps base (nil: a clone of http.DefaultTransport).
func newDrain(base http.RoundTripper, cancel context.CancelFunc) *drain {
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &drain{base: base, cancel: cancel}
}

// RoundTrip sends req, unless the job was interrupted: then it waits for the job's context to
// end and returns its error, without sending.
func (d *drain) RoundTrip(req *http.Request) (*http.Response, error) {
	d.mu.Lock()
	if d.closing {
		idle := d.inflight == 0
		d.mu.Unlock()
		if idle {
			d.cancel()
		}
		<-req.Context().Done()
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, req.Context().Err()
	}
	d.inflight++
	d.mu.Unlock()
	resp, err := d.base.RoundTrip(req)
	if err != nil {
		d.finish()
		return nil, err
	}
	resp.Body = &drainBody{ReadCloser: resp.Body, d: d}
	return resp, nil
}

// finish counts a request out of flight.
func (d *drain) finish() {
	d.mu.Lock()
	d.inflight--
	d.mu.Unlock()
}

// interrupt holds new requests from now on, and ends the job at once when none is in flight.
func (d *drain) interrupt() {
	d.mu.Lock()
	d.closing = true
	idle := d.inflight == 0
	d.mu.Unlock()
	if idle {
		d.cancel()
	}
}

// settled is called after each batch was recorded (from BulkParams.Progress): once
// interrupted with no request in flight, it ends the job.
func (d *drain) settled() {
	d.mu.Lock()
	end := d.closing && d.inflight == 0
	d.mu.Unlock()
	if end {
		d.cancel()
	}
}

// drainBody counts its request out of flight when it is closed.
type drainBody struct {
	io.ReadCloser
	d    *drain
	once sync.Once
}

func (b *drainBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.d.finish)
	return err
}
