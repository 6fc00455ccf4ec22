package main

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
)

// TestRunTableLayout holds the layout of run's and tune's table with a
// file of a real run on lavapipe (edited to hold a wrong and a failed
// candidate, and percentages of a peak): what the device cannot run and
// what was dropped early are counted in a line, an operation with nothing
// measured is one line, intervals wider than the precision are unsettled,
// ties are marked, a summary of winners closes it, and every line fits
// 100 columns. -v lists every candidate.
func TestRunTableLayout(t *testing.T) {
	file, err := results.ReadFile(cliData("run-table-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, verbose := range []bool{false, true} {
		var b bytes.Buffer
		if err := writeResults(&b, "table", file, tableOptions{precision: 0.01, verbose: verbose}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		name := "run-table-layout"
		if verbose {
			name += "-verbose"
		}
		golden(t, name, out)
		for i, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > columns {
				t.Errorf("%s: line %d is %d columns wide: %q", name, i+1, n, line)
			}
		}
		unsupported := 0
		for _, bench := range file.Benchmarks {
			if bench.Outcome == results.Unsupported {
				unsupported++
			}
		}
		rows := strings.Count(out, "  unsupported\n")
		if verbose && rows != unsupported || !verbose && rows != 0 {
			t.Errorf("%s: %d rows of unsupported candidates, of %d", name, rows, unsupported)
		}
	}
}

// TestRunTableWords checks the words of the table line by line: the
// reasons counted, the rate of an integer operation in GOP/s, ties, an
// unsettled interval, a failure's reason under its table, margins.
func TestRunTableWords(t *testing.T) {
	file, err := results.ReadFile(cliData("run-table-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeTable(&b, file, tableOptions{precision: 0.01}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"\npeak-coopmat-f16 f16, size 256x16: 12 unsupported: 12× needs cooperative matrices (VK_NV_cooperat",
		"\n  + 28 unsupported: 27× needs cooperative matrices (VK_NV_cooperative_matrix ×13, VK_KHR_cooperativ",
		"\n  + 16 dropped early, slower than the leader\n",
		"\n    gridstride-vec4-u4-wg256-g1024 failed: vkCreateComputePipelines: VK_ERROR_OUT_OF_HOST_MEMORY\n",
		"\nwinners (margin: how much slower the runner-up is)\n",
		"\n  peak-mad-i32   16384x1024   acc8-unroll32-wg256           439.76µs  76.3 GOP/s    -       tie\n",
		"\n  gemm f32       256x256x256  regblock-128x128x8-8x8-exact  3.858ms   8.7 GFLOP/s   7%      8.8%\n",
		"\n  *  vec4-wg512                      2.103ms  ±0.9%      1.049ms  6.0   tie\n",
		"\n     vec4-wg256                      2.121ms  unsettled  1.039ms  5.9\n",
		"unsettled: the 95% interval is wider than the ±1% asked (--precision)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "76.3 GFLOP/s") {
		t.Errorf("an integer operation's rate is in GFLOP/s:\n%s", out)
	}
}

// TestRunTablePeak: the peak is copy's own rate, measured by another
// process, so a kernel that reaches it may read a few percent above it.
// A rate above the peak within that noise reads "at peak", in the rows
// and in the winners; one flagged above the peak reads "above peak", and
// the legend under the tables explains both. No percentage over 100 is
// written. (Mutation: writing the percentage whatever it is fails the
// first three rows.)
func TestRunTablePeak(t *testing.T) {
	file, err := results.ReadFile(cliData("run-table-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		percent float64
		flags   []string
		want    string
	}{
		{"copy/u32/1048576/vec4-unroll4-wg256", 102.4, nil, "at peak"},
		{"triad/f32/1048576/vec4-wg512", 104.6, nil, "at peak"},
		{"triad/f32/1048576/vec4-wg256", 118.2, []string{autotune.FlagAbovePeakBandwidth}, "above peak"},
		{"reduce/f32/1048576/subgroup-vec4-u4-wg512", 99.6, nil, "100%"},
		{"reduce/f32/1048576/subgroup-vec4-u4-wg256", 97.2, nil, "97%"},
	} {
		i := slices.IndexFunc(file.Benchmarks, func(b results.Benchmark) bool { return b.Name == tc.name })
		if i < 0 {
			t.Fatalf("no benchmark %s in the input", tc.name)
		}
		b := &file.Benchmarks[i]
		b.PercentPeak, b.Flags = tc.percent, tc.flags
		if got := report.PeakText(b); got != tc.want {
			t.Errorf("%s at %g%% of peak, flags %v: %q, want %q", tc.name, tc.percent, tc.flags, got, tc.want)
		}
	}
	var buf bytes.Buffer
	if err := writeTable(&buf, file, tableOptions{precision: 0.01}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"\n  *  vec4-unroll4-wg256              1.355ms  ±0.8%    698.83µs  6.2   at peak  tie\n",
		"\n     vec4-wg256                      2.121ms  unsettled  1.039ms  5.9   above peak\n",
		"\n  *  vec4-wg512                      2.103ms  ±0.9%      1.049ms  6.0   at peak     tie\n",
		"\n  copy u32       1048576      vec4-unroll4-wg256            1.355ms   6.2 GB/s      at peak  tie\n",
		"\n  triad f32      1048576      vec4-wg512                    2.103ms   6.0 GB/s      at peak  tie\n",
		"\nat peak: up to a few percent above the device's peak",
		"\nabove peak: faster than the peak by more than its noise",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table does not say %q:\n%s", want, out)
		}
	}
	if m := regexp.MustCompile(`\b(10[1-9]|1[1-9][0-9]|[2-9][0-9][0-9])%`).FindString(out); m != "" {
		t.Errorf("the table writes %s, over 100%%:\n%s", m, out)
	}
}
