package bulk

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seedsms/sms-go/internal/rules"
)

// The package's limits, written as numbers so that go doc shows them (TestExportedConstantsShowTheirValues
// in internal/archtest), equal the rules the SDK and the mock server share.
func TestExportedLimitsAreTheRules(t *testing.T) {
	t.Parallel()
	assert.Equal(t, rules.MaxCampaignRecipients, MaxBatchSize)
	assert.Equal(t, rules.MaxReferenceLen-10, maxJobIDLen, "room for \":\" and a batch index of up to 9 digits")
}
