package manifest

import (
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
// (glslCacheDir), named by a digest of the compiler's flags, the source
// and the defines, and later loads read it without a compiler.
func (d *opDecoder) glslModule(c int, n, defs *jsonNode) (*manifestModule, error) {
	p, err := d.src.str(n)
	if err != nil {
		return nil, err
	}
	if p == "" {
		return nil, d.src.errAt(n, "is empty; want the path of a GLSL compute source")
	}
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(d.dir, p)
	}
	defines, err := d.defines(c, defs)
	if err != nil {
		return nil, err
	}
	name := p
	if len(defines) > 0 {
		name += "[" + strings.Join(defines, ",") + "]"
	}
	if m, ok := d.modules[full+"\x00"+name]; ok {
		return m, nil
	}
	src, err := readModule(full)
	if err != nil {
		return nil, fileError(err, "manifest: %s: reading GLSL %q", d.src.where(n), full)
	}
	code, err := compileGLSL(full, src, defines)
	if err != nil {
		return nil, errWhere(status.CodeOf(err), d.src.where(n), "%s", status.Message(err))
	}
	sm, err := spirv.Parse(code)
	if err != nil {
		return nil, d.src.errAt(n, "%s compiled to an unusable SPIR-V module: %s", name, status.Message(err))
	}
	m := &manifestModule{path: name, code: code, spv: sm}
	d.modules[full+"\x00"+name] = m
	return m, nil
}

// defines evaluates "defines" for candidate c: "NAME=value" for each,
// sorted by name.
func (d *opDecoder) defines(c int, n *jsonNode) ([]string, error) {
	if n == nil {
		return nil, nil
	}
	if _, err := d.src.object(n, `#define names to integers or expressions of the params, such as {"WG": "WG"}`); err != nil {
		return nil, err
	}
	env := exprEnv{}
	for k, v := range d.op.runs[c].params {
		env[k] = intValue(int64(v))
	}
	var out []string
	for i, name := range n.keys {
		if !isIdent(name) {
			return nil, d.src.errAt(n.vals[i], "%q is not a macro name", name)
		}
		e, err := d.intExpression(n.vals[i], defineContext, "a #define's value")
		if err != nil {
			return nil, err
		}
		if err := d.checkParams(c, &e); err != nil {
			return nil, err
		}
		v, err := e.evalInt(env)
		if err != nil {
			return nil, e.errorf(status.InvalidArgument, err)
		}
		out = append(out, name+"="+strconv.FormatInt(v, 10))
	}
	slices.Sort(out)
	return out, nil
}

// compileGLSL returns the SPIR-V of the source at path (whose text is
// src) with defines, from the cache or from glslc. Files the source
// #includes are looked for beside it, and are not in the digest: edit
// the source, or clear the cache folder, after changing one.
func compileGLSL(path string, src []byte, defines []string) ([]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "vkbench glsl v1\x00%s\x00%s\x00", strings.Join(glslc.Flags, " "), strings.Join(defines, "\x00"))
	h.Write(src)
	dir := glslCacheDir()
	cached := filepath.Join(dir, hex.EncodeToString(h.Sum(nil))+".spv")
	if code, err := os.ReadFile(cached); err == nil {
		if _, err := spirv.Parse(code); err == nil {
			return code, nil
		}
	}
	if _, err := exec.LookPath(glslc.Default.Glslc); err != nil {
		return nil, status.Newf(status.FailedPrecondition, "compiling %s needs glslc, the Khronos GLSL compiler (Debian's and Ubuntu's package glslc, or the Vulkan SDK), on the PATH: %v", filepath.Base(path), err)
	}
	code, err := glslc.CompileFile(context.Background(), path, defines)
	if err != nil {
		return nil, status.Newf(status.InvalidArgument, "%v", err)
	}
	// The cache is a convenience: a folder that cannot be written costs
	// a compile next time, nothing else.
	if os.MkdirAll(dir, 0o700) == nil {
		part := cached + ".part" + strconv.Itoa(os.Getpid())
		if os.WriteFile(part, code, 0o600) == nil && os.Rename(part, cached) != nil {
			_ = os.Remove(part)
		}
	}
	return code, nil
}

// glslCacheDir is where compiled GLSL is kept: the folder "glsl" beside
// the tune cache ($VKBENCH_CACHE, else the user's cache folder).
func glslCacheDir() string {
	path := os.Getenv(store.EnvCache)
	if path == "" {
		path = store.DefaultCachePath()
	}
	return filepath.Join(filepath.Dir(path), "glsl")
}
