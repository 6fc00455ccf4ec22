package hal_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
)

func readSPIRV(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile("haltest/testdata/add.spv")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestCheckSPIRV(t *testing.T) {
	good := readSPIRV(t)
	if err := hal.CheckSPIRV(good, "main"); err != nil {
		t.Fatalf("a glslc module fails the check: %v", err)
	}
	m, err := hal.ParseSPIRV(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.EntryPoints) != 1 || m.EntryPoints[0] != "main" {
		t.Errorf("entry points = %q", m.EntryPoints)
	}
	mutate := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	bad := map[string][]byte{
		"empty":                 nil,
		"odd length":            good[:len(good)-1],
		"header only":           good[:20],
		"short header":          good[:12],
		"wrong magic":           mutate(func(b []byte) []byte { b[0] ^= 0xff; return b }),
		"version 2.0":           mutate(func(b []byte) []byte { b[6] = 2; return b }),
		"without OpFunctionEnd": good[:len(good)-4],
		"cut mid-module":        good[:len(good)/2&^3],
		"word count past end":   mutate(func(b []byte) []byte { b[len(b)-2] = 0x40; return b }),
		// The last instruction, OpFunctionEnd (one word), claims two:
		// it runs one word past the module's end.
		"last instruction one word past end": mutate(func(b []byte) []byte { b[len(b)-2], b[len(b)-1] = 2, 0; return b }),
		"word count zero":                    mutate(func(b []byte) []byte { b[22], b[23] = 0, 0; return b }),
	}
	for name, code := range bad {
		t.Run(name, func(t *testing.T) {
			err := hal.CheckSPIRV(code, "main")
			if status.CodeOf(err) != status.InvalidArgument {
				t.Errorf("CheckSPIRV = %v, want InvalidArgument", err)
			}
		})
	}
	if err := hal.CheckSPIRV(good, "other"); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("missing entry point: %v", err)
	}
}

func FuzzCheckSPIRV(f *testing.F) {
	good, err := os.ReadFile("haltest/testdata/add.spv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, "main")
	f.Add(good[:len(good)-4], "main")
	pastEnd := append([]byte(nil), good...)
	pastEnd[len(pastEnd)-2] = 2 // the last instruction claims one word more
	f.Add(pastEnd, "main")
	f.Add([]byte{3, 2, 35, 7}, "")
	f.Fuzz(func(t *testing.T, code []byte, entry string) {
		err := hal.CheckSPIRV(code, entry)
		if err != nil && status.CodeOf(err) != status.InvalidArgument {
			t.Fatalf("CheckSPIRV error with code %v: %v", status.CodeOf(err), err)
		}
	})
}

func TestDriverVersionString(t *testing.T) {
	for _, tc := range []struct {
		d    hal.DeviceInfo
		want string
	}{
		{hal.DeviceInfo{VendorID: hal.VendorNVIDIA, DriverVersion: 580<<22 | 159<<14 | 4<<6}, "580.159.4.0"},
		{hal.DeviceInfo{VendorID: hal.VendorIntel, DriverID: 5, DriverVersion: 101<<14 | 5333}, "101.5333"},
		{hal.DeviceInfo{VendorID: hal.VendorAMD, DriverVersion: 2<<22 | 0<<12 | 301}, "2.0.301"},
		{hal.DeviceInfo{VendorID: hal.VendorMesa, DriverID: 13, DriverVersion: 1, DriverInfo: "Mesa 22.3.6 (LLVM 15.0.6)"}, "22.3.6"},
		{hal.DeviceInfo{VendorID: hal.VendorMesa, DriverID: 13, DriverVersion: 1, DriverInfo: "odd"}, "0.0.1"},
	} {
		if got := tc.d.DriverVersionString(); got != tc.want {
			t.Errorf("DriverVersionString(%+v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// compileGLSL compiles a compute shader with glslc, as the shaders
// package does; without glslc the test is skipped, except in CI.
func compileGLSL(t *testing.T, src string) []byte {
	t.Helper()
	glslc, err := exec.LookPath("glslc")
	if err != nil {
		testenv.Unavailable(t, "glslc is not on the PATH")
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "k.comp"), filepath.Join(dir, "k.spv")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(context.Background(), glslc, "-O", "--target-env=vulkan1.2", "-fshader-stage=compute", in, "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("glslc: %v\n%s", err, msg)
	}
	code, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// TestPushConstantBytes sizes push-constant blocks as the std430-like
// layout of push constants lays them out: the end of the last member.
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
		{"matrix", "layout(push_constant) uniform P { mat4 m; uint n; } p;", "p.n", -1},
		{"specialized length", "layout(constant_id = 0) const uint L = 4; layout(push_constant) uniform P { uint n; float w[L]; } p;", "p.n", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "#version 450\n" + tc.decl + strings.ReplaceAll(body, "USE", tc.use)
			m, err := hal.ParseSPIRV(compileGLSL(t, src))
			if err != nil {
				t.Fatal(err)
			}
			if m.PushConstantBytes != tc.want {
				t.Errorf("PushConstantBytes = %d, want %d", m.PushConstantBytes, tc.want)
			}
		})
	}
}
