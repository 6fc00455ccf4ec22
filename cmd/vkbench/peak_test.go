package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
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
	row, err := measurePeak(context.Background(), dev, ops[0], kernels.SizeOf(1024), autotune.DefaultOptions, "GFLOP/s", &rec)
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
