package spirv_test

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/internal/glslc"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

func readAdd(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile("../hal/haltest/testdata/add.spv")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// compile compiles a compute shader with glslc for env ("" for the
// project's target). Without glslc the test is skipped, except where
// tests are required to run (CI), where it fails.
func compile(t *testing.T, src, env string) []byte {
	t.Helper()
	testenv.NeedGlslc(t)
	code, err := glslc.CompileSource(context.Background(), src, env)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func TestCheck(t *testing.T) {
	good := readAdd(t)
	m, e, err := spirv.Check(good, "main")
	if err != nil {
		t.Fatalf("a glslc module fails the check: %v", err)
	}
	if got := m.EntryPoints(); !cmp.Equal(got, []string{"main"}) || e.Name != "main" {
		t.Errorf("entry points = %q, entry %q", got, e.Name)
	}
	mutate := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	bad := map[string][]byte{
		"empty":                 nil,
		"odd length":            good[:len(good)-1],
		"header only":           good[:20],
		"short header":          good[:12],
		"wrong magic":           mutate(func(b []byte) []byte { b[0] ^= 0xff; return b }),
		"big-endian":            mutate(func(b []byte) []byte { b[0], b[1], b[2], b[3] = 3, 2, 0x23, 7; b[0], b[3] = 7, 3; return b }),
		"version 2.0":           mutate(func(b []byte) []byte { b[6] = 2; return b }),
		"without OpFunctionEnd": good[:len(good)-4],
		"cut mid-module":        good[:len(good)/2&^3],
		"word count past end":   mutate(func(b []byte) []byte { b[len(b)-2] = 0x40; return b }),
		// The last instruction (OpFunctionEnd, one word) claims two: one
		// word past the module's end.
		"one word past the end": mutate(func(b []byte) []byte { b[len(b)-2] = 2; return b }),
		"word count zero":       mutate(func(b []byte) []byte { b[22], b[23] = 0, 0; return b }),
		// An OpMemberDecorate needs a struct, a member and a decoration.
		"OpMemberDecorate of two operands": func() []byte {
			words, err := spirv.Words(good)
			if err != nil {
				t.Fatal(err)
			}
			header := spirv.Header(words)
			return spirv.Bytes(slices.Concat(header, spirv.Instruction(spirv.OpMemberDecorate, 1, 0), words[len(header):]))
		}(),
	}
	for name, code := range bad {
		t.Run(name, func(t *testing.T) {
			_, _, err := spirv.Check(code, "main")
			if status.CodeOf(err) != status.InvalidArgument {
				t.Errorf("Check = %v, want InvalidArgument", err)
			}
		})
	}
	if _, _, err := spirv.Check(good, "other"); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), `"other"`) {
		t.Errorf("missing entry point: %v", err)
	}
}

// TestParseOnce: a module is read once, however many times it is asked
// about, and a copy of it (another slice, the same bytes) too.
func TestParseOnce(t *testing.T) {
	good := readAdd(t)
	a, err := spirv.Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	b, err := spirv.Parse(append([]byte(nil), good...))
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("the same module was read twice")
	}
	if allocs := testing.AllocsPerRun(100, func() { _, _ = spirv.Parse(good) }); allocs > 0 {
		t.Errorf("Parse of a module read before allocates %.0f times", allocs)
	}
}

