package bulk_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

var (
	docEndpoint = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE) (/v1/[^\s,;:()]+)`)
	campaignID  = regexp.MustCompile(`^/v1/sms/campaigns/[^/]+/status$`)
)

// bulkDocs returns the "Endpoints: " paragraph of each exported function of the package that
// has one, by name, and their names in order.
func bulkDocs(t *testing.T) (names []string, docs map[string]string) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	docs = map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !fd.Name.IsExported() || fd.Doc == nil {
				continue
			}
			for _, p := range strings.Split(strings.TrimSpace(fd.Doc.Text()), "\n\n") {
				if p = strings.Join(strings.Fields(p), " "); strings.HasPrefix(p, "Endpoints: ") {
					names = append(names, fd.Name.Name)
					docs[fd.Name.Name] = p
				}
			}
		}
	}
	slices.Sort(names)
	return names, docs
}

// named returns the endpoints a doc paragraph names, in order, once each.
func named(doc string) []string {
	var eps []string
	for _, f := range docEndpoint.FindAllStringSubmatch(doc, -1) {
		if ep := f[1] + " " + f[2]; !slices.Contains(eps, ep) {
			eps = append(eps, ep)
		}
	}
	return eps
}

// Each function of the package that makes requests names, in its doc comment, the endpoints
// it calls, each with its scope: those the mock sees it call, read from the mock's request
// log, with the scope the client's own method for that endpoint states.
func TestDocEndpoints(t *testing.T) {
	t.Parallel()
	names, docs := bulkDocs(t)
	require.ElementsMatch(t, []string{"Send", "Settle", "Wait", "WaitCampaign"}, names, "every function that makes requests says which")
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	fast := &bulk.WaitParams{MinDelay: time.Millisecond, MaxDelay: time.Millisecond}
	runs := map[string]func(ctx context.Context, srv *mockserver.Server, c *sms.Client) error{
		"Send": func(ctx context.Context, _ *mockserver.Server, c *sms.Client) error {
			if _, err := bulk.Send(ctx, c, journalJob("earlier", customersOf([]int{1, 2}), nil)); err != nil {
				return err
			}
			p := journalJob("later", customersOf([]int{1, 2, 3}), nil)
			p.SkipSentBy = []string{"earlier"}
			_, err := bulk.Send(ctx, c, p)
			return err
		},
		"Settle": func(ctx context.Context, _ *mockserver.Server, c *sms.Client) error {
			jr := openJournal(t, filepath.Join(t.TempDir(), "j"))
			acct := c.Account()
			for _, rec := range []bulk.JournalRecord{
				{Kind: bulk.JournalKindJob, JobID: "job", Shards: 1, Server: acct.Server, Mode: acct.Mode, Key: acct.Key, Time: time.Now()},
				{Kind: bulk.JournalKindIntent, JobID: "job", Index: 0, Reference: "job:0", Attempt: 1, Recipients: 1, Numbers: []string{"2348030000001"},
					Digest: bulk.BatchDigest("MOCKSMS", "", "hi", customersOf([]int{1})), Time: time.Now()},
			} {
				require.NoError(t, jr.Append(ctx, rec))
			}
			_, err := bulk.Settle(ctx, c, &bulk.SettleParams{Journal: jr, JobID: "job", Index: 0, NotSent: true})
			return err
		},
		"Wait": func(ctx context.Context, srv *mockserver.Server, c *sms.Client) error {
			r, err := bulk.Send(ctx, c, journalJob("job", customersOf([]int{1, 2}), nil))
			if err != nil {
				return err
			}
			srv.DeliverAll()
			_, err = bulk.Wait(ctx, c, r, fast)
			return err
		},
		"WaitCampaign": func(ctx context.Context, srv *mockserver.Server, c *sms.Client) error {
			res, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: customersOf([]int{1}), From: "MOCKSMS", Message: "hi"})
			if err != nil {
				return err
			}
			srv.DeliverAll()
			_, err = bulk.WaitCampaign(ctx, c, res.Campaign.ID, fast)
			return err
		},
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			srv := newServer(t)
			c := newClient(t, srv)
			run, ok := runs[name]
			require.True(t, ok, "a run of %s is in this test", name)
			require.NoError(t, run(context.Background(), srv, c))
			var called []string
			for _, r := range srv.Requests() {
				path := r.Path
				if campaignID.MatchString(path) {
					path = "/v1/sms/campaigns/{id}/status"
				}
				if ep := r.Method + " " + path; !slices.Contains(called, ep) {
					called = append(called, ep)
				}
			}
			if name != "Send" { // the others' runs set up with sends of their own
				called = slices.DeleteFunc(called, func(ep string) bool { return ep == "POST /v1/sms/campaigns" })
			}
			doc := docs[name]
			assert.ElementsMatch(t, called, named(doc), "%s names the endpoints it calls: %q", name, doc)
			for _, ep := range named(doc) {
				row := regexp.MustCompile("(?m)^\\| `[A-Za-z.]+` \\| `" + regexp.QuoteMeta(ep) + "` \\| `(\\w+)` \\|$").FindSubmatch(readme)
				if assert.NotNil(t, row, "README's table of calls has the client's call of %s", ep) {
					assert.Contains(t, doc, "(scope "+string(row[1])+")", "%s names the scope of %s", name, ep)
				}
			}
		})
	}
}

// README's table of package bulk's calls is the one their doc comments give.
func TestDocREADMEEndpointTable(t *testing.T) {
	t.Parallel()
	names, docs := bulkDocs(t)
	var b strings.Builder
	b.WriteString("| bulk call | endpoint | scope |\n|---|---|---|\n")
	for _, name := range names {
		eps := named(docs[name])
		for i, ep := range eps {
			eps[i] = "`" + ep + "`"
		}
		var scopes []string
		for _, m := range regexp.MustCompile(`\(scope (\w+)\)`).FindAllStringSubmatch(docs[name], -1) {
			if s := "`" + m[1] + "`"; !slices.Contains(scopes, s) {
				scopes = append(scopes, s)
			}
		}
		fmt.Fprintf(&b, "| `bulk.%s` | %s (many requests) | %s |\n", name, strings.Join(eps, ", "), strings.Join(scopes, ", "))
	}
	want := b.String()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	s := string(readme)
	start := strings.Index(s, "| bulk call | endpoint | scope |\n")
	require.GreaterOrEqual(t, start, 0, "README.md has the table of package bulk's calls; it should read:\n\n%s", want)
	end := strings.Index(s[start:], "\n\n")
	require.Greater(t, end, 0, "the table ends with a blank line")
	assert.Equal(t, want, s[start:start+end+1], "README.md's table of package bulk's calls differs from their doc comments; it should read:\n\n%s", want)
}
