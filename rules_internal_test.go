package sms

import (
	"go/ast"
	"go/parser"
	"go/token"
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
	for _, e := range []rules.Encoding{rules.GSM7, rules.UCS2} {
		assert.Equal(t, e.String(), Encoding(e).String(), "Encoding(rules.%v) is the encoding of the same name", e)
	}
	assert.Equal(t, EncodingGSM7, Encoding(rules.GSM7))
	assert.Equal(t, EncodingUCS2, Encoding(rules.UCS2))
	assert.Equal(t, rules.ScopeNames[:], []string{string(ScopeSMS), string(ScopeOTP), string(ScopeCampaigns), string(ScopeSenderIDs), string(ScopeBalance)})

	fset := token.NewFileSet()
	for file, names := range map[string][]string{"rules.go": {"MaxParts", "EncodingGSM7", "EncodingUCS2"}} {
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
