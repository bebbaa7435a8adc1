// Package apitest holds test helpers shared by the SDK's and the mock server's tests. Its main
// piece checks HTTP traffic against the project's OpenAPI document, api/openapi.yaml, so that a
// test of either side also proves that side speaks the documented wire format.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// mockPrefix starts the paths of the mock server's test controls, which the document does not
// describe.
const mockPrefix = "/_mock/"

// Validator checks HTTP traffic against api/openapi.yaml. It is safe for concurrent use.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
	opts   *openapi3filter.Options
}

// The document is loaded, validated and routed once per process.
var (
	loadOnce sync.Once
	loaded   *Validator
	loadErr  error
)

// DocumentPath returns the path of api/openapi.yaml, found relative to this source file.
func DocumentPath() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("apitest: cannot locate the package's source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "api", "openapi.yaml"), nil
}

func load() (*Validator, error) {
	path, err := DocumentPath()
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("apitest: load %s: %w", filepath.Base(path), err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("apitest: invalid %s: %w", filepath.Base(path), err)
	}
	// Requests go to test servers on any host and port: route by path and method only.
	doc.Servers = nil
	for _, item := range doc.Paths.Map() {
		item.Servers = nil
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("apitest: build router: %w", err)
	}
	opts := &openapi3filter.Options{
		MultiError:            true,
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		SkipSettingDefaults:   true,
	}
	opts.WithCustomSchemaErrorFunc(schemaErrorMessage)
	return &Validator{doc: doc, router: router, opts: opts}, nil
}

// schemaErrorMessage writes a schema error on one line: where, why and the offending value,
// instead of kin-openapi's default dump of the whole schema.
func schemaErrorMessage(err *openapi3.SchemaError) string {
	reason := err.Reason
	if reason == "" && err.Origin != nil {
		reason = err.Origin.Error()
	}
	if reason == "" {
		reason = "does not match " + err.SchemaField
	}
	if err.SchemaField == "oneOf" && err.Origin != nil && !errors.Is(err.Origin, openapi3.ErrOneOfConflict) {
		reason += " (" + err.Origin.Error() + ")" // why each alternative failed
	}
	value, merr := json.Marshal(err.Value)
	if merr != nil {
		value = []byte(fmt.Sprintf("%v", err.Value))
	}
	const maxValue = 120
	if len(value) > maxValue {
		value = append(value[:maxValue:maxValue], "..."...)
	}
	return fmt.Sprintf("at %q: %s (value %s)", "/"+strings.Join(err.JSONPointer(), "/"), reason, value)
}

// NewValidator returns the Validator of api/openapi.yaml. The document is loaded and validated
// once per process; a document that does not load or validate fails tb.
func NewValidator(tb testing.TB) *Validator {
	tb.Helper()
	loadOnce.Do(func() { loaded, loadErr = load() })
	if loadErr != nil {
		tb.Fatalf("%v", loadErr)
	}
	return loaded
}

// Document returns the loaded document (with its servers removed). Callers must not modify it.
func (v *Validator) Document() *openapi3.T { return v.doc }

func isMockPath(req *http.Request) bool {
	return req.URL != nil && strings.HasPrefix(req.URL.Path, mockPrefix)
}

// route finds the operation of req; a HEAD request finds the GET operation of its path.
func (v *Validator) route(req *http.Request) (*routers.Route, map[string]string, error) {
	if req.URL == nil {
		return nil, nil, errors.New("apitest: request without URL")
	}
	r := req
	if r.Method == http.MethodHead {
		// HEAD is answered like GET, without a body.
		r = new(http.Request)
		*r = *req
		r.Method = http.MethodGet
	}
	route, params, err := v.router.FindRoute(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	return route, params, nil
}

// Request validates one request against its operation: path and query parameters, headers and
// the body (given separately; nil for none). Security is not checked. Requests to the mock's
// /_mock/ controls are not described and always pass. The error lists every problem found.
func (v *Validator) Request(req *http.Request, body []byte) error {
	if isMockPath(req) {
		return nil
	}
	route, params, err := v.route(req)
	if err != nil {
		return err
	}
	// Validate a copy: the filter reads and may replace the body.
	r := req.Clone(context.Background())
	r.GetBody = nil
	if body == nil {
		r.Body = http.NoBody
		r.ContentLength = 0
	} else {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	in := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: params,
		Route:      route,
		Options:    v.opts,
	}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return fmt.Errorf("%s %s: request does not match the document: %w", req.Method, req.URL.Path, err)
	}
	return nil
}

