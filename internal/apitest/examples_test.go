package apitest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/internal/apitest"
	"github.com/seedsms/sms-go/mockserver"
)

// TestExamplesAreAcceptedByTheMock sends every operation of both documents to the mock built
// from its examples alone (path and query parameters, request body), as a contract-testing tool
// such as Dredd does, and checks that the mock accepts the input: no 400, 413 or 415. An id
// taken from an example may name nothing in a fresh mock, so 404 is fine. Every exchange is
// validated against the documents too.
func TestExamplesAreAcceptedByTheMock(t *testing.T) {
	t.Parallel()
	v := apitest.NewValidator(t)
	for _, doc := range []*openapi3.T{v.Document(), v.MockDocument()} {
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				if streamsOrPage(op) {
					continue // not JSON: the event stream never ends, the page and its files are for people
				}
				t.Run(method+" "+path, func(t *testing.T) {
					t.Parallel()
					srv := newServer(t)
					ws := srv.Default()
					target, body := fromExamples(t, path, append(item.Parameters, op.Parameters...), op.RequestBody)
					req, err := http.NewRequest(method, "http://127.0.0.1:4010"+target, nil)
					require.NoError(t, err)
					if body != nil {
						req, err = http.NewRequest(method, "http://127.0.0.1:4010"+target, bytes.NewReader(body))
						require.NoError(t, err)
						req.Header.Set("Content-Type", "application/json")
					}
					switch {
					case strings.HasPrefix(path, "/v1/keys"):
						req.Header.Set("Authorization", "Bearer "+ws.DashboardToken)
					case strings.HasPrefix(path, "/v1/"):
						req.Header.Set("X-API-Key", ws.LiveKey)
						req.Header.Set("X-API-Secret", ws.LiveSecret)
					}
					hc := &http.Client{Transport: apitest.Transport(t, srv.Transport(), true)}
					resp, err := hc.Do(req)
					require.NoError(t, err)
					defer func() { _ = resp.Body.Close() }()
					var answer json.RawMessage
					require.NoError(t, json.NewDecoder(resp.Body).Decode(&answer))
					assert.NotContains(t, []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType},
						resp.StatusCode, "%s %s: the mock refused the examples: %s", method, target, answer)
					assert.Less(t, resp.StatusCode, 500, "%s", answer)
				})
			}
		}
	}
}

// streamsOrPage reports whether the operation answers something other than JSON: the event
// stream, the inbox page and its files.
func streamsOrPage(op *openapi3.Operation) bool {
	ok := op.Responses.Status(http.StatusOK)
	if ok == nil {
		return false
	}
	for ct := range ok.Value.Content {
		if ct != "application/json" {
			return true
		}
	}
	return false
}

// fromExamples builds the request target and body of an operation from its examples. The
// long-poll parameter wait is left out: its example would make the request wait.
func fromExamples(t *testing.T, path string, params openapi3.Parameters, rb *openapi3.RequestBodyRef) (string, []byte) {
	t.Helper()
	query := url.Values{}
	for _, p := range params {
		param := p.Value
		ex := param.Example
		if ex == nil && param.Schema != nil {
			ex = param.Schema.Value.Example
		}
		require.NotNil(t, ex, "parameter %s has no example", param.Name)
		value := strings.Trim(mustJSON(t, ex), `"`)
		switch param.In {
		case openapi3.ParameterInPath:
			path = strings.ReplaceAll(path, "{"+param.Name+"}", url.PathEscape(value))
		case openapi3.ParameterInQuery:
			if param.Name != "wait" {
				query.Set(param.Name, value)
			}
		}
	}
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	if rb == nil {
		return path, nil
	}
	mt := rb.Value.Content.Get("application/json")
	require.NotNil(t, mt)
	ex := mt.Example
	if ex == nil {
		ex = mt.Schema.Value.Example
	}
	require.NotNil(t, ex, "request body has no example")
	return path, []byte(mustJSON(t, ex))
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// newServer returns a mock with opts, failing the test if New refuses them.
func newServer(t testing.TB, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	srv, err := mockserver.New(opts...)
	require.NoError(t, err)
	return srv
}
