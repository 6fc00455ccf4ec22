package vkbench_test

import (
	"flag"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var docFields = flag.Bool("docfields", false, "TestDocComments: check exported struct fields and interface methods in every package, not only in package vkbench")

// TestDocComments is the module's doc-comment lint: every package that
// users import (all but internal ones, testdata and commands) must have a
// package comment, and every exported type, function, method, constant
// and variable a doc comment. Commands (package main) need a package
// comment only: go doc shows nothing else of them. Exported struct fields
// and interface methods are checked in package vkbench, and everywhere
// with -docfields.
func TestDocComments(t *testing.T) {
	strict := map[string]bool{"github.com/vkbench/vkbench": true}
	found, err := undocumented(".", "github.com/vkbench/vkbench", func(path string) bool { return *docFields || strict[path] })
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("no doc comment: %s", f)
	}
}

// TestDocCommentsCanFail runs the lint on a package written to fail it.
func TestDocCommentsCanFail(t *testing.T) {
	found, err := undocumented("testdata/doccheck", "example.com/doccheck", func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"bad/bad.go:1: package example.com/doccheck/bad",
		"bad/bad.go:3: const Bare",
		"bad/bad.go:11: const Ungrouped2",
		"bad/bad.go:15: var Naked",
		"bad/bad.go:17: type T",
		"bad/bad.go:18: field T.Exposed",
		"bad/bad.go:22: interface method I.Do",
		"bad/bad.go:22: type I",
		"bad/bad.go:24: func F",
		"bad/bad.go:26: func NewT",
		"bad/bad.go:28: method T.M",
		"bad/bad.go:30: type G",
		"bad/bad.go:32: method G[E].Get",
		"bad/bad.go:39: type Alias",
		// A command needs its package comment only; internal/ is skipped,
		// and so is good/, which documents everything.
		"cmd/tool/main.go:1: package example.com/doccheck/cmd/tool",
	}
	if diff := cmp.Diff(want, found); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// undocumented returns, sorted, "file:line: what" for every exported
// identifier without a doc comment in the packages under root (whose import
// path is module). Folders named internal or testdata, or starting with
// '.' or '_', and nested modules are skipped. fields says of which import
// paths exported struct fields and interface methods are checked too.
func undocumented(root, module string, fields func(importPath string) bool) ([]string, error) {
	var found []string
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if skipFolder(root, dir, "internal") {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return err
		}
		importPath := module
		if rel != "." {
			importPath += "/" + filepath.ToSlash(rel)
		}
		f, err := checkPackage(root, dir, importPath, fields(importPath))
		found = append(found, f...)
		return err
	})
	sort.Slice(found, func(i, j int) bool { return lessFinding(found[i], found[j]) })
	return found, err
}

// skipFolder reports whether a walk of the module from root leaves out the
// folder dir: testdata, those starting with '.' or '_', nested modules, and
// those named in also.
func skipFolder(root, dir string, also ...string) bool {
	if dir == root {
		return false
	}
	name := filepath.Base(dir)
	if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || slices.Contains(also, name) {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// lessFinding orders "file:line: what" by file, then line as a number.
func lessFinding(a, b string) bool {
	fa, la, _ := strings.Cut(a, ":")
	fb, lb, _ := strings.Cut(b, ":")
	if fa != fb {
		return fa < fb
	}
	na, _, _ := strings.Cut(la, ":")
	nb, _, _ := strings.Cut(lb, ":")
	if len(na) != len(nb) {
		return len(na) < len(nb)
	}
	return la < lb
}

func checkPackage(root, dir, importPath string, fields bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, nil
	}
	pkg, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		return nil, err
	}
	var found []string
	report := func(pos token.Pos, what string) {
		p := fset.Position(pos)
		rel, err := filepath.Rel(root, p.Filename)
		if err != nil {
			rel = p.Filename
		}
		found = append(found, filepath.ToSlash(rel)+":"+strconv.Itoa(p.Line)+": "+what)
	}
	if strings.TrimSpace(pkg.Doc) == "" {
		// Report at the first file, by name.
		first := slices.MinFunc(files, func(a, b *ast.File) int {
			return strings.Compare(fset.Position(a.Package).Filename, fset.Position(b.Package).Filename)
		})
		report(first.Package, "package "+importPath)
	}
	if pkg.Name == "main" {
		return found, nil
	}
	values := func(kind string, vs []*doc.Value) {
		for _, v := range vs {
			if v.Doc != "" {
				continue // a group's comment documents its members
			}
			for _, spec := range v.Decl.Specs {
				s := spec.(*ast.ValueSpec)
				if s.Doc != nil || s.Comment != nil {
					continue
				}
				for _, n := range s.Names {
					if n.IsExported() {
						report(n.Pos(), kind+" "+n.Name)
					}
				}
			}
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			if f.Doc != "" {
				continue
			}
			if f.Recv != "" {
				report(f.Decl.Pos(), "method "+strings.TrimPrefix(f.Recv, "*")+"."+f.Name)
			} else {
				report(f.Decl.Pos(), "func "+f.Name)
			}
		}
	}
	values("const", pkg.Consts)
	values("var", pkg.Vars)
	funcs(pkg.Funcs)
	for _, typ := range pkg.Types {
		if typ.Doc == "" {
			report(typ.Decl.Pos(), "type "+typ.Name)
		}
		if fields {
			for _, spec := range typ.Decl.Specs {
				members(spec.(*ast.TypeSpec), report)
			}
		}
		values("const", typ.Consts)
		values("var", typ.Vars)
		funcs(typ.Funcs)
		funcs(typ.Methods)
	}
	return found, nil
}

// members reports the exported fields of a struct type and the methods of
// an interface type that have neither a doc comment nor a line comment.
// Embedded fields explain themselves and are not reported.
func members(ts *ast.TypeSpec, report func(token.Pos, string)) {
	var list *ast.FieldList
	kind := "field"
	switch t := ts.Type.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list, kind = t.Methods, "interface method"
	default:
		return
	}
	for _, f := range list.List {
		if f.Doc != nil || f.Comment != nil {
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() {
				report(n.Pos(), kind+" "+ts.Name.Name+"."+n.Name)
			}
		}
	}
}
