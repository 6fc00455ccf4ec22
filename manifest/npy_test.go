package manifest_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio"

	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/internal/half"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// writeNpy writes values to name in dir as a .npy file.
func writeNpy(t testing.TB, dir, name string, values any) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := npyio.Write(f, values); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// npyManifest is saxpy (y = 2.5x + y over N floats) with x and y from
// .npy files and the answer in another, within a tolerance.
func npyManifest(t testing.TB) string {
	spv, err := filepath.Abs(filepath.Join(manifestDir, "saxpy.spv"))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`{"schema": "vkbench.manifest/v1", "operations": [{"name": "saxpy", "dims": {"N": 1000},
	"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0, "init": {"npy": "x.npy"}},
		{"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout", "init": {"npy": "y.npy"},
		 "expect": {"npy": "want.npy"}, "tolerance": {"rel": 0, "abs": 1e-3}}],
	"push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}],
	"verify": {},
	"candidates": [{"name": "scalar", "spirv": %q, "groups": ["div_up(N, 256)"]}]}]}`, spv)
}

// TestManifestNpy: inputs and the expected output come from .npy files
// (x in float32, y in float64, the answer in float64, as NumPy writes
// by default); the kernel passes, and fails when one element of the
// answer is off by more than the tolerance (1e-3), naming it, but not
// when it is off by less.
func TestManifestNpy(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	dir := t.TempDir()
	const n = 1000
	x, y, want := make([]float32, n), make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = float32(i%17) - 8
		y[i] = float64(i) / 7
		want[i] = 2.5*float64(x[i]) + y[i]
	}
	writeNpy(t, dir, "x.npy", x)
	writeNpy(t, dir, "y.npy", y)
	verify := func(want []float64) error {
		t.Helper()
		writeNpy(t, dir, "want.npy", want)
		ops, err := manifest.Parse([]byte(npyManifest(t)), dir)
		if err != nil {
			t.Fatal(err)
		}
		return kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(n), 0, 1)
	}
	if err := verify(want); err != nil {
		t.Fatalf("against the right answer: %v", err)
	}
	off := append([]float64(nil), want...)
	off[321] += 0.9e-3
	if err := verify(off); err != nil {
		t.Errorf("y[321] off by 0.9e-3, within the tolerance 1e-3: %v", err)
	}
	off[321] += 0.2e-3
	err := verify(off)
	if !errors.Is(err, kernels.ErrWrongResult) || !strings.Contains(err.Error(), "y[321]") || !strings.Contains(err.Error(), "want.npy") {
		t.Errorf("y[321] off by 1.1e-3, past the tolerance 1e-3: %v; want a wrong result naming y[321] and want.npy", err)
	}

	// At a size whose length is not the file's, the problem is refused.
	ops, err := manifest.Parse([]byte(npyManifest(t)), dir)
	if err != nil {
		t.Fatal(err)
	}
	err = kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(500), 0, 1)
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "has 500 elements at size") {
		t.Errorf("at N=500: %v; want INVALID_ARGUMENT saying the buffer has 500 elements", err)
	}
	// An integer buffer refuses float data.
	text := strings.Replace(npyManifest(t), `"name": "x", "type": "f32"`, `"name": "x", "type": "i32"`, 1)
	if _, err := manifest.Parse([]byte(text), dir); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "holds f32 floats") {
		t.Errorf("float .npy in an i32 buffer: %v", err)
	}
}