func FuzzParse(f *testing.F) {
	good, err := os.ReadFile("../hal/haltest/testdata/add.spv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, "main")
	f.Add(good[:len(good)-4], "main")
	pastEnd := append([]byte(nil), good...)
	pastEnd[len(pastEnd)-2] = 2 // the last instruction claims one word more
	f.Add(pastEnd, "main")
	f.Add([]byte{3, 2, 35, 7}, "")
	gemm, err := os.ReadFile("../shaders/gemm_regblock.spv") // chains of OpSpecConstantOp
	if err != nil {
		f.Fatal(err)
	}
	f.Add(gemm, "main")
	f.Fuzz(func(t *testing.T, code []byte, entry string) {
		m, e, err := spirv.Check(code, entry)
		if err != nil {
			if status.CodeOf(err) != status.InvalidArgument {
				t.Fatalf("Check error with code %v: %v", status.CodeOf(err), err)
			}
			return
		}
		// Every question about a module Check accepts has an answer.
		m.Workgroup(e)
		m.WorkgroupSize(e, map[uint32]uint32{0: 7})
		m.PushConstantBytes(e, nil)
		m.SharedMemory(e, nil)
		m.Bindings(e)
		m.SpecIDs()
	})
}

// TestWorkgroup reads workgroup sizes set in each of the three ways, with
// and without specialization.
func TestWorkgroup(t *testing.T) {
	const body = `
layout(binding = 0) buffer B { uint x[]; };
void main() { x[gl_GlobalInvocationID.x] = gl_WorkGroupSize.x; }
`
	for _, tc := range []struct {
		name, layout, env string
		how               string
		dflt, with7       [3]uint32 // the defaults, and with constant_id 0 = 7
	}{
		{"literal", "layout(local_size_x = 64, local_size_y = 2) in;", "", "a literal local_size", [3]uint32{64, 2, 1}, [3]uint32{64, 2, 1}},
		{"built-in", "layout(local_size_x_id = 0, local_size_y = 2) in;", "", "the WorkgroupSize built-in", [3]uint32{1, 2, 1}, [3]uint32{7, 2, 1}},
		{"LocalSizeId", "layout(local_size_x_id = 0, local_size_y = 2) in;", "vulkan1.3", "LocalSizeId", [3]uint32{1, 2, 1}, [3]uint32{7, 2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, e, err := spirv.Check(compile(t, "#version 450\n"+tc.layout+body, tc.env), "main")
			if err != nil {
				t.Fatal(err)
			}
			if _, how := m.Workgroup(e); how != tc.how {
				t.Errorf("set by %q, want %q", how, tc.how)
			}
			for _, c := range []struct {
				spec map[uint32]uint32
				want [3]uint32
			}{{nil, tc.dflt}, {map[uint32]uint32{0: 7}, tc.with7}} {
				if got, ok := m.WorkgroupSize(e, c.spec); !ok || got != c.want {
					t.Errorf("WorkgroupSize(%v) = %v, %v; want %v", c.spec, got, ok, c.want)
				}
			}
		})
	}
}

// TestPushConstantBytes sizes push-constant blocks as push constants are
// laid out: the end of the last member.
func TestPushConstantBytes(t *testing.T) {
	const body = `
layout(local_size_x = 1) in;
layout(binding = 0) buffer B { uint x[]; };
void main() { x[0] = USE; }
`
	for _, tc := range []struct {
		name, decl, use string
		want            int
	}{
		{"none", "", "1u", 0},
		{"two words", "layout(push_constant) uniform P { uint n; float a; } p;", "p.n", 8},
		{"vec3 aligned to 16", "layout(push_constant) uniform P { uint n; vec3 v; } p;", "p.n", 28},
		{"array with a stride", "layout(push_constant) uniform P { uint n; float w[4]; } p;", "p.n + uint(p.w[1])", 20},
		{"nested struct", "struct S { uint a; uint b; }; layout(push_constant) uniform P { S s; uint c; } p;", "p.s.a + p.c", 12},
		{"bool", "layout(push_constant) uniform P { uint n; bool b; } p;", "p.n + uint(p.b)", 8},
		{"matrix", "layout(push_constant) uniform P { mat4 m; uint n; } p;", "p.n", 68},
		{"matrix last", "layout(push_constant) uniform P { uint n; mat2x3 m; } p;", "p.n + uint(p.m[1][2])", 48},
		{"row-major matrix last", "layout(push_constant) uniform P { uint n; layout(row_major) mat2x3 m; } p;", "p.n + uint(p.m[1][2])", 32},
		{"specialized length", "layout(constant_id = 0) const uint L = 4; layout(push_constant) uniform P { uint n; float w[L]; } p;", "p.n", 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "#version 450\n" + tc.decl + strings.ReplaceAll(body, "USE", tc.use)
			m, e, err := spirv.Check(compile(t, src, ""), "main")
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := m.PushConstantBytes(e, nil); !ok || got != tc.want {
				t.Errorf("PushConstantBytes = %d, %v; want %d", got, ok, tc.want)
			}
		})
	}
}

