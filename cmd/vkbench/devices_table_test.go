package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
)

// TestDevicesTableMatrices checks the end of a device's table where it has
// cooperative matrices: the shapes stand under the coopmat line that
// counts them, and the coopmat2 and left-off lines come after them, not
// between (as they once did, on the H200 under the validation layer).
func TestDevicesTableMatrices(t *testing.T) {
	nv := hal.CooperativeMatrix{API: hal.MatrixNV, M: 16, N: 16, K: 16,
		A: hal.ComponentF16, B: hal.ComponentF16, C: hal.ComponentF32, Result: hal.ComponentF32, Scope: hal.ScopeSubgroup}
	nv2 := hal.CooperativeMatrix{API: hal.MatrixNV2, M: 32, N: 32, K: 16,
		A: hal.ComponentF16, B: hal.ComponentF16, C: hal.ComponentF32, Result: hal.ComponentF32,
		Scope: hal.ScopeWorkgroup, Invocations: 256}
	info := hal.DeviceInfo{Name: "matrices",
		Features:            hal.Features{CooperativeMatrixNV: true, CooperativeMatrixNV2: hal.NV2WorkgroupScope},
		CooperativeMatrices: []hal.CooperativeMatrix{nv, nv2},
		Withheld:            []string{"VK_KHR_cooperative_matrix"},
	}
	var b bytes.Buffer
	if err := writeDevicesTable(&b, []hal.DeviceInfo{info}, []deviceNow{{why: "none here"}}, 0); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "  coopmat ") {
			start = i
		}
	}
	if start < 0 {
		t.Fatalf("no coopmat line in\n%s", b.String())
	}
	var got []string
	for _, l := range lines[start:] {
		got = append(got, strings.Join(strings.Fields(l), " "))
	}
	want := []string{
		"coopmat VK_NV_cooperative_matrix: 1 shape, VK_NV_cooperative_matrix2: 1 granularity",
		nv.String(),
		nv2.String(),
		"coopmat2 " + strings.Join(hal.NV2WorkgroupScope.Names(), " "),
		"left off VK_KHR_cooperative_matrix (the validation layer is older than them)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the table's last lines (-want +got):\n%s", d)
	}
}

// TestDevicesSubgroupControl: devices says what a kernel may ask of the
// subgroup size, in the table and in the JSON: a fixed size, a range a
// compute pipeline cannot require, or one it can, with full subgroups
// and the most subgroups a workgroup then has. (Mutation: leaving out
// RequiredSubgroupSize, in either output, fails it.)
func TestDevicesSubgroupControl(t *testing.T) {
	limits := hal.Limits{SubgroupSize: 32, MinSubgroupSize: 16, MaxSubgroupSize: 64, MaxComputeWorkgroupSubgroups: 16, SubgroupOps: hal.SubgroupBasic | hal.SubgroupShuffle}
	for _, tc := range []struct {
		name     string
		features hal.Features
		line     string
	}{
		{"fixed", hal.Features{}, "size 32, fixed: no subgroup size control"},
		{"not for compute", hal.Features{SubgroupSizeControl: true}, "size 32, 16 to 64, but compute cannot require one"},
		{"required", hal.Features{SubgroupSizeControl: true, RequiredSubgroupSize: true}, "size 32; compute may require 16 to 64, at most 16 a workgroup"},
		{"full", hal.Features{SubgroupSizeControl: true, RequiredSubgroupSize: true, ComputeFullSubgroups: true}, "size 32; compute may require 16 to 64, full subgroups, at most 16 a workgroup"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			infos := []hal.DeviceInfo{{Name: "gpu", Limits: limits, Features: tc.features}}
			now := []deviceNow{{why: "none here"}}
			var b bytes.Buffer
			if err := writeDevicesTable(&b, infos, now, 0); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"  subgroup          " + tc.line + "\n", "  subgroup ops      basic shuffle\n"} {
				if !strings.Contains(b.String(), want) {
					t.Errorf("the table does not say %q:\n%s", want, b.String())
				}
			}
			b.Reset()
			if err := writeDevicesJSON(&b, infos, now); err != nil {
				t.Fatal(err)
			}
			var doc devicesJSON
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			f, l := doc.Devices[0].Features, doc.Devices[0].Limits
			got := []any{f.SubgroupSizeControl, f.RequiredSubgroupSize, f.ComputeFullSubgroups, l.MinSubgroupSize, l.MaxSubgroupSize, l.MaxWorkgroupSubgroups}
			want := []any{tc.features.SubgroupSizeControl, tc.features.RequiredSubgroupSize, tc.features.ComputeFullSubgroups, uint32(16), uint32(64), uint32(16)}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("the JSON's subgroup control (-want +got):\n%s", d)
			}
		})
	}
}

