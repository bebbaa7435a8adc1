package sms

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// livePages are the endpoints that the live service's developer pages show, each with its page
// (docs/api.md, "Sources and marks": authentication, sms-send, sms-campaigns, otp-send, otp-verify,
// sender-ids, balance). Every other endpoint is this project's contract, in docs/api.md.
var livePages = map[string]string{
	"POST /v1/keys":          "authentication",
	"POST /v1/sms/send":      "sms-send",
	"POST /v1/sms/campaigns": "sms-campaigns",
	"POST /v1/otp/send":      "otp-send",
	"POST /v1/otp/verify":    "otp-verify",
	"POST /v1/sender-ids":    "sender-ids",
	"GET /v1/sender-ids":     "sender-ids",
	"GET /v1/balance":        "balance",
}

const livePageBase = "https://developers.nairasms.com.ng/"

// serviceMethod is an exported method of a service, as its source shows it.
type serviceMethod struct {
	call     string   // how a user names it: "SMS.Send"
	order    int      // the service's place among the clients' fields
	doc      []string // its doc comment's paragraphs, each on one line
	requests []string // the endpoints it calls, itself or through the package's other functions: "GET /v1/balance"
	direct   bool     // it sends a request itself (c.do), rather than through other methods
}

// serviceMethods parses the package's source and returns the exported methods of its services
// (the types whose names end in "Service"), named by the client fields that hold them.
func serviceMethods(t *testing.T) []serviceMethod {
	t.Helper()
	fset, files, info := checkPackage(t)
	reach := endpointsReached(t, fset, files, info)
	decls := map[types.Object]*ast.FuncDecl{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				decls[info.Defs[fd.Name]] = fd
			}
		}
	}
	// The clients' fields name the services: Client.SMS is an *SMSService.
	field := map[string]string{}
	order := map[string]int{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok || (ts.Name.Name != "Client" && ts.Name.Name != "DashboardClient") {
					continue
				}
				st, ok := ts.Type.(*ast.StructType)
				require.True(t, ok)
				for _, fl := range st.Fields.List {
					star, ok := fl.Type.(*ast.StarExpr)
					if !ok || len(fl.Names) != 1 || !fl.Names[0].IsExported() {
						continue
					}
					if id, ok := star.X.(*ast.Ident); ok {
						field[id.Name] = fl.Names[0].Name
						order[id.Name] = len(order)
						if ts.Name.Name == "DashboardClient" {
							order[id.Name] += 100
						}
					}
				}
			}
		}
	}
	require.NotEmpty(t, field, "the clients' service fields were found")
	var out []serviceMethod
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() {
				continue
			}
			recv := receiverName(fd)
			if !strings.HasSuffix(recv, "Service") {
				continue
			}
			name, ok := field[recv]
			if !ok {
				name = recv
			}
			m := serviceMethod{call: name + "." + fd.Name.Name, order: order[recv]}
			if !ok {
				m.order = 1000
			}
			if fd.Doc != nil {
				for _, p := range strings.Split(strings.TrimSpace(fd.Doc.Text()), "\n\n") {
					m.doc = append(m.doc, strings.Join(strings.Fields(p), " "))
				}
			}
			m.direct = callsDo(fd.Body)
			if !m.direct {
				// A method may send its one request through an unexported method of its
				// own (List through list, when the walker fetches pages by cursor too): it
				// is direct when it calls such a method itself, outside any closure.
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					if _, ok := n.(*ast.FuncLit); ok {
						return false
					}
					if call, ok := n.(*ast.CallExpr); ok {
						if sel, ok := call.Fun.(*ast.SelectorExpr); ok && !sel.Sel.IsExported() {
							if fn, ok := info.Uses[sel.Sel].(*types.Func); ok && decls[fn.Origin()] != nil && callsDo(decls[fn.Origin()].Body) {
								m.direct = true
							}
						}
					}
					return true
				})
			}
			m.requests = reach(fd)
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b serviceMethod) int {
		if a.order != b.order {
			return a.order - b.order
		}
		if a.direct != b.direct { // one-request calls first, then the engines
			if a.direct {
				return -1
			}
			return 1
		}
		return strings.Compare(a.call, b.call)
	})
	return out
}

