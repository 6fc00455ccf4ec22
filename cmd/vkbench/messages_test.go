package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/vk"
)

// TestDriverMessagesFailTests checks the rule every command test goes
// through (checkDriverMessages): a validation or driver message on the
// command's stderr fails the test, whatever else is there; the command's
// other warnings and notes do not. The lines are written as the command
// writes them, by its warning logger.
func TestDriverMessagesFailTests(t *testing.T) {
	type logged struct {
		level slog.Level
		msg   string
		attrs []any
	}
	for _, tc := range []struct {
		name  string
		notes string // plain lines before the logged ones
		logs  []logged
		fail  bool
	}{
		{name: "nothing"},
		{name: "notes", notes: "copy/u32/4096: answered from the tune cache\n"},
		{name: "a cache warning", logs: []logged{{slog.LevelWarn, "autotune: the cache entry copy/u32/4096 no longer decodes: a miss", nil}}},
		{name: "a validation error", fail: true, logs: []logged{{slog.LevelError,
			"vk: Validation Error: [ VUID-VkComputePipelineCreateInfo-layout-07987 ] Object 0: handle = 0x1 | Push constant block is not in the pipeline layout",
			[]any{"id", "VUID-VkComputePipelineCreateInfo-layout-07987", "severity", "error"}}}},
		{name: "a validation warning", fail: true, logs: []logged{{slog.LevelWarn, "vk: Validation Warning: [ UNASSIGNED-x ] something", []any{"severity", "warning"}}}},
		{name: "a driver warning", fail: true, logs: []logged{{slog.LevelWarn, "vk: the GPU did not finish its work in time: leaving the device, its objects and the Vulkan instance to the driver, which frees them when the process exits", []any{"device", "llvmpipe", "waited", "10s"}}}},
		{name: "among other lines", fail: true, notes: "triad/f32/4096: answered from the tune cache\n", logs: []logged{
			{slog.LevelWarn, "autotune: the cache is damaged", nil},
			{slog.LevelWarn, "vk: goki/vulkan InitInstance failed; goki's functions may not work", []any{"err", "x"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			stderr.WriteString(tc.notes)
			log := warningLogger(&stderr)
			for _, l := range tc.logs {
				log.Log(context.Background(), l.level, l.msg, l.attrs...)
			}
			got := testenv.Observe(t, func(tb testing.TB) { checkDriverMessages(tb, []string{"run"}, stderr.String()) })
			if got.Failed != tc.fail || got.Skipped {
				t.Errorf("stderr %q: failed %v, skipped %v; want failed %v\n%q", stderr.String(), got.Failed, got.Skipped, tc.fail, got.Messages)
			}
		})
	}
}

// TestValidationMessageReachesStderr provokes a real message of the
// validation layer (a push-constant range shorter than the kernel's
// block, which only the layer checks) on a driver logging through the
// command's warning logger, as the command's drivers do, and checks that
// the rule catches what arrives.
func TestValidationMessageReachesStderr(t *testing.T) {
	pushop, err := os.ReadFile(filepath.Join("..", "..", "vk", "testdata", "pushop.spv"))
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testenv.SyncBuffer{}
	drv, err := hal.OpenDriver(vk.DriverName, hal.DriverOptions{Validation: true, Logger: warningLogger(stderr)})
	if err != nil {
		testenv.Unavailable(t, "no Vulkan with the validation layer: %v", err)
	}
	infos, err := drv.Enumerate()
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) == 0 {
		testenv.Unavailable(t, "Vulkan lists no devices")
	}
	dev, err := drv.Open(context.Background(), hal.DefaultDevice(infos), hal.DeviceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The layer objects when the pipeline is made; the call itself may
	// succeed or fail.
	if exe, err := dev.CreateExecutable(hal.ExecutableDesc{SPIRV: pushop, Bindings: 1, PushConstantSize: 4}); err == nil {
		if err := exe.Release(); err != nil {
			t.Error(err)
		}
	}
	if err := dev.Release(); err != nil {
		t.Error(err)
	}
	if err := drv.Release(); err != nil {
		t.Error(err)
	}
	got := testenv.Observe(t, func(tb testing.TB) { checkDriverMessages(tb, []string{"run"}, stderr.String()) })
	if !got.Failed {
		t.Errorf("the rule let the layer's message pass; stderr:\n%s", stderr.String())
	}
}

// TestReason: a row's reason keeps what went wrong and drops what leads
// it (codes, packages, the candidate, a manifest's place), in tables and
// charts alike; a message that is all substance stays whole.
func TestReason(t *testing.T) {
	for _, tc := range []struct{ msg, cand, want string }{
		{"UNIMPLEMENTED: kernels: gemm-x: needs 33 KiB of shared memory, device has 32 KiB", "gemm-x", "needs 33 KiB of shared memory, device has 32 KiB"},
		{"UNIMPLEMENTED: kernels: regblock-128x128x8-8x8-exact: does not apply at 67x45x33: its loads are unchecked", "regblock-128x128x8-8x8-exact", "does not apply at 67x45x33: its loads are unchecked"},
		{`UNIMPLEMENTED: manifest: testdata/manifests/kernels.json:148:21: operations[4].candidates[1].assert[0]: the device lavapipe (max_shared_memory=2048) fails the candidate's assert "4*K <= max_shared_memory" at size M=70,K=600; running rows-shared-wg128`, "rows-shared-wg128",
			`the device lavapipe (max_shared_memory=2048) fails the candidate's assert "4*K <= max_shared_memory" at size M=70,K=600; running rows-shared-wg128`},
		{"INTERNAL: kernels: gemm/vec4: 3 of 9 checked values wrong: C[0][0]: got 1, want 2", "vec4", "3 of 9 checked values wrong: C[0][0]: got 1, want 2"},
		{"the kernel wrote nothing", "vec4", "the kernel wrote nothing"},
		{"DEADLINE_EXCEEDED: Run: Wait: the GPU did not finish in 2s", "vec4", "Run: Wait: the GPU did not finish in 2s"},
	} {
		if got := reason(tc.msg, tc.cand); got != tc.want {
			t.Errorf("reason(%q, %q) = %q, want %q", tc.msg, tc.cand, got, tc.want)
		}
	}
}