// TestManifestExpectReadsInputs: an expected value reads the inputs by
// index (saxpy's "2.5 * x[i] + y[i]", y the initial contents of the
// inout buffer), and an init's values are expressions of the dims and
// lets ("0 - HALF").
func TestManifestExpectReadsInputs(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	spv, err := filepath.Abs(filepath.Join(manifestDir, "saxpy.spv"))
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(`{"schema": "vkbench.manifest/v1", "operations": [{"name": "saxpy", "dims": {"N": 1000},
	"let": {"HALF": "N / 2"},
	"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0, "init": {"iota": {"start": "0 - HALF", "step": 1}}},
		{"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout", "expect": "A * x[i] + y[i]"},
		{"name": "z", "type": "f32", "len": 1, "binding": 2, "role": "output", "check": false}],
	"push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}],
	"verify": {},
	"candidates": [{"name": "scalar", "spirv": %q, "groups": ["div_up(N, 256)"]}]}]}`, spv)
	for _, tt := range []struct {
		a    string
		pass bool
	}{{"2.5", true}, {"2.25", false}} {
		src := strings.Replace(text, "A * x[i]", tt.a+" * x[i]", 1)
		src = strings.Replace(src, `,
		{"name": "z", "type": "f32", "len": 1, "binding": 2, "role": "output", "check": false}`, "", 1)
		ops, err := manifest.Parse([]byte(src), dir(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1000, 37} {
			err := kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(n), 0, 1)
			if tt.pass && err != nil || !tt.pass && !errors.Is(err, kernels.ErrWrongResult) {
				t.Errorf("expect %s * x[i] + y[i] at N=%d: %v (want pass: %v)", tt.a, n, err, tt.pass)
			}
		}
	}
	// x is made of the let: its first element is -N/2, which the expected
	// value reads.
	src := strings.Replace(text, "A * x[i] + y[i]", "select(i == 0, 2.5 * (0 - HALF), 2.5 * x[i]) + y[i]", 1)
	src = strings.Replace(src, `,
		{"name": "z", "type": "f32", "len": 1, "binding": 2, "role": "output", "check": false}`, "", 1)
	ops, err := manifest.Parse([]byte(src), dir(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(1000), 0, 1); err != nil {
		t.Errorf("x[0] = 0 - HALF: %v", err)
	}
	// An output's contents are not an input's.
	src = strings.Replace(text, "A * x[i] + y[i]", "z[0]", 1)
	if _, err := manifest.Parse([]byte(src), dir(t)); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), `unknown name "z"`) {
		t.Errorf("expect reading an output: %v", err)
	}
}

func dir(t testing.TB) string { return t.TempDir() }

