package manifest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/internal/glslc"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/shaders"
	"github.com/vkbench/vkbench/status"
)

func readImagesManifest(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(manifestDir, "images.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// parseEdited parses images.json with old replaced by new.
func parseEdited(t testing.TB, text, old, new string) ([]kernels.Operation, error) {
	t.Helper()
	if !strings.Contains(text, old) {
		t.Fatalf("the manifest has no %q", old)
	}
	return manifest.Parse([]byte(strings.Replace(text, old, new, 1)), manifestDir)
}

// TestImageManifest: images.json's downscale binds its source as a
// sampled image (two candidates) or a storage image (the third) and its
// result as a storage image; every candidate computes what the reference
// does, at sizes that are multiples of the workgroup and not.
func TestImageManifest(t *testing.T) {
	ops, err := manifest.Load(filepath.Join(manifestDir, "images.json"))
	if err != nil {
		t.Fatal(err)
	}
	op, cands := opNamed(t, ops, "downscale")
	type cand struct {
		Name  string
		Kinds []hal.BindingKind
	}
	var got []cand
	for _, c := range cands {
		got = append(got, cand{c.Name, c.BindingKinds})
	}
	sampled := []hal.BindingKind{hal.SampledImageBinding, hal.StorageImageBinding}
	want := []cand{{"fetch", sampled}, {"bilinear", sampled}, {"storage", []hal.BindingKind{hal.StorageImageBinding, hal.StorageImageBinding}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
	dev := devtest.Device(t)
	ctx := context.Background()
	for _, size := range []kernels.Size{op.DefaultSize(dev.Info()), kernels.SizeOf(2, 2), kernels.SizeOf(34, 18), kernels.SizeOf(258, 130)} {
		for i, c := range cands {
			if err := kernels.VerifyCandidate(ctx, dev, op, size, i, 1); err != nil {
				t.Errorf("%s at %v: %v", c.Name, size, err)
			}
		}
	}
}

// TestImageManifestChecks: a candidate that computes something else is
// caught (the bilinear sample, its sampler made nearest, reads one texel
// of four), and an image's "init" and "expect" work as a buffer's do,
// texel component by component.
func TestImageManifestChecks(t *testing.T) {
	text := readImagesManifest(t)
	dev := devtest.Device(t)
	ctx := context.Background()
	ops, err := parseEdited(t, text, `"filter": "linear"`, `"filter": "nearest"`)
	if err != nil {
		t.Fatal(err)
	}
	op, _ := opNamed(t, ops, "downscale")
	err = kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(64, 32), 1, 1)
	if !errors.Is(err, kernels.ErrWrongResult) || !strings.Contains(err.Error(), "dst[") {
		t.Errorf("the bilinear candidate sampling with a nearest filter: %v, want a wrong result in dst", err)
	}
	// A grey of 0.5 is the byte 128 everywhere, and so is its mean.
	edited := strings.Replace(strings.Replace(text, `"verify": {"reference": "fetch"}`, `"verify": {}`, 1),
		`"binding": 0,`, `"binding": 0, "init": {"fill": 0.5},`, 1)
	if _, err := manifest.Parse([]byte(edited), manifestDir); err == nil || !strings.Contains(err.Error(), `buffer "dst" has no "expect"`) {
		t.Errorf("a manifest without a reference whose output image has no expect: %v", err)
	}
	for _, expect := range []string{"128 / 255.0", "select(i % 4 == 3, 1.0, 0.5)"} {
		ops, err := parseEdited(t, edited, `"role": "output"`, `"role": "output", "expect": "`+expect+`"`)
		if err != nil {
			t.Fatal(err)
		}
		op, cands := opNamed(t, ops, "downscale")
		for i, c := range cands {
			err := kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(34, 18), i, 1)
			if expect == "128 / 255.0" && err != nil {
				t.Errorf("%s with expect %q: %v", c.Name, expect, err)
			}
			if expect != "128 / 255.0" && !errors.Is(err, kernels.ErrWrongResult) {
				t.Errorf("%s with expect %q, which every fourth component misses: %v, want a wrong result", c.Name, expect, err)
			}
		}
	}
}

// TestImageManifestErrors: a manifest whose images disagree with the
// modules that bind them, or whose image fields are wrong, is refused
// when it is read, naming the place in the JSON.
func TestImageManifestErrors(t *testing.T) {
	text := readImagesManifest(t)
	tests := []struct {
		name, old, new string
		says           []string
	}{
		{"image where the module has a buffer", `"spirv": "downscale_fetch.spv"`, `"spirv": "saxpy.spv"`,
			[]string{"operations[0].candidates[0]", `entry point "main" of saxpy.spv uses set 0 binding 0 (storage buffer), but "src" bound there is an image`}},
		{"buffer where the module has an image", `"image": {"format": "rgba8", "width": "W / 2", "height": "H / 2"}`, `"type": "f32", "len": "W*H"`,
			[]string{"operations[0].candidates[0]", `uses set 0 binding 1 (storage image 2D rgba8), but "dst" bound there is a buffer (describe it with "image")`}},
		{"sampler of a buffer", `"image": {"format": "rgba8", "width": "W", "height": "H"}`, `"type": "f32", "len": "4*W*H"`,
			[]string{"operations[0].buffers[0].sampler", "only an image has a sampler"}},
		{"format the module does not declare", `"format": "rgba8", "width": "W / 2"`, `"format": "rgba32f", "width": "W / 2"`,
			[]string{"operations[0].candidates[0]", `declares set 0 binding 1 (storage image 2D rgba8), but image "dst" is rgba32f`}},
		{"texels of another kind", `"format": "rgba8", "width": "W",`, `"format": "r32ui", "width": "W",`,
			[]string{"operations[0].candidates[0]", `reads float texels at set 0 binding 0 (sampled image 2D), but image "src" is r32ui, of uint texels`}},
		{"unknown format", `"format": "rgba8", "width": "W",`, `"format": "rgb8", "width": "W",`,
			[]string{"operations[0].buffers[0].image.format", `unknown image format "rgb8" (want one of r32f, rgba32f, rgba8, rgba8_srgb, r32ui)`}},
		{"type of an image", `"binding": 0,`, `"binding": 0, "type": "f32",`,
			[]string{"operations[0].buffers[0].type", `come from its format and size; remove "type"`}},
		{"float width", `"width": "W / 2"`, `"width": "W / 2.0"`,
			[]string{"operations[0].buffers[1].image.width", "must be an integer"}},
		{"unknown filter", `"filter": "linear"`, `"filter": "bilinear"`,
			[]string{"operations[0].buffers[0].sampler.filter", `unknown filter "bilinear" (want nearest or linear)`}},
		{"texel coordinates that repeat", `"address": "clamp"`, `"address": "repeat", "coords": "texels"`,
			[]string{"operations[0].buffers[0].sampler", "coordinates in texels need the clamp address mode"}},
		{"unknown image field", `"height": "H"}`, `"height": "H", "depth": 1}`,
			[]string{"operations[0].buffers[0].image.depth", "unknown field"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, err := parseEdited(t, text, tt.old, tt.new)
			if err == nil {
				t.Fatalf("loaded %d operations, want an error", len(ops))
			}
			if got := status.CodeOf(err); got != status.InvalidArgument {
				t.Errorf("code %v, want INVALID_ARGUMENT: %v", got, err)
			}
			for _, want := range tt.says {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not say %q:\n%v", want, err)
				}
			}
		})
	}
}

// compileInto compiles GLSL compute sources into dir, one .spv each, by
// name. Without glslc the test is skipped, except where tests must run.
func compileInto(t *testing.T, dir string, sources map[string]string) {
	t.Helper()
	testenv.NeedGlslc(t)
	for name, src := range sources {
		code, err := glslc.CompileSource(context.Background(), src, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".spv"), code, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestImageManifestUnsupportedFormat: a candidate that binds an image in
// a way the device cannot use its format for is unsupported, the error
// naming the format and the feature it lacks (a storage image of
// rgba8_srgb, which a module without a declared format may write; a
// linear sampler of r32ui), never a driver error; and the operation's
// other candidates, which bind the same image otherwise, still run and
// verify.
func TestImageManifestUnsupportedFormat(t *testing.T) {
	dev := devtest.Device(t)
	info := dev.Info()
	dir := t.TempDir()
	compileInto(t, dir, map[string]string{
		"write_noformat": `#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform writeonly image2D dst;
void main() { imageStore(dst, ivec2(gl_GlobalInvocationID.xy), vec4(0.5)); }
`,
		"sample_uint": `#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform usampler2D src;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint o[]; };
void main() {
	uvec2 p = gl_GlobalInvocationID.xy;
	o[p.y * 8 + p.x] = texture(src, (vec2(p) + 0.5) / 8.0).r;
}
`,
		"load_uint": `#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) uniform readonly uimage2D src;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint o[]; };
void main() {
	uvec2 p = gl_GlobalInvocationID.xy;
	o[p.y * 8 + p.x] = imageLoad(src, ivec2(p)).r;
}
`,
	})
	ctx := context.Background()
	unsupported := func(c kernels.Candidate, format, feature string) {
		t.Helper()
		err := c.Supported(info)
		t.Logf("%s: %v", c.Name, err)
		if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), format) || !strings.Contains(err.Error(), feature) {
			t.Errorf("candidate %s on %s: %v; want Unimplemented naming %s and %s", c.Name, info.Name, err, format, feature)
		}
	}
	if have := info.ImageFormats.Of(hal.RGBA8SRGB); have.Has(hal.FormatStorage) {
		t.Logf("%s has rgba8_srgb storage images: the refusal of a format is not tested", info.Name)
	} else {
		ops, err := manifest.Parse([]byte(`{"schema": "vkbench.manifest/v1", "operations": [{
  "name": "srgb-store", "dtype": "f32", "dims": {"N": 8},
  "buffers": [{"name": "dst", "image": {"format": "rgba8_srgb", "width": "N", "height": "N"}, "binding": 0, "role": "output", "expect": 0.5}],
  "verify": {}, "candidates": [{"name": "store", "spirv": "write_noformat.spv", "groups": [1, 1]}]}]}`), dir)
		if err != nil {
			t.Fatal(err)
		}
		unsupported(ops[0].Candidates()[0], "rgba8_srgb", "storage-image")
	}
	if have := info.ImageFormats.Of(hal.R32Uint); !have.Has(hal.FormatSampled|hal.FormatStorage) || have.Has(hal.FormatLinearFilter) {
		t.Logf("%s has r32ui images of features %s: the refusal of a linear filter is not tested", info.Name, have)
		return
	}
	ops, err := manifest.Parse([]byte(`{"schema": "vkbench.manifest/v1", "operations": [{
  "name": "uint-read", "dims": {"N": 8},
  "buffers": [{"name": "src", "image": {"format": "r32ui", "width": "N", "height": "N"}, "binding": 0, "sampler": {"filter": "linear"}},
    {"name": "out", "type": "u32", "len": "N*N", "binding": 1, "role": "output"}],
  "verify": {"reference": "load"}, "candidates": [
    {"name": "load", "spirv": "load_uint.spv", "groups": [1, 1]},
    {"name": "sample", "spirv": "sample_uint.spv", "groups": [1, 1]}]}]}`), dir)
	if err != nil {
		t.Fatal(err)
	}
	op := ops[0]
	cands := op.Candidates()
	unsupported(cands[1], "r32ui", "linear-filter")
	if err := cands[0].Supported(info); err != nil {
		t.Fatalf("load, which binds src as a storage image: %v", err)
	}
	// src is made for what load does with it only, and load verifies.
	if err := kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(8), 0, 1); err != nil {
		t.Errorf("load beside a candidate the device cannot run: %v", err)
	}
}

