package vkbench_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoNVML: a program that imports vkbench builds no NVML code (a cgo
// binding of thousands of functions, each a deprecation warning from the C
// compiler); the vkbench command registers it with import _.
func TestNoNVML(t *testing.T) {
	if testing.Short() {
		t.Skip("go list in -short")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	deps := func(pkg string) string {
		out, err := exec.Command(gotool, "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return string(out)
	}
	const nvml = "github.com/NVIDIA/go-nvml"
	for _, pkg := range []string{".", "./examples/tunesaxpy"} {
		if d := deps(pkg); strings.Contains(d, nvml) || strings.Contains(d, "/telemetry/nvml") {
			t.Errorf("%s depends on NVML:\n%s", pkg, d)
		}
	}
	if d := deps("./cmd/vkbench"); !strings.Contains(d, nvml) {
		t.Errorf("the vkbench command does not register NVML")
	}
}