// checkPackage parses the package's source files (those of this platform's build) and
// type-checks them, reading its imports from the compiler's export data.
func checkPackage(t *testing.T) (*token.FileSet, []*ast.File, *types.Info) {
	t.Helper()
	goList := func(args ...string) string {
		cmd := exec.Command("go", append([]string{"list"}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "go list %v: %s", args, stderr.String())
		return string(out)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range strings.Fields(goList("-f", "{{range .GoFiles}}{{.}} {{end}}", ".")) {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	exports := map[string]string{}
	for line := range strings.Lines(goList("-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", ".")) {
		path, file, _ := strings.Cut(strings.TrimSpace(line), "\t")
		exports[path] = file
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	_, err := conf.Check("github.com/seedsms/sms-go", fset, files, info)
	require.NoError(t, err)
	return fset, files, info
}

// endpointsReached returns a function giving the endpoints that a function of the package
// calls: those of the call literals in its body, and those of every function of the package
// it names (calls, or passes on), transitively, in the order first met.
func endpointsReached(t *testing.T, fset *token.FileSet, files []*ast.File, info *types.Info) func(*ast.FuncDecl) []string {
	t.Helper()
	decls := map[types.Object]*ast.FuncDecl{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				decls[info.Defs[fd.Name]] = fd
			}
		}
	}
	return func(start *ast.FuncDecl) []string {
		var eps []string
		seen := map[*ast.FuncDecl]bool{}
		var visit func(fd *ast.FuncDecl)
		visit = func(fd *ast.FuncDecl) {
			if seen[fd] {
				return
			}
			seen[fd] = true
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CompositeLit:
					if id, ok := n.Type.(*ast.Ident); ok && id.Name == "call" {
						if ep := endpointOf(t, fset, n); !slices.Contains(eps, ep) {
							eps = append(eps, ep)
						}
					}
				case *ast.Ident:
					if fn, ok := info.Uses[n].(*types.Func); ok {
						if d, ok := decls[fn.Origin()]; ok {
							visit(d)
						}
					}
				}
				return true
			})
		}
		visit(start)
		return eps
	}
}

// callsDo reports whether body sends a request itself (a call of c.do), outside any closure.
func callsDo(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "do" {
				found = true
			}
		}
		return !found
	})
	return found
}

func receiverName(fd *ast.FuncDecl) string {
	x := fd.Recv.List[0].Type
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	if id, ok := x.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// endpointOf reads a call{method: http.MethodX, path: "/v1/..." + seg + ...} literal as
// "X /v1/...", each part of the path that is not a literal written {id}.
func endpointOf(t *testing.T, fset *token.FileSet, lit *ast.CompositeLit) string {
	t.Helper()
	var method, path string
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		switch key := kv.Key.(*ast.Ident); key.Name {
		case "method":
			sel, ok := kv.Value.(*ast.SelectorExpr)
			require.True(t, ok, "%s: the method is an http.Method constant", fset.Position(kv.Pos()))
			method = strings.ToUpper(strings.TrimPrefix(sel.Sel.Name, "Method"))
		case "path":
			path = pathOf(kv.Value)
		}
	}
	require.NotEmpty(t, method, "%s: a call names its method", fset.Position(lit.Pos()))
	require.True(t, strings.HasPrefix(path, "/v1/"), "%s: a call's path is a /v1 literal: %q", fset.Position(lit.Pos()), path)
	return method + " " + path
}

func pathOf(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		s, _ := strconv.Unquote(e.Value)
		return s
	case *ast.BinaryExpr:
		return pathOf(e.X) + pathOf(e.Y)
	}
	return "{id}"
}

// scopeWords is how a doc comment names the scope of the endpoint ep.
func scopeWords(ep string) string {
	path := strings.ReplaceAll(strings.SplitN(ep, " ", 2)[1], "{id}", "x")
	if s := scopeOf(path); s != "" {
		return "scope " + string(s)
	}
	return "no scope: a dashboard token"
}

// endpointLine is the paragraph that a method making one request ends its doc comment with.
func endpointLine(ep string) string {
	where := "this project's contract (docs/api.md): no live page shows it"
	if page, ok := livePages[ep]; ok {
		where = "documented by the live page " + livePageBase + page
	}
	return "Endpoint: " + ep + " (" + scopeWords(ep) + "), " + where + "."
}

