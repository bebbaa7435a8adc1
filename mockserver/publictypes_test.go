package mockserver_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
	"github.com/seedsms/sms-go/mockserver/internal/faults"
	"github.com/seedsms/sms-go/mockserver/internal/httpapi"
	"github.com/seedsms/sms-go/mockserver/internal/reqlog"
)

// TestNoInternalAliases: every type of the mock's public API is declared in package
// mockserver, so that go doc shows its fields: none is an alias of a type of another package.
func TestNoInternalAliases(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				checked++
				if _, sel := ts.Type.(*ast.SelectorExpr); ts.Name.IsExported() && (ts.Assign.IsValid() || sel) {
					t.Errorf("%s: type %s is declared by another package; declare its fields here", fset.Position(ts.Pos()), ts.Name)
				}
			}
		}
	}
	assert.Greater(t, checked, 10, "the package's types were read")
}

// TestPublicTypesJSON: the public types and the internal ones the HTTP layer encodes have the
// same fields (the conversions between them compile only then) and the same JSON, so that
// the JSON of /_mock/ and of the Go controls cannot drift.
func TestPublicTypesJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	rule := faults.Rule{Method: "POST", Path: "/v1/sms/*", WorkspaceID: "0123456789abcdef01234567", Status: 503, Times: 2,
		Latency: time.Second, Drop: true, ProviderFailure: true, RetryAfter: 3, Probability: 0.5}
	rec := reqlog.Record{Method: "GET", Path: "/v1/balance", Query: "a=b", Status: 200, RequestID: "req-1", Time: at,
		Headers: map[string][]string{"X-Api-Key": {"pk_live_x"}}, HeadersTruncated: true, Body: json.RawMessage(`{"a":1}`)}
	ws := httpapi.Workspace{URL: "http://127.0.0.1:1", WorkspaceID: "w", DashboardToken: "eyJ.x.y", LiveKey: "pk_live_a",
		LiveSecret: "sk_live_b", TestKey: "pk_test_c", TestSecret: "sk_test_d", SenderID: "MOCKSMS"}
	tests := []struct {
		name           string
		public, inside any
	}{
		{"FaultRule", mockserver.FaultRule(rule), rule},
		{"FaultRule zero", mockserver.FaultRule{}, faults.Rule{}},
		{"RecordedRequest", mockserver.RecordedRequest(rec), rec},
		{"RecordedRequest zero", mockserver.RecordedRequest{}, reqlog.Record{}},
		{"Workspace", mockserver.Workspace(ws), ws},
		{"Credentials", mockserver.Workspace(ws).Credentials(), ws.Credentials()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want, err := json.Marshal(tt.inside)
			require.NoError(t, err)
			got, err := json.Marshal(tt.public)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
		})
	}
	w := mockserver.Workspace(ws)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		assert.NotContains(t, fmt.Sprintf(verb, w), "sk_live_b", verb)
	}
}

// TestControlsJSONMatchesGo: what the Go controls return and what /_mock/ answers are one
// JSON: the rules of GET /_mock/faults and Faults (latency apart), the workspace of POST
// /_mock/workspaces and its Credentials, the records of GET /_mock/requests and Requests.
func TestControlsJSONMatchesGo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ws := e.newWorkspace()
	require.NoError(t, e.srv.AddFaults(
		mockserver.FaultRule{Method: "GET", Path: "/v1/balance", WorkspaceID: ws.WorkspaceID, Status: 503, Times: 2, RetryAfter: 1, Latency: time.Millisecond},
		mockserver.FaultRule{Path: "/v1/otp/*", ProviderFailure: true, Probability: 0.25},
	))
	listed := e.do(http.MethodGet, "/_mock/faults", nil).wantStatus(http.StatusOK)
	rules := listed.list("rules")
	goRules := e.srv.Faults()
	require.Len(t, rules, len(goRules))
	for i, r := range rules {
		m := r.(map[string]any)
		if goRules[i].Latency > 0 {
			assert.Equal(t, goRules[i].Latency.String(), m["latency"])
		}
		delete(m, "latency")
		want, err := json.Marshal(goRules[i])
		require.NoError(t, err)
		got, err := json.Marshal(m)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got), "rule %d", i)
	}
	e.srv.ClearFaults()

	created := e.do(http.MethodPost, "/_mock/workspaces", M{}).wantStatus(http.StatusCreated)
	delete(created.Body, "requestId")
	var creds mockserver.Credentials
	require.NoError(t, json.Unmarshal(created.Raw, &creds))
	want, err := json.Marshal(creds)
	require.NoError(t, err)
	got, err := json.Marshal(created.Body)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))

	e.do(http.MethodGet, "/v1/balance?x="+strconv.Itoa(1), nil, e.live()).wantStatus(http.StatusOK)
	logged := e.do(http.MethodGet, "/_mock/requests", nil).wantStatus(http.StatusOK)
	recs := logged.list("data")
	goRecs := e.srv.Requests()
	require.NotEmpty(t, recs)
	require.Len(t, recs, len(goRecs))
	last := recs[len(recs)-1]
	want, err = json.Marshal(goRecs[len(goRecs)-1])
	require.NoError(t, err)
	got, err = json.Marshal(last)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}
