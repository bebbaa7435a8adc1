package doctor

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

// maxBody is how much of an answer is read; the API's answers are far smaller.
const maxBody = 16 << 20

// exchange is what one request of a check gave: the answer as it came off the wire, before the
// SDK read it, and how long it took.
type exchange struct {
	// The request as sent (its URL and headers, secrets included: never shown unredacted).
	method, url string
	reqHeader   http.Header

	status  int // 0 when no answer came
	header  http.Header
	body    []byte
	latency time.Duration // from sending the request to the end of the answer's body
	err     error         // no answer, or an answer that could not be read
}

type exchangeKey struct{}

// recorder is the transport of every request of a run. A request whose context carries an
// *exchange is recorded in it: the body is read whole, kept, and handed on to the caller (the
// SDK) unchanged.
type recorder struct{ base http.RoundTripper }

func (t recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return t.base.RoundTrip(req)
	}
	ex.method, ex.url, ex.reqHeader = req.Method, req.URL.String(), req.Header.Clone()
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		ex.latency, ex.err = time.Since(start), err
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	_ = resp.Body.Close()
	ex.latency = time.Since(start)
	ex.status, ex.header = resp.StatusCode, resp.Header
	switch {
	case err != nil:
		ex.err = err
		return nil, err
	case len(body) > maxBody:
		ex.err = errors.New("the answer is larger than 16 MiB")
		return nil, ex.err
	}
	ex.body = body
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// CloseIdleConnections closes the idle connections of the wrapped transport, when it keeps
// any.
func (t recorder) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// record runs fn, which sends one request with the context it is given, and returns what the
// request gave and fn's error. The request has timeout.
func record(ctx context.Context, timeout time.Duration, fn func(context.Context) error) (*exchange, error) {
	ex := &exchange{}
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, exchangeKey{}, ex), timeout)
	defer cancel()
	err := fn(ctx)
	if ex.status == 0 && ex.err == nil {
		// Nothing reached the transport: the SDK refused the request, or the context ended first.
		ex.err = err
		if ex.err == nil {
			ex.err = errors.New("no request was sent")
		}
	}
	return ex, err
}