// TestImageManifestWithoutFormat: a module may read and write a storage
// image without declaring its format (GLSL image2D with no format
// qualifier); that needs the device's shaderStorageImageReadWithoutFormat
// and ...WriteWithoutFormat, which the candidate requires (named where the
// device lacks them) and the device is opened with where it has them: the
// kernel verifies with the validation layer on and silent.
func TestImageManifestWithoutFormat(t *testing.T) {
	dev := devtest.Device(t)
	info := dev.Info()
	dir := t.TempDir()
	compileInto(t, dir, map[string]string{
		"copy_noformat": `#version 450
#extension GL_EXT_shader_image_load_formatted : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform readonly image2D src;
layout(set = 0, binding = 1) uniform writeonly image2D dst;
void main() {
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	imageStore(dst, p, imageLoad(src, p) * 0.5);
}
`,
	})
	ops, err := manifest.Parse([]byte(`{"schema": "vkbench.manifest/v1", "operations": [{
  "name": "halve", "dtype": "f32", "dims": {"N": 16},
  "buffers": [{"name": "src", "image": {"format": "rgba32f", "width": "N", "height": "N"}, "binding": 0, "init": "iota"},
    {"name": "dst", "image": {"format": "rgba32f", "width": "N", "height": "N"}, "binding": 1, "role": "output", "expect": "i * 0.5"}],
  "verify": {}, "candidates": [{"name": "noformat", "spirv": "copy_noformat.spv", "groups": [2, 2]}]}]}`), dir)
	if err != nil {
		t.Fatal(err)
	}
	c := ops[0].Candidates()[0]
	if r := c.Requires; !r.ImageReadWithoutFormat || !r.ImageWriteWithoutFormat {
		t.Errorf("requirements %+v: want both image accesses without a format", r)
	}
	if f := info.Features; !f.StorageImageReadWithoutFormat || !f.StorageImageWriteWithoutFormat {
		err := c.Supported(info)
		if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "WithoutFormat") {
			t.Errorf("%s lacks a without-format access: %v; want Unimplemented naming it", info.Name, err)
		}
		return
	}
	if err := kernels.VerifyCandidate(context.Background(), dev, ops[0], kernels.SizeOf(16), 0, 1); err != nil {
		t.Errorf("a kernel reading and writing images without declared formats: %v", err)
	}
}