// Response validates a response to req: that the operation declares the status, and the
// declared headers and body. Responses to the mock's /_mock/ controls always pass. A request that
// matches no operation is an error, except for the documented answers to such requests: 404 for
// an unknown path and 405 for a method the path does not support (each checked against its
// shared response, Error body and headers).
func (v *Validator) Response(req *http.Request, status int, header http.Header, body []byte) error {
	if isMockPath(req) {
		return nil
	}
	route, params, err := v.route(req)
	switch {
	case err == nil:
	case errors.Is(err, routers.ErrPathNotFound) && status == http.StatusNotFound:
		route, err = v.sharedResponseRoute("NotFound", status)
	case errors.Is(err, routers.ErrMethodNotAllowed) && status == http.StatusMethodNotAllowed:
		route, err = v.sharedResponseRoute("MethodNotAllowed", status)
	}
	if err != nil {
		return err
	}
	if header == nil {
		header = http.Header{}
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route:      route,
			Options:    v.opts,
		},
		Status:  status,
		Header:  header,
		Options: v.opts,
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("%s %s -> %d: response does not match the document: %w", req.Method, req.URL.Path, status, err)
	}
	return nil
}

// sharedResponseRoute is a stand-in route whose only response is the document's shared
// response name, for status.
func (v *Validator) sharedResponseRoute(name string, status int) (*routers.Route, error) {
	ref := v.doc.Components.Responses[name]
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("apitest: the document has no components.responses.%s", name)
	}
	op := openapi3.NewOperation()
	op.Responses = openapi3.NewResponses(openapi3.WithStatus(status, ref))
	return &routers.Route{
		Spec:      v.doc,
		PathItem:  &openapi3.PathItem{},
		Operation: op,
	}, nil
}

// Transport returns an http.RoundTripper that forwards to base (http.DefaultTransport when nil)
// and validates every response against api/openapi.yaml, and every request too when
// checkRequests is true. Problems are reported with tb.Errorf, so the transport may run on any
// goroutine; the exchange itself goes on unchanged. Request and response bodies are buffered
// and replaced, so the server and the caller read them whole. Requests to /_mock/ paths are not
// validated, and transport errors (no response) are passed through untouched.
func Transport(tb testing.TB, base http.RoundTripper, checkRequests bool) http.RoundTripper {
	tb.Helper()
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{tb: tb, base: base, v: NewValidator(tb), checkRequests: checkRequests}
}

type transport struct {
	tb            testing.TB
	base          http.RoundTripper
	v             *Validator
	checkRequests bool
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if isMockPath(req) {
		return t.base.RoundTrip(req)
	}
	out := req
	if t.checkRequests {
		var body []byte
		if req.Body != nil && req.Body != http.NoBody {
			b, err := io.ReadAll(req.Body)
			_ = req.Body.Close()
			if err != nil {
				return nil, fmt.Errorf("apitest: read request body: %w", err)
			}
			body = b
			// Forward a copy whose body is the buffered one; the caller's request is only
			// consumed, as a RoundTripper may do.
			out = req.Clone(req.Context())
			out.Body = io.NopCloser(bytes.NewReader(body))
			out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			out.ContentLength = int64(len(body))
		}
		if err := t.v.Request(req, body); err != nil {
			t.tb.Errorf("apitest: %v", err)
		}
	}

	resp, err := t.base.RoundTrip(out)
	if err != nil || resp == nil {
		return resp, err
	}
	if out != req {
		resp.Request = req
	}

	data, readErr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if readErr != nil {
		// Hand the caller what arrived, then the same error; a cut-off body is not validated.
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(data), errReader{readErr}))
		return resp, nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	if err := t.v.Response(req, resp.StatusCode, resp.Header, data); err != nil {
		t.tb.Errorf("apitest: %v", err)
	}
	return resp, nil
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
