package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio"
)

// quickRun is a run that writes a small JSON result.
var quickRun = []string{"run", "copy", "--size", "1024", "--budget", "50ms", "--min-samples", "6", "--max-samples", "6", "--quiet", "--cache", "off", "--format", "json"}

// TestOutputThroughLink: -o names a symbolic link: the file it points to
// is replaced, atomically, keeping its permissions, and the link stays a
// link (it was replaced by a regular file of mode 0644).
func TestOutputThroughLink(t *testing.T) {
	needDevice(t)
	dir := t.TempDir()
	target, link := filepath.Join(dir, "results.json"), filepath.Join(dir, "latest.json")
	if err := os.WriteFile(target, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o600); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if err := os.Symlink("results.json", link); err != nil {
		t.Fatal(err)
	}
	mustRun(t, exitOK, append(quickRun, "-o", link)...)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("-o %s: the link is now %v (%v), want it a symbolic link still", link, fi.Mode(), err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the file the link names has mode %v, want 0600 as before", fi.Mode().Perm())
	}
	if data, err := os.ReadFile(target); err != nil || !strings.HasPrefix(string(data), "{") {
		t.Errorf("the file the link names holds %.40q (%v), want the results", data, err)
	}
	if stray, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(stray) > 0 {
		t.Errorf("temporary files left: %v", stray)
	}
}

// TestOutputToDescriptor: -o names a link to a descriptor, as /dev/stdout
// is (a link to /proc/self/fd/1), with standard output a regular file: the
// output goes into that file through the descriptor, as a shell's
// redirection would, and the link is left alone (run as root, -o
// /dev/stdout replaced /dev/stdout itself with a regular file). The test
// uses a link of its own, so that a broken vkbench cannot break the
// machine's /dev/stdout.
func TestOutputToDescriptor(t *testing.T) {
	needDevice(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "stdout")
	if err := os.Symlink("/proc/self/fd/1", link); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	cmd := exec.Command(os.Args[0], append(quickRun, "-o", link)...)
	cmd.Env = append(os.Environ(), "VKBENCH_TEST_MAIN=1")
	cmd.Stdout = f
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("-o %s: %v\n%s", link, err, stderr.String())
	}
	if data, err := os.ReadFile(out); err != nil || !strings.HasPrefix(string(data), "{") {
		t.Errorf("standard output's file holds %.40q (%v), want the results", data, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link to the descriptor is now %v (%v), want it a link still", fi.Mode(), err)
	}
}

// TestOutputFullDisk: an output that cannot be written (a full disk, here
// /dev/full) exits 4, not 3, which is a device's failure, and the message
// names the output as the user gave it, not a temporary file.
func TestOutputFullDisk(t *testing.T) {
	needDevice(t)
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Fatalf("no /dev/full here: %v", err)
	}
	r := vkbench(t, append(quickRun, "-o", "/dev/full")...)
	if r.code != exitOutput || r.stderr != "vkbench: -o /dev/full: no space left on device\n" {
		t.Errorf("-o /dev/full: exit status %d, stderr %q; want 4 and the line naming /dev/full", r.code, r.stderr)
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := full.Close(); err != nil {
			t.Error(err)
		}
	})
	if code, stderr := runWithStdout(t, full, quickRun...); code != exitOutput || stderr != "vkbench: standard output: no space left on device\n" {
		t.Errorf("standard output on /dev/full: exit status %d, stderr %q; want 4 and the line naming standard output", code, stderr)
	}
}

// runWithStdout runs the command as a process of its own, args its
// arguments, with stdout its standard output, and returns its exit status
// (-1 where a signal ended it) and what it wrote on standard error.
func runWithStdout(t *testing.T, stdout *os.File, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "VKBENCH_TEST_MAIN=1")
	cmd.Stdout = stdout
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// fullWriter is a standard output that takes nothing, as a full disk.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestStandardOutputFull: a command that writes to standard output alone
// (compare, cache path, help) exits 4 where it cannot, as run does, naming
// standard output, not 3, which is a device's failure. Help's writer drops
// the error: it exited 0 having written nothing.
func TestStandardOutputFull(t *testing.T) {
	for _, args := range [][]string{
		{"--help"},
		{"help", "run"},
		{"run", "--help"},
		{"compare", compareData("base.json"), compareData("base.json")},
		{"cache", "path", "--cache", filepath.Join(t.TempDir(), "tune.cache")},
		{"cache", "export-log", "--cache", filepath.Join(t.TempDir(), "tune.cache")},
	} {
		var stderr strings.Builder
		code := execute(context.Background(), args, fullWriter{}, &stderr)
		if code != exitOutput || stderr.String() != "vkbench: standard output: no space left on device\n" {
			t.Errorf("vkbench %s on a full standard output: exit status %d, stderr %q; want 4 and the line naming standard output", strings.Join(args, " "), code, stderr.String())
		}
	}
}