// TestSharedMemory sizes workgroup memory, with array lengths from
// specialization constants and expressions of them.
func TestSharedMemory(t *testing.T) {
	src := `#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
layout(binding = 0) buffer B { float x[]; };
shared float tile[WG * 1u];
shared vec4 more[8];
void main() {
	tile[gl_LocalInvocationID.x] = x[gl_GlobalInvocationID.x];
	more[gl_LocalInvocationID.x % 8u] = vec4(tile[0]);
	barrier();
	x[gl_GlobalInvocationID.x] = tile[0] + more[1].x;
}
`
	// WG * 1u is an OpSpecConstantOp, worked out with WG set.
	for _, length := range []string{"WG * 1u", "WG"} {
		m, e, err := spirv.Check(compile(t, strings.Replace(src, "WG * 1u", length, 1), ""), "main")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			spec map[uint32]uint32
			want uint64
		}{{nil, 4*64 + 16*8}, {map[uint32]uint32{0: 256}, 4*256 + 16*8}} {
			if n, ok := m.SharedMemory(e, c.spec); !ok || n != c.want {
				t.Errorf("tile[%s]: SharedMemory(%v) = %d, %v; want %d", length, c.spec, n, ok, c.want)
			}
		}
	}
}

// TestBindingsAndConstants reads the descriptors an entry point uses and
// the kinds of its specialization constants.
func TestBindingsAndConstants(t *testing.T) {
	src := `#version 450
layout(local_size_x = 1) in;
layout(constant_id = 3) const float S = 2.5;
layout(constant_id = 1) const bool B = true;
layout(constant_id = 2) const int I = -3;
layout(set = 0, binding = 1) buffer Out { float y[]; };
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 1, binding = 0) uniform U { float a; };
void main() { y[0] = x[0] * S * a + float(I) + float(B); }
`
	m, e, err := spirv.Check(compile(t, src, ""), "main")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range m.Bindings(e) {
		got = append(got, b.String())
	}
	want := []string{"set 0 binding 0 (storage buffer)", "set 0 binding 1 (storage buffer)", "set 1 binding 0 (uniform buffer)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bindings (-want +got):\n%s", diff)
	}
	if ids := m.SpecIDs(); !cmp.Equal(ids, []uint32{1, 2, 3}) {
		t.Errorf("SpecIDs = %v", ids)
	}
	for id, kind := range map[uint32]string{1: "bool", 2: "int", 3: "float"} {
		if c, ok := m.SpecConstant(id); !ok || c.Kind != kind || c.Width != 32 {
			t.Errorf("constant %d = %+v, %v; want a 32-bit %s", id, c, ok, kind)
		}
	}
}

