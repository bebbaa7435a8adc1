package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// No exported constant of a public package is written with the name of an internal package
// ("ScopeSMS Scope = rules.ScopeSMS"), whose value go doc does not show: each is written out,
// and each package's own tests bind it to the internal value it must equal.
func TestExportedConstantsShowTheirValues(t *testing.T) {
	t.Parallel()
	checked := 0
	pkgs := publicPackages(t)
	mod := ""
	for path, listing := range pkgs {
		if listing == "sms.txt" { // the root package: its path is the module's
			mod = path
		}
	}
	require.NotEmpty(t, mod)
	for path := range pkgs {
		r, _ := rel(mod, path)
		files, err := filepath.Glob(filepath.Join(root, r, "*.go"))
		require.NoError(t, err)
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
			require.NoError(t, err)
			internal := map[string]bool{} // the file's names of internal packages
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !strings.Contains(p, "/internal/") {
					continue
				}
				name := p[strings.LastIndexByte(p, '/')+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				internal[name] = true
			}
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !name.IsExported() || i >= len(vs.Values) {
							continue
						}
						checked++
						ast.Inspect(vs.Values[i], func(n ast.Node) bool {
							if sel, ok := n.(*ast.SelectorExpr); ok {
								if x, ok := sel.X.(*ast.Ident); ok && internal[x.Name] {
									t.Errorf("%s = %s.%s in %s: go doc cannot show the value; write it out (and bind it in the package's tests)",
										name.Name, x.Name, sel.Sel.Name, filepath.Base(file))
								}
							}
							return true
						})
					}
				}
			}
		}
	}
	assert.Greater(t, checked, 30, "the public packages' constants were read")
}
