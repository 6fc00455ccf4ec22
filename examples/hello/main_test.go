package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/internal/devtest"
)

// TestHello runs the program and reads what it prints: the device, then
// y = 10·x of {1, 2, 3, 4}.
func TestHello(t *testing.T) {
	devtest.NeedVulkan(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	main()
	os.Stdout = stdout
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(out), " [10 20 30 40]\n") {
		t.Errorf("hello printed %q; want the device and [10 20 30 40]", out)
	}
}

// TestHelloIsThisCode: the README's "The library" and the quickstart's
// first step show this program's main.go and scale.comp, byte for byte,
// so that the code a reader copies is the code TestHello runs.
func TestHelloIsThisCode(t *testing.T) {
	for _, doc := range []string{"README.md", filepath.Join("docs", "library-quickstart.md")} {
		text, err := os.ReadFile(filepath.Join("..", "..", doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct{ file, fence string }{{"main.go", "```go\n"}, {"scale.comp", "```glsl\n"}} {
			code, err := os.ReadFile(f.file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(text), f.fence+string(code)+"```\n") {
				t.Errorf("%s does not show %s as it is: copy it into the document again", doc, f.file)
			}
		}
	}
}
