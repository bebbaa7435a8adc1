package mockserver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/faults"
	"github.com/seedsms/sms-go/mockserver/internal/idem"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// The exported constants are written as values go doc shows (no name of an internal package),
// and equal the internal values that the mock runs on.
func TestExportedConstantsAreTheInternalOnes(t *testing.T) {
	t.Parallel()
	assert.Equal(t, store.SlowDeliveryDelay, SlowDeliveryDelay)
	assert.Equal(t, idem.DefaultTotalLimit, DefaultIdempotencyTotalLimit)
	assert.Equal(t, faults.MaxRules, MaxFaultRules)
	assert.Equal(t, rules.DefaultGenericPrice, DefaultGenericPrice)
	assert.Equal(t, rules.DefaultDNDPrice, DefaultDNDPrice)
	assert.Equal(t, rules.MaxPrice, MaxPrice)
	assert.Equal(t, store.CampaignStatusNames[:], []string{string(CampaignStatusProcessing), string(CampaignStatusSent), string(CampaignStatusFailed)})
	assert.Equal(t, rules.ScopeNames[:], []string{string(ScopeSMS), string(ScopeOTP), string(ScopeCampaigns), string(ScopeSenderIDs), string(ScopeBalance)})

	internal := map[string]bool{"rules": true, "store": true, "idem": true, "faults": true, "httpapi": true, "wire": true, "reqlog": true}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	checked := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() || i >= len(vs.Values) {
						continue
					}
					checked++
					ast.Inspect(vs.Values[i], func(n ast.Node) bool {
						if sel, ok := n.(*ast.SelectorExpr); ok {
							if x, ok := sel.X.(*ast.Ident); ok && internal[x.Name] {
								t.Errorf("%s = %s.%s: go doc cannot show the value; write it out (and bind it here)", name.Name, x.Name, sel.Sel.Name)
							}
						}
						return true
					})
				}
			}
		}
	}
	assert.Greater(t, checked, 10, "the package's constants were read")
}

// Credentials is declared as Workspace, so that the fields are written, and shown by go doc,
// once; the conversion both ways keeps every value.
func TestCredentialsIsWorkspace(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "server.go", nil, 0)
	require.NoError(t, err)
	var decl ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Credentials" {
			decl = ts.Type
		}
		return true
	})
	require.NotNil(t, decl, "server.go declares Credentials")
	id, ok := decl.(*ast.Ident)
	assert.True(t, ok && id.Name == "Workspace", "Credentials is declared as Workspace, not as a second list of its fields")

	w := Workspace{URL: "http://127.0.0.1:1", WorkspaceID: "w", DashboardToken: "t", LiveKey: "pk_live_a",
		LiveSecret: "sk_live_b", TestKey: "pk_test_c", TestSecret: "sk_test_d", SenderID: "MOCKSMS"}
	assert.Equal(t, w, Workspace(w.Credentials()))
}
