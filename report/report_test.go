package report_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// TestWrite draws a crafted result file in every format, straight from
// the package: two operations and a roofline under the roofs given.
func TestWrite(t *testing.T) {
	in, err := report.ReadFiles([]string{"../testdata/cli/report-input.json"})
	if err != nil {
		t.Fatal(err)
	}
	opts := report.Options{Version: "test", Peak: func(string) *autotune.Peak {
		return &autotune.Peak{Rates: autotune.Rates{BandwidthGBps: 10, GFLOPs: 100}}
	}}
	for _, f := range []report.Format{report.HTML, report.SVG, report.PNG} {
		var buf bytes.Buffer
		n, err := report.Write(&buf, f, in, opts)
		if err != nil || n != 3 {
			t.Errorf("%s: %d charts, %v; want 3 (two operations and a roofline)", f, n, err)
		}
		if f != report.PNG && !strings.Contains(buf.String(), "memory 10 GB/s") {
			t.Errorf("%s: no memory roof drawn", f)
		}
	}
	// Without a peak the roofline is a note, not a chart.
	n, err := report.Write(&bytes.Buffer{}, report.SVG, in, report.Options{})
	if err != nil || n != 2 {
		t.Errorf("without a peak: %d charts, %v; want 2", n, err)
	}
}

func TestFormatOf(t *testing.T) {
	if f, err := report.FormatOf("a/b.HTM"); f != report.HTML || err != nil {
		t.Errorf("FormatOf(b.HTM) = %q, %v", f, err)
	}
	if _, err := report.FormatOf("b.pdf"); !errors.Is(err, report.ErrFormat) {
		t.Errorf("FormatOf(b.pdf): %v, want ErrFormat", err)
	}
}

func ExampleSeconds() {
	fmt.Println(report.Seconds(0.000123), report.Seconds(2.5e-9), report.Seconds(0))
	// Output: 123.00µs 2.5ns -
}

