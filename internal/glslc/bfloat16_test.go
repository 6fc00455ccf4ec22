package glslc_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/internal/glslc"
	"github.com/vkbench/vkbench/internal/testenv"
)

// moves only moves halves: loads, a conversion to float32 and back, and a
// store, which bfloat16 allows.
const moves = `#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { f16vec4 a[]; };
layout(binding = 1) writeonly buffer B { float16_t b[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 v = vec4(a[i]);
    b[i] = float16_t(v.x * 2.0 + v.w);
}
`

// sums adds halves: arithmetic that bfloat16 does not allow.
const sums = `#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(binding = 0) buffer A { float16_t a[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    a[i] = a[i] + a[i + 1u];
}
`

// compares compares halves, which bfloat16 does not allow either (no
// arithmetic result is float16: the test is of its operands).
const compares = `#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { float16_t a[]; };
layout(binding = 1) writeonly buffer B { uint b[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    b[i] = a[i] < a[i + 1u] ? 1u : 0u;
}
`

func requireGlslc(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"glslc", "spirv-val"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Unavailable(t, "%s is not on the PATH; install glslc and spirv-tools", tool)
		}
	}
}

// TestBFloat16 compiles a source with the retype directive: its module
// declares bfloat16 (the capability, the extension, OpTypeFloat 16 with
// the BFloat16KHR encoding) and nothing else changes (FromBFloat16 gives
// back, byte for byte, the module of the source without the directive),
// and Validate passes it. A source that adds halves, or compares them, is
// refused, saying why.
func TestBFloat16(t *testing.T) {
	requireGlslc(t)
	ctx := context.Background()
	plain, err := glslc.CompileSource(ctx, moves, "")
	if err != nil {
		t.Fatal(err)
	}
	code, err := glslc.CompileSource(ctx, strings.Replace(moves, "\n", "\n"+glslc.BFloat16Directive+"\n", 1), "")
	if err != nil {
		t.Fatal(err)
	}
	words := func(ws ...uint32) []byte {
		var b []byte
		for _, w := range ws {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
		return b
	}
	for what, want := range map[string][]byte{
		"OpCapability BFloat16TypeKHR":     words(2<<16|17, 5116),
		"OpExtension \"SPV_KHR_bfloat16\"": append(words(6<<16|10), []byte("SPV_KHR_bfloat16\x00\x00\x00\x00")...),
	} {
		if !bytes.Contains(code, want) {
			t.Errorf("the retyped module lacks %s", what)
		}
	}
	if bytes.Contains(code, words(2<<16|17, 5118)) {
		t.Error("a module without cooperative matrices declares BFloat16CooperativeMatrixKHR")
	}
	back, ok, err := glslc.FromBFloat16(code)
	if err != nil || !ok {
		t.Fatalf("FromBFloat16: %v, %v", ok, err)
	}
	if !bytes.Equal(back, plain) {
		t.Errorf("the retyped module, undone, differs from the module compiled without the directive (%d bytes against %d)", len(back), len(plain))
	}
	if _, ok, _ := glslc.FromBFloat16(plain); ok {
		t.Error("FromBFloat16 found bfloat16 in a module without it")
	}
	if _, err := glslc.ToBFloat16(code); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("retyping twice: %v, want an error that says it is already done", err)
	}
	path := filepath.Join(t.TempDir(), "k.spv")
	if err := os.WriteFile(path, code, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := glslc.Validate(ctx, path); err != nil {
		t.Errorf("Validate: %v", err)
	}

	_, err = glslc.CompileSource(ctx, strings.Replace(sums, "\n", "\n"+glslc.BFloat16Directive+"\n", 1), "")
	if err == nil || !strings.Contains(err.Error(), "computes with float16") {
		t.Errorf("a source that adds halves, retyped: %v, want an error that says it computes with float16", err)
	}
	// The comparison of two loads, and of a constant with a load.
	for _, src := range []string{compares, strings.Replace(compares, "a[i] < a[i + 1u]", "float16_t(0.5) >= a[i]", 1)} {
		_, err = glslc.CompileSource(ctx, strings.Replace(src, "\n", "\n"+glslc.BFloat16Directive+"\n", 1), "")
		if err == nil || !strings.Contains(err.Error(), "compares or classifies float16") {
			t.Errorf("a source that compares halves, retyped: %v, want an error that says it compares float16 values", err)
		}
	}
	if _, err := glslc.ToBFloat16(code[:len(code)-2]); err == nil {
		t.Error("ToBFloat16 took a module cut short")
	}
}
