// Package apitest holds test helpers shared by the SDK's and the mock server's tests. Its main
// piece checks HTTP traffic against the project's OpenAPI documents, api/openapi.yaml for /v1
// and api/mock.openapi.yaml for the mock server's /_mock/ controls and its inbox page, so that a
// test of either side also proves that side speaks the documented wire format.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
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

// mockPrefix starts the paths of the mock server's test controls, which api/mock.openapi.yaml
// describes (with the inbox page at "/").
const mockPrefix = "/_mock/"

// Validator checks HTTP traffic against api/openapi.yaml, and traffic to the mock server's
// controls against api/mock.openapi.yaml. It is safe for concurrent use.
type Validator struct {
	api  *spec // /v1
	mock *spec // /_mock/ and /
	opts *openapi3filter.Options
	// headOnly skips response bodies: those of event streams, which never end.
	headOnly *openapi3filter.Options
}

// spec is one loaded document and its router.
type spec struct {
	doc    *openapi3.T
	router routers.Router
}

// The document is loaded, validated and routed once per process.
var (
	loadOnce sync.Once
	loaded   *Validator
	loadErr  error
)

// DocumentPath returns the path of api/openapi.yaml, found relative to this source file.
func DocumentPath() (string, error) { return apiFile("openapi.yaml") }

// MockDocumentPath returns the path of api/mock.openapi.yaml, found relative to this source
// file.
func MockDocumentPath() (string, error) { return apiFile("mock.openapi.yaml") }

