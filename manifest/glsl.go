package manifest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/internal/glslc"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// glslModule compiles the GLSL compute source that n names with the
// #defines of candidate c (defs: names to integer expressions of its
// params, so that a space spans them), through glslc, once for each
// source and set of defines: the SPIR-V is kept in the cache folder
// (glslCacheDir) with the files it was compiled from (glslJob.compile), and
// later loads read it without a compiler while those are unchanged.
func (d *opDecoder) glslModule(c int, n, defs *jsonNode) (*manifestModule, error) {
	p, full := d.path(n, "a GLSL compute source")
	defines := must(d.defines(c, defs))
	name := p
	if len(defines) > 0 {
		name += "[" + strings.Join(defines, ",") + "]"
	}
	key := full + "\x00" + name
	if m, ok := d.modules[key]; ok {
		d.op.addFiles(m.includes...)
		return m, nil
	}
	if err := d.failed[key]; err != nil {
		return nil, errWhere(status.CodeOf(err), d.src.where(n), "%s", status.Message(err))
	}
	src, err := readModule(full)
	if err != nil {
		return nil, fileError(err, "manifest: %s: reading GLSL %q", d.src.where(n), full)
	}
	if bytes.Contains(src, []byte{0}) { // glslc would quote its whole table of built-ins
		return nil, d.src.errAt(n, "%q is binary, not GLSL source (a SPIR-V module goes in \"spirv\")", full)
	}
	// The first pass (gather) takes a module the cache holds; one it does
	// not is noted for compileAhead, and the candidate stops here.
	job := glslJob{key: key, name: name, path: full, src: src, defines: defines}
	m, err := job.compile(d.opts.context(), d.gather != nil)
	if d.gather != nil && m == nil && err == nil {
		d.gather[key] = job
		return nil, errGathered
	}
	if err != nil {
		return nil, errWhere(status.CodeOf(err), d.src.where(n), "%s", status.Message(err))
	}
	d.modules[key] = m
	d.op.addFiles(m.includes...)
	return m, nil
}

// errGathered stops a candidate in compileAhead's first pass at a GLSL
// source to compile.
var errGathered = status.New(status.Unavailable, "manifest: compiled ahead")

// defines evaluates "defines" for candidate c: "NAME=value" for each,
// sorted by name.
func (d *opDecoder) defines(c int, n *jsonNode) ([]string, error) {
	if n == nil {
		return nil, nil
	}
	must(d.src.object(n, `#define names to integers or expressions of the params, such as {"WG": "WG"}`))
	env := intEnv(d.op.runs[c].params)
	var out []string
	for i, name := range n.keys {
		if !isIdent(name) {
			return nil, d.src.errAt(n.vals[i], "%q is not a macro name", name)
		}
		e := must(d.intExpression(n.vals[i], defineContext, "a #define's value"))
		check(d.checkParams(c, &e))
		v, err := e.evalInt(env)
		if err != nil {
			return nil, e.errorf(status.InvalidArgument, err)
		}
		out = append(out, name+"="+strconv.FormatInt(v, 10))
	}
	slices.Sort(out)
	return out, nil
}

