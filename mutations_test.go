package vkbench_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vkbench/vkbench/internal/testenv"
)

// edit is one entry of scripts/mutations.json, as scripts/mutate.py reads it.
type edit struct{ Name, File, From, To string }

func readMutations(t *testing.T) []edit {
	t.Helper()
	data, err := os.ReadFile("scripts/mutations.json")
	if err != nil {
		t.Fatal(err)
	}
	var edits []edit
	if err := json.Unmarshal(data, &edits); err != nil {
		t.Fatalf("scripts/mutations.json: %v", err)
	}
	if len(edits) == 0 {
		t.Fatal("scripts/mutations.json lists no mutation")
	}
	return edits
}

// TestMutationsApply holds scripts/mutations.json to the code: each edit's
// text is in its file exactly once, so that none turns into an edit that
// tests nothing when the code under it is rewritten (the mutation check
// itself, scripts/mutate.py, takes minutes and is not part of the test
// command).
func TestMutationsApply(t *testing.T) {
	names := map[string]bool{}
	for _, e := range readMutations(t) {
		if names[e.Name] {
			t.Errorf("mutation %q: the name is used twice", e.Name)
		}
		names[e.Name] = true
		src, err := os.ReadFile(filepath.FromSlash(e.File))
		if err != nil {
			t.Errorf("mutation %q: %v", e.Name, err)
			continue
		}
		if n := strings.Count(string(src), e.From); n != 1 {
			t.Errorf("mutation %q: its text is in %s %d times, want once", e.Name, e.File, n)
		}
		if e.From == e.To {
			t.Errorf("mutation %q: changes nothing", e.Name)
		}
	}
}

// TestMutationsCompile type-checks each edit of scripts/mutations.json
// with its package and that package's tests, as mutate.py's go test will
// build them: an edit that applies but no longer compiles fails go test
// before any test runs, so it can never be caught and says nothing of the
// tests. The packages the edit cannot change come from the export data go
// list -export leaves in the build cache; the edited package, its tests
// and whatever its tests import that imports it are type-checked from
// source, in this process, with no copy of the tree; a cgo package (vk)
// from the files cgo made of it, which the build cache keeps. An edit of
// a file that cgo reads is left to go vet with an overlay, which runs cgo.
func TestMutationsCompile(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		testenv.Unavailable(t, "the go command, which type-checks the mutations, is not on the PATH: %v", err)
	}
	if raceEnabled() && os.Getenv(mutationsWithoutRace) == "" {
		// go/types runs several times slower under the race detector,
		// and this test starts no goroutines of its own worth watching.
		args := []string{"test", "-count=1", "-run", "^TestMutationsCompile$"}
		if deadline, ok := t.Deadline(); ok {
			// The run's own limit, not go test's default ten minutes: on a
			// cold build cache and a busy machine it can take seven.
			args = append(args, "-timeout", time.Until(deadline).Round(time.Second).String())
		}
		cmd := exec.Command(gotool, append(args, ".")...)
		cmd.Env = append(os.Environ(), mutationsWithoutRace+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
		return
	}
	edits := readMutations(t)
	pkgs, err := goList(gotool)
	if err != nil {
		t.Fatal(err)
	}
	src, err := newSources(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	var vet []edit
	for _, e := range edits {
		c, err := src.checker(e)
		if err != nil {
			t.Errorf("mutation %q: %v", e.Name, err)
			continue
		}
		if c == nil {
			continue // TestMutationsApply says why
		}
		if msgs := c.run(); c.vet {
			vet = append(vet, e)
		} else if len(msgs) > 0 {
			t.Errorf("mutation %q: its edit of %s does not compile:\n%s", e.Name, e.File, strings.Join(msgs, "\n"))
		}
	}
	for _, e := range vet {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			if msg := vetMutation(t, gotool, e); msg != "" {
				t.Errorf("mutation %q: its edit of %s does not compile:\n%s", e.Name, e.File, msg)
			}
		})
	}
}