// writeNpy16 writes the binary16 values bits (float16 patterns) to name
// in dir as a .npy file of '<f2' or '>f2' (order '<' or '>'), its header
// padded as NumPy pads it, to a multiple of align bytes (NumPy's 64, or
// 128, as valid). npyio writes no float16.
func writeNpy16(t testing.TB, dir, name string, bits []uint16, order byte, align int) {
	t.Helper()
	dict := fmt.Sprintf("{'descr': '%cf2', 'fortran_order': False, 'shape': (%d,), }", order, len(bits))
	pad := (align - (10+len(dict)+1)%align) % align
	data := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(data[8:], uint16(len(dict)+pad+1))
	data = append(append(append(data, dict...), strings.Repeat(" ", pad)...), '\n')
	if len(data)%align != 0 {
		t.Fatalf("header of %d bytes, not a multiple of %d", len(data), align)
	}
	for _, b := range bits {
		if order == '>' {
			data = binary.BigEndian.AppendUint16(data, b)
		} else {
			data = binary.LittleEndian.AppendUint16(data, b)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestManifestNpyFloat16: float16 .npy files (either byte order,
// headers padded to 64 and to 128 bytes) are an f16 buffer's input and
// its answer, NaN and infinities among them. The kernel (y = 2x, in
// float16 storage) passes; one element off by less than the tolerance
// passes, by more fails naming it, and so does a NaN or an infinity
// where a number is wanted, or a number where they are. float32 data in
// an f16 buffer is rounded as NumPy rounds it (to nearest, ties to
// even), and so is float64 data, once (not through float32), from a file
// or a fill; float16 data in an f32 buffer is exact, and float16 data in
// an integer buffer is refused.
func TestManifestNpyFloat16(t *testing.T) {
	testenv.NeedGlslc(t)
	t.Setenv(store.EnvCache, filepath.Join(t.TempDir(), "autotune.db"))
	ctx := context.Background()
	dev := devtest.Device(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "twice.comp"), []byte(`#version 450
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float16_t x[]; };
layout(std430, binding = 1) writeonly buffer Y { float16_t y[]; };
void main() { uint i = gl_GlobalInvocationID.x; y[i] = float16_t(2.0 * float(x[i])); }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 64
	const nan, inf, one = 0x7e00, 0x7c00, 0x3c00
	x, want := make([]uint16, n), make([]uint16, n)
	for i := range n {
		x[i] = half.FromFloat32(float32(i-20) / 8)
	}
	x[1], x[2], x[3], x[4] = nan, inf, 0x8000|inf, 0x0001 // 2⁻²⁴, the smallest subnormal
	for i, v := range x {
		want[i] = half.FromFloat32(2 * half.ToFloat32(v))
	}
	verify := func(init string, abs float64, want []uint16) error {
		t.Helper()
		writeNpy16(t, dir, "want.npy", want, '<', 128)
		ops, err := manifest.Parse([]byte(`{"schema": "vkbench.manifest/v1", "operations": [{"name": "twice", "dims": {"N": 64},
		"buffers": [{"name": "x", "type": "f16", "len": "N", "binding": 0, "init": `+init+`},
			{"name": "y", "type": "f16", "len": "N", "binding": 1, "role": "output",
			 "expect": {"npy": "want.npy"}, "tolerance": {"rel": 0, "abs": `+fmt.Sprint(abs)+`}}],
		"verify": {}, "candidates": [{"name": "twice", "glsl": "twice.comp", "groups": ["N / 64"]}]}]}`), dir)
		if err != nil {
			t.Fatal(err)
		}
		return kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(n), 0, 1)
	}
	writeNpy16(t, dir, "x.npy", x, '<', 64)
	writeNpy16(t, dir, "x-big.npy", x, '>', 128)
	for _, init := range []string{`{"npy": "x.npy"}`, `{"npy": "x-big.npy"}`} {
		if err := verify(init, 0.01, want); err != nil {
			t.Errorf("x from %s, against the right answer: %v", init, err)
		}
	}
	// Element 28 is 2x = 2; float16 steps by 2⁻⁹ there.
	for _, tt := range []struct {
		i    int
		v    uint16
		pass bool
	}{
		{28, half.FromFloat32(2 + 5*0x1p-9), true},  // off by 0.0098
		{28, half.FromFloat32(2 + 6*0x1p-9), false}, // off by 0.0117
		{28, half.FromFloat32(2 - 6*0x1p-9), false},
		{28, nan, false},
		{28, inf, false},
		{1, one, false},    // a number where NaN is wanted
		{2, 0x7bff, false}, // 65504 where +Inf is
		{3, inf, false},    // +Inf where -Inf is
		{1, 0xfe00, true},  // any NaN is NaN
		{4, 0x0000, true},  // 2⁻²³ within 0.01 of 0
	} {
		off := slices.Clone(want)
		off[tt.i] = tt.v
		err := verify(`{"npy": "x.npy"}`, 0.01, off)
		name := fmt.Sprintf("y[%d]:", tt.i)
		if tt.pass && err != nil || !tt.pass && (!errors.Is(err, kernels.ErrWrongResult) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "want.npy")) {
			t.Errorf("y[%d] wanted as %g (%#04x): %v; want pass: %v, else a wrong result naming %s and want.npy", tt.i, half.ToFloat32(tt.v), tt.v, err, tt.pass, name)
		}
	}

	// float32 data rounds to the nearest float16, ties to even: 1 + 2⁻¹¹
	// (a tie) to 1, 1 + 3·2⁻¹¹ (a tie) to 1 + 2⁻⁹; checked exactly.
	x32 := make([]float32, n)
	want = make([]uint16, n)
	for i := range n {
		x32[i] = 1 + float32(i%4)*0x1p-11
		want[i] = half.FromFloat32(2 * []float32{1, 1, 1 + 0x1p-10, 1 + 0x1p-9}[i%4])
	}
	writeNpy(t, dir, "x32.npy", x32)
	if err := verify(`{"npy": "x32.npy"}`, 0, want); err != nil {
		t.Errorf("float32 x rounded to f16: %v", err)
	}
	want[1] = half.FromFloat32(2 * (1 + 0x1p-10)) // a tie rounded away from zero
	if err := verify(`{"npy": "x32.npy"}`, 0, want); !errors.Is(err, kernels.ErrWrongResult) || !strings.Contains(err.Error(), "y[1]:") {
		t.Errorf("float32 x rounded to f16, against a tie rounded up: %v; want a wrong result naming y[1]", err)
	}

	// float64 data, from a .npy file or a fill, rounds once: 1 + 2⁻¹¹ +
	// 2⁻⁴⁰ is past the tie, to 1 + 2⁻¹⁰; rounded to float32 first, it
	// would become the tie, and round to 1.
	x64 := make([]float64, n)
	for i := range n {
		x64[i] = 1 + 0x1p-11 + 0x1p-40
		want[i] = half.FromFloat32(2 + 0x1p-9)
	}
	writeNpy(t, dir, "x64.npy", x64)
	for _, init := range []string{`{"npy": "x64.npy"}`, `{"fill": 1.0004882812500009}`} {
		if err := verify(init, 0, want); err != nil {
			t.Errorf("float64 x (%s) rounded to f16 once: %v", init, err)
		}
	}

	// float16 data in saxpy's f32 buffer x, and refused by an i32 one.
	xs, ys, saxpy := make([]uint16, 1000), make([]float64, 1000), make([]float64, 1000)
	for i := range ys {
		xs[i] = half.FromFloat32(float32(i%17)/4 - 2)
		ys[i] = float64(i) / 7
		saxpy[i] = 2.5*float64(half.ToFloat32(xs[i])) + ys[i]
	}
	writeNpy16(t, dir, "x.npy", xs, '<', 64)
	writeNpy(t, dir, "y.npy", ys)
	writeNpy(t, dir, "want.npy", saxpy)
	ops, err := manifest.Parse([]byte(npyManifest(t)), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := kernels.VerifyCandidate(ctx, dev, ops[0], kernels.SizeOf(1000), 0, 1); err != nil {
		t.Errorf("float16 x in an f32 buffer: %v", err)
	}
	text := strings.Replace(npyManifest(t), `"name": "x", "type": "f32"`, `"name": "x", "type": "i32"`, 1)
	if _, err := manifest.Parse([]byte(text), dir); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "holds f16 floats") {
		t.Errorf("float16 .npy in an i32 buffer: %v; want INVALID_ARGUMENT saying it holds f16 floats", err)
	}
}

// TestManifestNpyNotNpy: a file named as .npy that is not one, or is cut
// short, is refused as bad input naming the file and what is wrong with
// it: never a panic (npyio's header parser panics on a header without its
// closing newline).
func TestManifestNpyNotNpy(t *testing.T) {
	npyHeader := func(major byte, header string) []byte {
		b := append([]byte("\x93NUMPY"), major, 0)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(header)))
		return append(b, header...)
	}
	good := npyHeader(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }\n")
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a .npy file"},
		{"text", []byte("x,y\n1,2\n"), "not a .npy file"},
		{"magic alone", []byte("\x93NUMPY"), "not a .npy file"},
		{"header cut short", npyHeader(1, "{")[:12], "not a .npy file"},
		{"header length past the end", append(npyHeader(1, ""), 200, 0, '{'), "not a .npy file"},
		{"header without its newline", npyHeader(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }"), "not a .npy file"},
		{"no data", good, "holds fewer than the 1000 elements"},
		{"complex elements", npyHeader(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1000,), }\n"), "holds elements of type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeNpy(t, dir, "y.npy", make([]float32, 1000))
			writeNpy(t, dir, "want.npy", make([]float32, 1000))
			if err := os.WriteFile(filepath.Join(dir, "x.npy"), c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := manifest.Parse([]byte(npyManifest(t)), dir)
			if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "x.npy") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("x.npy %s: %v; want INVALID_ARGUMENT naming x.npy and saying %q", c.name, err, c.want)
			}
		})
	}
}

// TestManifestNpyDigest: what a manifest's .npy files hold is part of
// what identifies its kernels, as its JSON and its modules are: writing
// other inputs into the file changes every candidate's digest (the tune
// cache's key) and every configuration's identity in a space (the
// tuning log's), so that neither serves an answer verified against the
// data before; the same data again changes neither.
func TestManifestNpyDigest(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(manifestDir, spaceManifest))
	if err != nil {
		t.Fatal(err)
	}
	xPath := filepath.Join(dir, "x.npy")
	text := strings.Replace(string(data), `"init": {"random": {"min": -1, "max": 1}}`, fmt.Sprintf(`"init": {"npy": %q}`, xPath), 1)
	x := make([]float32, 100000)
	for i := range x {
		x[i] = float32(i%13) / 4
	}
	load := func() ([32]byte, []string) {
		t.Helper()
		writeNpy(t, dir, "x.npy", x)
		ops, err := manifest.Parse([]byte(text), manifestDir)
		if err != nil {
			t.Fatal(err)
		}
		pts, err := kernels.SpaceOf(ops[0]).Points(ops[0].Dims(), kernels.SizeOf(len(x)), h200Like)
		if err != nil {
			t.Fatal(err)
		}
		return kernels.Digest(ops[0].Candidates()), pts.IDs
	}
	digest, ids := load()
	if again, againIDs := load(); again != digest || !slices.Equal(againIDs, ids) {
		t.Fatal("the same .npy data again changed the digest or the identities")
	}
	x[777]++
	other, otherIDs := load()
	if other == digest {
		t.Error("x.npy holds other data, and the candidates' digest is the same: a tune cache would answer with a winner verified against the old data")
	}
	for i, id := range otherIDs {
		if id == ids[i] {
			t.Errorf("configuration %d: its identity is the same with other data in x.npy: the tuning log would reuse its record", i)
		}
	}
}
