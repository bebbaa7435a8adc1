package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocsQuoteTheDocumentsKeywords: every schema keyword with its value that docs/api.md
// quotes (`multipleOf: 0.01`, `x-decimals: 2`, `minItems: 1`, ...) is a line of a schema in
// one of the OpenAPI documents (not words of a description), unless the text says the
// documents do not use it ("not `...`").
func TestDocsQuoteTheDocumentsKeywords(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "api.md"))
	require.NoError(t, err)
	var yaml []byte
	for _, name := range []string{"openapi.yaml", "mock.openapi.yaml"} {
		b, err := os.ReadFile(filepath.Join(root, "api", name))
		require.NoError(t, err)
		yaml = append(yaml, b...)
	}
	keyword := regexp.MustCompile("`((?:x-[a-z-]+|multipleOf|minimum|maximum|minLength|maxLength|minItems|maxItems|format|type): [^`]+)`")
	found := 0
	for _, m := range keyword.FindAllSubmatchIndex(doc, -1) {
		quoted := string(doc[m[2]:m[3]])
		before := strings.ToLower(string(doc[max(0, m[0]-5):m[0]]))
		if strings.HasSuffix(before, "not ") || strings.HasSuffix(before, "not (") {
			continue
		}
		found++
		k, v, _ := strings.Cut(quoted, ": ")
		line := regexp.MustCompile(`(?m)^\s*(?:- )?` + regexp.QuoteMeta(k) + `:\s*["']?` + regexp.QuoteMeta(v) + `["']?\s*$`)
		assert.True(t, line.Match(yaml), "docs/api.md quotes %q, which no schema of the documents has", quoted)
	}
	require.NotZero(t, found, "docs/api.md quotes keywords")
}
