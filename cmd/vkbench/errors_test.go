package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// checkOneLine checks that a failed command said so in exactly one line on
// stderr, "vkbench: ...", with no usage dump, no stack trace and nothing on
// stdout.
func checkOneLine(t testing.TB, r result, want *regexp.Regexp) {
	t.Helper()
	if !strings.HasPrefix(r.stderr, "vkbench: ") || strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("stderr is not one line starting with \"vkbench: \":\n%s", r.stderr)
	}
	for _, bad := range []string{"Usage:", "goroutine ", "panic", "Flags:", ".go:"} {
		if strings.Contains(r.stderr, bad) {
			t.Errorf("stderr contains %q:\n%s", bad, r.stderr)
		}
	}
	if want != nil && !want.MatchString(r.stderr) {
		t.Errorf("stderr %q does not match %q", r.stderr, want)
	}
	if r.stdout != "" {
		t.Errorf("stdout is not empty:\n%s", r.stdout)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	// A path under a regular file cannot be a cache: no one, not even
	// root, can create a folder there.
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	badCache := filepath.Join(file, "cache.db")
	report := filepath.Join(dir, "report.html")
	for _, tc := range []struct {
		name   string
		device bool // the case opens the device
		args   []string
		want   string // regexp of stderr
	}{
		{"unknown command", false, []string{"bogus"}, `unknown command "bogus" for "vkbench"`},
		{"unknown cache command", false, []string{"cache", "bogus"}, `unknown command "bogus" for "vkbench cache"`},
		{"misspelt command", false, []string{"tnue", "copy"}, `unknown command "tnue" for "vkbench"; did you mean tune\? \(see vkbench --help\)`},
		{"misspelt cache command", false, []string{"cache", "lss"}, `unknown command "lss" for "vkbench cache"; did you mean ls\?`},
		{"unknown help topic", false, []string{"help", "bogus"}, `unknown help topic "bogus"`},
		{"unknown completion shell", false, []string{"completion", "cmd"}, `unknown command "cmd"`},
		{"argument to devices", false, []string{"devices", "extra"}, `unknown command "extra" for "vkbench devices"`},
		{"argument to peak", false, []string{"peak", "extra"}, `peak takes no arguments, got 1: \["extra"\] \(see vkbench peak --help\)`},
		{"two keys to cache show", false, []string{"cache", "show", "a", "b"}, `show takes 1 argument, got 2: \["a" "b"\]`},
		{"unknown flag", false, []string{"run", "--bogus"}, `unknown flag: --bogus`},
		{"unknown shorthand", false, []string{"compare", "-z"}, `unknown shorthand flag: 'z'`},
		{"bad flag value", false, []string{"run", "copy", "--budget", "soon"}, `invalid argument "soon" for "--budget"`},
		{"unknown operation", false, []string{"run", "nosuchop"}, `no operation "nosuchop"`},
		{"unknown format", false, []string{"run", "copy", "--format", "xml"}, `unknown --format "xml"`},
		{"no --hot (the default)", false, []string{"run", "copy", "--hot"}, `unknown flag: --hot`},
		{"no ab --junit (--format junit)", false, []string{"ab", "a.json", "b.json", "--junit", "x.xml"}, `unknown flag: --junit`},
		{"no --level on run", false, []string{"run", "copy", "--level", "full"}, `unknown flag: --level`},
		{"no --manifest on peak", false, []string{"peak", "--manifest", "k.json"}, `unknown flag: --manifest`},
		{"zero samples", false, []string{"run", "copy", "--min-samples", "0"}, `--min-samples`},
		{"too few samples for a 95% interval", false, []string{"run", "copy", "--min-samples", "5", "--max-samples", "5"}, `--min-samples 5: a 95% confidence interval of the median needs at least 6 samples`},
		{"unknown level", false, []string{"tune", "copy", "--level", "ludicrous"}, `ludicrous`},
		{"bad candidates regexp", false, []string{"run", "copy", "--candidates", "(vec4"}, `--candidates "\(vec4": error parsing regexp`},
		{"no candidate matches", false, []string{"run", "copy", "triad", "--candidates", "nosuch"}, `--candidates "nosuch" matches no candidate of copy, triad`},
		{"candidates on tune", false, []string{"tune", "copy", "--candidates", "vec4"}, `unknown flag: --candidates`},
		{"unreadable manifest", false, []string{"run", "copy", "--manifest", "/nonexistent.json"}, `/nonexistent.json`},
		{"device out of range", true, []string{"run", "copy", "--device", "7", "--cache", "off"}, `(?m)device 7 is out of range: there (is 1 device, 0|are \d+ devices, 0 to \d+)$`},
		{"no such device", true, []string{"run", "copy", "--device", "no-such-gpu", "--cache", "off"}, `no device.s name or UUID matches`},
		{"bad size", true, []string{"run", "copy", "--size", "1x2x3", "--cache", "off"}, `: 3 extents for 1 dimension \(N\)`},
		{"cache under a file: run", false, []string{"run", "copy", "--cache", badCache}, `--cache .*: .* is not a folder`},
		{"cache under a file: tune", false, []string{"tune", "copy", "--cache", badCache}, `is not a folder`},
		{"cache under a file: compile-only", false, []string{"tune", "--compile-only", "--cache", badCache}, `is not a folder`},
		{"cache under a file: peak", false, []string{"peak", "--cache", badCache}, `is not a folder`},
		{"cache under a file: ls", false, []string{"cache", "ls", "--cache", badCache}, `is not a folder`},
		{"cache under a file: clear", false, []string{"cache", "clear", "--cache", badCache}, `is not a folder`},
		{"cache under a file: import", false, []string{"cache", "import", compareData("base.json"), "--cache", badCache}, `is not a folder`},
		{"cache is a folder", false, []string{"cache", "ls", "--cache", dir}, `not a regular file`},
		{"bad key", false, []string{"cache", "show", "nokey", "--cache", "off"}, `bad key "nokey"`},
		{"import missing file", false, []string{"cache", "import", "/nonexistent.json", "--cache", "off"}, `/nonexistent.json`},
		{"export to a bad path", false, []string{"cache", "export", badCache + ".json", "--cache", "off"}, `it has no tables|not a directory`},
		{"compare one file", false, []string{"compare", compareData("base.json")}, `compare takes BASE NEW, or BASE\.\.\. -- NEW\.\.\. .*got 1 argument`},
		{"compare nothing after --", false, []string{"compare", compareData("base.json"), "--"}, `needs a file on each side of --; got 1 before it and 0 after`},
		{"compare other hardware", false, []string{"compare", compareData("base.json"), compareData("other-hardware.json"), "--", compareData("slower.json")}, `files of different hardware`},
		{"compare malformed", false, []string{"compare", compareData("malformed.json"), compareData("base.json")}, `in .*malformed.json: .*malformed JSON`},
		{"compare wrong schema", false, []string{"compare", compareData("base.json"), compareData("wrong-schema.json")}, `schema "vkbench.results/v0"`},
		{"compare missing file", false, []string{"compare", "/nonexistent.json", compareData("base.json")}, `/nonexistent.json`},
		{"compare not results", false, []string{"compare", cliData("results.schema.json"), compareData("base.json")}, `schema`},
		{"compare format", false, []string{"compare", "--format", "xml", compareData("base.json"), compareData("base.json")}, `unknown --format "xml"`},
		{"compare format before files", false, []string{"compare", "--format", "xml", "/nonexistent.json", compareData("base.json")}, `unknown --format "xml" \(want table, json or junit\)`},
		{"compare alpha", false, []string{"compare", "--alpha", "2", compareData("base.json"), compareData("base.json")}, `--alpha`},
		{"compare relative and own times", false, []string{"compare", "--relative", "--own-times", compareData("base.json"), compareData("base.json")}, `--relative and --own-times say opposite things`},
		{"report no file", false, []string{"report", "-o", report}, `at least one result file`},
		{"report no output", false, []string{"report", compareData("base.json")}, `needs -o`},
		{"report format", false, []string{"report", compareData("base.json"), "-o", "report.pdf"}, `-o report.pdf: report: unknown format ".pdf"`},
		{"report malformed", false, []string{"report", compareData("malformed.json"), "-o", report}, `malformed JSON`},
		{"report bad output path", false, []string{"report", compareData("base.json"), "-o", filepath.Join(file, "r.svg"), "--peak-gbps", "1", "--peak-gflops", "1"}, `not a directory`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.device {
				needDevice(t)
			}
			args := tc.args
			r := vkbench(t, args...)
			if r.code != exitUsage {
				t.Errorf("vkbench %s: exit status %d, want %d; stderr: %s", strings.Join(args, " "), r.code, exitUsage, r.stderr)
			}
			checkOneLine(t, r, regexp.MustCompile(tc.want))
		})
	}
	if _, err := os.Stat(report); err == nil {
		t.Errorf("a failed report wrote %s", report)
	}
}

