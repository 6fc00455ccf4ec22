package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/store"
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
		if err := writeResults(&b, "table", file, tableOptions{precision: 0.01, verbose: verbose, tableWidth: columns}); err != nil {
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
// unsettled interval, a failure's reason under its table, margins. The
// reasons are whole, wrapped, where they were cut at 100 columns.
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
		"\npeak-coopmat-f16 f16, size 256x16: 12 unsupported: 12× needs cooperative matrices\n  (VK_NV_cooperative_matrix ×9, VK_KHR_cooperative_matrix ×3), which the device lacks\n",
		"\n  + 28 unsupported: 27× needs cooperative matrices (VK_NV_cooperative_matrix ×13,\n    VK_KHR_cooperative_matrix ×10, VK_NV_cooperative_matrix2 ×4), which the device lacks; 1× needs\n    32.5 KiB of shared memory, device has 32 KiB\n",
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

// TestRunTableNames: in a file or a pipe (no width) a candidate's name is
// never cut, however long; on a terminal every line fits its width (at
// 200 the name whole, at 40 cut), and a name cut to fit keeps its end, which tells it from the names that
// share its start. (Mutation: the cut at 100 columns whatever the output,
// and the middle cut it made, "regblock-bm128…-exact1", fail it.)
func TestRunTableNames(t *testing.T) {
	file, err := results.ReadFile(cliData("run-table-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	long := []string{"regblock-bm128-bn128-bk16-tx8-ty8-ph2-swz1-vec4-exact1", "regblock-bm128-bn128-bk16-tx8-ty8-ph2-swz1-vec4-exact0"}
	n := 0
	for i := range file.Benchmarks {
		if b := &file.Benchmarks[i]; b.Op == "gemm" && b.Ran() && n < len(long) {
			b.Candidate = long[n]
			n++
		}
	}
	for _, width := range []int{0, 40, 200} {
		var buf bytes.Buffer
		if err := writeTable(&buf, file, tableOptions{precision: 0.01, verbose: true, tableWidth: tableWidth(width)}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, name := range long {
			cut := regexp.MustCompile(`(?m)^ {5}…\S*` + regexp.QuoteMeta(name[len(name)-8:]) + ` `)
			if whole := strings.Contains(out, "  "+name+"  "); width != 40 && !whole || width == 40 && !cut.MatchString(out) {
				t.Errorf("width %d: %s is not there, whole (or at 40, cut at its start):\n%s", width, name, out)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if w := utf8.RuneCountInString(line); width > 0 && pastEdge(line, width) {
				t.Errorf("width %d: a line of %d columns: %q", width, w, line)
			}
		}
	}
}

// TestRunTableTieRules: the legend says each rule that broke a tie in the
// tables once, where it said only the last one seen, as if it broke them
// all.
func TestRunTableTieRules(t *testing.T) {
	file, err := results.ReadFile(cliData("run-table-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	ties := 0
	for i := range file.Benchmarks {
		if b := &file.Benchmarks[i]; b.Tie != "" {
			if ties++; ties == 1 {
				b.Tie = autotune.TieRuleTarget
			} else {
				b.Tie = autotune.TieRule
			}
		}
	}
	if ties < 2 {
		t.Fatalf("%d ties in the input; want two or more", ties)
	}
	var b bytes.Buffer
	if err := writeTable(&b, file, tableOptions{precision: 0.01}); err != nil {
		t.Fatal(err)
	}
	want := "\n* the fastest; tie: " + autotune.TieRuleTarget + "\n  or: " + autotune.TieRule + "\n"
	if out := b.String(); !strings.Contains(out, want) || strings.Count(out, autotune.TieRule) != 1 {
		t.Errorf("the legend does not say each rule once, %q:\n%s", want, out)
	}
}

// TestRunTablePeak: the peak is a measurement too, with a 95% interval,
// so a kernel that reaches it may read a few percent above its median. A
// rate whose interval overlaps the peak's reads "at peak", in the rows
// and in the winners; one whose interval lies above the peak's reads
// "above peak"; against a peak stored without an interval (a point) the
// same rates read above it. The legend under the tables explains both,
// and no percentage over 100 is written. The flags and percentages are
// set as run sets them, from the peak. (Mutation: judging by the medians
// fails gridstride-vec4-u4-wg512-g1024's "at peak"; writing the
// percentage whatever it is fails every row past 100.)
func TestRunTablePeak(t *testing.T) {
	// Copy's peak: 6 GB/s, its interval ±0.7%.
	withCI := &autotune.Peak{Rates: autotune.Rates{BandwidthGBps: 6},
		Low: &autotune.Rates{BandwidthGBps: 5.96}, High: &autotune.Rates{BandwidthGBps: 6.04}}
	for _, tc := range []struct {
		peak *autotune.Peak
		want map[string]string // a candidate's % peak, in its row
	}{
		{withCI, map[string]string{
			"vec4-unroll4-wg256":             "above peak", // 6.15-6.25 GB/s
			"gridstride-vec4-u4-wg512-g1024": "at peak",    // 6.03-6.15 GB/s
			"vec4-unroll4-wg128":             "at peak",    // 5.95-6.06 GB/s
			"vec4-wg512":                     "98%",        // copy's, 5.84-5.91 GB/s
			"subgroup-vec4-u4-wg256":         "52%",
		}},
		{&autotune.Peak{Rates: withCI.Rates}, map[string]string{
			"vec4-unroll4-wg256":             "above peak",
			"gridstride-vec4-u4-wg512-g1024": "above peak",
			"vec4-unroll4-wg128":             "at peak",
		}},
	} {
		file, err := results.ReadFile(cliData("run-table-input.json"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range file.Benchmarks {
			b := &file.Benchmarks[i]
			op, err := catalogue.Lookup(b.Op)
			if err != nil {
				t.Fatal(err)
			}
			b.Flags = append(b.Flags, tc.peak.Above(&b.Measurement, op)...)
			b.PercentPeak = report.PercentOfPeak(&b.Measurement, op, tc.peak)
		}
		var buf bytes.Buffer
		if err := writeTable(&buf, file, tableOptions{precision: 0.01}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for cand, want := range tc.want {
			row := regexp.MustCompile(`(?m)^  [* ]  ` + cand + ` .*$`).FindString(out)
			if !strings.Contains(row, "  "+want) {
				t.Errorf("peak %v: %s's row %q does not say %q:\n%s", tc.peak.Low, cand, row, want, out)
			}
		}
		for _, want := range []string{"\nat peak: above the median of the device's peak", "\nabove peak: the rate's 95% interval lies above the peak's"} {
			if !strings.Contains(out, want) {
				t.Errorf("the legend does not say %q:\n%s", want, out)
			}
		}
		if m := regexp.MustCompile(`\b(10[1-9]|1[1-9][0-9]|[2-9][0-9][0-9])%`).FindString(out); m != "" {
			t.Errorf("the table writes %s, over 100%%:\n%s", m, out)
		}
	}
}

// TestRunTableFlagsWhole: a candidate's flags are said in words, not as
// the results file's tokens, and its notes are never cut: notes too long
// for the notes column fold onto lines of their own under the row (under
// the notes where the longest word fits there, else hanging from the
// row's start: with the % peak column it does not), each flag's words
// whole, and every line fits 100 columns. (Mutation: the cut the grid
// made before, "measured again af…", fails it; so does cutting a word
// where it wraps, and the tokens shown instead of the words.)
func TestRunTableFlagsWhole(t *testing.T) {
	file, err := results.ReadFile(cliData("run-table-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	flags := []string{autotune.FlagRemeasured, autotune.FlagDrift, autotune.FlagPeakOtherClock,
		autotune.FlagBudgetSpent, "throttled", "clocks-moved"}
	for i := range file.Benchmarks {
		if b := &file.Benchmarks[i]; b.Winner && b.Op == "copy" {
			b.Flags = flags
		}
	}
	for _, verbose := range []bool{false, true} {
		if verbose { // a column more: the notes narrower than a flag
			for i := range file.Benchmarks {
				file.Benchmarks[i].PercentPeak = 50
			}
		}
		var buf bytes.Buffer
		if err := writeTable(&buf, file, tableOptions{verbose: verbose, tableWidth: columns}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > columns {
				t.Errorf("a line of %d columns: %q", n, line)
			}
		}
		if strings.Contains(out, "…;") || strings.Contains(out, "-…") {
			t.Errorf("a flag is cut:\n%s", out)
		}
		row := regexp.MustCompile(`(?m)^  \*  vec4-unroll4-wg256 .*\n( {6,}\S.*\n)*`).FindString(out)
		notes := strings.Join(strings.Fields(row), " ")
		for _, f := range flags {
			if !regexp.MustCompile(`[ ;]`+report.FlagText(f)+`(;|$)`).MatchString(notes) || strings.Contains(f, "-") && strings.Contains(out, f) {
				t.Errorf("verbose %v: the winner's row does not say %s in words, whole (%q):\n%s", verbose, f, report.FlagText(f), row)
			}
		}
	}
}

// TestCacheShowFlagsInWords: cache show says a candidate's flags in
// words, as run's table does, before its error, each once. (Mutation:
// the tokens shown instead fail it.)
func TestCacheShowFlagsInWords(t *testing.T) {
	flags := []string{autotune.FlagBudgetSpent, autotune.FlagDrift}
	e := &autotune.Entry{Key: "copy/u32/4096", Results: []results.Result{
		{Index: 0, Name: "flagged", Measurement: results.Measurement{Outcome: results.Measured, Flags: flags}},
		{Index: 1, Name: "failed", Measurement: results.Measurement{Outcome: results.Failed, Error: "it broke"}},
		{Index: 2, Name: "both", Measurement: results.Measurement{Outcome: results.Failed, Error: "it broke", Flags: flags[:1]}},
	}}
	cmd := newCacheCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	if err := writeEntry(cmd, store.Table{}, "", e); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"flagged": "budget spent before the precision was reached; speed drifted while measured",
		"failed":  "it broke",
		"both":    "budget spent before the precision was reached; it broke",
	}
	for name, note := range want {
		if !regexp.MustCompile(`(?m)^ +\*? +` + name + ` .*  ` + regexp.QuoteMeta(note) + `$`).MatchString(out.String()) {
			t.Errorf("cache show: no row %s with the note %q:\n%s", name, note, out.String())
		}
	}
}

// TestRunTableRoundsPooled: the table's first line says how many rounds
// were pooled, and where an operation has fewer (a device lost in the
// middle of a run --count N leaves those after it fewer), how few, where
// it said N of every operation.
func TestRunTableRoundsPooled(t *testing.T) {
	for _, fewer := range []bool{false, true} {
		file, err := results.ReadFile(cliData("run-table-input.json"))
		if err != nil {
			t.Fatal(err)
		}
		file.Rounds = 3
		var last string // the last operation measured
		for _, b := range file.Benchmarks {
			if b.Stats != nil {
				last = b.Op
			}
		}
		for i := range file.Benchmarks {
			b := &file.Benchmarks[i]
			if b.Stats == nil {
				continue // not measured
			}
			n := 3
			if fewer && b.Op == last {
				n = 1
			}
			b.Rounds = slices.Repeat([]stats.Stats{*b.Stats}, n)
		}
		var buf bytes.Buffer
		if err := writeTable(&buf, file, tableOptions{precision: 0.01}); err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(buf.String(), "\n\n")
		head = strings.ReplaceAll(head, "\n  ", " ") // a line wrapped
		want := ", 3 rounds pooled"
		if fewer {
			want += ", 1 for some operations"
		}
		if !strings.HasSuffix(head, want) {
			t.Errorf("with %s's rounds fewer: %v: the first line is %q; want it to end %q", last, fewer, head, want)
		}
	}
}

// TestTableNamesEveryCommand: compare's, peak's and tune --all-devices'
// tables follow run's rule (TestRunTableNames): in a file or a pipe a
// name longer than 100 columns comes whole; on a terminal of 80 columns
// every line fits, the name cut at its start. (They cut at 100 columns
// whatever the output, peak's and tune's names in their middle, and
// compare's not at all on a terminal.)
func TestTableNamesEveryCommand(t *testing.T) {
	name := strings.Repeat("regblock-bm128-", 7) + "exact1"
	rep, err := compareFiles([]string{compareData("base.json")}, []string{compareData("slower.json")}, results.DefaultCompareOptions)
	if err != nil {
		t.Fatal(err)
	}
	rep.Rows[0].Name = "copy/u32/4096/" + name
	gemm, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	job := autotune.JobResult{Job: autotune.Job{Op: gemm, Size: kernels.SizeOf(64, 64, 64)}, Table: store.Table{Hardware: "hw"},
		Entry: &autotune.Entry{Fastest: 0, FastestName: name, Device: "0:GPU:0123456789",
			Results: []results.Result{{Name: name, Measurement: results.Measurement{Outcome: results.Measured, Stats: &stats.Stats{Median: 1e-3}}}}}}
	writers := map[string]func(*bytes.Buffer, tableWidth) error{
		"compare": func(b *bytes.Buffer, w tableWidth) error { return writeCompare(b, "table", rep, w) },
		"peak": func(b *bytes.Buffer, w tableWidth) error {
			return writePeakTable(b, hal.DeviceInfo{Name: "GPU"}, []peakRow{{what: "copy", cand: name, rate: 100, unit: "GB/s"}}, nil, "idle", w)
		},
		"tune --all-devices": func(b *bytes.Buffer, w tableWidth) error {
			return writeAllDevices(b, []autotune.JobResult{job}, time.Second, w)
		},
	}
	for command, write := range writers {
		for _, width := range []tableWidth{0, 80} {
			var b bytes.Buffer
			if err := write(&b, width); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			cut := regexp.MustCompile(` …\S*` + regexp.QuoteMeta(name[len(name)-12:]) + ` `)
			if whole := strings.Contains(out, name+" "); width == 0 && !whole || width > 0 && (whole || !cut.MatchString(out)) {
				t.Errorf("%s, width %d: the name is not there whole (or at 80, cut at its start):\n%s", command, width, out)
			}
			for _, line := range strings.Split(out, "\n") {
				if n := utf8.RuneCountInString(line); width > 0 && n > int(width) {
					t.Errorf("%s, width %d: a line of %d columns: %q", command, width, n, line)
				}
			}
		}
	}
}

// TestRunTableTitleWidth: an operation's title is wrapped at a
// terminal's edge, as the rows under it fit it; in a file or a pipe it
// is whole. It went whole past the edge.
func TestRunTableTitleWidth(t *testing.T) {
	file, err := results.ReadFile(cliData("run-table-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	op := "fused-multiply-add-chain-of-a-long-name"
	for i := range file.Benchmarks {
		if b := &file.Benchmarks[i]; b.Op == "gemm" {
			b.Op = op
		}
	}
	for _, width := range []int{0, 50} {
		var buf bytes.Buffer
		if err := writeTable(&buf, file, tableOptions{precision: 0.01, tableWidth: tableWidth(width)}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		title := "\n" + op + " f32, size 256x256x256"
		if !strings.Contains(unwrapped(out), title) || width == 0 && !strings.Contains(out, title) {
			t.Errorf("width %d: the title of %s is not there whole (wrapped at 50):\n%s", width, op, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); width > 0 && n > width {
				t.Errorf("width %d: a line of %d columns: %q", width, n, line)
			}
		}
	}
}

// TestTablesFitEveryWidth: on terminals of 120 columns down to 20,
// every table's lines fit (run's with its winners, compare's, ab's,
// peak's, devices'), every figure is whole, two spaces from its neighbours, and no
// two column titles run together. Below about 47 columns run's rows went
// past the edge (their figures on one line, never cut), at 50 the
// gates' figures were one space apart: "vs probe p" read as one title,
// and devices' values kept 16 columns beside their labels whatever the
// width.
// Rows too wide go on continuation lines (grid.stacked, bands).
func TestTablesFitEveryWidth(t *testing.T) {
	file, err := results.ReadFile(cliData("run-table-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := compareFiles([]string{compareData("base.json")}, []string{compareData("slower.json")}, results.DefaultCompareOptions)
	if err != nil {
		t.Fatal(err)
	}
	rep.Rows[0].Name = "copy/u32/4096/" + strings.Repeat("vec4-", 6) + "wg256"
	data, err := os.ReadFile(cliData("ab-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	ab, err := results.ParseAB(data)
	if err != nil {
		t.Fatal(err)
	}
	peaks := []peakRow{{what: "copy", cand: "vec4-unroll8-wg256", rate: 812.5, unit: "GB/s", halfWidth: 0.004},
		{what: "peak-coopmat-f16acc", cand: "coopmat-16x16x16-acc8-unroll32-wg256", rate: 641320.4, unit: "GFLOP/s", halfWidth: 0.012}}
	// Each table, and its figures and column titles.
	var figures []string
	for _, g := range opGroups(file) {
		for _, b := range g.benches {
			if s := b.Stats; s != nil && b.Outcome == results.Measured {
				figures = append(figures, report.Seconds(s.Median), report.Seconds(s.Min))
			}
		}
		if win, _ := g.winner(); win != nil {
			figures = append(figures, g.name(), g.shape, report.RateText(report.RateOf(win, report.UnitOf(win)), report.UnitOf(win)))
		}
	}
	cells := func(tab gateTable) (figures []string) {
		for _, r := range tab.rows {
			figures = append(figures, slices.DeleteFunc(slices.Clone(r.cells), func(c string) bool { return c == "-" })...)
		}
		return figures
	}
	tables := []struct {
		what    string
		write   func(*bytes.Buffer, tableWidth) error
		figures []string
		titles  []string
	}{
		{"run", func(b *bytes.Buffer, w tableWidth) error {
			return writeTable(b, file, tableOptions{precision: 0.01, tableWidth: w})
		}, figures, []string{"candidate", "median", "±95% CI", "min", "GB/s", "GFLOP/s", "% peak", "notes", "operation", "size", "winner", "rate", "margin"}},
		{"compare", func(b *bytes.Buffer, w tableWidth) error { return writeCompare(b, "table", rep, w) }, cells(compareTable(rep)), compareTable(rep).head},
		{"ab", func(b *bytes.Buffer, w tableWidth) error { return writeAB(b, "table", ab, w) }, cells(abTable(ab)), abTable(ab).head},
		{"peak", func(b *bytes.Buffer, w tableWidth) error {
			return writePeakTable(b, hal.DeviceInfo{Name: "GPU"}, peaks, nil, "idle", w)
		}, []string{"812.5", "641320.4", "GFLOP/s", "±0.4%", "±1.2%", "peak-coopmat-f16acc"}, []string{"measure", "best candidate", "rate", "±95% CI"}},
		{"devices", func(b *bytes.Buffer, w tableWidth) error {
			info := hal.DeviceInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", DriverName: "llvmpipe", DriverInfo: "Mesa 22.3.6 (LLVM 15.0.6)"}
			return writeDevicesTable(b, []hal.DeviceInfo{info}, []deviceNow{{why: "not an NVIDIA GPU (only NVML is read for now)"}}, w)
		}, nil, nil},
	}
	for _, tab := range tables {
		for _, width := range []int{120, 80, 50, 40, 30, 20} {
			var b bytes.Buffer
			if err := tab.write(&b, tableWidth(width)); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, line := range strings.Split(out, "\n") {
				if n := utf8.RuneCountInString(line); pastEdge(line, width) {
					t.Errorf("%s at %d columns: a line of %d: %q", tab.what, width, n, line)
				}
			}
			for _, f := range tab.figures {
				if !regexp.MustCompile(`(?m)(^ *|  )` + regexp.QuoteMeta(f) + `(  |$)`).MatchString(out) {
					t.Errorf("%s at %d columns: %q is not whole, two spaces from its neighbours:\n%s", tab.what, width, f, out)
				}
			}
			for i, a := range tab.titles {
				for _, z := range tab.titles[i+1:] {
					if regexp.MustCompile(`(?m)(^|\s)` + regexp.QuoteMeta(a+" "+z) + `(\s|$)`).MatchString(out) {
						t.Errorf("%s at %d columns: the titles %q and %q run together:\n%s", tab.what, width, a, z, out)
					}
				}
			}
		}
	}
}
