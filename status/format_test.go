package status_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/status"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/status")

// goldenDir is the module's testdata, seen from the package's directory.
const goldenDir = "../testdata/status"

func TestFormatGolden(t *testing.T) {
	tests := []struct {
		name string
		mode status.Mode
		make func() error
	}{
		{"tune_code", status.ModeCode, siteTune},
		{"tune_location", status.ModeLocation, siteTune},
		{"tune_messages", status.ModeMessages, siteTune},
		{"tune_stack", status.ModeStack, siteTune},
		{"foreign", status.ModeMessages, siteForeign},
		{"payload", status.ModeMessages, sitePayload},
		{"join", status.ModeMessages, siteJoin},
		{"bare_code", status.ModeMessages, siteBareCode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer status.SetMode(status.SetMode(tt.mode))
			err := tt.make()
			got := fmt.Sprintf("%%v:\n%v\n\n%%+v:\n%s\n", err, keepSiteFrames(fmt.Sprintf("%+v", err)))
			checkGolden(t, tt.name, got)
		})
	}
}

// frameFile matches the second line of a stack frame: "dir/file.go:line"
// alone, unlike a location, which follows "at ".
var frameFile = regexp.MustCompile(`^\s+[^\s]+\.go:\d+$`)

// keepSiteFrames drops the stack frames that are not in sites_test.go,
// whose lines depend on the test runner and the Go version.
func keepSiteFrames(s string) string {
	lines := strings.Split(s, "\n")
	var kept []string
	for _, line := range lines {
		if frameFile.MatchString(line) && !strings.Contains(line, "status/sites_test.go:") {
			kept = kept[:len(kept)-1] // the frame's function
			continue
		}
		kept = append(kept, line)
	}
	return strings.Join(kept, "\n")
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, name+".golden")
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs from %s (-want +got; run with -update to accept):\n%s", name, path, diff)
	}
}

func TestFormatVerbs(t *testing.T) {
	err := status.Annotate(status.New(status.NotFound, `shader "x" missing`), "while building")
	text := `NOT_FOUND: while building: shader "x" missing`
	tests := []struct {
		format string
		want   string
	}{
		{"%v", text},
		{"%s", text},
		{"%q", fmt.Sprintf("%q", text)},
		{"%x", fmt.Sprintf("%x", text)},
		{"%.9s", "NOT_FOUND"},
		{"%-50v|", fmt.Sprintf("%-50s|", text)},
	}
	for _, tt := range tests {
		if got := fmt.Sprintf(tt.format, err); got != tt.want {
			t.Errorf("Sprintf(%q) = %q, want %q", tt.format, got, tt.want)
		}
	}
	if got := err.Error(); got != text {
		t.Errorf("Error() = %q, want %q", got, text)
	}
	joined := status.Join(status.Aborted, err)
	joinedText := `ABORTED: 2 errors: [ABORTED] [` + text + `]`
	if got := fmt.Sprintf("%q", joined); got != fmt.Sprintf("%q", joinedText) {
		t.Errorf("Sprintf(%%q, joined) = %s, want %q", got, joinedText)
	}
}

func TestFormatCode(t *testing.T) {
	for _, format := range []string{"%v", "%+v", "%s"} {
		if got := fmt.Sprintf(format, status.PermissionDenied); got != "PERMISSION_DENIED" {
			t.Errorf("Sprintf(%q, PermissionDenied) = %q, want PERMISSION_DENIED", format, got)
		}
	}
	if got := fmt.Sprintf("%d", status.PermissionDenied); got != "7" {
		t.Errorf("Sprintf(%%d, PermissionDenied) = %q, want 7", got)
	}
}

func TestFormatLocationIsTheCaller(t *testing.T) {
	err := status.New(status.Internal, "here") // the line below reads it back
	_, _, line, _ := runtime.Caller(0)
	want := fmt.Sprintf("at status/format_test.go:%d", line-1)
	if got := fmt.Sprintf("%+v", err); !strings.Contains(got, want) {
		t.Errorf("%%+v = %q, want it to contain %q", got, want)
	}
}

