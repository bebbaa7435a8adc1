package archtest

import (
	"bytes"
	"flag"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite api/go/*.txt, the listings of the exported API, from the code")

// updateCommand rewrites the listings of the exported API.
const updateCommand = "go test ./internal/archtest -run TestExportedAPI -update"

// apiDir holds one listing per public package, from the module's root.
const apiDir = "api/go"

// publicPackages returns the import paths of the module's packages that users can import (no
// internal element, not a command), each with the name of its listing file: the root package
// is "sms.txt", the others their path with "/" written "-".
func publicPackages(t *testing.T) map[string]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Name}} {{.Module.Path}}", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	pkgs := map[string]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		require.Len(t, f, 3, "go list line %q", line)
		path, name, mod := f[0], f[1], f[2]
		r, _ := rel(mod, path)
		if name == "main" || slices.Contains(strings.Split(r, "/"), "internal") {
			continue
		}
		file := strings.ReplaceAll(r, "/", "-") + ".txt"
		if r == "." {
			file = name + ".txt"
		}
		pkgs[path] = file
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

// exportData builds paths and their dependencies and returns where the compiler wrote the
// export data of each: what go/types reads to see a package as its importers do.
func exportData(t *testing.T, paths []string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list -export: %s", stderr.String())
	files := map[string]string{}
	for line := range strings.Lines(string(out)) {
		path, file, _ := strings.Cut(strings.TrimSpace(line), "\t")
		files[path] = file
	}
	return files
}

// apiLines lists the exported API of pkg, one declaration per line, sorted, in the manner of
// the Go project's api/*.txt files: funcs, methods (with their receiver), consts with their
// type and value, vars, types with their underlying type, a struct's exported fields (and
// embedded types) and an interface's methods each on a line of its own. An alias of a type of
// an internal package is listed with the fields and methods of that type, which its users see.
func apiLines(pkg *types.Package) []string {
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
	typ := func(t types.Type) string { return types.TypeString(t, qual) }
	// sig writes a signature without its parameters' names, which are no part of the API.
	sig := func(s *types.Signature) string {
		tuple := func(tu *types.Tuple, variadic bool) []string {
			var out []string
			for i := range tu.Len() {
				t := tu.At(i).Type()
				if variadic && i == tu.Len()-1 {
					out = append(out, "..."+typ(t.(*types.Slice).Elem()))
					continue
				}
				out = append(out, typ(t))
			}
			return out
		}
		b := "(" + strings.Join(tuple(s.Params(), s.Variadic()), ", ") + ")"
		switch res := tuple(s.Results(), false); len(res) {
		case 0:
		case 1:
			b += " " + res[0]
		default:
			b += " (" + strings.Join(res, ", ") + ")"
		}
		if tp := s.TypeParams(); tp.Len() > 0 {
			var ps []string
			for i := range tp.Len() {
				ps = append(ps, tp.At(i).Obj().Name()+" "+typ(tp.At(i).Constraint()))
			}
			b = "[" + strings.Join(ps, ", ") + "]" + b
		}
		return b
	}
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			add("const %s %s = %s", name, typ(obj.Type()), obj.Val().ExactString())
		case *types.Var:
			add("var %s %s", name, typ(obj.Type()))
		case *types.Func:
			add("func %s%s", name, sig(obj.Type().(*types.Signature)))
		case *types.TypeName:
			head := "type " + name
			var named *types.Named
			if obj.IsAlias() {
				target := typ(types.Unalias(obj.Type()))
				add("type %s = %s", name, target)
				n, ok := types.Unalias(obj.Type()).(*types.Named)
				if !ok || n.Obj().Pkg() == nil || !slices.Contains(strings.Split(n.Obj().Pkg().Path(), "/"), "internal") {
					continue // the type is listed where it is declared
				}
				named, head = n, "type "+name+" = "+target
			} else {
				named = obj.Type().(*types.Named)
				if tp := named.TypeParams(); tp.Len() > 0 {
					var ps []string
					for i := range tp.Len() {
						p := tp.At(i)
						ps = append(ps, p.Obj().Name()+" "+typ(p.Constraint()))
					}
					head += "[" + strings.Join(ps, ", ") + "]"
				}
			}
			switch u := named.Underlying().(type) {
			case *types.Struct:
				add("%s struct", head)
				for i := range u.NumFields() {
					f := u.Field(i)
					switch {
					case f.Embedded():
						add("%s struct, embedded %s", head, typ(f.Type()))
					case f.Exported():
						add("%s struct, %s %s", head, f.Name(), typ(f.Type()))
					}
				}
			case *types.Interface:
				add("%s interface", head)
				for i := range u.NumEmbeddeds() {
					add("%s interface, embedded %s", head, typ(u.EmbeddedType(i)))
				}
				for i := range u.NumExplicitMethods() {
					if m := u.ExplicitMethod(i); m.Exported() {
						add("%s interface, %s%s", head, m.Name(), sig(m.Type().(*types.Signature)))
					}
				}
			default:
				if !obj.IsAlias() {
					add("%s %s", head, typ(u))
				}
			}
			// Methods: those declared on the type, and those promoted from an embedded type
			// that is not listed on its own (unexported, or of an internal package).
			recvName := name
			ptr := types.NewMethodSet(types.NewPointer(named))
			val := types.NewMethodSet(named)
			for i := range ptr.Len() {
				m := ptr.At(i).Obj().(*types.Func)
				if !m.Exported() {
					continue
				}
				if len(ptr.At(i).Index()) > 1 {
					origin := m.Type().(*types.Signature).Recv().Type()
					if p, ok := origin.(*types.Pointer); ok {
						origin = p.Elem()
					}
					if on, ok := types.Unalias(origin).(*types.Named); ok && on.Obj().Exported() && on.Obj().Pkg() != nil &&
						!slices.Contains(strings.Split(on.Obj().Pkg().Path(), "/"), "internal") {
						continue // listed with the embedded type
					}
				}
				recv := "*" + recvName
				if val.Lookup(m.Pkg(), m.Name()) != nil {
					recv = recvName
				}
				add("method (%s) %s%s", recv, m.Name(), sig(m.Type().(*types.Signature)))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// The exported API of every public package is the one its listing in api/go/ records, so
// that no export is added, removed or changed by accident: a change fails here, naming each
// line that went (-) or came (+), until the listing is rewritten with updateCommand in the
// same commit.
func TestExportedAPI(t *testing.T) {
	t.Parallel()
	pkgs := publicPackages(t)
	paths := make([]string, 0, len(pkgs))
	for p := range pkgs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	exports := exportData(t, paths)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	dir := filepath.Join(root, apiDir)
	if *update {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	want := map[string]bool{}
	for _, path := range paths {
		file := pkgs[path]
		want[file] = true
		pkg, err := imp.Import(path)
		require.NoError(t, err, "reading the export data of %s", path)
		lines := apiLines(pkg)
		header := "pkg " + path + ", "
		var got bytes.Buffer
		for _, l := range lines {
			got.WriteString(header + l + "\n")
		}
		name := filepath.Join(dir, file)
		if *update {
			require.NoError(t, os.WriteFile(name, got.Bytes(), 0o644))
			continue
		}
		old, err := os.ReadFile(name)
		if os.IsNotExist(err) {
			t.Errorf("%s/%s is missing: the exported API of %s is not recorded; run\n\t%s", apiDir, file, path, updateCommand)
			continue
		}
		require.NoError(t, err)
		if diff := lineDiff(string(old), got.String()); diff != "" {
			t.Errorf("the exported API of %s differs from %s/%s (- recorded, + in the code):\n%s\nIf the change is meant, run\n\t%s\nand commit the listing with the change.", path, apiDir, file, diff, updateCommand)
		}
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".txt") && !want[e.Name()] {
			if *update {
				require.NoError(t, os.Remove(filepath.Join(dir, e.Name())))
				continue
			}
			t.Errorf("%s/%s lists a package that is no longer public; run\n\t%s", apiDir, e.Name(), updateCommand)
		}
	}
}

// lineDiff lists the lines of old that new lacks (-) and those new adds (+), in order.
func lineDiff(old, new string) string {
	count := func(s string) map[string]int {
		m := map[string]int{}
		for l := range strings.Lines(s) {
			m[strings.TrimSuffix(l, "\n")]++
		}
		return m
	}
	o, n := count(old), count(new)
	var b strings.Builder
	for l := range strings.Lines(old) {
		if l = strings.TrimSuffix(l, "\n"); n[l] == 0 {
			b.WriteString("-" + l + "\n")
		}
	}
	for l := range strings.Lines(new) {
		if l = strings.TrimSuffix(l, "\n"); o[l] == 0 {
			b.WriteString("+" + l + "\n")
		}
	}
	return b.String()
}