// TestClosedPipe: standard output is a pipe its reader has closed
// (vkbench ... | head): the command exits 4 with a line naming standard
// output, as for a full disk, where the signal killed it (status 141, no
// word of it).
func TestClosedPipe(t *testing.T) {
	for _, args := range [][]string{
		{"compare", compareData("base.json"), compareData("base.json")},
		{"--help"},
		{"cache", "path", "--cache", filepath.Join(t.TempDir(), "tune.cache")},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		code, stderr := runWithStdout(t, w, args...)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if code != exitOutput || stderr != "vkbench: standard output: broken pipe\n" {
			t.Errorf("vkbench %s | (closed): exit status %d, stderr %q; want 4 and the line naming standard output", strings.Join(args, " "), code, stderr)
		}
	}
}

// TestOutputOverInput: an -o that is a file the command reads (run's
// and tune's --manifest, ab's OLD or NEW, a file a manifest names: its
// .npy input, its module or source; compare's and report's files,
// replay's log), by its own name, another path to it or a link, is
// refused, exit 2, before any work, naming the path given, the input and
// what it is, and the input is left byte for byte as it was. Before,
// two checks said it two ways, and only the second named what the file
// is.
func TestOutputOverInput(t *testing.T) {
	dir := t.TempDir()
	place := func(src, name string) string {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	link := func(target, name string) string {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, name)
	}
	manifests := filepath.Join("..", "..", "testdata", "manifests")
	place(filepath.Join(manifests, "fma_iters.spv"), "fma_iters.spv")
	old := place(abManifest("old.json"), filepath.Join("m", "old.json"))
	spv := place(filepath.Join(manifests, "saxpy.spv"), "saxpy.spv")
	glsl := place(filepath.Join(manifests, "saxpy_defines.glsl"), "saxpy_defines.glsl")
	npy := filepath.Join(dir, "x.npy")
	f, err := os.Create(npy)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(npyio.Write(f, make([]float32, 1024)), f.Close()); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "m.json")
	text := `{"schema": "vkbench.manifest/v1", "operations": [{"name": "saxpy", "dims": {"N": 1024},
	"buffers": [{"name": "x", "type": "f32", "len": "N", "binding": 0, "init": {"npy": "x.npy"}},
		{"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout"}],
	"push_constants": [{"type": "u32", "value": "N"}, {"type": "f32", "value": 2.5}],
	"verify": {"reference": "scalar"},
	"candidates": [{"name": "scalar", "spirv": "saxpy.spv", "groups": ["div_up(N, 256)"]},
		{"name": "vec4", "glsl": "saxpy_defines.glsl", "defines": {"WG": 64, "UNROLL": 1},
		 "push_constants": [{"type": "u32", "value": "N / 4"}, {"type": "f32", "value": 2.5}], "groups": ["div_up(N / 4, 64)"]}]}]}`
	if err := os.WriteFile(m, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := place(compareData("base.json"), "base.json")
	tuneLog := place(modelLog, "gemm.jsonl")
	t.Setenv("VKBENCH_CACHE", filepath.Join(t.TempDir(), "tune.db"))
	quick := []string{"--size", "1024", "--budget", "50ms", "--min-samples", "6", "--max-samples", "6", "--quiet", "--cache", "off"}
	abQuick := append([]string{"--count", "1", "--max-time", "0"}, quick...)
	named := "which the manifest " + m + " names"
	for _, c := range []struct {
		out, in, what string
		args          []string
	}{
		{old, old, "the --manifest file", append([]string{"run", "--manifest", old}, quick...)},
		{link(old, "alias.json"), old, "the --manifest file", append([]string{"tune", "--manifest", old}, quick...)},
		{old, old, "ab's OLD manifest", append([]string{"ab", old, abManifest("same.json")}, abQuick...)},
		{filepath.Join(dir, "alias.json"), old, "ab's NEW manifest", append([]string{"ab", abManifest("same.json"), old}, abQuick...)},
		{npy, npy, named, append([]string{"run", "--manifest", m}, quick...)},
		{filepath.Join(dir, "sub", "..", "x.npy"), npy, named, append([]string{"tune", "--manifest", m}, quick...)},
		{link(npy, "link.npy"), npy, named, append([]string{"run", "--manifest", m}, quick...)},
		{spv, spv, named, append([]string{"run", "--manifest", m}, quick...)},
		{glsl, glsl, named, append([]string{"run", "--manifest", m}, quick...)},
		{npy, npy, named, append([]string{"ab", m, m}, abQuick...)},
		{link(base, "alias-base.json"), base, "a file compared", []string{"compare", compareData("slower.json"), base}},
		{link(base, "alias.svg"), base, "a file the report draws", []string{"report", compareData("slower.json"), base}},
		{link(tuneLog, "log.svg"), tuneLog, "a file the report draws", []string{"report", tuneLog}},
		{tuneLog, tuneLog, "the tuning log replayed", []string{"replay", tuneLog, "--format", "log"}},
	} {
		orig, err := os.ReadFile(c.in)
		if err != nil {
			t.Fatal(err)
		}
		args := append(c.args, "-o", c.out)
		wantUsage(t, `^vkbench: -o `+regexp.QuoteMeta(c.out)+` is `+regexp.QuoteMeta(c.in)+`, `+regexp.QuoteMeta(c.what)+`; writing there would destroy it\n$`, args...)
		if got, err := os.ReadFile(c.in); err != nil || !bytes.Equal(got, orig) {
			t.Errorf("vkbench %s: %s was changed (%v)", strings.Join(args, " "), c.in, err)
		}
	}
}
