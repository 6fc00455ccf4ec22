package status

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPackagePrefixes: the prefixes TextForPeople says once are exactly
// those vkbench's own messages begin with, each a package's name or path
// ("store/redis"): a package whose messages begin with its name is in
// the list, and the list names nothing else.
func TestPackagePrefixes(t *testing.T) {
	packages := map[string]bool{}
	var literals []string
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (name == "testdata" || name == "bin" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name != "main" {
			dir, _ := filepath.Rel("..", filepath.Dir(path))
			packages[f.Name.Name], packages[filepath.ToSlash(dir)] = true, true
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					literals = append(literals, s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	head := regexp.MustCompile(`^([a-z][a-z0-9/]*): `)
	var said []string
	for _, s := range literals {
		if m := head.FindStringSubmatch(s); m != nil && packages[m[1]] && !slices.Contains(said, m[1]) {
			said = append(said, m[1])
		}
	}
	slices.Sort(said)
	if !slices.Equal(said, packagePrefixes) {
		t.Errorf("packagePrefixes = %q;\nthe packages' messages begin with %q", packagePrefixes, said)
	}
}
