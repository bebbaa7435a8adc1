package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lists the command prints are read whole whatever paging form the server uses: 60 items
// served 25 a page, by a Link header (campaigns), a cursor (sender IDs), page numbers and a
// stated count (keys, which the API returns whole).
func TestListsReadEveryPage(t *testing.T) {
	t.Parallel()
	const n, size = 60, 25
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		from := 0
		if p, err := strconv.Atoi(q.Get("page")); err == nil && p > 0 {
			from = (p - 1) * size
		}
		if c, err := strconv.Atoi(q.Get("cursor")); err == nil {
			from = c
		}
		var item func(i int) string
		var paging string
		next := from + size
		switch r.URL.Path {
		case "/v1/sms/campaigns":
			item = func(i int) string { return fmt.Sprintf(`{"_id":"c%d","status":"sent"}`, i) }
			if next < n {
				w.Header().Set("Link", fmt.Sprintf(`<http://%s/v1/sms/campaigns?cursor=%d>; rel="next"`, r.Host, next))
			}
		case "/v1/sender-ids":
			item = func(i int) string { return fmt.Sprintf(`{"title":"S%d","status":"active"}`, i) }
			if next < n {
				paging = fmt.Sprintf(`,"next_cursor":"%d"`, next)
			}
		case "/v1/keys":
			item = func(i int) string { return fmt.Sprintf(`{"_id":"k%d","publicKey":"pk_test_%d"}`, i, i) }
			paging = fmt.Sprintf(`,"count":%d`, n)
		default:
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		for i := from; i < min(from+size, n); i++ {
			if i > from {
				b.WriteByte(',')
			}
			b.WriteString(item(i))
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"data":[%s]%s}`, b.String(), paging)
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{envBaseURL: srv.URL, envAPIKey: "pk_test_abc", envAPISecret: "sk_test_abc", envDashboard: "aGVhZA.Ym9keQ.c2ln"}
	for _, args := range [][]string{
		{"campaigns", "list", "--all", "--json"},
		{"sender-ids", "list", "--json"},
		{"keys", "list", "--json"},
	} {
		r := runCLI(t, env, "", args...)
		require.Equal(t, 0, r.code, "%q: %s", args, r.stderr)
		assert.Equal(t, n, strings.Count(r.stdout, "\n"), "%q: every item, not the first page's %d", args, size)
	}
}
