package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/autotune"
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
// validation layer (a kernel with more shared memory than any device has,
// which only the layer checks: vk/testdata/bigshared.comp) on a driver logging through the
// command's warning logger, as the command's drivers do, and checks that
// the rule catches what arrives.
func TestValidationMessageReachesStderr(t *testing.T) {
	bigshared, err := os.ReadFile(filepath.Join("..", "..", "vk", "testdata", "bigshared.spv"))
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
	if exe, err := dev.CreateExecutable(hal.ExecutableDesc{SPIRV: bigshared, Bindings: 1}); err == nil {
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

// TestNoisyPeakNamesKept: a rate measured too noisily, whose stored rate
// is tighter, is named as kept, and the others named as stored, unless
// they were kept as slower; where every wide rate was stored, they are
// said stored, not "the rest" of none kept. The time of the stored peak
// is said once, by peak, not in this message.
func TestNoisyPeakNamesKept(t *testing.T) {
	rows := make([]peakRow, len(peakMeasures))
	for i, m := range peakMeasures {
		rows[i] = peakRow{what: m.op, rate: 100, unit: m.unit}
	}
	rows[0].halfWidth, rows[1].halfWidth = 0.05, 0.04
	kept := autotune.PeakKept{Old: &autotune.PeakRecord{}, Noisy: autotune.Rates{GFLOPs: 80}}
	got := noisyPeak(rows, 0.01, kept, true)
	for _, want := range []string{"peak-fma-f32 (±5.0%), peak-fma-f16 (±4.0%)", "Not stored for peak-fma-f32: the stored rate is tighter and stays. Stored for peak-fma-f16, with its interval, as no tighter rate was: "} {
		if !strings.Contains(got, want) {
			t.Errorf("noisyPeak says %q; want it to say %q", got, want)
		}
	}
	// The other wide rate kept as slower: nothing wide was stored.
	kept.Slower.FP16GFLOPs = 120
	if got := noisyPeak(rows, 0.01, kept, true); peakStoredSaid.MatchString(got) {
		t.Errorf("noisyPeak says %q, with every wide rate kept; want no word of any being stored", got)
	}
	// Every rate wide, none kept: all stored.
	for i := range rows {
		rows[i].halfWidth = 0.05
	}
	want := "measure again on a quiet machine or with a longer --budget. They are stored with their intervals, as no tighter rates were: a rate reads above peak"
	if got := noisyPeak(rows, 0.01, autotune.PeakKept{}, true); !strings.Contains(got, want) || strings.Contains(got, "rest") {
		t.Errorf("noisyPeak says %q, with every rate wide and stored; want it to say %q", got, want)
	}
	rows = rows[:1]
	if got := noisyPeak(rows, 0.01, autotune.PeakKept{}, true); !strings.Contains(got, "It is stored with its interval, as no tighter rate was: ") {
		t.Errorf("noisyPeak says %q of one rate wide and stored", got)
	}
}

// peakStoredSaid matches where noisyPeak says that wide rates were stored.
var peakStoredSaid = regexp.MustCompile(`(It is|They are) stored with|\. Stored for `)

// TestErrorLineForPeople: the command's last line says what happened
// first, without the status codes that began the line and each part of
// the chain that had one ("vkbench: INVALID_ARGUMENT: manifest: ..."),
// a package's prefix once. The hang's line is TestHangTimeout's.
func TestErrorLineForPeople(t *testing.T) {
	needDevice(t)
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schema": "vkbench.manifest/v1", "operations": [{"name": "x"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--manifest", bad, "--cache", "off"},
			`^vkbench: manifest: .*bad\.json:1:50: operations\[0\]\.dims: missing \(the problem's dimensions, such as \{"N": 1048576\}\)\n$`},
		{[]string{"run", "copy", "--device", "99", "--cache", "off"},
			`^vkbench: --device "99" \(see vkbench devices\): hal: device 99 is out of range: there (is|are) \d+ devices?, .*\d\n$`},
	} {
		r := vkbench(t, tc.args...)
		if !regexp.MustCompile(tc.want).MatchString(r.stderr) {
			t.Errorf("vkbench %s: stderr %q, want it to match %s", strings.Join(tc.args, " "), r.stderr, tc.want)
		}
	}
}
