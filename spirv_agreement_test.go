package vkbench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/glslc"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// TestOneReadingOfSPIRV compiles modules whose workgroup sizes are set in
// each of the three ways SPIR-V allows (a literal LocalSize, LocalSizeId,
// the WorkgroupSize built-in) and whose push-constant blocks hold a bool,
// a matrix and a nested struct, and checks that every consumer of a module
// gets the same answers as package spirv: the root package's Kernel, a
// manifest's candidate, and the Vulkan backend, which accepts exactly the
// push-constant size spirv reports and refuses four bytes less.
func TestOneReadingOfSPIRV(t *testing.T) {
	testenv.NeedGlslc(t)
	dev := open(t)
	// The backend's own answer, from a device of package hal's, opened
	// beside the root package's.
	hdev, release, err := hal.Open(context.Background(), "vulkan", hal.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := release(); err != nil {
			t.Error(err)
		}
	}()
	const body = `
struct Inner { uint a; bool b; };
layout(push_constant) uniform P { uint n; Inner in1; mat3 m; float tail; } p;
layout(binding = 0) buffer B { float x[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n && p.in1.b) { x[i] = p.m[2][1] + p.tail + float(p.in1.a) + float(gl_WorkGroupSize.x); }
}
`
	for _, tc := range []struct {
		name, layout, env, how string
	}{
		{"literal", "layout(local_size_x = 32, local_size_y = 2) in;", "", "a literal local_size"},
		{"LocalSizeId", "layout(local_size_x_id = 0, local_size_y = 2) in;", "vulkan1.3", "LocalSizeId"},
		{"WorkgroupSize built-in", "layout(local_size_x_id = 0, local_size_y = 2) in;", "", "the WorkgroupSize built-in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, err := glslc.CompileSource(context.Background(), "#version 450\n"+tc.layout+body, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			mod, e, err := spirv.Check(code, "main")
			if err != nil {
				t.Fatal(err)
			}
			consts := map[uint32]uint32{}
			if tc.how != "a literal local_size" {
				consts[0] = 32
			}
			if _, how := mod.Workgroup(e); how != tc.how {
				t.Fatalf("spirv: set by %q, want %q", how, tc.how)
			}
			wg, ok := mod.WorkgroupSize(e, consts)
			push, pushKnown := mod.PushConstantBytes(e, consts)
			// The block: n at 0, Inner{a, b} at 4 (8 bytes), a mat3 of three
			// columns of vec3 at 16 with a stride of 16 (48 bytes), tail at 64.
			if !ok || wg != [3]uint32{32, 2, 1} || !pushKnown || push != 68 {
				t.Fatalf("spirv: workgroup %v (%v), push constants %d bytes (%v); want [32 2 1] and 68", wg, ok, push, pushKnown)
			}

			// The root package.
			p, err := dev.Build(context.Background(), vkbench.Kernel{Name: tc.name, SPIRV: code, Constants: consts, PushConstantSize: push})
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if got := p.Kernel(); got.WorkgroupSize != wg || got.Bindings != 1 {
				t.Errorf("root package: workgroup %v, %d bindings; spirv says %v, 1", got.WorkgroupSize, got.Bindings, wg)
			}
			if err := p.Release(); err != nil {
				t.Error(err)
			}
			_, err = dev.Build(context.Background(), vkbench.Kernel{Name: tc.name, SPIRV: code, Constants: consts, WorkgroupSize: [3]uint32{64, 2, 1}, PushConstantSize: push})
			if status.CodeOf(err) != status.InvalidArgument {
				t.Errorf("root package: a WorkgroupSize the module and constants contradict: %v, want InvalidArgument", err)
			}

			if tc.how != "a literal local_size" {
				// A constant that makes local_size_x 0: the root package
				// passed it on to the driver, a manifest refused it.
				_, err = dev.Build(context.Background(), vkbench.Kernel{Name: tc.name, SPIRV: code, Constants: map[uint32]uint32{0: 0}, PushConstantSize: push})
				if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), `local_size_x of "main" is 0`) {
					t.Errorf("root package: local_size_x set to 0: %v, want InvalidArgument", err)
				}
			}

			// A manifest.
			if got := manifestWorkgroup(t, code, consts); got != wg {
				t.Errorf("manifest: workgroup %v; spirv says %v", got, wg)
			}

			// The backend.
			for _, size := range []int{push, push - 4} {
				desc := hal.ExecutableDesc{Label: tc.name, SPIRV: code, Bindings: 1, PushConstantSize: (size + 3) &^ 3, Constants: hal.ConstantsOf(consts)}
				x, err := hdev.CreateExecutable(desc)
				switch {
				case size == push && err != nil:
					t.Errorf("vk: PushConstantSize %d, what spirv reports: %v", size, err)
				case size < push && status.CodeOf(err) != status.InvalidArgument:
					t.Errorf("vk: PushConstantSize %d, four bytes short: %v, want InvalidArgument", size, err)
				}
				if x != nil {
					_ = x.Release()
				}
			}
		})
	}
}

// manifestWorkgroup loads a one-candidate manifest of code, with the
// constants given, and returns the workgroup size it works out.
func manifestWorkgroup(t *testing.T, code []byte, consts map[uint32]uint32) [3]uint32 {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.spv"), code, 0o644); err != nil {
		t.Fatal(err)
	}
	var cs []string
	for id, v := range consts {
		cs = append(cs, fmt.Sprintf(`"%d": %d`, id, v))
	}
	text := `{"schema": "vkbench.manifest/v1", "operations": [{"name": "k", "dims": {"N": 64},
		"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0, "role": "output"}],
		"push_constants": [{"type": "u32", "value": "N"}, {"type": "u32", "value": 0}, {"type": "u32", "value": 1},
			{"type": "u32", "value": 0, "offset": 64}],
		"verify": "none",
		"candidates": [{"name": "only", "spirv": "k.spv", "constants": {` + strings.Join(cs, ", ") + `}, "groups": [1]}]}]}`
	ops, err := manifest.Parse([]byte(text), dir)
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	return ops[0].Candidates()[0].WorkgroupSize
}
