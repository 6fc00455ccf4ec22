package manifest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// holdingGlslc puts on the PATH a glslc that runs the real one, except
// while the file hold in its folder exists: then the first run goes
// through and every other one starts a child that would sleep an hour,
// holding glslc's output open, and waits for it, as a compiler busy with
// a long kernel (or a wrapper script around one) would. It returns its
// folder, where the file pids lists the process ids of every run and
// child, held a line for each run that holds, and runs one for each run
// of the real glslc.
func holdingGlslc(t *testing.T) string {
	t.Helper()
	testenv.NeedGlslc(t)
	real, err := exec.LookPath("glslc")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := strings.NewReplacer("DIR", dir, "REAL", real).Replace(`#!/bin/sh
echo $$ >> 'DIR/pids'
if [ -e 'DIR/hold' ] && ! mkdir 'DIR/first' 2>/dev/null; then
	sleep 3600 &
	echo $! >> 'DIR/pids'
	echo held >> 'DIR/held'
	wait
fi
echo run >> 'DIR/runs'
exec 'REAL' "$@"
`)
	if err := os.WriteFile(filepath.Join(dir, "glslc"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// running returns those of the process ids listed in the file that are
// still running (a zombie, dead and waiting to be reaped, is not).
func running(t *testing.T, list string) []int {
	t.Helper()
	data, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	var live []int
	for _, field := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(field)
		if err != nil {
			t.Fatal(err)
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if _, after, ok := bytes.Cut(stat, []byte(") ")); err == nil && ok && !bytes.HasPrefix(after, []byte("Z")) {
			live = append(live, pid)
		}
	}
	return live
}

// lines counts the lines of the file at path, none if it is not there.
func lines(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}

// TestGLSLLoadStops: a load that compiles a batch of GLSL sources (six
// candidates, two or more at once) stops when its context is cancelled
// mid-batch, once the first compile is done and the others are under way
// in a glslc that would take an hour (holdingGlslc). Load returns within
// ten times what the first compile took, with the context's error
// (CANCELLED, errors.Is context.Canceled) saying "1 of 6 compiled"; no
// glslc it started, nor a child of one, is left running; nothing but the
// one finished module and its record is in the cache folder, nothing in
// TMPDIR; and a load with a live context compiles the other five and
// succeeds, each module the same as a load with an empty cache makes.
func TestGLSLLoadStops(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	bin := holdingGlslc(t)
	cacheDir, tmp, dir := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv(store.EnvCache, filepath.Join(cacheDir, "autotune.db"))
	t.Setenv("TMPDIR", tmp)
	src, err := os.ReadFile(filepath.Join(manifestDir, "saxpy_defines.glsl"))
	if err != nil {
		t.Fatal(err)
	}
	var cands []string
	for _, wg := range []int{32, 64} {
		for _, unroll := range []int{1, 2, 4} {
			cands = append(cands, fmt.Sprintf(`{"name": "wg%d-u%d", "glsl": "saxpy_defines.glsl", "defines": {"WG": %d, "UNROLL": %d}, "groups": ["div_up(N / 4, %d)"]}`, wg, unroll, wg, unroll, wg*unroll))
		}
	}
	path := filepath.Join(dir, "batch.json")
	for name, data := range map[string]string{"saxpy_defines.glsl": string(src), "batch.json": `{"schema": "vkbench.manifest/v1", "operations": [{"name": "batch", "dims": {"N": 4096},
		"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0}, {"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout"}],
		"push_constants": [{"type": "u32", "value": "N / 4"}, {"type": "f32", "value": 2.5}], "verify": "none",
		"candidates": [` + strings.Join(cands, ",\n") + `]}]}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "hold"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started, cancelled time.Time
	var first time.Duration
	returned := make(chan struct{})
	progress := func(p manifest.CompileProgress) {
		if p.Done == 0 {
			started = time.Now()
			return
		}
		if p.Done > 1 || first > 0 {
			t.Errorf("progress told %+v after the cancel", p)
			return
		}
		first = time.Since(started)
		// The other workers are under way: each in a glslc that holds.
		for lines(t, filepath.Join(bin, "held")) < p.Workers-1 {
			time.Sleep(time.Millisecond)
		}
		cancel()
		cancelled = time.Now()
		// Were the load to wait for the held glslc, it would wait an
		// hour: end those after the bound, so that the test fails
		// rather than hangs.
		go func() {
			select {
			case <-returned:
			case <-time.After(20 * first):
				for _, pid := range running(t, filepath.Join(bin, "pids")) {
					_ = syscall.Kill(pid, syscall.SIGKILL) // the test's own processes
				}
			}
		}()
	}
	_, err = manifest.LoadWith(path, manifest.Options{Context: ctx, Progress: progress})
	took := time.Since(cancelled)
	close(returned)
	if first == 0 {
		t.Fatalf("the load: %v, before its first compile was done", err)
	}
	t.Logf("the first compile took %v; the load returned %v after the cancel: %v", first, took, err)
	if took > 10*first {
		t.Errorf("the load returned %v after its context was cancelled, more than 10 times the %v its first compile took", took, first)
	}
	if status.CodeOf(err) != status.Cancelled || !errors.Is(err, context.Canceled) || !strings.Contains(fmt.Sprint(err), "1 of 6 compiled") {
		t.Errorf("a load cancelled mid-batch: %v; want CANCELLED, context.Canceled, saying 1 of 6 compiled", err)
	}
	var live []int
	for deadline := time.Now().Add(10 * first); ; time.Sleep(time.Millisecond) {
		if live = running(t, filepath.Join(bin, "pids")); len(live) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(live) > 0 {
		t.Errorf("processes %v that the load started are running after it returned", live)
		for _, pid := range live {
			_ = syscall.Kill(pid, syscall.SIGKILL) // the test's own processes
		}
	}
	entries, err := os.ReadDir(filepath.Join(cacheDir, "glsl"))
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if len(left) != 2 || filepath.Ext(left[0]) != ".deps" || filepath.Ext(left[1]) != ".spv" {
		t.Errorf("the cache folder holds %q; want the one module compiled and its record", left)
	}
	if tmps, _ := filepath.Glob(filepath.Join(tmp, "*")); len(tmps) > 0 {
		t.Errorf("left in TMPDIR: %v", tmps)
	}

	if err := os.Remove(filepath.Join(bin, "hold")); err != nil {
		t.Fatal(err)
	}
	before := lines(t, filepath.Join(bin, "runs"))
	ops, err := manifest.LoadWith(path, manifest.Options{Context: context.Background()})
	if err != nil {
		t.Fatalf("loading again, with a live context: %v", err)
	}
	if n := lines(t, filepath.Join(bin, "runs")) - before; n != 5 {
		t.Errorf("loading again ran glslc %d times, want 5: the modules the cancelled load did not compile", n)
	}
	t.Setenv(store.EnvCache, filepath.Join(t.TempDir(), "autotune.db"))
	fresh, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range ops[0].Candidates() {
		if !bytes.Equal(c.SPIRV, fresh[0].Candidates()[i].SPIRV) {
			t.Errorf("%s: the module after the cancelled load is not the one a load with an empty cache compiles", c.Name)
		}
	}
}