// unwritableCache is the line of a command that would write the tune
// cache file path, which cannot be written: what is wrong, in the user's
// terms, and what to do.
func unwritableCache(path string) *regexp.Regexp {
	return regexp.MustCompile(`^vkbench: --cache ` + regexp.QuoteMeta(path) + `: the tune cache file cannot be written \((permission denied|operation not permitted|read-only file system)\): point --cache or \$VKBENCH_CACHE at one that can; run reads this one as it is\n$`)
}

// TestReadOnlyCacheFolder points --cache into a folder no one may write,
// root included (chattr +i): one line naming the path and saying what to
// do, exit status 2, and nothing written there.
func TestReadOnlyCacheFolder(t *testing.T) {
	devtest.NeedVulkan(t)
	dir := filepath.Join(t.TempDir(), "readonly")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if ok, why := devtest.MakeUnwritable(t, dir); !ok {
		t.Skip("cannot make a folder unwritable here: " + why)
	}
	cache := filepath.Join(dir, "cache.db")
	for _, args := range [][]string{
		{"tune", "copy", "--cache", cache},
		{"peak", "--cache", cache},
		{"cache", "clear", "--cache", cache},
	} {
		r := vkbench(t, args...)
		if r.code != exitUsage {
			t.Errorf("vkbench %s: exit status %d, want %d; stderr: %s", strings.Join(args, " "), r.code, exitUsage, r.stderr)
		}
		checkOneLine(t, r, unwritableCache(cache))
	}
	// run only reads the tune cache: one that cannot be written serves it.
	if r := vkbench(t, "run", "copy", "--size", "4096", "--budget", "100ms", "--quiet", "--cache", cache); r.code != exitOK || r.stderr != "" {
		t.Errorf("run with a cache in a read-only folder: exit status %d, stderr %q; want 0 and nothing said", r.code, r.stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("the read-only folder holds %d entries after the failures", len(entries))
	}
}

// TestReadOnlyMountCache points --cache into a file system mounted
// read-only (a cache on a CI runner's read-only volume): tune says what to
// do, as for a folder no one may write, where it said only "read-only file
// system".
func TestReadOnlyMountCache(t *testing.T) {
	devtest.NeedVulkan(t)
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a read-only file system here (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	cache := filepath.Join(dir, "cache.db")
	r := vkbench(t, "tune", "copy", "--cache", cache)
	if r.code != exitUsage {
		t.Errorf("tune on a read-only mount: exit status %d, want %d; stderr: %s", r.code, exitUsage, r.stderr)
	}
	checkOneLine(t, r, unwritableCache(cache))
}

// TestRunReadOnlyCache: run reads a tune cache it cannot write (a team's
// file, a read-only mount) and leaves it as it is, with nothing to say;
// tune refuses it, saying what to do. (Root may write a file chmod 444
// leaves: MakeUnwritable makes it immutable instead.)
func TestRunReadOnlyCache(t *testing.T) {
	needDevice(t)
	cache := filepath.Join(t.TempDir(), "cache.db")
	mustRun(t, 0, "tune", "copy", "--size", "4096", "--budget", "100ms", "--min-samples", "6", "--max-samples", "6", "--quiet", "--cache", cache)
	before, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := devtest.MakeUnwritable(t, cache); !ok {
		t.Skip("cannot make a file unwritable here: " + why)
	}
	r := vkbench(t, "tune", "copy", "--cache", cache)
	if r.code != exitUsage {
		t.Errorf("tune with a read-only cache: exit status %d, want %d", r.code, exitUsage)
	}
	checkOneLine(t, r, unwritableCache(cache))
	r = vkbench(t, "run", "copy", "--size", "4096", "--budget", "100ms", "--quiet", "--cache", cache)
	if r.code != exitOK || r.stderr != "" || !strings.Contains(r.stdout, "copy u32, size 4096") {
		t.Errorf("run with a read-only cache: exit status %d, stderr %q; want 0, its table, and nothing on stderr\n%s", r.code, r.stderr, r.stdout)
	}
	if after, err := os.ReadFile(cache); err != nil || !bytes.Equal(before, after) {
		t.Errorf("the read-only cache changed (%v)", err)
	}
}

// The test binary is also vkbench itself when VKBENCH_TEST_MAIN is set, so
// that a test can run the command as a process: with its own environment,
// through main and os.Exit.
func init() {
	if os.Getenv("VKBENCH_TEST_MAIN") == "1" {
		main()
	}
}

// vkbenchProcess runs the command line args in a child process with env
// added to its environment.
func vkbenchProcess(t testing.TB, env []string, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "VKBENCH_TEST_MAIN=1"), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running %s: %v", os.Args[0], err)
		}
		code = ee.ExitCode()
	}
	checkDriverMessages(t, args, errb.String())
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

