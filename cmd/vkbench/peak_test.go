package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/store"
)

// TestPeakReasonWhole: why peak measured nothing of an operation follows
// the rule of every table's width (tableWidth): whole in a file or a
// pipe, wrapped at a terminal's width, and without status codes, as
// run's table says it. It was cut to 100 columns, with an ellipsis,
// before the width was known, its codes kept.
func TestPeakReasonWhole(t *testing.T) {
	needDevice(t)
	// An operation whose every candidate asks more of the device than any
	// has: the device fails each one's assert, with a long reason.
	const assert = "max_shared_memory >= 1000000000 || max_workgroup_invocations >= 100000000 || subgroup_size >= 4096"
	spirv, err := filepath.Abs(filepath.Join("..", "..", "testdata", "manifests", "fma_iters.spv"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(abManifest("old.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	op := m["operations"].([]any)[0].(map[string]any)
	op["verify"] = "none"
	for _, c := range op["candidates"].([]any) {
		c.(map[string]any)["spirv"], c.(map[string]any)["assert"] = spirv, []string{assert}
	}
	path := filepath.Join(t.TempDir(), "m.json")
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ops, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	dev, release, err := hal.Open(context.Background(), "vulkan", hal.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = release() }()
	var rec autotune.PeakRecord
	row, err := measurePeak(context.Background(), dev, ops[0], kernels.SizeOf(1024), autotune.DefaultOptions, "GFLOP/s", &rec, new(opFailures))
	if err != nil || row.outcome == "" {
		t.Fatalf("measurePeak: %+v, %v; want a row of no candidate measured", row, err)
	}
	for _, width := range []tableWidth{0, 60} {
		var b bytes.Buffer
		if err := writePeakTable(&b, dev.Info(), []peakRow{row}, nil, "idle", width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if said := strings.Join(strings.Fields(out), " "); !strings.Contains(said, `fails the candidate's assert "`+assert+`" at size N=1024: chain`) ||
			strings.Contains(said, "…") || strings.Contains(said, "UNIMPLEMENTED") {
			t.Errorf("width %d: the reason is not whole, or says a status code:\n%s", width, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > int(width.lineWidth()) {
				t.Errorf("width %d: a line of %d columns: %q", width, n, line)
			}
		}
	}
}

// TestPeakWrong: a peak kernel that computes a wrong result (the device
// wrapped so that the first result read back has every bit flipped: one
// candidate of peak-fma-f32, the first measure) fails peak with status 1,
// naming the measure, the candidate and what was wrong, after the table.
// Its rate is not stored, over an empty cache nor, with --replace, over
// the stored one; the other rates are. Peak exited 0 before, storing the
// rate of the measure's other candidates.
func TestPeakWrong(t *testing.T) {
	info := needDevice(t)
	plan := faulty.NewPlan()
	wrapDevice = func(dev hal.Device) hal.Device { return faulty.Wrap(dev, plan) }
	t.Cleanup(func() { wrapDevice = func(dev hal.Device) hal.Device { return dev } })
	cache := filepath.Join(t.TempDir(), "cache.db")
	const stored = 123.0 // GFLOP/s, where a peak stored one
	for _, replace := range []bool{false, true} {
		args := append([]string{"peak", "--cache", cache, "--precision", "1000"}, peakArgs...)
		if replace {
			args = append(args, "--replace")
		}
		plan.CorruptRead(1)
		r := vkbench(t, args...)
		said := strings.Join(strings.Fields(r.stderr), " ")
		if r.code != exitRegression || !strings.Contains(said, "vkbench: peak: peak-fma-f32: candidate acc") ||
			!strings.Contains(said, " computed a wrong result: ") || !strings.HasSuffix(said, "; its rate is not stored") ||
			!regexp.MustCompile(`(?m)^  peak-fma-f32 .* wrong$`).MatchString(r.stdout) {
			t.Fatalf("peak (--replace %v) with a wrong result: exit %d, want %d, naming the measure and its candidate\nstdout:\n%s\nstderr:\n%s", replace, r.code, exitRegression, r.stdout, r.stderr)
		}
		got := storedPeak(t, cache)
		want := 0.0
		if replace {
			want = stored
		}
		if got.GFLOPs != want || got.BandwidthGBps <= 0 || got.Int32GOPs <= 0 {
			t.Errorf("peak (--replace %v) stored %+v; want fp32's %g (the wrong measure's rate not stored) and the other rates", replace, got.Rates, want)
		}
		// A peak of fp32 stored before the next one, which --replace would
		// replace were it measured right.
		c, err := store.Open(store.Options{Path: cache})
		if err != nil {
			t.Fatal(err)
		}
		got.GFLOPs, got.Low.GFLOPs, got.High.GFLOPs = stored, stored*0.99, stored*1.01
		if _, err := autotune.SavePeak(t.Context(), c, info.Hardware(), *got, 0.01, true); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPeakReplacesDamaged: peak over a stored peak that does not decode
// stores its own and says that the stored one could not be read, naming
// the cache; it replaced it with only a warning of the store's.
func TestPeakReplacesDamaged(t *testing.T) {
	info := needDevice(t)
	cache := filepath.Join(t.TempDir(), "cache.db")
	c, err := store.Open(store.Options{Path: cache})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.UpdatePeak(t.Context(), info.Hardware(), func([]byte) ([]byte, error) { return []byte("{"), nil }); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, 0, append([]string{"peak", "--cache", cache}, peakArgs...)...)
	if said := strings.Join(strings.Fields(r.stdout), " "); !strings.Contains(said, "The stored peak could not be read (autotune: cache "+cache+": stored peak of "+info.Hardware()+" is damaged: ") ||
		!strings.Contains(said, "this one replaces it.") {
		t.Errorf("peak over a damaged stored peak does not say it replaced it:\n%s", r.stdout)
	}
	if got := storedPeak(t, cache); got.GFLOPs <= 0 {
		t.Errorf("peak stored %+v; want its rates", got.Rates)
	}
}

// TestPeakTooLarge: a measure that cannot run at its --size (copy's
// buffers past the device's limit) is reported, as run reports such an
// operation: its row says failed and why, the other rates are measured
// and stored, its own is not, and the status is 1 after the table. Peak
// stopped with status 2 before, storing nothing.
// The reason is said as run's table says it (report.Reason).
func TestPeakTooLarge(t *testing.T) {
	needDevice(t)
	cache := filepath.Join(t.TempDir(), "cache.db")
	args := append([]string{"peak", "--cache", cache}, peakArgs...)
	args[slices.Index(args, "copy=4096")] = "copy=100000000"
	r := vkbench(t, args...)
	if said := strings.Join(strings.Fields(r.stderr), " "); r.code != exitRegression ||
		!strings.HasPrefix(said, "vkbench: could not measure copy at 100000000: ") || !strings.Contains(said, "maxStorageBufferRange") ||
		!regexp.MustCompile(`\(\d+ of the other \d+ operations were measured\)$`).MatchString(said) || !regexp.MustCompile(`(?m)^  copy .* failed$`).MatchString(r.stdout) {
		t.Fatalf("peak with copy too large: exit %d, want %d, naming copy and why\nstdout:\n%s\nstderr:\n%s", r.code, exitRegression, r.stdout, r.stderr)
	}
	// Its reason under the table as run's table says it, without the
	// package that leads the error (it began "failed, autotune: ").
	if table := strings.Join(strings.Fields(r.stdout), " "); !strings.Contains(table, "failed, preparing copy/u32/100000000: ") {
		t.Errorf("peak's table does not say why copy failed as run's does (\"failed, preparing copy/u32/100000000: …\"):\n%s", r.stdout)
	}
	if got := storedPeak(t, cache); got.BandwidthGBps != 0 || got.GFLOPs <= 0 || got.Int32GOPs <= 0 {
		t.Errorf("peak stored %+v; want no bandwidth (copy not measured) and the other rates", got.Rates)
	}
}

// TestPeakEveryCandidateFailed: a measure whose every candidate failed
// when it ran (here the GPU timer never ticks, so that each candidate
// fails after 4 samples) is a failure of peak, status 1 after the table,
// naming the measure and the first failure, as run's is; peak exited 0.
// Its rate is not measured: the stored one stays, --replace or not.
func TestPeakEveryCandidateFailed(t *testing.T) {
	info := needDevice(t)
	plan := faulty.NewPlan()
	wrapDevice = func(dev hal.Device) hal.Device { return faulty.Wrap(dev, plan) }
	t.Cleanup(func() { wrapDevice = func(dev hal.Device) hal.Device { return dev } })
	cache := filepath.Join(t.TempDir(), "cache.db")
	c, err := store.Open(store.Options{Path: cache})
	if err != nil {
		t.Fatal(err)
	}
	old := autotune.PeakRecord{Peak: autotune.Peak{Rates: autotune.Rates{BandwidthGBps: 45, GFLOPs: 123, Int32GOPs: 67}}}
	if _, err := autotune.SavePeak(t.Context(), c, info.Hardware(), old, 0.01, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	plan.Add(faulty.Rule{Calls: []faulty.Call{faulty.Elapsed}, Rate: 1, Effect: faulty.NoTick})
	r := vkbench(t, append([]string{"peak", "--cache", cache, "--replace"}, peakArgs...)...)
	said := strings.Join(strings.Fields(r.stderr), " ")
	if r.code != exitRegression || !strings.HasPrefix(said, "vkbench: could not measure peak-fma-f32 at 1024x64: no candidate ran; ") ||
		!strings.Contains(said, "the GPU timer did not tick") || !regexp.MustCompile(`(?m)^  peak-fma-f32 .* failed$`).MatchString(r.stdout) {
		t.Fatalf("peak whose every candidate failed: exit %d, want %d, naming the measure and why\nstdout:\n%s\nstderr:\n%s", r.code, exitRegression, r.stdout, r.stderr)
	}
	if got := storedPeak(t, cache); got.Rates != old.Rates {
		t.Errorf("peak stored %+v; want the stored rates kept, %+v", got.Rates, old.Rates)
	}
}