// mutationsWithoutRace is set when TestMutationsCompile runs itself again
// without the race detector.
const mutationsWithoutRace = "VKBENCH_MUTATIONS_WITHOUT_RACE"

// raceEnabled says whether this test binary was built with -race.
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	return ok && slices.ContainsFunc(info.Settings, func(s debug.BuildSetting) bool { return s.Key == "-race" && s.Value == "true" })
}

// listedPackage is what go list says of a package.
type listedPackage struct {
	ImportPath, Dir, Export, ForTest   string
	GoFiles, CgoFiles, CompiledGoFiles []string
	TestGoFiles, XTestGoFiles, Deps    []string
	Module                             *struct{ GoVersion string }
}

// listed is every package the module's packages and tests import, by import
// path, and the module's own by directory.
type listed struct {
	byPath, byDir map[string]*listedPackage
}

func goList(gotool string) (*listed, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(gotool, "list", "-e", "-export", "-compiled", "-deps", "-test", "-json=ImportPath,Dir,Export,ForTest,GoFiles,CgoFiles,CompiledGoFiles,TestGoFiles,XTestGoFiles,Deps,Module", "./...")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
	}
	l := &listed{byPath: map[string]*listedPackage{}, byDir: map[string]*listedPackage{}}
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		p := new(listedPackage)
		if err := dec.Decode(p); err == io.EOF {
			return l, nil
		} else if err != nil {
			return nil, fmt.Errorf("go list: %v", err)
		}
		if p.ForTest != "" || strings.HasSuffix(p.ImportPath, ".test") {
			continue // a test variant: its files are its package's
		}
		l.byPath[p.ImportPath] = p
		if p.Module != nil {
			l.byDir[p.Dir] = p
		}
	}
}

// export opens path's export data, for go/importer.
func (l *listed) export(path string) (io.ReadCloser, error) {
	p := l.byPath[path]
	if p == nil || p.Export == "" {
		return nil, fmt.Errorf("no export data for %s", path)
	}
	return os.Open(p.Export)
}

// sources is what the checks of every edit share: the packages as go
// list gave them, their export data, and the syntax of the files no edit
// changed.
type sources struct {
	fset    *token.FileSet
	pkgs    *listed
	exports types.Importer
	root    string // the module's directory, to name files
	parsed  map[string]*ast.File
}

func newSources(pkgs *listed) (*sources, error) {
	root, err := filepath.Abs(".")
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	return &sources{fset: fset, pkgs: pkgs, exports: importer.ForCompiler(fset, "gc", pkgs.export),
		root: root, parsed: map[string]*ast.File{}}, nil
}

// parse parses file, or takes it as parsed before; src, if not nil, is
// the file's text, edited.
func (s *sources) parse(file string, src any) (*ast.File, error) {
	if f := s.parsed[file]; f != nil && src == nil {
		return f, nil
	}
	shown, err := filepath.Rel(s.root, file)
	if err != nil {
		shown = file
	}
	f, err := parser.ParseFile(s.fset, filepath.ToSlash(shown), src, parser.SkipObjectResolution)
	if err == nil && src == nil {
		s.parsed[file] = f
	}
	return f, err
}

// checker type-checks one edit: its package with the edit applied, with
// its internal tests, then its external tests, and, from source, any
// package they import that imports the edited one (go test rebuilds those
// too).
type checker struct {
	*sources
	edited *listedPackage
	file   string // the edited file, absolute
	src    string // its text, edited
	done   map[string]*types.Package
	msgs   []string
	vet    bool // the edit is of cgo's input: left to go vet
}