func apiFile(name string) (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("apitest: cannot locate the package's source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "api", name), nil
}

// textBodies are the non-JSON media types the documents use; their bodies are validated as
// strings.
var textBodies = []string{"text/html", "text/event-stream", "text/javascript", "text/css", "image/svg+xml"}

func load() (*Validator, error) {
	for _, ct := range textBodies {
		if openapi3filter.RegisteredBodyDecoder(ct) == nil {
			openapi3filter.RegisterBodyDecoder(ct, decodeText)
		}
	}
	api, err := loadSpec(DocumentPath)
	if err != nil {
		return nil, err
	}
	mock, err := loadSpec(MockDocumentPath)
	if err != nil {
		return nil, err
	}
	opts := &openapi3filter.Options{
		MultiError:            true,
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		SkipSettingDefaults:   true,
	}
	opts.WithCustomSchemaErrorFunc(schemaErrorMessage)
	headOnly := new(openapi3filter.Options)
	*headOnly = *opts
	headOnly.ExcludeResponseBody = true
	return &Validator{api: api, mock: mock, opts: opts, headOnly: headOnly}, nil
}

func decodeText(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	b, err := io.ReadAll(body)
	return string(b), err
}

// loadSpec loads, validates and routes one document.
func loadSpec(where func() (string, error)) (*spec, error) {
	path, err := where()
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
	if err := imposeDecimals(doc); err != nil {
		return nil, fmt.Errorf("apitest: %s: %w", filepath.Base(path), err)
	}
	// Requests go to test servers on any host and port: route by path and method only.
	doc.Servers = nil
	for _, item := range doc.Paths.Map() {
		item.Servers = nil
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("apitest: build router for %s: %w", filepath.Base(path), err)
	}
	return &spec{doc: doc, router: router}, nil
}

// imposeDecimals checks the decimals the documents state with x-decimals, as the documents do
// not say with multipleOf (validators that test it in binary floating point, such as Prism,
// refuse 9996.80 as no multiple of 0.01): kin-openapi tests multipleOf exactly enough, so
// the schemas of components with x-decimals: 2 get multipleOf 0.01 here, for the tests only.
func imposeDecimals(doc *openapi3.T) error {
	n := 0
	for name, ref := range doc.Components.Schemas {
		v, ok := ref.Value.Extensions["x-decimals"]
		if !ok {
			continue
		}
		if fmt.Sprint(v) != "2" || ref.Value.Type == nil || !ref.Value.Type.Is(openapi3.TypeNumber) {
			return fmt.Errorf("schema %s: x-decimals must be 2, on a number", name)
		}
		ref.Value.MultipleOf = openapi3.Ptr(0.01)
		n++
	}
	if n == 0 {
		return fmt.Errorf("no schema states x-decimals: money is unchecked")
	}
	return nil
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

// NewValidator returns the Validator of api/openapi.yaml and api/mock.openapi.yaml. The
// documents are loaded and validated once per process; a document that does not load or
// validate fails tb.
func NewValidator(tb testing.TB) *Validator {
	tb.Helper()
	loadOnce.Do(func() { loaded, loadErr = load() })
	if loadErr != nil {
		tb.Fatalf("%v", loadErr)
	}
	return loaded
}

// Document returns the loaded /v1 document (with its servers removed). Callers must not modify
// it.
func (v *Validator) Document() *openapi3.T { return v.api.doc }

// MockDocument returns the loaded document of the mock's controls (with its servers removed).
// Callers must not modify it.
func (v *Validator) MockDocument() *openapi3.T { return v.mock.doc }

// specFor returns the document that describes req's path: the mock's for /_mock/ and for the
// inbox page at "/", the API's for everything else.
func (v *Validator) specFor(req *http.Request) *spec {
	if req.URL != nil && (strings.HasPrefix(req.URL.Path, mockPrefix) || req.URL.Path == "/") {
		return v.mock
	}
	return v.api
}

// route finds the operation of req; a HEAD request finds the GET operation of its path.
func (v *Validator) route(sp *spec, req *http.Request) (*routers.Route, map[string]string, error) {
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
	route, params, err := sp.router.FindRoute(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	return route, params, nil
}

// Request validates one request against its operation: path and query parameters, headers and
// the body (given separately; nil for none). Security is not checked. The error lists every
// problem found.
func (v *Validator) Request(req *http.Request, body []byte) error {
	route, params, err := v.route(v.specFor(req), req)
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
// declared headers and body. A request that matches no operation is an error, except for the
// documented answers to such requests: 404 for an unknown path and 405 for a method the path
// does not support (each checked against its shared response, Error body and headers).
func (v *Validator) Response(req *http.Request, status int, header http.Header, body []byte) error {
	return v.response(req, status, header, body, v.opts)
}

// ResponseHead is Response without the body, for a response whose body is a stream that does
// not end (text/event-stream): the status and the headers are checked.
func (v *Validator) ResponseHead(req *http.Request, status int, header http.Header) error {
	return v.response(req, status, header, nil, v.headOnly)
}

func (v *Validator) response(req *http.Request, status int, header http.Header, body []byte, opts *openapi3filter.Options) error {
	sp := v.specFor(req)
	route, params, err := v.route(sp, req)
	switch {
	case err == nil:
	case errors.Is(err, routers.ErrPathNotFound) && status == http.StatusNotFound:
		route, err = sp.sharedResponseRoute("NotFound", status)
	case errors.Is(err, routers.ErrMethodNotAllowed) && status == http.StatusMethodNotAllowed:
		route, err = sp.sharedResponseRoute("MethodNotAllowed", status)
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
			Options:    opts,
		},
		Status:  status,
		Header:  header,
		Options: opts,
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("%s %s -> %d: response does not match the document: %w", req.Method, req.URL.Path, status, err)
	}
	return nil
}

// sharedResponseRoute is a stand-in route whose only response is the document's shared
// response name, for status.
func (sp *spec) sharedResponseRoute(name string, status int) (*routers.Route, error) {
	ref := sp.doc.Components.Responses[name]
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("apitest: the document has no components.responses.%s", name)
	}
	op := openapi3.NewOperation()
	op.Responses = openapi3.NewResponses(openapi3.WithStatus(status, ref))
	return &routers.Route{
		Spec:      sp.doc,
		PathItem:  &openapi3.PathItem{},
		Operation: op,
	}, nil
}

// Transport returns an http.RoundTripper that forwards to base (http.DefaultTransport when nil)
// and validates every response against the documents (see Validator), and every request too
// when checkRequests is true. Problems are reported with tb.Errorf, so the transport may run on
// any goroutine; the exchange itself goes on unchanged. Request and response bodies are
// buffered and replaced, so the server and the caller read them whole, except event streams
// (text/event-stream), whose status and headers are checked and whose body is handed over as
// it comes. Transport errors (no response) are passed through untouched.
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
	if isEventStream(resp.Header) {
		if err := t.v.ResponseHead(req, resp.StatusCode, resp.Header); err != nil {
			t.tb.Errorf("apitest: %v", err)
		}
		return resp, nil
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

// isEventStream reports whether a response is a Server-Sent Events stream.
func isEventStream(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "text/event-stream"
}