// TestManifestBF16 runs gemm_bf16_regblock, the built-in portable bfloat16
// GEMM, from a manifest with bf16 buffers: A filled with 1.5 and B with
// -0.25 (both exact in bfloat16, and neither the same 16 bits in binary16),
// so C is -0.375·K everywhere, which "expect" checks. A manifest that
// encoded bf16 as binary16, or read C back as binary16, would fail it.
func TestManifestBF16(t *testing.T) {
	dev := devtest.Device(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gemm_bf16.spv"), shaders.MustGet("gemm_bf16_regblock"), 0o644); err != nil {
		t.Fatal(err)
	}
	ops, err := manifest.Parse([]byte(`{"schema": "vkbench.manifest/v1", "operations": [{
  "name": "bgemm", "dims": {"M": 40, "N": 36, "K": 24},
  "buffers": [
    {"name": "a", "type": "bf16", "len": "M*K", "binding": 0, "init": {"fill": 1.5}},
    {"name": "b", "type": "bf16", "len": "K*N", "binding": 1, "init": {"fill": -0.25}},
    {"name": "c", "type": "bf16", "len": "M*N", "binding": 2, "role": "output", "expect": "-0.375 * K"}],
  "push_constants": [{"type": "u32", "value": "M"}, {"type": "u32", "value": "N"}, {"type": "u32", "value": "K"}],
  "verify": {},
  "candidates": [{"name": "rb", "spirv": "gemm_bf16.spv", "workgroup": [8, 8],
    "constants": {"2": 32, "3": 32, "4": 8}, "groups": ["div_up(N,32)", "div_up(M,32)"]}]}]}`), dir)
	if err != nil {
		t.Fatal(err)
	}
	op := ops[0]
	if op.DType() != kernels.BF16 {
		t.Errorf("dtype %v, want bf16 (the output's type)", op.DType())
	}
	if err := kernels.VerifyCandidate(context.Background(), dev, op, op.DefaultSize(dev.Info()), 0, 1); err != nil {
		t.Error(err)
	}
}

