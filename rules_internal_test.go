package sms

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
)

// The exported limits are written as numbers, so that go doc shows them, and equal the rules
// the SDK and the mock server share.
func TestExportedLimitsAreTheRules(t *testing.T) {
	t.Parallel()
	assert.Equal(t, rules.MaxParts, MaxParts)
	assert.Equal(t, rules.MaxCampaignRecipients, MaxBulkBatchSize)
	assert.Equal(t, rules.MaxReferenceLen-10, maxJobIDLen, "room for \":\" and a batch index of up to 9 digits")
	for _, e := range []rules.Encoding{rules.GSM7, rules.UCS2} {
		assert.Equal(t, e.String(), Encoding(e).String(), "Encoding(rules.%v) is the encoding of the same name", e)
	}
	assert.Equal(t, EncodingGSM7, Encoding(rules.GSM7))
	assert.Equal(t, EncodingUCS2, Encoding(rules.UCS2))
	assert.Equal(t, rules.ScopeNames[:], []string{string(ScopeSMS), string(ScopeOTP), string(ScopeCampaigns), string(ScopeSenderIDs), string(ScopeBalance)})

	fset := token.NewFileSet()
	for file, names := range map[string][]string{"rules.go": {"MaxParts", "EncodingGSM7", "EncodingUCS2"}, "bulk.go": {"MaxBulkBatchSize"}} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		require.NoError(t, err)
		literal := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok {
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						_, lit := vs.Values[i].(*ast.BasicLit)
						literal[name.Name] = lit
					}
				}
			}
			return true
		})
		for _, name := range names {
			assert.True(t, literal[name], "%s in %s is a number literal, which go doc shows", name, file)
		}
	}
}

// No exported constant is written with the name of an internal package, whose value go doc
// does not show ("ScopeSMS Scope = rules.ScopeSMS"): each is written out, and bound to the
// rule above.
func TestExportedConstantsShowTheirValues(t *testing.T) {
	t.Parallel()
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
							if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "rules" || x.Name == "safetext") {
								t.Errorf("%s = %s.%s in %s: go doc cannot show the value; write it out (and bind it above)", name.Name, x.Name, sel.Sel.Name, file)
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
