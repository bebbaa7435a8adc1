package doctor

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seedsms/sms-go/internal/safetext"
)

// Redacted is written out, so that go doc shows it, and is the word the shared redaction rule
// writes in the saved answers.
func TestRedactedIsTheRulesWord(t *testing.T) {
	t.Parallel()
	assert.Equal(t, safetext.Redacted, Redacted)
}
