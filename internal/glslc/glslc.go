// Package glslc runs the Khronos tools that turn GLSL compute sources into
// SPIR-V and check it: glslc to compile and spirv-val to validate. The
// shaders generator (go generate), the shaders test and the tests that
// compile modules of their own share it, so that every module is built
// with the very same flags.
//
// A source is built for Vulkan 1.2 (TargetEnv) unless a line of it names
// another version (TargetEnvOf), as
//
//	// target-env: vulkan1.3
//
// Two toolchains build the checked-in kernels. Most are built by the
// glslc and spirv-val on the PATH (Debian 12's: shaderc 2023.2,
// SPIRV-Tools 2023.1); those for Vulkan 1.3 (SPIR-V 1.6) by Debian 13's
// glslc 2025.2 and spirv-val 2025.1, which know extensions that Debian
// 12's do not (GL_NV_cooperative_matrix2); scripts/glslc13.sh fetches
// them, pinned, into bin/tools/glslc13 of the module. A manifest's GLSL
// (CompileFile) is built by the glslc on the PATH, for the version its
// line names.
//
// None of them knows bfloat16 (GL_EXT_bfloat16, SPV_KHR_bfloat16). A
// source with the line
//
//	// retype: float16 bfloat16
//
// is written with float16_t and compiled as usual, and its module's
// float16 is then made bfloat16 (ToBFloat16); Validate checks such a
// module as the compiler made it.
package glslc

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// SourceExt is the extension of a GLSL compute source; its SPIR-V is the
// file of the same name with OutputExt.
const (
	SourceExt = ".comp"
	OutputExt = ".spv"
)

// waitDelay is how long a tool's output is waited for once its context
// has ended and it is killed.
const waitDelay = time.Second

// TargetEnv is the Vulkan version the SPIR-V is built for and validated
// against. Vulkan 1.2 means SPIR-V 1.5, which every device vkbench targets
// accepts (lavapipe, NVIDIA, AMD, Intel and Arm drivers of the last years).
const TargetEnv = "vulkan1.2"

// Sources returns the base names of the GLSL sources in dir, sorted.
func Sources(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), SourceExt) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// OutputName returns the name of the SPIR-V built from source.
func OutputName(source string) string {
	return strings.TrimSuffix(source, SourceExt) + OutputExt
}

// TargetEnvDirective starts the line by which a source names the Vulkan
// version it is built for; Vulkan13Directive is the line that asks for
// Vulkan 1.3, which the checked-in kernels build with the newer toolchain.
const (
	TargetEnvDirective = "// target-env:"
	Vulkan13Directive  = TargetEnvDirective + " vulkan1.3"
)

// TargetEnvs are the versions a source's target-env line may name.
var TargetEnvs = []string{"vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3", "vulkan1.4"}

// TargetEnvOf returns the version that the source src asks to be built
// for on a line of its own that starts with TargetEnvDirective, or
// TargetEnv if it has none. A version that is not one of TargetEnvs, or a
// second line that names another, is an error that names the source
// (name) and the line.
func TargetEnvOf(name, src string) (string, error) {
	env, at, n := TargetEnv, 0, 0
	for line := range strings.Lines(src) {
		n++
		v, ok := strings.CutPrefix(strings.TrimRight(line, " \t\r\n"), TargetEnvDirective)
		if !ok {
			continue
		}
		switch v = strings.TrimSpace(v); {
		case !slices.Contains(TargetEnvs, v):
			return "", fmt.Errorf("%s:%d: target-env %q is not one of %s", name, n, v, strings.Join(TargetEnvs, ", "))
		case at > 0 && v != env:
			return "", fmt.Errorf("%s:%d: target-env %s, where line %d says %s", name, n, v, at, env)
		}
		env, at = v, n
	}
	return env, nil
}

// Toolchain is a compiler and a validator, and the Vulkan version they
// build and check for.
type Toolchain struct {
	Glslc, SpirvVal string
	TargetEnv       string
}

// Default is glslc and spirv-val from the PATH, for TargetEnv.
var Default = Toolchain{Glslc: "glslc", SpirvVal: "spirv-val", TargetEnv: TargetEnv}