// TestWriteAB draws vkbench ab's report (of a real run on lavapipe: one
// pair unclear, one slower) beside a result file: the pairs are a chart
// of ratios NEW/OLD of their own, and the page's table gives each pair's
// medians, ratio, interval and verdict.
func TestWriteAB(t *testing.T) {
	in, err := report.ReadFiles([]string{"../testdata/cli/report-input.json", "../testdata/cli/ab-report.json"})
	if err != nil {
		t.Fatal(err)
	}
	if in[1].AB == nil || in[1].File != nil || in[0].AB != nil {
		t.Fatalf("ab's report was not told from a result file: %+v", in)
	}
	var buf bytes.Buffer
	n, err := report.Write(&buf, report.HTML, in, report.Options{})
	if err != nil || n != 3 {
		t.Fatalf("%d charts, %v; want 3 (two operations and ab's pairs)", n, err)
	}
	page := buf.String()
	for _, want := range []string{
		"<h2>ab: slower10.json against old.json — ab-report.json</h2>",
		"time NEW/OLD, with its 95% interval (above 1: NEW slower)",
		"<td>chain/f32/2048/wg256</td><td>slower</td>",
		`<td class="num">1.101</td><td class="num">[1.080, 2.788]</td><td>slower by 8.0% to 178.8%, past 5.0%</td>`,
		`<td class="num">1.084</td><td class="num">[0.714, 1.107]</td>`,
		"<th>OLD median (µs)</th><th>NEW median (µs)</th>",
		">1.0</text>", // the ratio where neither is slower is labelled on the axis
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}

// TestDropNote: the page's note on a dropped candidate is made of the
// drop the tuner recorded, not of its message, whose words may change:
// here they are other words, and the note is still there, its times in
// the table's unit and its leader named as the winner or as the leader
// at the time; several rounds that each dropped it are counted. A
// dropped candidate without a recorded drop (a file of an older
// vkbench) shows its message.
func TestDropNote(t *testing.T) {
	in, err := report.ReadFiles([]string{"../testdata/cli/report-input.json"})
	if err != nil {
		t.Fatal(err)
	}
	bs := in[0].File.Benchmarks
	var dropped *results.Benchmark
	for i := range bs {
		if bs[i].Outcome == results.Dropped {
			dropped = &bs[i]
		}
	}
	if dropped == nil || dropped.Drop == nil {
		t.Fatal("report-input.json has no dropped candidate with its drop")
	}
	for _, c := range []struct {
		drop results.Drop
		note string
	}{
		{results.Drop{Samples: 7, Median: 0.0042, Leader: "vec4", LeaderMedian: 0.00105},
			"dropped after 7 samples at a median of 4.2 ms: vec4, the winner, was at 1.05 ms"},
		{results.Drop{Samples: 9, Median: 0.0033, Leader: "elsewhere", LeaderMedian: 0.0011, Rounds: 4},
			"dropped early in each of 4 rounds; in the last, dropped after 9 samples at a median of 3.3 ms: elsewhere, the leader at the time, was at 1.1 ms"},
	} {
		d := c.drop
		dropped.Drop, dropped.Error = &d, "cast out: words of another version"
		var buf bytes.Buffer
		if _, err := report.Write(&buf, report.HTML, in, report.Options{}); err != nil {
			t.Fatal(err)
		}
		if page := buf.String(); !strings.Contains(page, c.note) || strings.Contains(page, "cast out") {
			t.Errorf("drop %+v: the page does not say %q, or shows the message", d, c.note)
		}
	}
	dropped.Drop = nil
	var buf bytes.Buffer
	if _, err := report.Write(&buf, report.HTML, in, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "cast out: words of another version") {
		t.Error("without a recorded drop, the page does not show the message")
	}
}

// TestPageSaysWhatItsChartsShow: the page's first line tells what its
// charts show: a run's candidates' times with the winner filled, ab's
// pairs' ratios NEW/OLD against 1 and the threshold, or both. A page of
// ab's report alone opened with the run's sentence, of winners it has
// none of.
func TestPageSaysWhatItsChartsShow(t *testing.T) {
	const run, ab = "the winner is filled", "every pair's time NEW/OLD"
	for _, c := range []struct {
		files   []string
		has     []string
		hasNone []string
	}{
		{[]string{"../testdata/cli/ab-report.json"}, []string{ab}, []string{run}},
		{[]string{"../testdata/cli/report-input.json"}, []string{"Each chart shows every candidate's", run}, []string{ab}},
		{[]string{"../testdata/cli/report-input.json", "../testdata/cli/ab-report.json"}, []string{"Each chart of a run shows every candidate's", run, ab}, nil},
	} {
		in, err := report.ReadFiles(c.files)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := report.Write(&buf, report.HTML, in, report.Options{}); err != nil {
			t.Fatal(err)
		}
		intro, _, _ := strings.Cut(buf.String()[strings.Index(buf.String(), "<p>Drawn by"):], "</p>")
		for _, want := range c.has {
			if !strings.Contains(intro, want) {
				t.Errorf("%v: the page's first line does not say %q: %s", c.files, want, intro)
			}
		}
		for _, bad := range c.hasNone {
			if strings.Contains(intro, bad) {
				t.Errorf("%v: the page's first line says %q: %s", c.files, bad, intro)
			}
		}
	}
}

// TestCandidatesBestFirst: a page's table lists an operation's
// candidates as a reader looks for them: the winner first, marked, then
// those measured, best first by the file's objective, then those
// dropped early, then those not measured at all, ties by name. It listed
// them in the file's order, the catalogue's, so that the winner of copy
// came second after a kernel dropped as much slower, and gemm's last.
func TestCandidatesBestFirst(t *testing.T) {
	in, err := report.ReadFiles([]string{"../testdata/cli/report-input.json"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"★vec4", "vec4-unroll4", "scalar"}, {"★regblock", "naive", "regblock-big", "tiled"}}
	if d := cmp.Diff(want, tableRows(t, in)); d != "" {
		t.Errorf("the tables' candidates (-want +got):\n%s", d)
	}
	// Picked by energy: the winner uses the least, the fastest is last;
	// two of one energy keep their names' order.
	bench := func(cand string, median, joules float64, outcome results.Outcome) results.Benchmark {
		b := results.Benchmark{Name: "copy/u32/64/" + cand, Op: "copy", DType: "u32", Shape: "64", Candidate: cand}
		b.Outcome = outcome
		if outcome == results.Measured {
			b.Stats, b.EnergyJ = &stats.Stats{Median: median, N: 10, Batch: 1}, joules
		} else {
			b.Error = "failed to build"
		}
		return b
	}
	f := &results.File{Schema: results.Schema, Time: time.Now(), Device: results.Device{Name: "GPU", Hardware: "gpu"}, Mode: "hot", Rounds: 1, Objective: "energy",
		Benchmarks: []results.Benchmark{bench("a", 1e-3, 3, results.Measured), bench("aa", 0, 0, results.Failed), bench("d", 1.5e-3, 2, results.Measured),
			bench("c", 1.5e-3, 2, results.Measured), bench("b", 2e-3, 1, results.Measured)}}
	f.Benchmarks[4].Winner = true
	if d := cmp.Diff([][]string{{"★b", "c", "d", "a", "aa"}}, tableRows(t, []report.Input{{Label: "energy.json", File: f}})); d != "" {
		t.Errorf("by energy (-want +got):\n%s", d)
	}
}

// tableRows are the candidates of each table of in's page, in order, the
// winner's name after its mark.
func tableRows(t *testing.T, in []report.Input) [][]string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := report.Write(&buf, report.HTML, in, report.Options{}); err != nil {
		t.Fatal(err)
	}
	var out [][]string
	row := regexp.MustCompile(`<tr(?: class="winner")?><td>(★?)</td><td>([^<]*)</td>`)
	for _, table := range strings.Split(buf.String(), "<table>")[2:] {
		var names []string
		for _, m := range row.FindAllStringSubmatch(table, -1) {
			names = append(names, m[1]+m[2])
		}
		out = append(out, names)
	}
	return out
}