// TestImageBindings reads the images an entry point uses: storage images
// with the format they declare and the kind of their texels, sampled
// images combined with their samplers, and, as other descriptors, what
// vkbench does not bind (a separate texture, a separate sampler, an array
// of images).
func TestImageBindings(t *testing.T) {
	src := `#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D color;
layout(set = 0, binding = 2, r32ui) uniform uimage2D counts;
layout(set = 0, binding = 3, r32f) uniform readonly image3D volume;
layout(set = 0, binding = 4) uniform usampler2D ids;
layout(set = 0, binding = 5) uniform texture2D separate;
layout(set = 0, binding = 6) uniform sampler smp;
layout(set = 0, binding = 7, rgba32f) uniform readonly image2D layers[2];
layout(set = 0, binding = 8, rgba32f) uniform readonly image2DArray arrayed;
void main() {
	vec4 v = texture(tex, vec2(0.5)) + imageLoad(volume, ivec3(0)) + texture(sampler2D(separate, smp), vec2(0))
		+ imageLoad(layers[1], ivec2(0)) + imageLoad(arrayed, ivec3(0));
	imageStore(color, ivec2(0), v);
	imageAtomicAdd(counts, ivec2(0), texelFetch(ids, ivec2(0), 0).r);
}
`
	m, e, err := spirv.Check(compile(t, src, ""), "main")
	if err != nil {
		t.Fatal(err)
	}
	type binding struct {
		Binding uint32
		Kind    string
		Image   spirv.Image
	}
	var got []binding
	var names []string
	for _, b := range m.Bindings(e) {
		got = append(got, binding{b.Binding, b.Kind.String(), b.Image})
		names = append(names, b.String())
	}
	other := spirv.OtherDescriptor.String()
	want := []binding{
		{0, "sampled image", spirv.Image{Dim: spirv.Dim2D, Component: "float"}},
		{1, "storage image", spirv.Image{Dim: spirv.Dim2D, Format: 4, Component: "float"}},
		{2, "storage image", spirv.Image{Dim: spirv.Dim2D, Format: 33, Component: "uint"}},
		{3, "storage image", spirv.Image{Dim: spirv.Dim3D, Format: 3, Component: "float"}},
		{4, "sampled image", spirv.Image{Dim: spirv.Dim2D, Component: "uint"}},
		{5, other, spirv.Image{}},
		{6, other, spirv.Image{}},
		{7, other, spirv.Image{}},
		{8, "storage image", spirv.Image{Dim: spirv.Dim2D, Arrayed: true, Format: 1, Component: "float"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bindings (-want +got):\n%s", diff)
	}
	wantNames := []string{
		"set 0 binding 0 (sampled image 2D)", "set 0 binding 1 (storage image 2D rgba8)", "set 0 binding 2 (storage image 2D r32ui)",
		"set 0 binding 3 (storage image 3D r32f)", "set 0 binding 4 (sampled image 2D)",
		"set 0 binding 5 (" + other + ")", "set 0 binding 6 (" + other + ")", "set 0 binding 7 (" + other + ")",
		"set 0 binding 8 (storage image 2D array rgba32f)",
	}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("binding names (-want +got):\n%s", diff)
	}
}

// TestInstructionsRoundTrip: a module's words, walked instruction by
// instruction and written back, are the module; a string operand reads
// back as it was written.
func TestInstructionsRoundTrip(t *testing.T) {
	good := readAdd(t)
	words, err := spirv.Words(good)
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(spirv.Header(words))
	for _, ins := range spirv.Instructions(words) {
		out = append(out, ins...)
	}
	if !bytes.Equal(spirv.Bytes(out), good) {
		t.Error("the module's instructions, written back, differ from the module")
	}
	ext := spirv.Instruction(spirv.OpExtension, spirv.StringOperand("SPV_KHR_bfloat16")...)
	if name, n, ok := spirv.LiteralString(ext[1:]); !ok || name != "SPV_KHR_bfloat16" || n != len(ext)-1 || spirv.Opcode(ext) != spirv.OpExtension {
		t.Errorf("OpExtension %v reads back as %q (%d words, %v)", ext, name, n, ok)
	}
	long := slices.Clone(words)
	long[len(long)-1] = 2<<16 | uint32(spirv.OpFunctionEnd) // its last instruction runs past the end
	if _, err := spirv.Words(spirv.Bytes(long)); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("Words of a module whose last instruction runs past its end: %v, want INVALID_ARGUMENT", err)
	}
}
