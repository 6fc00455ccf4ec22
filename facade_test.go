package vkbench_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOwnTypes: the root package's exported API names no type of the
// module's lower packages (hal, kernels, autotune...): a program works
// with vkbench alone, as one works with database/sql and never sees a
// driver's type. Type aliases count: they are the lower type.
func TestOwnTypes(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name != "vkbench" {
			continue
		}
		lower := map[string]string{} // local name → import path
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(path, "github.com/vkbench/vkbench/") {
				continue
			}
			local := filepath.Base(path)
			if imp.Name != nil {
				local = imp.Name.Name
			}
			lower[local] = path
		}
		check := func(what string, expr ast.Node) {
			if expr == nil {
				return
			}
			ast.Inspect(expr, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && lower[x.Name] != "" {
						t.Errorf("%s: %s shows %s.%s", fset.Position(sel.Pos()), what, x.Name, sel.Sel.Name)
					}
				}
				return true
			})
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Recv != nil && !exportedRecv(d.Recv) {
					continue
				}
				check("func "+d.Name.Name, d.Type)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						if s.Assign != 0 {
							check("alias "+s.Name.Name, s.Type)
							continue
						}
						checkExported(s.Name.Name, s.Type, check)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								check(n.Name, s.Type)
							}
						}
					}
				}
			}
		}
	}
}

// checkExported checks the exported parts of a type: a struct's exported
// fields, an interface's methods, anything else whole.
func checkExported(name string, typ ast.Expr, check func(string, ast.Node)) {
	switch tt := typ.(type) {
	case *ast.StructType:
		for _, f := range tt.Fields.List {
			for _, n := range f.Names {
				if n.IsExported() {
					check(name+"."+n.Name, f.Type)
				}
			}
		}
	case *ast.InterfaceType:
		for _, m := range tt.Methods.List {
			for _, n := range m.Names {
				if n.IsExported() {
					check(name+"."+n.Name, m.Type)
				}
			}
		}
	default:
		check(name, typ)
	}
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch tt := typ.(type) {
	case *ast.IndexExpr:
		typ = tt.X
	case *ast.IndexListExpr:
		typ = tt.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}