// TestFormatCodeOnce: a cause that begins with the status's own code (a
// status of that code, or one wrapped by fmt's %w first) reads without
// it; a cause of another code keeps its own.
func TestFormatCodeOnce(t *testing.T) {
	wrong := status.New(status.FailedPrecondition, "kernels: wrong result")
	for _, c := range []struct {
		err  error
		want string
	}{
		{status.Wrapf(wrong, status.OK, "kernels: y: 3 of 8 wrong"), "FAILED_PRECONDITION: kernels: y: 3 of 8 wrong: kernels: wrong result"},
		{status.Annotate(fmt.Errorf("%w: y[0] = 1, want 0", wrong), "verifying c"), "FAILED_PRECONDITION: verifying c: kernels: wrong result: y[0] = 1, want 0"},
		{status.Wrap(status.New(status.Internal, "hal: the GPU timer did not tick"), status.FailedPrecondition, "no candidate ran"), "FAILED_PRECONDITION: no candidate ran: INTERNAL: hal: the GPU timer did not tick"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

// TestTextForPeople holds the one line a person reads of real errors of
// vkbench: none of the codes that began the chain's parts, and a
// package's prefix once, but no other word ("warning: ") dropped; Error
// unchanged. (Mutation: the codes kept, or every "vk: " kept, fails it.)
func TestTextForPeople(t *testing.T) {
	const hang = "vk: a submission has run for 3.004s without finishing, past the hang timeout of 3s: a kernel that never ends? The GPU cannot stop it, so nothing queued after it can run"
	for _, tc := range []struct {
		name       string
		err        error
		error, got string
	}{
		{"a kernel that hangs",
			status.Annotate(status.Wrap(status.New(status.DeadlineExceeded, hang), status.DataLoss, "vk: device lost"), "running hang"),
			"DATA_LOSS: running hang: vk: device lost: DEADLINE_EXCEEDED: " + hang,
			"running hang: vk: device lost: a submission has run for 3.004s without finishing, past the hang timeout of 3s: a kernel that never ends? The GPU cannot stop it, so nothing queued after it can run"},
		{"a bad manifest",
			status.New(status.InvalidArgument, `manifest: m.json:1:50: operations[0].dims: missing (the problem's dimensions, such as {"N": 1048576})`),
			`INVALID_ARGUMENT: manifest: m.json:1:50: operations[0].dims: missing (the problem's dimensions, such as {"N": 1048576})`,
			`manifest: m.json:1:50: operations[0].dims: missing (the problem's dimensions, such as {"N": 1048576})`},
		{"a device that cannot be opened",
			status.Annotate(status.New(status.NotFound, "hal: device 7 is out of range: there is 1 device, 0"), `--device "7" (see vkbench devices)`),
			`NOT_FOUND: --device "7" (see vkbench devices): hal: device 7 is out of range: there is 1 device, 0`,
			`--device "7" (see vkbench devices): hal: device 7 is out of range: there is 1 device, 0`},
		{"no driver",
			status.Wrap(status.New(status.Incompatible, "vk: vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER"), status.Incompatible, "no Vulkan driver is installed"),
			"INCOMPATIBLE: no Vulkan driver is installed: vk: vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER",
			"no Vulkan driver is installed: vk: vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER"},
		{"joined",
			status.Join(status.New(status.NotFound, "vk: a"), status.Annotate(status.New(status.Internal, "vk: b"), "c")),
			"NOT_FOUND: 2 errors: [NOT_FOUND: vk: a] [INTERNAL: c: vk: b]",
			"2 errors: [vk: a] [c: vk: b]"},
		{"a compiler's errors, each after its file and line",
			status.Annotate(status.New(status.InvalidArgument, "glslc: does not compile: /tmp/k.glsl:3: error: 'x' : undeclared identifier\n/tmp/k.glsl:6: error: '=' : cannot convert"), "manifest: k.json"),
			"INVALID_ARGUMENT: manifest: k.json: glslc: does not compile: /tmp/k.glsl:3: error: 'x' : undeclared identifier\n/tmp/k.glsl:6: error: '=' : cannot convert",
			"manifest: k.json: glslc: does not compile: /tmp/k.glsl:3: error: 'x' : undeclared identifier /tmp/k.glsl:6: error: '=' : cannot convert"},
		{"a tool's word said again, after a part that is not a source's line",
			status.Wrap(errors.New("nvidia-smi: warning: clocks not supported: warning: power not supported"), status.Unavailable, "telemetry: reading conditions"),
			"UNAVAILABLE: telemetry: reading conditions: nvidia-smi: warning: clocks not supported: warning: power not supported",
			"telemetry: reading conditions: nvidia-smi: warning: clocks not supported: warning: power not supported"},
		{"a wrong result, its package said again",
			status.Wrapf(status.New(status.FailedPrecondition, "kernels: wrong result"), status.OK, "kernels: y: 1 of 8 checked values wrong: y[7]: got 1.5, want 1"),
			"FAILED_PRECONDITION: kernels: y: 1 of 8 checked values wrong: y[7]: got 1.5, want 1: kernels: wrong result",
			"kernels: y: 1 of 8 checked values wrong: y[7]: got 1.5, want 1: wrong result"},
		{"a foreign error",
			fmt.Errorf("--size N=3: %w", errors.New("DATA: 3 is odd: see: vk")),
			"--size N=3: DATA: 3 is odd: see: vk",
			"--size N=3: DATA: 3 is odd: see: vk"},
	} {
		if got := tc.err.Error(); got != tc.error {
			t.Errorf("%s: Error() = %q, want %q", tc.name, got, tc.error)
		}
		if got := status.TextForPeople(tc.err.Error()); got != tc.got {
			t.Errorf("%s: TextForPeople = %q, want %q", tc.name, got, tc.got)
		}
	}
}
