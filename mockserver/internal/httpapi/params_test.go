package httpapi

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// queryCases are queries where reading page and limit from the raw query could part from
// url.ParseQuery: repeats, bare names, empty pairs, escapes, semicolons, signs.
var queryCases = []string{
	"", "limit=20", "page=2&limit=5", "limit=5&limit=7", "limit", "limit=", "=5&limit=3",
	"&&limit=3&", "limit=3;page=2", "page=1;x&limit=4", "limit=%32", "li%6dit=9", "limit=+5",
	"limit=-0", "limit=%zz&limit=4", "page=9223372036854775807", "page=9223372036854775808",
	"limit=1+", "x=1&page=0", "page=01&limit=007", "limit=20&" + strings.Repeat("x&", 600),
}

// TestURLPageParams holds the plain-query reading of page and limit to pageParams over
// url.ParseQuery, on the cases above and on random queries.
func TestURLPageParams(t *testing.T) {
	t.Parallel()
	for _, q := range queryCases {
		checkPageParams(t, q)
	}
	parts := []string{"page", "limit", "=", "&", "0", "1", "5", "20", "101", "%", "%35", "+", ";", "-", "x", "9999999999999999999"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 50_000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		checkPageParams(t, b.String())
	}
}

func FuzzURLPageParams(f *testing.F) {
	for _, q := range queryCases {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) { checkPageParams(t, q) })
}

func checkPageParams(t *testing.T, raw string) {
	t.Helper()
	u := &url.URL{Path: "/v1/sms/campaigns", RawQuery: raw}
	page, limit, err := urlPageParams(u)
	wantPage, wantLimit, wantErr := pageParams(u.Query())
	if page != wantPage || limit != wantLimit || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("?%s: got %d, %d, %v; url.ParseQuery gives %d, %d, %v", raw, page, limit, err, wantPage, wantLimit, wantErr)
	}
}
