package mockserver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/faults"
	"github.com/seedsms/sms-go/mockserver/internal/idem"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// The exported constants equal the internal values that the mock runs on (written as values go
// doc shows: internal/archtest's TestExportedConstantsShowTheirValues).
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
