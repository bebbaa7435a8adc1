package mockserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
)

// ErrDropped is what Transport returns for a request that a Drop fault rule processed and
// then cut off: the caller cannot know whether it happened.
var ErrDropped = fmt.Errorf("mockserver: connection dropped after the request was sent: %w", io.ErrUnexpectedEOF)

// Transport returns an http.RoundTripper that serves requests in-process through the server's
// handler, with no sockets. It needs no Start, and it works inside a testing/synctest bubble,
// where timers (latency faults, the SDK's backoff) run on virtual time. A request cut off by a
// Drop fault returns ErrDropped.
func (s *Server) Transport() http.RoundTripper { return transport{s.Handler()} }

type transport struct{ h http.Handler }

func (t transport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	var body []byte
	if req.Body != nil {
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	in := req.Clone(req.Context())
	in.Body = io.NopCloser(bytes.NewReader(body))
	in.ContentLength = int64(len(body))
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:1"
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	rec := httptest.NewRecorder()
	if err := serve(t.h, rec, in); err != nil {
		return nil, err
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	resp = rec.Result()
	resp.Request = req
	return resp, nil
}

// serve runs h, turning the abort of a dropped connection into ErrDropped.
func serve(h http.Handler, w http.ResponseWriter, r *http.Request) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(error); ok && errors.Is(e, http.ErrAbortHandler) {
				err = ErrDropped
				return
			}
			panic(v)
		}
	}()
	h.ServeHTTP(w, r)
	return nil
}
