package apitest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMockDocumentLinks: a stateful tool can chain a workspace's campaign list to the deliver
// control: the link names an operation of the mock document, by its id.
func TestMockDocumentLinks(t *testing.T) {
	t.Parallel()
	doc := NewValidator(t).MockDocument()
	ops := map[string]bool{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ops[op.OperationID] = true
		}
	}
	list := doc.Paths.Find("/_mock/workspaces/{id}/campaigns")
	require.NotNil(t, list)
	ok := list.Get.Responses.Status(200)
	require.NotNil(t, ok)
	link := ok.Value.Links["DeliverCampaign"]
	require.NotNil(t, link, "the campaign list links to the deliver control")
	assert.Equal(t, "deliverCampaign", link.Value.OperationID)
	assert.True(t, ops[link.Value.OperationID])
	assert.Equal(t, "$response.body#/data/0/_id", link.Value.Parameters["id"])
}
