package archtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the module's root directory, from this package's.
const root = "../.."

// listed is a package as go list describes it.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Standard   bool
	Module     *struct{ Path string }
}

// goList runs go list -json with args in the module's root; it reads the source files' import
// lines only, and compiles nothing.
func goList(t *testing.T, args ...string) []listed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Dir,GoFiles,Imports,Standard,Module"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list %v: %s", args, stderr.String())
	var pkgs []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listed
		require.NoError(t, dec.Decode(&p))
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// module lists the module's packages and returns them with the module path.
func module(t *testing.T) ([]listed, string) {
	t.Helper()
	pkgs := goList(t, "./...")
	require.NotEmpty(t, pkgs)
	require.NotNil(t, pkgs[0].Module)
	return pkgs, pkgs[0].Module.Path
}

// rel is a package path of module mod as arrows spell it.
func rel(mod, path string) (string, bool) {
	if path == mod {
		return ".", true
	}
	r, ok := strings.CutPrefix(path, mod+"/")
	return r, ok
}

// matches reports whether path is pattern, or is below it when pattern ends in "/...".
func matches(pattern, path string) bool {
	if p, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == p || strings.HasPrefix(path, p+"/")
	}
	return path == pattern
}

// importers names the files of p that import path, relative to the module root.
func importers(t *testing.T, p listed, path string) []string {
	t.Helper()
	abs, err := filepath.Abs(root)
	require.NoError(t, err)
	var out []string
	for _, name := range p.GoFiles {
		file := filepath.Join(p.Dir, name)
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, im := range f.Imports {
			if v, _ := strconv.Unquote(im.Path.Value); v == path {
				r, err := filepath.Rel(abs, file)
				require.NoError(t, err)
				out = append(out, filepath.ToSlash(r))
			}
		}
	}
	return out
}

func arrowOf(from string) (arrow, bool) {
	i := slices.IndexFunc(arrows, func(a arrow) bool { return a.from == from })
	if i < 0 {
		return arrow{}, false
	}
	return arrows[i], true
}

// Every import between the module's packages is an arrow of the data, and no file imports
// what a rule forbids; every arrow of the data is drawn by some file, so that the data (and
// the documents checked against it) says what the code does, no more.
func TestArchitectureImports(t *testing.T) {
	t.Parallel()
	pkgs, mod := module(t)
	seen := map[string]bool{}
	for _, p := range pkgs {
		from, _ := rel(mod, p.ImportPath)
		a, ok := arrowOf(from)
		if !assert.True(t, ok, "package %s is not in arrows (internal/archtest/arch.go): add it, with its imports, and to ARCHITECTURE.md and README's layout", from) {
			continue
		}
		seen[from] = true
		used := map[string]bool{}
		for _, imp := range p.Imports {
			for _, r := range forbidden {
				to := imp
				if r, ok := rel(mod, imp); ok {
					to = r
				}
				if matches(r.from, from) && matches(r.to, to) {
					t.Errorf("%s imports %s: forbidden, %s", strings.Join(importers(t, p, imp), ", "), imp, r.why)
				}
			}
			to, ok := rel(mod, imp)
			if !ok {
				continue
			}
			used[to] = true
			if !slices.Contains(a.to, to) {
				t.Errorf("%s imports %s: no arrow %s -> %s in internal/archtest/arch.go; if it belongs, add it there and to ARCHITECTURE.md",
					strings.Join(importers(t, p, imp), ", "), imp, from, to)
			}
		}
		for _, to := range a.to {
			assert.True(t, used[to], "arrows allow %s -> %s, but no file of %s imports it: remove it from the data and ARCHITECTURE.md", from, to, from)
		}
	}
	for _, a := range arrows {
		assert.True(t, seen[a.from], "arrows name %s, which is not a package of the module", a.from)
	}
}

// The data itself keeps the rules: no allowed arrow is a forbidden one, and a leaf imports
// leaves only.
func TestArchitectureDataKeepsTheRules(t *testing.T) {
	t.Parallel()
	for _, a := range arrows {
		for _, to := range a.to {
			for _, r := range forbidden {
				assert.False(t, matches(r.from, a.from) && matches(r.to, to), "arrow %s -> %s: forbidden, %s", a.from, to, r.why)
			}
			if a.leaf {
				b, ok := arrowOf(to)
				assert.True(t, ok && b.leaf, "leaf %s imports %s, which is not a leaf", a.from, to)
			}
		}
	}
}

