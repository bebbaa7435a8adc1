package bulk

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
	assert.Equal(t, rules.MaxCampaignRecipients, MaxBatchSize)
	assert.Equal(t, rules.MaxReferenceLen-10, maxJobIDLen, "room for \":\" and a batch index of up to 9 digits")

	f, err := parser.ParseFile(token.NewFileSet(), "bulk.go", nil, 0)
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
	for _, name := range []string{"MaxBatchSize", "MaxConcurrency"} {
		assert.True(t, literal[name], "%s in bulk.go is a number literal, which go doc shows", name)
	}
}