// Newer returns the toolchain that scripts/glslc13.sh fetches into the
// module's bin/tools/glslc13, for Vulkan 1.3; an error that says how to
// get it if it is not there. The module is found from dir upwards.
func Newer(dir string) (Toolchain, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Toolchain{}, err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			bin := filepath.Join(d, "bin", "tools", "glslc13", "bin")
			t := Toolchain{Glslc: filepath.Join(bin, "glslc"), SpirvVal: filepath.Join(bin, "spirv-val"), TargetEnv: "vulkan1.3"}
			if _, err := os.Stat(t.Glslc); err != nil {
				return Toolchain{}, fmt.Errorf("glslc: the newer toolchain is not in %s: run scripts/glslc13.sh", bin)
			}
			return t, nil
		}
		if filepath.Dir(d) == d {
			return Toolchain{}, fmt.Errorf("glslc: no go.mod above %s, where the newer toolchain would be", abs)
		}
	}
}

// For returns the toolchain that builds dir/source: Newer if the source
// asks for Vulkan 1.3, else Default for the version it asks for.
func For(dir, source string) (Toolchain, error) {
	text, err := os.ReadFile(filepath.Join(dir, source))
	if err != nil {
		return Toolchain{}, err
	}
	return forSource(dir, source, string(text))
}

// forSource is For of the source src, named name in errors; the newer
// toolchain is looked for from dir up.
func forSource(dir, name, src string) (Toolchain, error) {
	env, err := TargetEnvOf(name, src)
	switch {
	case err != nil:
		return Toolchain{}, err
	case env == "vulkan1.3":
		return Newer(dir)
	}
	t := Default
	t.TargetEnv = env
	return t, nil
}

// Compile builds dir/source into out with its toolchain (For). It runs in
// dir with the source's base name, so that messages name the file as the
// repository does.
func Compile(ctx context.Context, dir, source, out string) error {
	t, err := For(dir, source)
	if err != nil {
		return err
	}
	return t.compile(ctx, dir, source, out)
}

// compile builds dir/source into out (in dir unless absolute), and makes
// its float16 bfloat16 if the source asks (BFloat16Directive); source
// names it in an error.
func (t Toolchain) compile(ctx context.Context, dir, source, out string) error {
	if err := run(ctx, dir, "does not compile", t.Glslc, append(t.Flags(), source, "-o", out)...); err != nil {
		return err
	}
	if src, err := os.ReadFile(filepath.Join(dir, source)); err != nil || !wantsBFloat16(string(src)) {
		return err
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(dir, out)
	}
	code, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	if code, err = ToBFloat16(code); err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	return os.WriteFile(out, code, 0o644)
}

// CompileSource compiles the GLSL compute source src for targetEnv
// (if empty, the one its target-env line names, else TargetEnv;
// "vulkan1.3" makes SPIR-V 1.6) and returns its SPIR-V, in a temporary
// folder it removes. A source that asks for Vulkan 1.3 is built by the
// newer toolchain, found from the current folder up.
func CompileSource(ctx context.Context, src, targetEnv string) ([]byte, error) {
	t, err := forSource(".", "the source", src)
	if err != nil {
		return nil, err
	}
	if targetEnv != "" {
		t.TargetEnv = targetEnv
	}
	dir, err := os.MkdirTemp("", "vkbench-glslc-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary folder; nothing depends on it
	if err := os.WriteFile(filepath.Join(dir, "k"+SourceExt), []byte(src), 0o644); err != nil {
		return nil, err
	}
	if err := t.compile(ctx, dir, "k"+SourceExt, "k"+OutputExt); err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, "k"+OutputExt))
}

