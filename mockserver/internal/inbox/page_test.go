package inbox_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/internal/apitest"
	"github.com/seedsms/sms-go/mockserver"
)

func TestPageAndAssetsAreServed(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	other, err := srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.NoError(t, err)
	cases := []struct {
		path, contentType string
		status            int
		contains          []string
	}{
		{"/", "text/html; charset=utf-8", 200, []string{
			`<option value="` + srv.Default().WorkspaceID + `" selected>`, `<option value="` + other.WorkspaceID + `">`,
			`src="/_mock/inbox/app.js"`, `id="conversations"`,
			`<p id="no-conversations" class="empty">Loading…</p>`, // until the script has read the list
		}},
		{"/?to=0803%20123%204567&workspace=" + other.WorkspaceID, "text/html; charset=utf-8", 200, []string{
			`data-link-to="2348031234567"`, `data-link-to-invalid=""`, `data-link-workspace="` + other.WorkspaceID + `"`,
		}},
		{"/?to=%2B234%20803%20123%204567", "text/html; charset=utf-8", 200, []string{`data-link-to="2348031234567"`}},
		{"/?to=12%22%3E%3Cb%3E", "text/html; charset=utf-8", 200, []string{`data-link-to=""`, `data-link-to-invalid="12&#34;&gt;&lt;b&gt;"`}},
		{"/?message=65a1b2c3d4e5f60718293a4b-0", "text/html; charset=utf-8", 200, []string{`data-link-message="65a1b2c3d4e5f60718293a4b-0"`}},
		{"/_mock/inbox/app.js", "text/javascript; charset=utf-8", 200, []string{"new EventSource(url)", "'/_mock/events'"}},
		{"/_mock/inbox/app.css", "text/css; charset=utf-8", 200, []string{"@media (max-width: 700px)"}},
		{"/_mock/inbox/icon.svg", "image/svg+xml", 200, []string{"<svg"}},
		{"/_mock/inbox/index.html", "application/json", 404, []string{`"not_found"`}},
		{"/_mock/inbox/page.go", "application/json", 404, []string{`"not_found"`}},
		{"/_mock/inbox/..%2fpage.go", "application/json", 404, []string{`"not_found"`}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			// Each answer is checked against api/mock.openapi.yaml.
			hc := &http.Client{Transport: apitest.Transport(t, nil, false)}
			res, err := hc.Get(srv.URL() + tc.path)
			require.NoError(t, err)
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			assert.Equal(t, tc.status, res.StatusCode)
			assert.Equal(t, tc.contentType, res.Header.Get("Content-Type"))
			for _, want := range tc.contains {
				assert.Contains(t, string(body), want)
			}
			if tc.status == 200 {
				csp := res.Header.Get("Content-Security-Policy")
				assert.True(t, strings.HasPrefix(csp, "default-src 'self'"), "the page loads nothing from elsewhere: %q", csp)
				assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
			}
		})
	}
	assert.Empty(t, srv.Requests(), "the page is not a /v1 request")
}
