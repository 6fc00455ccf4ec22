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

// TestBufferBytes: a buffer binding takes at least its block's fixed
// part, with its array lengths specialized; a runtime array that ends
// the block counts as empty.
func TestBufferBytes(t *testing.T) {
	const src = `#version 450
layout(local_size_x = 1) in;
layout(constant_id = 1) const uint L = 8;
layout(std430, binding = 0) buffer Runtime { float a[]; };
layout(std430, binding = 1) buffer Fixed { float b[256]; };
layout(std430, binding = 2) buffer Header { vec4 h; float c[]; };
layout(std430, binding = 3) buffer Specialized { uint n; float d[L]; };
layout(std140, binding = 4) uniform Uniform { mat4 m; };
void main() { a[0] = b[0] + c[0] + d[0] + h.x + m[0][0] + float(n); }
`
	m, e, err := spirv.Check(compile(t, src, ""), "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		spec map[uint32]uint32
		want []uint64
	}{
		{nil, []uint64{0, 1024, 16, 36, 64}},
		{map[uint32]uint32{1: 512}, []uint64{0, 1024, 16, 2052, 64}},
	} {
		var got []uint64
		for _, b := range m.Bindings(e) {
			n, ok := m.BufferBytes(b, c.spec)
			if !ok {
				t.Errorf("%v: BufferBytes(%v) cannot be worked out", c.spec, b)
			}
			got = append(got, n)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("constants %v: bytes of bindings 0 to 4 (-want +got):\n%s", c.spec, d)
		}
	}
}

// TestPushConstantFields: the push-constant block taken apart into its
// scalars and their offsets, through vectors, arrays of a specialized
// length, nested structs and matrices of either major.
func TestPushConstantFields(t *testing.T) {
	const src = `#version 450
layout(local_size_x = 1) in;
layout(constant_id = 0) const uint L = 2;
struct S { int i; float f; };
layout(push_constant) uniform P { uint n; vec3 v; float w[L]; S s; mat2x3 m; layout(row_major) mat2 r; bool b; } p;
layout(binding = 0) buffer B { float x[]; };
void main() { x[0] = float(p.n) + p.v.x + p.w[1] + float(p.s.i) + p.s.f + p.m[1][2] + p.r[1][0] + float(p.b); }
`
	m, e, err := spirv.Check(compile(t, src, ""), "main")
	if err != nil {
		t.Fatal(err)
	}
	u, i, f := spirv.Scalar{Kind: "uint", Bits: 32}, spirv.Scalar{Kind: "int", Bits: 32}, spirv.Scalar{Kind: "float", Bits: 32}
	for _, c := range []struct {
		spec map[uint32]uint32
		want []spirv.Field
	}{
		// n 0; v 16..28; w[2] 28, 32 (stride 4); s 36, 40; m 48 (2
		// columns of 3, a stride of 16: 48, 52, 56, then 64, 68, 72); r 80
		// (rows of stride 8: r[0][0] 80, r[1][0] 84, r[0][1] 88, r[1][1]
		// 92); b, a uint as glslc lays a bool out, 96.
		{nil, []spirv.Field{{0, u}, {16, f}, {20, f}, {24, f}, {28, f}, {32, f}, {36, i}, {40, f},
			{48, f}, {52, f}, {56, f}, {64, f}, {68, f}, {72, f}, {80, f}, {84, f}, {88, f}, {92, f}, {96, u}}},
	} {
		got, ok := m.PushConstantFields(e, c.spec)
		if !ok {
			t.Fatalf("%v: PushConstantFields cannot be worked out", c.spec)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("constants %v: fields (-want +got):\n%s", c.spec, d)
		}
	}
}