// onTerminal runs the command with args, its standard output a terminal
// of cols columns, and returns what the terminal showed (its line ends
// as "\n") and the exit status.
func onTerminal(t *testing.T, cols uint16, args ...string) (string, int) {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer func() { _ = master.Close() }()
	if err := pty.Setsize(tty, &pty.Winsize{Rows: 50, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	shown := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(master) // until the terminal closes
		shown <- data
	}()
	var stderr bytes.Buffer
	code := execute(context.Background(), args, tty, &stderr)
	if err := tty.Close(); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(<-shown), "\r\n", "\n"), code
}

// TestDevicesTerminalWidth: devices follows the rule of every table's
// width (tableWidth): on a terminal its values fold within the
// terminal's columns; in a file or a pipe, within 100. It folded at 100
// whatever the terminal.
func TestDevicesTerminalWidth(t *testing.T) {
	needDevice(t)
	out, code := onTerminal(t, 60, "devices")
	if code != exitOK || !strings.Contains(out, "  subgroup ops  ") {
		t.Fatalf("devices on a terminal: exit status %d\n%s", code, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 60 {
			t.Errorf("a line of %d columns on a terminal of 60: %q", n, line)
		}
	}
	r := mustRun(t, exitOK, "devices")
	if shown := func(s string) string { return strings.Join(strings.Fields(s), "") }; shown(r.stdout) != shown(out) {
		t.Errorf("a pipe and a terminal say other things:\n%s\n%s", r.stdout, out)
	}
}

// TestDevicesHardwareKeyParts: on a terminal too narrow for a device's
// hardware key, the key is broken between its parts (after a _), each
// line within the width; it was broken where the line ended, mid-part
// ("..._llvmpipe_22." and "3.6" on 60 columns).
func TestDevicesHardwareKeyParts(t *testing.T) {
	info := hal.DeviceInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", VendorID: hal.VendorMesa, DriverName: "llvmpipe", DriverVersion: 22<<22 | 3<<12 | 6}
	key := info.Hardware()
	for _, width := range []int{40, 50, 60} {
		var b bytes.Buffer
		if err := writeDevicesTable(&b, []hal.DeviceInfo{info}, []deviceNow{{why: "none here"}}, tableWidth(width)); err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(b.String(), "\n  hardware")
		rest, _, _ = strings.Cut(rest, "\n  device UUID")
		parts := strings.Fields(rest)
		if strings.Join(parts, "") != key || len(parts) < 2 {
			t.Fatalf("width %d: the key %q is not there in parts:\n%s", width, key, b.String())
		}
		for _, p := range parts[:len(parts)-1] {
			if !strings.HasSuffix(p, "_") {
				t.Errorf("width %d: the key %q broken after %q, not after a _:\n%s", width, key, p, b.String())
			}
		}
		for _, line := range strings.Split(b.String(), "\n") {
			if n := utf8.RuneCountInString(line); n > width {
				t.Errorf("width %d: a line of %d columns: %q", width, n, line)
			}
		}
	}
}