func TestProcessExitStatus(t *testing.T) {
	r := vkbenchProcess(t, nil, "compare", compareData("base.json"), compareData("slower.json"))
	if r.code != exitRegression || !strings.Contains(r.stdout, "slower") {
		t.Errorf("compare of a regression as a process: exit status %d, want %d\n%s%s", r.code, exitRegression, r.stdout, r.stderr)
	}
	r = vkbenchProcess(t, nil, "bogus")
	if r.code != exitUsage {
		t.Errorf("an unknown command as a process: exit status %d, want %d", r.code, exitUsage)
	}
	checkOneLine(t, r, nil)
}

// TestDeviceFailure runs vkbench where the Vulkan loader finds no driver:
// a device failure, exit status 3, in one line.
func TestDeviceFailure(t *testing.T) {
	needDevice(t) // the loader is there; only the driver is hidden
	// Without validation: with it the loader also reports, as warnings,
	// that it found no driver.
	noDriver := []string{"VK_ICD_FILENAMES=/nonexistent/icd.json", "VK_DRIVER_FILES=/nonexistent/icd.json", "VK_ADD_DRIVER_FILES=", "VKBENCH_VALIDATION=0"}
	for _, args := range [][]string{
		{"devices"},
		{"devices", "--format", "json"},
		append([]string{"run", "--cache", "off"}, runArgs...),
		{"tune", "--compile-only", "--cache", "off"},
	} {
		r := vkbenchProcess(t, noDriver, args...)
		if r.code != exitDevice {
			t.Errorf("vkbench %s without a driver: exit status %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, exitDevice, r.stdout, r.stderr)
		}
		checkOneLine(t, r, nil)
	}
}

// TestExitCodeOfEveryCode: an error of every status code that reaches
// the exit status, bare or annotated, exits as README's table of exit
// statuses says: 2 for what the user gave (an argument or a name that is
// wrong or not there, a value out of range, something to create that
// exists, a path or a shared store that refuses the user or their
// credentials); 1 for a kernel that computed a wrong result, whatever
// code the error carries, and for an operation the device cannot run
// (FAILED_PRECONDITION: its reference candidate cannot run, no candidate
// computed correctly; UNIMPLEMENTED: the device lacks what it needs),
// since each is a verdict on the kernels; 3 for a device or driver
// failure and any other failure of the work (cancelled, out of time or
// memory, aborted, a bug, out of reach, lost, made for another driver),
// and for every error of opening a device but the user's (openError). A
// wrong result exited 3 (FAILED_PRECONDITION), and a store that refused
// the credentials 3, before; FAILED_PRECONDITION and UNIMPLEMENTED
// exited 3, and validation asked for where its layer is not installed 3.
func TestExitCodeOfEveryCode(t *testing.T) {
	want := map[status.Code]int{
		status.Cancelled: exitDevice, status.Unknown: exitDevice, status.InvalidArgument: exitUsage,
		status.DeadlineExceeded: exitDevice, status.NotFound: exitUsage, status.AlreadyExists: exitUsage,
		status.PermissionDenied: exitUsage, status.ResourceExhausted: exitDevice, status.FailedPrecondition: exitRegression,
		status.Aborted: exitDevice, status.OutOfRange: exitUsage, status.Unimplemented: exitRegression,
		status.Internal: exitDevice, status.Unavailable: exitDevice, status.DataLoss: exitDevice,
		status.Unauthenticated: exitUsage, status.Deferred: exitDevice, status.Incompatible: exitDevice,
	}
	for c := status.Cancelled; c.String() != fmt.Sprintf("CODE(%d)", c); c++ {
		w, ok := want[c]
		if !ok {
			t.Errorf("%v: no exit status expected of it; the README's table says where it belongs", c)
		}
		for _, err := range []error{c, status.Annotate(c, "vkbench: a step"), status.New(c, "what failed")} {
			if got := exitCode(err); got != w {
				t.Errorf("exitCode(%v) = %d, want %d", err, got, w)
			}
		}
	}
	wrong := status.Annotatef(kernels.ErrWrongResult, "verifying %s", "wg64")
	cannot := status.New(status.Unimplemented, "kernels: scalar: needs a subgroup size of at least 64, device has 8")
	validation := status.New(status.FailedPrecondition, "vk: validation was asked for but the layer VK_LAYER_KHRONOS_validation is not installed")
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{wrong, exitRegression},
		{status.Wrap(wrong, status.FailedPrecondition, "autotune: no candidate computed correctly"), exitRegression},
		{status.Wrap(wrong, status.Internal, "autotune: round 3"), exitRegression}, // whatever its code
		{status.Join(hal.ErrDeviceLost, wrong), exitDevice},                        // the device, lost, is the larger failure
		{status.Wrap(cannot, status.FailedPrecondition, `manifest: the reference candidate "scalar" cannot run`), exitRegression},
		{status.Annotate(hal.ErrReleased, "vk: Submit: device was released"), exitDevice},         // a bug, not a verdict
		{status.Annotate(hal.ErrInFlight, "vk: Submit: command buffer is in flight"), exitDevice}, // likewise
		{errFailed("candidate wg64 computed a wrong result"), exitRegression},
		{usageError{status.Internal}, exitUsage},
		{errOutput{status.Internal}, exitOutput},
		{openError("", validation), exitUsage},
		{openError("", status.New(status.Unimplemented, "vk: Open: device 1 (old) cannot be used: Vulkan 1.1")), exitDevice},
		{openError("", status.New(status.Incompatible, "vk: the Vulkan loader supports Vulkan 1.1")), exitDevice},
		{openError("", status.New(status.NotFound, "hal: unknown driver")), exitDevice},
		{openError("7", status.New(status.NotFound, "hal: device 7 is out of range")), exitUsage},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// TestExitValidationNotInstalled: validation asked for (--validation, or
// VKBENCH_VALIDATION=1) where the Khronos validation layer is not
// installed is the user's configuration to fix, exit status 2, in one line
// that names the layer, from every command that opens a device; it exited
// 3, a device or driver failure, before.
func TestExitValidationNotInstalled(t *testing.T) {
	needDevice(t) // the loader and the driver are there; only the layer is hidden
	noLayer := []string{"VK_LAYER_PATH=/nonexistent", "VK_ADD_LAYER_PATH=", "VK_INSTANCE_LAYERS=", "VKBENCH_VALIDATION=0"}
	for _, args := range [][]string{
		{"devices", "--validation"},
		append([]string{"run", "--validation", "--cache", "off"}, runArgs...),
		{"tune", "copy", "--size", "4096", "--all-devices", "--validation", "--cache", filepath.Join(t.TempDir(), "c.db")},
	} {
		r := vkbenchProcess(t, noLayer, args...)
		if r.code != exitUsage {
			t.Errorf("vkbench %s without the validation layer: exit status %d, want %d\nstderr: %s", strings.Join(args, " "), r.code, exitUsage, r.stderr)
		}
		checkOneLine(t, r, regexp.MustCompile(`validation was asked for but the layer VK_LAYER_KHRONOS_validation is not installed`))
	}
	r := vkbenchProcess(t, append(noLayer, "VKBENCH_VALIDATION=1"), "devices")
	if r.code != exitUsage {
		t.Errorf("vkbench devices, VKBENCH_VALIDATION=1, without the validation layer: exit status %d, want %d\nstderr: %s", r.code, exitUsage, r.stderr)
	}
}

// TestExitDeviceCannotRun: an operation that the device cannot run (its
// reference candidate, or the operation itself, asserts a limit no device
// has, so no candidate can be verified) is a verdict on the kernels, exit
// status 1 saying why, from ab and tune --all-devices as from run; from
// those two it exited 3, a device or driver failure, before.
func TestExitDeviceCannotRun(t *testing.T) {
	needDevice(t)
	const huge = `"assert": ["max_workgroup_invocations > 1000000000"], `
	refCannot := writeManifest(t, "ref.json", "", saxpyOp("saxpy", "scalar", strings.Replace(scalarCand, `"groups"`, huge+`"groups"`, 1), strings.ReplaceAll(vec4Cand, "ASSERT", "4")))
	opCannot := writeManifest(t, "op.json", "", strings.Replace(saxpyOp("saxpy", "scalar", scalarCand), `"dims"`, huge+`"dims"`, 1))
	quick := []string{"--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--quiet"}
	for _, m := range []string{refCannot, opCannot} {
		for _, args := range [][]string{
			{"run", "saxpy", "--manifest", m, "--cache", "off"},
			{"ab", m, m, "--count", "1", "--max-time", "0", "--cache", "off"},
			{"tune", "saxpy", "--manifest", m, "--all-devices", "--cache", filepath.Join(t.TempDir(), "c.db")},
		} {
			r := vkbench(t, append(args, quick...)...)
			if r.code != exitRegression || !strings.Contains(r.stderr, "max_workgroup_invocations > 1000000000") {
				t.Errorf("vkbench %s: exit status %d, want %d, saying which assert failed\nstderr: %s", strings.Join(args, " "), r.code, exitRegression, r.stderr)
			}
		}
	}
}