// The SDK brings into a user's build what it needs at run time and nothing more: the list
// ARCHITECTURE.md gives.
func TestArchitectureSDKDeps(t *testing.T) {
	t.Parallel()
	var got []string
	var rootPkg listed
	for _, p := range goList(t, "-deps", ".") {
		if !p.Standard {
			got = append(got, p.ImportPath)
		}
		if p.Module != nil && p.ImportPath == p.Module.Path {
			rootPkg = p
		}
	}
	slices.Sort(got)
	for _, d := range got {
		if !slices.Contains(sdkDeps, d) {
			where := "through " + d + "'s importers"
			if slices.Contains(rootPkg.Imports, d) {
				where = "imported by " + strings.Join(importers(t, rootPkg, d), ", ")
			}
			t.Errorf("the SDK pulls %s into its users' builds (%s): not in sdkDeps (internal/archtest/arch.go) and ARCHITECTURE.md", d, where)
		}
	}
	for _, d := range sdkDeps {
		assert.Contains(t, got, d, "sdkDeps lists %s, which the SDK no longer pulls in: remove it there and from ARCHITECTURE.md", d)
	}
}

// section returns the lines of the markdown file's section under the heading, up to the next
// heading of the same or a higher level.
func section(t *testing.T, file, heading string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, file))
	require.NoError(t, err)
	level := strings.IndexByte(heading, ' ')
	var out []string
	in, fenced := false, false
	for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(line, "#") {
			if in && strings.IndexByte(line, ' ') <= level {
				break
			}
			if line == heading {
				in = true
				continue
			}
		}
		if in {
			out = append(out, line)
		}
	}
	require.NotEmpty(t, out, "%s has no section %q", file, heading)
	return out
}

// fenced returns the lines of the first code block of lines.
func fenced(lines []string) []string {
	var out []string
	in := false
	for _, l := range lines {
		if strings.HasPrefix(l, "```") {
			if in {
				return out
			}
			in = true
			continue
		}
		if in {
			out = append(out, l)
		}
	}
	return out
}

// mentions reports whether text names the package dir: as "*.go (root)" for the root
// package, else as dir standing alone (after a space, a backquote, a bar, a parenthesis or the
// start of a line, before a slash, a comma, a backquote, a space or the end of a line).
func mentions(text, dir string) bool {
	if dir == "." {
		return strings.Contains(text, "*.go")
	}
	for i := 0; ; {
		j := strings.Index(text[i:], dir)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(dir)
		before := j == 0 || strings.ContainsRune(" `|(\n", rune(text[j-1]))
		after := end == len(text) || strings.ContainsRune("/,` \n", rune(text[end]))
		if before && after {
			return true
		}
		i = j + 1
	}
}

// ARCHITECTURE.md's arrows are the data's, line for line; its package list, README's layout
// and its list of the SDK's dependencies name every package the data names.
func TestArchitectureDocs(t *testing.T) {
	t.Parallel()
	var want []string
	for _, a := range arrows {
		if len(a.to) > 0 {
			want = append(want, fmt.Sprintf("%s -> %s", a.from, strings.Join(a.to, ", ")))
		}
	}
	var got []string
	for _, l := range fenced(section(t, "ARCHITECTURE.md", "## Where arrows point")) {
		if l = strings.TrimSpace(l); l != "" {
			got = append(got, l)
		}
	}
	assert.Equal(t, want, got, "ARCHITECTURE.md's arrows: the data of internal/archtest/arch.go, in its order")

	var leaves []string
	for _, a := range arrows {
		if a.leaf {
			leaves = append(leaves, a.from)
		}
	}
	arrowsText := strings.Join(section(t, "ARCHITECTURE.md", "## Where arrows point"), "\n")
	for _, l := range leaves {
		assert.True(t, mentions(arrowsText, l), "ARCHITECTURE.md's arrows do not name the leaf %s/", l)
	}

	packages := strings.Join(section(t, "ARCHITECTURE.md", "## Packages"), "\n")
	layout := strings.Join(section(t, "README.md", "## Layout"), "\n")
	for _, a := range arrows {
		assert.True(t, mentions(packages, a.from), "ARCHITECTURE.md's package list does not name %s/", a.from)
		assert.True(t, mentions(layout, a.from), "README's layout does not name %s/", a.from)
	}

	deps := fenced(section(t, "ARCHITECTURE.md", "## What the SDK brings into your build"))
	assert.Equal(t, sdkDeps, deps, "ARCHITECTURE.md's list of the SDK's dependencies: sdkDeps of internal/archtest/arch.go")
}