var docEndpoint = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE) (/v1/[^\s,;:()]+)`)

// Every service method that sends one request names, in its doc comment, the endpoint it
// calls, the scope that endpoint needs and the live page it follows (or says that it is this
// project's contract); every method that sends many (an engine) names the endpoints it calls,
// each with its scope. The endpoint is read from the method's code, the scope from scopeOf.
func TestDocEndpoints(t *testing.T) {
	t.Parallel()
	methods := serviceMethods(t)
	scopes := map[string]string{} // endpoint -> scope words, from the one-request methods
	for _, m := range methods {
		if m.direct {
			require.Len(t, m.requests, 1, "%s sends one request, built in one call literal", m.call)
			scopes[m.requests[0]] = scopeWords(m.requests[0])
		}
	}
	require.GreaterOrEqual(t, len(scopes), 12, "the twelve endpoints were found")
	for _, m := range methods {
		t.Run(m.call, func(t *testing.T) {
			var lines []string
			prefix := "Endpoints: "
			if m.direct {
				prefix = "Endpoint: "
			}
			for _, p := range m.doc {
				if strings.HasPrefix(p, "Endpoint: ") || strings.HasPrefix(p, "Endpoints: ") {
					lines = append(lines, p)
				}
			}
			require.Len(t, lines, 1, "%s's doc comment has one paragraph starting %q", m.call, prefix)
			line := lines[0]
			require.True(t, strings.HasPrefix(line, prefix), "%s: %q starts with %q", m.call, line, prefix)
			if m.direct {
				assert.Equal(t, endpointLine(m.requests[0]), line, "%s", m.call)
				return
			}
			var named []string
			for _, f := range docEndpoint.FindAllStringSubmatch(line, -1) {
				if ep := f[1] + " " + f[2]; !slices.Contains(named, ep) {
					named = append(named, ep)
				}
			}
			require.NotEmpty(t, m.requests, "%s reaches no endpoint", m.call)
			assert.ElementsMatch(t, m.requests, named, "%s names the endpoints its code calls: %q", m.call, line)
			for _, ep := range named {
				words, ok := scopes[ep]
				if assert.True(t, ok, "%s names %s, which no one-request method calls", m.call, ep) {
					assert.Contains(t, line, "("+words+")", "%s names the scope of %s", m.call, ep)
				}
			}
		})
	}
}

// readmeTable is the table of README.md that the methods give: each with the endpoints its
// doc comment names (which TestDocEndpoints holds to its code) and their scopes.
func readmeTable(methods []serviceMethod) string {
	var b strings.Builder
	b.WriteString("| call | endpoint | scope |\n|---|---|---|\n")
	for _, m := range methods {
		var scopes []string
		eps := slices.Clone(m.requests)
		for _, p := range m.doc { // an engine's, in the order its doc comment gives
			if strings.HasPrefix(p, "Endpoints: ") {
				eps = nil
				for _, f := range docEndpoint.FindAllStringSubmatch(p, -1) {
					if ep := f[1] + " " + f[2]; !slices.Contains(eps, ep) {
						eps = append(eps, ep)
					}
				}
			}
		}
		for _, ep := range eps {
			s := "none (dashboard token)"
			if w := scopeWords(ep); strings.HasPrefix(w, "scope ") {
				s = "`" + strings.TrimPrefix(w, "scope ") + "`"
			}
			if !slices.Contains(scopes, s) {
				scopes = append(scopes, s)
			}
		}
		for i, ep := range eps {
			eps[i] = "`" + ep + "`"
		}
		col := strings.Join(eps, ", ")
		switch {
		case m.direct:
		case slices.ContainsFunc(m.doc, func(p string) bool { return strings.Contains(p, "once for each further page a server states") }):
			col += " (one request when the loop starts; one a page more when a server pages the list)"
		case slices.ContainsFunc(m.doc, func(p string) bool { return strings.Contains(p, "once when the loop starts") }):
			col += " (one request, when the loop starts)"
		default:
			col += " (many requests)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", m.call, col, strings.Join(scopes, ", "))
	}
	return b.String()
}

// README's table of calls, endpoints and scopes is the one the code and doc comments give.
func TestDocREADMEEndpointTable(t *testing.T) {
	t.Parallel()
	want := readmeTable(serviceMethods(t))
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	s := string(readme)
	start := strings.Index(s, "| call | endpoint | scope |\n")
	require.GreaterOrEqual(t, start, 0, "README.md has the table of calls; it should read:\n\n%s", want)
	end := strings.Index(s[start:], "\n\n")
	require.Greater(t, end, 0, "the table ends with a blank line")
	assert.Equal(t, want, s[start:start+end+1], "README.md's table of calls, endpoints and scopes differs from the methods' doc comments; it should read:\n\n%s", want)
}