// compile returns the module of j's source with its defines, for the
// Vulkan version its target-env line names, from the cache or, unless
// cachedOnly (nil then if the cache holds nothing), from glslc. A cache
// entry is the SPIR-V, named by a digest of the compiler's flags, the
// defines, the source's folder (where its #includes are looked for) and
// its text, and beside it a record of the files glslc read for it,
// #includes of #includes too, with a digest of each and of the SPIR-V:
// the entry answers while every one of them reads as it did, so an
// edited header is compiled again. The module's includes are those
// files; a compile that ctx stops fails with ctx's error.
func (j glslJob) compile(ctx context.Context, cachedOnly bool) (*manifestModule, error) {
	abs, err := filepath.Abs(j.path)
	if err != nil {
		return nil, status.Newf(status.InvalidArgument, "%v", err)
	}
	tc := glslc.Default
	if tc.TargetEnv, err = glslc.TargetEnvOf(j.path, string(j.src)); err != nil {
		return nil, status.Newf(status.InvalidArgument, "%v", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "vkbench glsl v2\x00%s\x00%s\x00%s\x00", strings.Join(tc.Flags(), " "), strings.Join(j.defines, "\x00"), filepath.Dir(abs))
	h.Write(j.src)
	cached := filepath.Join(glslCacheDir(), hex.EncodeToString(h.Sum(nil))+".spv")
	code, deps, err := cachedGLSL(cached, filepath.Base(j.path))
	switch {
	case err != nil || code == nil && cachedOnly:
		return nil, err
	case code == nil:
		if _, err := exec.LookPath(tc.Glslc); err != nil {
			return nil, status.Newf(status.FailedPrecondition, "compiling %s needs glslc, the Khronos GLSL compiler (Debian's and Ubuntu's package glslc, or the Vulkan SDK), on the PATH: %v", filepath.Base(j.path), err)
		}
		code, deps, err = tc.CompileFile(ctx, abs, j.defines)
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		if err != nil {
			return nil, status.Newf(status.InvalidArgument, "%v", err)
		}
		keepGLSL(cached, code, deps)
	}
	sm, err := spirv.Parse(code)
	if err != nil {
		return nil, status.Newf(status.InvalidArgument, "%s compiled to an unusable SPIR-V module: %s", j.name, status.Message(err))
	}
	return &manifestModule{path: j.name, code: code, spv: sm, includes: deps}, nil
}

// cachedGLSL returns the SPIR-V of source kept at path, and the files
// it was compiled from, if its record (depsPath) is of that very SPIR-V
// and every file it names has the digest it gives; nil if not, or if any of them cannot be read: glslc,
// compiling again, says what is wrong. A file that is there but is not a
// regular one (a named pipe, on which glslc would wait forever) is an
// error.
func cachedGLSL(path, source string) (code []byte, deps []string, err error) {
	rec, err := os.ReadFile(depsPath(path))
	if err != nil {
		return nil, nil, nil
	}
	code, err = os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(rec), "\n"), "\n")
	if err != nil || len(lines) < 2 || lines[0] != digest(code) {
		return nil, nil, nil
	}
	for _, line := range lines[1:] {
		sum, dep, _ := strings.Cut(line, " ")
		if fi, err := os.Stat(dep); err == nil && !fi.Mode().IsRegular() {
			return nil, nil, status.Newf(status.InvalidArgument, "compiling %s reads %s, which is not a regular file", source, dep)
		}
		text, err := readModule(dep)
		if err != nil || digest(text) != sum {
			return nil, nil, nil
		}
		deps = append(deps, dep)
	}
	return code, deps, nil
}

// keepGLSL writes code to path, and the record of deps, the files it was
// compiled from, beside it. The cache is a convenience: a folder that
// cannot be written, or a file that cannot be read now, costs a compile
// next time, nothing else.
func keepGLSL(path string, code []byte, deps []string) {
	rec := digest(code) + "\n"
	for _, dep := range deps {
		text, err := readModule(dep)
		if err != nil || strings.ContainsRune(dep, '\n') {
			return
		}
		rec += digest(text) + " " + dep + "\n"
	}
	if len(deps) == 0 || os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	// Each file is renamed into place whole; the record names the SPIR-V
	// it goes with, so two processes writing one entry at once leave
	// either a matching pair or a miss.
	for _, f := range []struct {
		path string
		data []byte
	}{{path, code}, {depsPath(path), []byte(rec)}} {
		part := f.path + ".part" + strconv.Itoa(os.Getpid())
		if os.WriteFile(part, f.data, 0o600) != nil || os.Rename(part, f.path) != nil {
			_ = os.Remove(part)
			return
		}
	}
}

// depsPath is the record of the files that the SPIR-V at path was
// compiled from.
func depsPath(path string) string { return strings.TrimSuffix(path, ".spv") + ".deps" }

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// glslCacheDir is where compiled GLSL is kept: the folder "glsl" beside
// the tune cache ($VKBENCH_CACHE, else the user's cache folder).
func glslCacheDir() string {
	return filepath.Join(filepath.Dir(cmp.Or(os.Getenv(store.EnvCache), store.DefaultCachePath())), "glsl")
}