// checker returns the checker of e, or nil if e does not apply.
func (s *sources) checker(e edit) (*checker, error) {
	file, err := filepath.Abs(filepath.FromSlash(e.File))
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if strings.Count(string(src), e.From) != 1 {
		return nil, nil
	}
	c := &checker{sources: s, file: file, src: strings.Replace(string(src), e.From, e.To, 1), done: map[string]*types.Package{}}
	c.edited = s.pkgs.byDir[filepath.Dir(file)]
	if c.edited == nil {
		return nil, fmt.Errorf("%s is in no package of the module", e.File)
	}
	base := filepath.Base(file)
	switch {
	case slices.Contains(c.edited.CgoFiles, base) || !strings.HasSuffix(base, ".go"):
		c.vet = true
	case !slices.Contains(slices.Concat(c.edited.GoFiles, c.edited.TestGoFiles, c.edited.XTestGoFiles), base):
		return nil, fmt.Errorf("%s is not built here (build constraints), so no test here can catch its edit", e.File)
	}
	return c, nil
}

// run type-checks and returns the errors, first ones first.
func (c *checker) run() []string {
	if c.vet {
		return nil
	}
	p := c.edited
	c.done[p.ImportPath] = c.check(p.ImportPath, p, slices.Concat(p.CompiledGoFiles, p.TestGoFiles))
	if len(p.XTestGoFiles) > 0 {
		c.check(p.ImportPath+"_test", p, p.XTestGoFiles)
	}
	if len(c.msgs) > 10 {
		c.msgs = append(c.msgs[:10], "...")
	}
	for i, m := range c.msgs {
		// cgo's files name the files they were made of in full.
		c.msgs[i] = strings.ReplaceAll(m, c.root+string(filepath.Separator), "")
	}
	return c.msgs
}

// Import gives the edited package as checked, from source a package that
// imports it, and from export data every other.
func (c *checker) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if pkg := c.done[path]; pkg != nil {
		return pkg, nil
	}
	p := c.pkgs.byPath[path]
	if p == nil || !slices.Contains(p.Deps, c.edited.ImportPath) {
		return c.exports.Import(path)
	}
	pkg := c.check(path, p, p.CompiledGoFiles)
	c.done[path] = pkg
	return pkg, nil
}

// check type-checks the files names (of p's directory where not absolute)
// as the package path.
func (c *checker) check(path string, p *listedPackage, names []string) *types.Package {
	var files []*ast.File
	for _, name := range names {
		file := name
		if !filepath.IsAbs(file) {
			file = filepath.Join(p.Dir, name)
		}
		var src any
		if file == c.file {
			src = c.src
		}
		f, err := c.parse(file, src)
		if err != nil {
			c.msgs = append(c.msgs, err.Error())
			continue
		}
		files = append(files, f)
	}
	conf := types.Config{
		Importer: c,
		Sizes:    types.SizesFor("gc", runtime.GOARCH),
		Error:    func(err error) { c.msgs = append(c.msgs, err.Error()) },
	}
	if p.Module != nil {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	pkg, _ := conf.Check(path, c.fset, files, nil)
	return pkg
}

// vetMutation type-checks e's package and its tests with e applied, with
// go vet and an overlay (which also runs cgo and compiles C), and returns
// what the compiler said, or "" if it compiled. Only the asmdecl analyzer
// is named so that vet's findings on the mutated code (which need not be
// good code) are not reported; type errors are reported whatever the
// analyzers.
func vetMutation(t *testing.T, gotool string, e edit) string {
	src, err := os.ReadFile(filepath.FromSlash(e.File))
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.FromSlash(e.File))
	if err != nil {
		t.Fatal(err)
	}
	mutated := filepath.Join(t.TempDir(), filepath.Base(abs))
	if err := os.WriteFile(mutated, []byte(strings.Replace(string(src), e.From, e.To, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {abs: mutated}})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := mutated + ".overlay.json"
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(gotool, "vet", "-asmdecl", "-overlay="+overlayFile, "./"+filepath.ToSlash(filepath.Dir(e.File))).CombinedOutput()
	if err == nil {
		return ""
	}
	msg := strings.TrimSpace(strings.ReplaceAll(string(out), mutated, e.File))
	if msg == "" {
		msg = err.Error()
	}
	return msg
}
