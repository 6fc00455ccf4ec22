package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/store"
)

// TestAllDevicesTable: tune --all-devices' table goes through the
// command's table writer, so on a terminal of 100 columns every line
// fits however long the hardware, the devices' names and the kernels'
// names; a table per
// hardware, under its name; the device that measured an answer by its
// index and its UUID shortened to the fewest digits (7 at least) that
// tell the table's UUIDs apart; an error whole, under its table.
// (Mutation: the tabwriter it had wrote lines of 197 columns; the whole
// UUID, or its first 7 digits where two share 8, fails it.)
func TestAllDevicesTable(t *testing.T) {
	gemm, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	const (
		h200 = "nvidia_2335_nvidia-h200-nvl_nvidia-proprietary_570.124.06"
		h100 = "nvidia_2330_nvidia-h100-80gb-hbm3_nvidia-proprietary_570.124.06"
	)
	answer := func(device, winner string) *autotune.Entry {
		return &autotune.Entry{Fastest: 0, FastestName: winner, Device: device,
			Results: []results.Result{{Name: winner, Measurement: results.Measurement{Outcome: results.Measured, Stats: &stats.Stats{Median: 1.5e-3}}}}}
	}
	job := autotune.Job{Op: gemm, Size: kernels.SizeOf(4096, 4096, 4096)}
	lost := "device 5 (NVIDIA H100 80GB HBM3): vkQueueSubmit: VK_ERROR_DEVICE_LOST while the fleet's lock on gemm/f32/4096x4096x4096 was held; the other devices of its group took the job, and every one of them was lost as well"
	all := []autotune.JobResult{
		{Job: job, Table: store.Table{Hardware: h200}, Tuner: 0, Took: 2 * time.Second,
			Entry: answer("3:NVIDIA H200 NVL with a long marketing name:01234567aa0000000000000000000000", "regblock-bm128-bn128-bk16-tx8-ty8-ph2-swz1-exact1")},
		{Job: job, Table: store.Table{Hardware: h200}, Tuner: 1, Retried: 1, Took: 3 * time.Second,
			Entry: answer("4:NVIDIA H200 NVL with a long marketing name:01234567bb0000000000000000000000", "regblock-128")},
		{Job: job, Table: store.Table{Hardware: h100}, Tuner: -1, Err: errors.New(lost)},
	}
	var b bytes.Buffer
	if err := writeAllDevices(&b, all, 5*time.Second, columns); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > columns {
			t.Errorf("a line of %d columns, over %d: %q", n, columns, line)
		}
	}
	for _, want := range []string{
		h200 + "\n  operation ",
		"3 (01234567a)", "4 (01234567b)", "\n  gemm 4096x4096x4096: retried after 1 lost device\n",
		"\n" + h100 + "\n  operation ",
		"\n3 jobs on every device at once in 5s\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table does not say %q:\n%s", want, out)
		}
	}
	if whole := regexp.MustCompile(`\s+`).ReplaceAllString(out, " "); !strings.Contains(whole, "gemm 4096x4096x4096 failed: "+lost) {
		t.Errorf("the error is not written whole:\n%s", out)
	}
}

// TestAllDevicesVerdicts: tune --all-devices judges as tune does. A
// candidate that computes a wrong result exits 1 (it exited 0); an
// operation whose buffers the device cannot bind at its size fails alone,
// exit 1, and -o's file keeps every job, the failed one's candidates
// failed saying why, as run records them (the file was thrown away, and
// the status was 2).
func TestAllDevicesVerdicts(t *testing.T) {
	needDevice(t)
	wrong := strings.NewReplacer("ASSERT", "4", `"value": 2.5`, `"value": 2.0`).Replace(vec4Cand)
	huge := strings.Replace(saxpyOp("huge", "scalar", scalarCand), `"N": 4096`, `"N": 1000000000`, 1)
	m := writeManifest(t, "all.json", "", saxpyOp("wrong", "scalar", scalarCand, wrong), huge)
	dir := t.TempDir()
	t.Setenv("VKBENCH_CACHE", filepath.Join(dir, "tune.db"))
	quick := []string{"--manifest", m, "--all-devices", "--budget", "200ms", "--min-samples", "6", "--max-samples", "6", "--quiet"}
	r := mustRun(t, exitRegression, append([]string{"tune", "wrong", "--cache", filepath.Join(dir, "a.db")}, quick...)...)
	if !strings.Contains(r.stderr, "candidate wrong/f32/4096/vec4 computed a wrong result") {
		t.Errorf("stderr does not name the wrong candidate:\n%s", r.stderr)
	}
	out := filepath.Join(dir, "all.json")
	r = mustRun(t, exitRegression, append([]string{"tune", "--cache", filepath.Join(dir, "b.db"), "--format", "json", "-o", out}, quick...)...)
	if !strings.Contains(r.stderr, "could not measure huge at 1000000000: ") {
		t.Errorf("stderr does not say which operation could not be measured:\n%s", r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("-o's file: %v", err)
	}
	var file struct{ Jobs []jobJSON }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	jobs := map[string]jobJSON{}
	for _, j := range file.Jobs {
		jobs[j.Op] = j
	}
	if e := jobs["wrong"].Entry; len(file.Jobs) != 2 || e == nil || e.FastestName != "scalar" {
		t.Fatalf("-o's jobs: %s; want wrong's, scalar the winner, and huge's", data)
	}
	h := jobs["huge"]
	if h.Error == "" || h.Entry == nil || len(h.Entry.Results) != 1 || h.Entry.Results[0].Outcome != results.Failed || h.Entry.Results[0].Error != h.Error {
		t.Errorf("huge's job does not record its candidate failed, saying why: %+v", h)
	}
}
