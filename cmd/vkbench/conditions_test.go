package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/telemetry"
)

// TestConditions: results say where the GPU's conditions came from, or
// that they are not available and why (lavapipe has no telemetry), and
// each benchmark carries them where they are; a table with -v lists them;
// an energy objective where there is no energy counter is refused in one
// line, as is an objective vkbench does not know.
func TestConditions(t *testing.T) {
	info := needDevice(t)
	src, openErr := telemetry.Open(info)
	if src != nil {
		_ = src.Close()
	}
	r := mustRun(t, 0, args("run", "--cache", "off", "--format", "json")...)
	f, err := results.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	validateResults(t, []byte(r.stdout))
	if openErr != nil {
		if !strings.HasPrefix(f.Conditions, "not available: ") || !strings.Contains(f.Conditions, "NVIDIA") && !strings.Contains(f.Conditions, "NVML") {
			t.Errorf("conditions %q; want not available, saying why (%v)", f.Conditions, openErr)
		}
		for _, b := range f.Benchmarks {
			if b.Conditions != nil || b.EnergyJ != 0 {
				t.Errorf("%s: conditions %+v, %g J per run, where none can be read", b.Name, b.Conditions, b.EnergyJ)
			}
		}
	} else {
		if f.Conditions != "nvml" {
			t.Errorf("conditions %q; want nvml", f.Conditions)
		}
		for _, b := range f.Benchmarks {
			if b.Stats != nil && (b.Conditions == nil || b.EnergyJ <= 0) {
				t.Errorf("%s: conditions %+v, %g J per run; want both", b.Name, b.Conditions, b.EnergyJ)
			}
		}
	}
	r = mustRun(t, 0, args("run", "--cache", "off", "-v")...)
	// The line is wrapped to fit a terminal. Where none can be read, it
	// says why on its own, not as a heading with nothing under it.
	said := " conditions (" + strings.Join(strings.Fields(f.Conditions), " ") + "):"
	if openErr != nil {
		said = " conditions: " + strings.Join(strings.Fields(f.Conditions), " ")
	}
	if words := strings.Join(strings.Fields(r.stdout), " "); !strings.Contains(words, said) || openErr != nil && strings.HasSuffix(words, ":") {
		t.Errorf("run -v does not say the conditions as %q:\n%s", said, r.stdout)
	}
	if openErr != nil {
		wantUsage(t, `^vkbench: --objective energy needs the GPU's energy counter, which is not available here: .+`, "tune", "copy", "--objective", "energy", "--cache", "off")
		// It was ignored without a word.
		wantUsage(t, `^vkbench: --energy-window 1s needs the GPU's energy counter, which is not available here: .+`, "run", "copy", "--energy-window", "1s", "--cache", "off")
	}
	wantUsage(t, `--objective "speed": want time, energy or edp`, "tune", "copy", "--objective", "speed", "--cache", "off")
	wantUsage(t, `--energy-window -1s: want a positive duration`, "run", "copy", "--energy-window", "-1s", "--cache", "off")
	// ab compares time per run: it takes no --objective at all.
	wantUsage(t, `unknown flag: --objective`, "ab", filepath.Join("..", "..", "testdata", "manifests", "ab", "old.json"), filepath.Join("..", "..", "testdata", "manifests", "ab", "same.json"), "--objective", "edp", "--cache", "off")

	// devices says the conditions now, or why not.
	r = mustRun(t, 0, "devices", "--format", "json")
	var doc struct {
		Devices []struct {
			Now     *json.RawMessage `json:"now"`
			NowNote string           `json:"now_note"`
		} `json:"devices"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for i, d := range doc.Devices {
		if (d.Now == nil) == (d.NowNote == "") {
			t.Errorf("device %d: now %s, note %q; want one of them", i, string(ptrOr(d.Now)), d.NowNote)
		}
	}
}

func ptrOr(m *json.RawMessage) []byte {
	if m == nil {
		return nil
	}
	return *m
}

func TestJoules(t *testing.T) {
	for _, c := range []struct {
		j    float64
		want string
	}{
		{0, "-"}, {2, "2.00 J"}, {2.004, "2.00 J"}, {15.94, "15.9 J"}, {158.2, "158 J"}, {1234, "1234 J"},
		{0.0123, "12.3 mJ"}, {0.001, "1.00 mJ"}, {4.5e-6, "4.50 µJ"}, {7e-9, "7.00 nJ"},
	} {
		if got := joules(c.j); got != c.want {
			t.Errorf("joules(%g) = %q, want %q", c.j, got, c.want)
		}
	}
}

// throttledSource reads a GPU held back by its power limit.
type throttledSource struct{}

func (throttledSource) Name() string { return "throttled" }
func (throttledSource) Close() error { return nil }
func (throttledSource) Sample() (telemetry.Sample, error) {
	return telemetry.Sample{Time: time.Now(), SMClockMHz: 1410, MemClockMHz: 2619, PowerW: 700, Reasons: telemetry.ReasonSWPowerCap}, nil
}

// TestPeakFlagsInWords: peak's row says a throttled winner's flags in
// words, as run's table does. (Mutation: the tokens shown instead fail
// it.)
func TestPeakFlagsInWords(t *testing.T) {
	dev := devtest.Device(t)
	op, err := catalogue.Lookup("copy")
	if err != nil {
		t.Fatal(err)
	}
	opts := autotune.Options{Budget: time.Second, MinSamples: 6, MaxSamples: 6, Warmup: time.Millisecond, EnergyWindow: -1, Telemetry: throttledSource{}}
	row, err := measurePeak(context.Background(), dev, op, kernels.SizeOf(4096), opts, "GB/s", &autotune.PeakRecord{}, new(opFailures))
	if err != nil {
		t.Fatal(err)
	}
	if want := "[" + report.FlagText(telemetry.FlagThrottled); !strings.Contains(row.note, want) {
		t.Errorf("peak's note %q; want %q in it", row.note, want)
	}
}