// TestImageManifestNpyBytes: a picture NumPy holds as bytes (uint8, as
// image libraries load it) is an rgba8 image's bytes, b read as b/255,
// where each byte was taken for a component's value and clamped to 1 (a
// white picture, verified against the same and measured): the downscale
// of one matches the mean its .npy answer gives. A value out of an rgba8
// component's range [0, 1], from a float file or a fill, is refused when
// the manifest is read.
func TestImageManifestNpyBytes(t *testing.T) {
	const w, h = 8, 4
	dir := t.TempDir()
	src := make([]uint8, w*h*4)
	for i := range src {
		src[i] = uint8(i * 37 % 256)
	}
	want := make([]float32, w/2*h/2*4)
	for i := range want {
		x, y, c := i/4%(w/2), i/4/(w/2), i%4
		var sum int
		for _, d := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			sum += int(src[((2*y+d[1])*w+2*x+d[0])*4+c])
		}
		want[i] = float32(sum) / 4 / 255
	}
	writeNpy(t, dir, "src.npy", src)
	writeNpy(t, dir, "want.npy", want)
	bytes := make([]float32, len(src)) // taken for an image's values: 200 is out of range
	for i, b := range src {
		bytes[i] = float32(b)
	}
	writeNpy(t, dir, "bytes.npy", bytes)
	text := strings.NewReplacer(`"verify": {"reference": "fetch"}`, `"verify": {}`, `{"W": 1920, "H": 1080}`, fmt.Sprintf(`{"W": %d, "H": %d}`, w, h)).Replace(readImagesManifest(t))
	text = strings.Replace(text,
		`"role": "output"`, `"role": "output", "expect": {"npy": "`+filepath.Join(dir, "want.npy")+`"}`, 1)
	ops, err := parseEdited(t, text, `"binding": 0,`, `"binding": 0, "init": {"npy": "`+filepath.Join(dir, "src.npy")+`"},`)
	if err != nil {
		t.Fatal(err)
	}
	op, _ := opNamed(t, ops, "downscale")
	if err := kernels.VerifyCandidate(context.Background(), devtest.Device(t), op, kernels.SizeOf(w, h), 0, 1); err != nil {
		t.Errorf("the downscale of a uint8 .npy picture: %v", err)
	}
	for _, init := range []string{`{"npy": "` + filepath.Join(dir, "bytes.npy") + `"}`, `{"fill": 2}`} {
		_, err := parseEdited(t, text, `"binding": 0,`, `"binding": 0, "init": `+init+`,`)
		if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "is outside [0, 1], the range of an rgba8 component") {
			t.Errorf("an rgba8 image's init %s: %v, want INVALID_ARGUMENT saying 200 or 2 is outside [0, 1]", init, err)
		}
	}
}