// CompileFile compiles the GLSL compute source at path with defines
// ("NAME=value", each a -D), its folder on the include path, by t's
// glslc for t's TargetEnv (a manifest's is Default's glslc, for the
// source's TargetEnvOf), and returns its SPIR-V and the files glslc read
// for it (-MD): the source and every file it #includes, directly or
// through another, as absolute paths; empty if glslc's list could not be
// read. A manifest's GLSL candidates, compiled per configuration, are
// cached on that list. A source that does not compile is an error that
// leads with glslc's words, "does not compile: /abs/k.comp:3: error: …",
// and ends with its command line and exit status.
func (t Toolchain) CompileFile(ctx context.Context, path string, defines []string) (code []byte, deps []string, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "vkbench-glslc-")
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary folder; nothing depends on it
	args := t.Flags()
	for _, d := range defines {
		args = append(args, "-D"+d)
	}
	args = append(args, "-I", filepath.Dir(abs), abs, "-o", "k"+OutputExt, "-MD", "-MF", "k.d")
	if err := run(ctx, dir, "does not compile", t.Glslc, args...); err != nil {
		return nil, nil, err
	}
	if code, err = os.ReadFile(filepath.Join(dir, "k"+OutputExt)); err != nil {
		return nil, nil, err
	}
	rule, err := os.ReadFile(filepath.Join(dir, "k.d"))
	if err != nil {
		return nil, nil, err
	}
	return code, prerequisites(string(rule)), nil
}

// prerequisites returns the files of the make rule that glslc -MD
// writes, "k.spv: /the/source /an/include ...". glslc escapes no space
// in them, but each is absolute (CompileFile names the source and the
// include folder so), so each " /" starts the next; a name with " /" in
// it comes out as two that do not exist, which costs its user a compile
// each time, not a stale kernel. Nil if the rule is not of that form.
func prerequisites(rule string) []string {
	_, list, ok := strings.Cut(rule, ": ")
	list = strings.TrimSpace(strings.ReplaceAll(list, "\\\n", " "))
	if !ok || !strings.HasPrefix(list, "/") {
		return nil
	}
	return strings.Split(strings.ReplaceAll(list, " /", "\x00/"), "\x00") // no path holds a NUL
}

// Flags are glslc's arguments before the input and output names:
// optimise (which also drops names and debug information, so the output
// depends only on the source text, not on where it lives), t's target
// environment, and the shader stage.
func (t Toolchain) Flags() []string {
	return []string{"-O", "--target-env=" + t.TargetEnv, "-fshader-stage=compute"}
}

// Validate runs spirv-val on the SPIR-V file path: the newer toolchain's
// for Vulkan 1.3 if the module is SPIR-V 1.6, else Default's for
// TargetEnv. A module with bfloat16 (BFloat16Directive) is validated as
// the compiler made it, with float16 (FromBFloat16): no spirv-val pinned
// here knows SPV_KHR_bfloat16.
func Validate(ctx context.Context, path string) error {
	code, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	t := Default
	// The version is the header's second word: 0x00010600 for SPIR-V 1.6.
	if len(code) >= 8 && binary.LittleEndian.Uint32(code[4:]) >= 0x00010600 {
		if t, err = Newer(filepath.Dir(path)); err != nil {
			return err
		}
	}
	plain, retyped, err := FromBFloat16(code)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if retyped {
		dir, err := os.MkdirTemp("", "vkbench-spirv-val-")
		if err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(dir) }() // a temporary folder; nothing depends on it
		path = filepath.Join(dir, filepath.Base(path))
		if err := os.WriteFile(path, plain, 0o644); err != nil {
			return err
		}
	}
	return run(ctx, filepath.Dir(path), "is not valid SPIR-V", t.SpirvVal, "--target-env", t.TargetEnv, filepath.Base(path))
}

// run runs tool in dir. The end of ctx kills it and every process it
// started (stopWhole), and it returns at most waitDelay later even if one
// of those got away with its output.
//
// A tool that fails and says why is an error that leads with what is
// wrong: failure ("does not compile"), then the tool's words (glslc's
// give the file and line of each error); its command line and exit
// status come after them, in parentheses. One that says nothing is its
// command line and what ended it.
func run(ctx context.Context, dir, failure, tool string, args ...string) error {
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Dir = dir
	stopWhole(cmd)
	cmd.WaitDelay = waitDelay
	out, err := cmd.CombinedOutput()
	switch out = bytes.TrimSpace(out); {
	case err == nil:
		return nil
	case len(out) == 0:
		return fmt.Errorf("%s %s: %v", tool, strings.Join(args, " "), err)
	}
	return fmt.Errorf("%s: %s\n(%s %s: %v)", failure, out, tool, strings.Join(args, " "), err)
}
