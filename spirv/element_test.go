package spirv_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/spirv"
)

// TestBufferElement: a storage buffer says the scalar type of the runtime
// array its block ends in, through vectors, so that a manifest can refuse
// to bind floats of another width.
func TestBufferElement(t *testing.T) {
	for file, want := range map[string][]spirv.Scalar{
		"saxpy.spv":      {{Kind: "float", Bits: 32}, {Kind: "float", Bits: 32}},
		"saxpy_vec4.spv": {{Kind: "float", Bits: 32}, {Kind: "float", Bits: 32}}, // vec4[]
		"histogram.spv":  {{Kind: "uint", Bits: 32}, {}},                         // uint bins[256]: no runtime array
	} {
		code, err := os.ReadFile(filepath.Join("..", "testdata", "manifests", file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := spirv.Parse(code)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		e, err := m.Entry("main")
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var got []spirv.Scalar
		for _, b := range m.Bindings(e) {
			got = append(got, b.Element)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: elements of its buffers (-want +got):\n%s", file, d)
		}
	}
}