// CONTRIBUTING's list of what CI runs has one item per stage of .ci/run, in its order, each
// naming its stage (the stage's name before a parenthesis or a variable).
func TestContributingCIStages(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	require.NoError(t, err)
	var stages []string
	for l := range strings.Lines(string(script)) {
		name, ok := strings.CutPrefix(strings.TrimSpace(l), `stage "`)
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, `"`)
		name, _, _ = strings.Cut(name, " (")
		name, _, _ = strings.Cut(name, " $")
		if name != "ok" { // the run's last line, no step
			stages = append(stages, name)
		}
	}
	require.NotEmpty(t, stages, ".ci/run has no stage lines")

	var items []string
	for _, l := range section(t, "CONTRIBUTING.md", "## What CI runs") {
		switch n := strings.IndexByte(l, '.'); {
		case n > 0 && strings.Trim(l[:n], "0123456789") == "":
			items = append(items, l[n+1:])
		case len(items) > 0 && strings.HasPrefix(l, "   "):
			items[len(items)-1] += " " + strings.TrimSpace(l)
		}
	}
	require.Len(t, items, len(stages), "CONTRIBUTING's list of what CI runs: one item per stage of .ci/run %q", stages)
	for i, s := range stages {
		assert.Contains(t, strings.ToLower(items[i]), strings.ToLower(s), "CONTRIBUTING's item %d names the stage %q of .ci/run", i+1, s)
	}
}

// A type with a Format method has no GoString: fmt calls Format for every verb, %#v too, so a
// GoString would be one more method that no verb reaches (TestExportedAPI holds the listings
// to the code).
func TestNoGoStringBesideFormat(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(root, "api", "go", "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		formats, goStrings := map[string]bool{}, map[string]bool{}
		for l := range strings.Lines(string(b)) {
			_, m, ok := strings.Cut(strings.TrimSpace(l), ", method (")
			if !ok {
				continue
			}
			recv, rest, _ := strings.Cut(m, ") ")
			recv = strings.TrimPrefix(recv, "*")
			switch {
			case strings.HasPrefix(rest, "Format(fmt.State, rune)"):
				formats[recv] = true
			case strings.HasPrefix(rest, "GoString() string"):
				goStrings[recv] = true
			}
		}
		for typ := range goStrings {
			assert.False(t, formats[typ], "%s: %s has Format, which covers %%#v: remove its GoString", filepath.Base(file), typ)
		}
	}
}

// A constant of a type its package declares is named after the type (CampaignStatusSent,
// PinStateVerified, mockserver.ModeTest, doctor.LevelOK), so that go doc lists it under the
// type and no two types' constants read alike.
func TestConstantsNamedAfterTheirType(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(root, "api", "go", "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	checked := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		for l := range strings.Lines(string(b)) {
			_, c, ok := strings.Cut(strings.TrimSpace(l), ", const ")
			if !ok {
				continue
			}
			f := strings.Fields(c) // name, type, "=", value
			require.GreaterOrEqual(t, len(f), 2, l)
			name, typ := f[0], f[1]
			if typ == "untyped" || strings.Contains(typ, ".") {
				continue // an untyped constant, or one of another package's type (time.Duration)
			}
			checked++
			assert.True(t, strings.HasPrefix(name, typ), "%s: the constant %s of type %s: its name should start with %s", filepath.Base(file), name, typ, typ)
		}
	}
	assert.Greater(t, checked, 30, "the listings' constants were read")
}