// TestPercentOfRooflinePeak: where the results file records no percentage
// of peak, a page's table works it out from the roofline's peak, as the
// roofline's notes do ("80% of the 10 GB/s roof"), marked †: of the
// bandwidth roof for an operation that only moves data, under it and the
// compute roof of its precision for arithmetic, the one vkbench run's
// percentage is of (PercentOfPeak). A percentage the file records stays
// unmarked.
func TestPercentOfRooflinePeak(t *testing.T) {
	f, pk := fp16Roofs()
	var buf bytes.Buffer
	opts := report.Options{Peak: func(string) *autotune.Peak { return pk }}
	if _, err := report.Write(&buf, report.HTML, []report.Input{{Label: "r.json", File: f}}, opts); err != nil {
		t.Fatal(err)
	}
	var got []string
	row := regexp.MustCompile(`<tr(?: class="winner")?><td>★?</td><td>([^<]*)</td>(?:<td[^>]*>[^<]*</td>){4}<td class="num">([^<]*)</td>`)
	for _, m := range row.FindAllStringSubmatch(buf.String(), -1) {
		got = append(got, m[1]+" "+m[2])
	}
	// gemm f32 does 50 GFLOP/s under a compute roof of 100 and a memory
	// roof of 10 GB/s × 6.25 FLOP/byte: 80%. gemm-f16 does 150 GFLOP/s at
	// 18.75 FLOP/byte, under the fp16 roof of 200: 80% of the memory
	// roof's 187.5 (under fp32's, above it).
	if d := cmp.Diff([]string{"a 80%†", "b 55%", "a 80%†", "a 80%†"}, got); d != "" {
		t.Errorf("the tables' %% peak (-want +got):\n%s", d)
	}
	if n := strings.Count(buf.String(), "† worked out here from the roofline"); n != 3 {
		t.Errorf("%d tables say what † means, want 3 (copy's, gemm f32's and gemm-f16's)", n)
	}
	op, err := catalogue.Lookup("gemm-f16")
	if err != nil {
		t.Fatal(err)
	}
	if run := report.PercentOfPeak(&f.Benchmarks[3].Measurement, op, pk); math.Abs(run-80) > 1e-9 {
		t.Errorf("run's percentage of peak of gemm-f16 is %g, not the table's 80", run)
	}
}

// fp16Roofs is a results file of copy, gemm (fp32) and gemm-f16, none of
// which records a percentage of peak but copy's b, and a peak whose fp16
// roof (200 GFLOP/s) is twice its fp32 one (100), over a memory roof of
// 10 GB/s.
func fp16Roofs() (*results.File, *autotune.Peak) {
	bench := func(op, dtype, cand string, flops, pct float64) results.Benchmark {
		b := results.Benchmark{Name: op + "/" + dtype + "/64/" + cand, Op: op, DType: dtype, Shape: "64", Candidate: cand, PercentPeak: pct}
		// 8 MB in 1 ms: 8 GB/s.
		b.Outcome, b.Stats, b.Bytes, b.Flops = results.Measured, &stats.Stats{Median: 1e-3, N: 10, Batch: 1}, 8e6, flops
		b.Winner = cand == "a"
		return b
	}
	f := &results.File{Schema: results.Schema, Time: time.Now(), Device: results.Device{Name: "GPU", Hardware: "gpu"}, Mode: "hot", Rounds: 1,
		Benchmarks: []results.Benchmark{bench("copy", "u32", "a", 0, 0), bench("copy", "u32", "b", 0, 55),
			bench("gemm", "f32", "a", 5e7, 0), bench("gemm-f16", "f16", "a", 1.5e8, 0)}}
	return f, &autotune.Peak{Rates: autotune.Rates{BandwidthGBps: 10, GFLOPs: 100, FP16GFLOPs: 200}}
}

// TestRoofPerPrecision: the roofline draws the compute roof of each
// precision it places a point of, labelled with it, the fp16 one of
// gemm-f16 beside fp32's; it drew fp32's alone ("compute 100 GFLOP/s"),
// under which gemm-f16 stood above its roof.
func TestRoofPerPrecision(t *testing.T) {
	f, pk := fp16Roofs()
	var buf bytes.Buffer
	opts := report.Options{Peak: func(string) *autotune.Peak { return pk }}
	if _, err := report.Write(&buf, report.SVG, []report.Input{{Label: "r.json", File: f}}, opts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fp32 100 GFLOP/s", "fp16 200 GFLOP/s", "memory 10 GB/s"} {
		if !strings.Contains(buf.String(), ">"+want+"<") {
			t.Errorf("the roofline has no roof labelled %q", want)
		}
	}
	if strings.Contains(buf.String(), "compute 100 GFLOP/s") {
		t.Error("the roofline has one compute roof for every precision")
	}
}
