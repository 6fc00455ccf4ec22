package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/vkbench/vkbench/internal/testenv"
)

// chromium returns the path of a Chromium (Debian's chromium package, which
// scripts/setup.sh installs), or skips the test where there is none and
// the test command did not ask for every test to run.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Unavailable(t, "no chromium on PATH: the browser test needs it (scripts/setup.sh installs Debian's chromium package)")
	return ""
}

// browser starts a headless Chromium, its profile in a fresh folder, with
// nothing that reaches out to the network on its own (the tests run where
// there is none).
func browser(t *testing.T, path string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(ctx)
	t.Cleanup(cancelTab)
	return ctx
}

// chartInfo is what the page's script finds of one chart.
type chartInfo struct {
	Title    string   `json:"title"`
	Width    float64  `json:"width"`
	Height   float64  `json:"height"`
	Shapes   int      `json:"shapes"`
	Texts    []string `json:"texts"`
	Rendered bool     `json:"rendered"`
	// Outside lists the texts the browser drew past the chart's edges.
	Outside []string `json:"outside"`
	// Plot is the data area: as wide as the widest horizontal line (the
	// axis, the grid), as tall as the tallest vertical one.
	Plot rect `json:"plot"`
	// Marks are the glyphs drawn in the data area (points); Labels the
	// texts drawn there (a roofline's operations).
	Marks  []rect `json:"marks"`
	Labels []rect `json:"labels"`
	// Legend are the boxes of the legend's texts.
	Legend []rect `json:"legend"`
	// Ticks are the time axis's labels: where they are, what they say.
	Ticks []struct {
		X float64 `json:"x"`
		V float64 `json:"v"`
	} `json:"ticks"`
}

// value is the time at x on c's axis, read off its first and last ticks;
// NaN without two.
func (c chartInfo) value(x float64) float64 {
	if len(c.Ticks) < 2 {
		return math.NaN()
	}
	a, b := c.Ticks[0], c.Ticks[len(c.Ticks)-1]
	return a.V + (x-a.X)*(b.V-a.V)/(b.X-a.X)
}

// rect is a box on the page, in CSS pixels, and the text in it, if any.
type rect struct {
	L    float64 `json:"l"`
	T    float64 `json:"t"`
	R    float64 `json:"r"`
	B    float64 `json:"b"`
	Text string  `json:"text"`
}

func (a rect) overlaps(b rect) bool { return a.L < b.R && b.L < a.R && a.T < b.B && b.T < a.B }

// chartsScript lists every chart (an svg in a section) with its title,
// the size the browser laid it out at, how many shapes it drew, its texts,
// whether the drawing has an extent of its own (getBBox), the texts that
// reach past its edges (which the browser cuts off), and its geometry:
// the data area, the points in it, the texts in it, the legend's texts.
const chartsScript = `Array.from(document.querySelectorAll('section')).filter(s => s.querySelector('svg')).map(s => {
	const svg = s.querySelector('svg');
	const r = svg.getBoundingClientRect();
	const b = svg.getBBox();
	const box = (e) => { const q = e.getBoundingClientRect(); return {l: q.left, t: q.top, r: q.right, b: q.bottom, text: e.tagName === 'text' ? e.textContent : ''}; };
	const paths = Array.from(svg.querySelectorAll('path')).map(box);
	const flat = paths.filter(p => p.b - p.t < 1.5 && p.r - p.l > 20);
	const tall = paths.filter(p => p.r - p.l < 1.5 && p.b - p.t > 20);
	const wide = flat.reduce((m, p) => (p.r - p.l > m.r - m.l ? p : m), {l: 0, r: 0});
	const high = tall.reduce((m, p) => (p.b - p.t > m.b - m.t ? p : m), {t: 0, b: 0});
	const plot = {l: wide.l, r: wide.r, t: high.t, b: high.b, text: ''};
	const inside = (q) => (q.l + q.r) / 2 >= plot.l - 2 && (q.l + q.r) / 2 <= plot.r + 2 && (q.t + q.b) / 2 >= plot.t - 8 && (q.t + q.b) / 2 <= plot.b + 8;
	const legendWords = ['slower, wrong or failed', 'faster', 'within 5%', 'unclear', 'dropped early', 'median, 95% interval', 'winner', 'winner (filled)', 'other candidates', 'report-input.json', 'again.json', 'run-table-input.json'];
	const texts = Array.from(svg.querySelectorAll('text')).map(box);
	return {
		title: s.querySelector('h2').textContent,
		width: r.width, height: r.height,
		shapes: svg.querySelectorAll('path, circle, line, polyline, polygon, rect').length,
		texts: texts.map(t => t.text),
		rendered: b.width > 0 && b.height > 0,
		outside: texts.filter(q => q.r - q.l > 0 && (q.l < r.left - 0.5 || q.r > r.right + 0.5 || q.t < r.top - 0.5 || q.b > r.bottom + 0.5)).map(q => q.text),
		plot: plot,
		marks: paths.filter(p => p.r - p.l >= 3 && p.r - p.l <= 20 && Math.abs((p.r - p.l) - (p.b - p.t)) < 1.5 && inside(p)),
		ticks: texts.filter(q => (q.t + q.b) / 2 > plot.b && (q.t + q.b) / 2 < plot.b + 45 && /^[0-9.]+$/.test(q.text)).map(q => ({x: (q.l + q.r) / 2, v: parseFloat(q.text)})),
		labels: texts.filter(q => inside(q)),
		legend: texts.filter(q => legendWords.includes(q.text)),
	};
})`

// pageScript finds what the page says outside its charts: the sections
// without a chart (title and text), every table's header and the cells
// of its time columns, and each drop note with the section's winner.
const pageScript = `({
	text: document.body.innerText,
	bare: Array.from(document.querySelectorAll('section')).filter(s => !s.querySelector('svg')).map(s => s.innerText),
	tables: Array.from(document.querySelectorAll('section table')).map(t => {
		const head = Array.from(t.querySelectorAll('th')).map(h => h.textContent);
		const cols = head.map((h, i) => /\((ns|µs|ms|s)\)$/.test(h) ? i : -1).filter(i => i >= 0);
		const rows = Array.from(t.querySelectorAll('tr')).slice(1).map(tr => Array.from(tr.querySelectorAll('td')).map(td => td.textContent));
		return {
			head: head,
			times: rows.flatMap(r => cols.map(i => r[i])),
			winner: (rows.find(r => r.includes('★')) || []).find((c, i, r) => i > 0 && r[i - 1] === '★') || '',
			notes: rows.map(r => r[r.length - 1]).filter(n => n.startsWith('dropped after')),
		};
	}),
})`

// pageInfo is what pageScript returns.
type pageInfo struct {
	Text   string   `json:"text"`
	Bare   []string `json:"bare"`
	Tables []struct {
		Head   []string `json:"head"`
		Times  []string `json:"times"`
		Winner string   `json:"winner"`
		Notes  []string `json:"notes"`
	} `json:"tables"`
}

// TestReportInBrowser opens vkbench report's HTML in a real browser,
// headless Chromium driven through the DevTools protocol, twice: a crafted
// file overlaid on a copy of itself, and the file of a real run on
// lavapipe (run-table-input.json: slow candidates dropped early, an
// interval of ±50%, operations the device cannot run at all, an integer
// operation; and vkbench ab's report of a real run). Each page loads
// with nothing on the console, every chart is laid out and drawn with the
// series it must have, and its layout holds (checkLayout). A screenshot of each page is kept in the test's artifacts
// (go test -artifacts; scripts/test.sh keeps them under
// bin/test-artifacts), or in $VKBENCH_SCREENSHOTS where set.
func TestReportInBrowser(t *testing.T) {
	exe := chromium(t)
	dir := t.TempDir()
	overlay := filepath.Join(dir, "overlay.html")
	// Two files overlaid: the crafted one (an operation with a failed and
	// an unsupported candidate, a roofline) and a second copy of it.
	second := filepath.Join(dir, "again.json")
	data, err := os.ReadFile(cliData("report-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, 0, "report", cliData("report-input.json"), second, "-o", overlay, "--peak-gbps", "10", "--peak-gflops", "100")
	real := filepath.Join(dir, "lavapipe.html")
	// With vkbench ab's report of a real run: its pairs' ratios.
	mustRun(t, 0, "report", cliData("run-table-input.json"), cliData("ab-report.json"), "-o", real, "--peak-gbps", "40", "--peak-gflops", "150")

	ctx := browser(t, exe)
	charts, page := loadPage(t, ctx, overlay, "overlay.png")
	var titles []string
	for _, c := range charts {
		titles = append(titles, c.Title)
	}
	want := []string{"copy u32, size 1048576", "gemm f32, size 256x256x256", "Roofline: Crafted GPU"}
	if d := cmp.Diff(want, titles); d != "" {
		t.Fatalf("charts (-want +got):\n%s", d)
	}
	// The series each chart must show: one a file, in the legend; every
	// candidate measured on the axis; the roofline's roofs and its
	// operation.
	files := []string{"report-input.json", "again.json"}
	series := [][]string{
		append([]string{"vec4", "vec4-unroll4", "winner (filled)"}, files...),
		append([]string{"regblock", "naive", "winner (filled)"}, files...),
		append([]string{"memory 10 GB/s", "fp32 100 GFLOP/s", "gemm", "arithmetic intensity (FLOP/byte)"}, files...),
	}
	for i, c := range charts {
		all := strings.Join(c.Texts, "\n")
		for _, s := range series[i] {
			if !strings.Contains(all, s) {
				t.Errorf("chart %q has no %q; its texts:\n%s", c.Title, s, all)
			}
		}
	}
	checkLayout(t, charts, page)
	// What the charts leave out, the notes under them say; a row's flags
	// are words.
	for _, s := range []string{"[budget spent before the precision was reached]", "Dropped early as much slower (report-input.json), not drawn: scalar (2.092ms).",
		"Not drawn (again.json): 1 failed: 1× wrong result at C[3,5]: got 1.5, want 2.25 (tolerance 1e-05); 1 unsupported: 1× needs 32.5 KiB of shared memory"} {
		if !strings.Contains(page.Text, s) {
			t.Errorf("the page does not say %q:\n%s", s, page.Text)
		}
	}

	charts, page = loadPage(t, ctx, real, "lavapipe.png")
	checkLayout(t, charts, page)
	for _, c := range charts {
		if strings.HasPrefix(c.Title, "Roofline") && slices.Contains(c.Texts, "peak-mad-i32") {
			t.Errorf("the integer operation peak-mad-i32 is on the GFLOP/s roofline")
		}
	}
	if !strings.Contains(page.Text, "peak-mad-i32 i32, size 16384x1024 does integer arithmetic, not on this FLOP/s roofline: best acc8-unroll32-wg256 at 76.3 GOP/s.") {
		t.Errorf("the page does not say where peak-mad-i32 went:\n%s", page.Text)
	}
	if last := charts[len(charts)-1]; last.Title != "ab: slower10.json against old.json — ab-report.json" || len(last.Marks) != 2 {
		t.Errorf("the last chart is %q with %d points; want ab's, its two pairs", last.Title, len(last.Marks))
	}
	var bare []string
	for _, b := range page.Bare {
		if strings.Contains(b, "nothing measured") {
			bare = append(bare, strings.SplitN(b, "\n", 2)[0])
		}
	}
	wantBare := []string{"peak-coopmat-f16 f16, size 256x16", "peak-coopmat-f16acc f16, size 256x16", "peak-coopmat-s8 i8, size 256x16", "peak-coopmat-bf16 bf16, size 256x16"}
	if d := cmp.Diff(wantBare, bare); d != "" {
		t.Errorf("operations with nothing measured, a line each without a chart (-want +got):\n%s", d)
	}
}

// loadPage loads the report at path in the browser of ctx, fails the test
// on anything the browser reports loading it, keeps a screenshot named
// shot, and returns what chartsScript and pageScript find.
func loadPage(t *testing.T, ctx context.Context, path, shot string) ([]chartInfo, pageInfo) {
	t.Helper()
	var mu sync.Mutex
	var problems []string
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value))
			}
			problems = append(problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			problems = append(problems, fmt.Sprintf("log %s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	}
	if err := chromedp.Listen(ctx, listen); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	enable := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, log.Enable, cdp.Empty{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, runtime.Enable, cdp.Empty{})
		return err
	})
	if _, err := chromedp.Run(ctx, chromedp.Steps(enable, chromedp.Navigate("file://"+path), chromedp.WaitReady("body"))); err != nil {
		t.Fatalf("loading the report in chromium: %v", err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartInfo](chartsScript))
	if err != nil {
		t.Fatalf("finding the charts: %v", err)
	}
	page, err := chromedp.Run(ctx, chromedp.Evaluate[pageInfo](pageScript))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("taking the screenshot: %v", err)
	}
	if title != "vkbench report" {
		t.Errorf("the page's title is %q", title)
	}
	mu.Lock()
	if len(problems) > 0 {
		t.Errorf("the browser reported, loading the page:\n%s", strings.Join(problems, "\n"))
	}
	mu.Unlock()
	dir := os.Getenv("VKBENCH_SCREENSHOTS")
	if dir == "" {
		dir = t.ArtifactDir()
	}
	shotPath := filepath.Join(dir, shot)
	if err := os.WriteFile(shotPath, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(png) < 10000 {
		t.Errorf("the screenshot is %d bytes: an empty page?", len(png))
	}
	t.Logf("screenshot of the report: %s (%d bytes)", shotPath, len(png))
	return charts, page
}

// statusPrefix matches a status code leading a message ("UNIMPLEMENTED:
// kernels: ..."), which a person's page should not show.
var statusPrefix = regexp.MustCompile(`\b[A-Z][A-Z_]{3,}: `)

// timeCell is a table's time cell in the table's unit: a number, an
// interval of two, or none.
var timeCell = regexp.MustCompile(`^(-|\d+(\.\d+)?|\[\d+(\.\d+)?, \d+(\.\d+)?\])$`)

// checkLayout checks what a person sees of a report's charts and tables:
// every chart drawn, inside its edges, with a data area at least 60% of
// its width (long names once left it 60 px); its points spread over the
// axis (a dropped candidate 15 times slower once put the rest in the
// first pixels); no legend and no label over a point; no chart without
// points; no status codes in the text; one time unit per table; and a
// drop note names the final winner, or says its leader led at the time.
func checkLayout(t *testing.T, charts []chartInfo, page pageInfo) {
	t.Helper()
	for _, c := range charts {
		if !c.Rendered || c.Width < 200 || c.Height < 100 || c.Shapes < 10 {
			t.Errorf("chart %q is not drawn: laid out %.0f×%.0f, %d shapes, extent %v", c.Title, c.Width, c.Height, c.Shapes, c.Rendered)
		}
		if len(c.Outside) > 0 {
			t.Errorf("chart %q: texts drawn past its edges, cut off: %q", c.Title, c.Outside)
		}
		if w := c.Plot.R - c.Plot.L; w < 0.6*c.Width {
			t.Errorf("chart %q: its data area is %.0f px of %.0f (%.0f%%), want at least 60%%", c.Title, w, c.Width, 100*w/c.Width)
		}
		if len(c.Marks) == 0 {
			t.Errorf("chart %q has no point: an empty chart", c.Title)
		}
		for _, m := range c.Marks {
			for _, l := range append(append([]rect(nil), c.Legend...), c.Labels...) {
				if l.overlaps(m) {
					t.Errorf("chart %q: %q is drawn over a point at (%.0f, %.0f)", c.Title, l.Text, (m.L+m.R)/2, (m.T+m.B)/2)
				}
			}
		}
		if strings.HasPrefix(c.Title, "Roofline") {
			continue
		}
		lo, hi := c.Plot.R, c.Plot.L
		for _, m := range c.Marks {
			lo, hi = min(lo, (m.L+m.R)/2), max(hi, (m.L+m.R)/2)
		}
		// Medians within 5% of each other are a tie, where the intervals
		// rightly take the axis; others span 40% of it.
		vlo, vhi := c.value(lo), c.value(hi)
		if spread := (hi - lo) / (c.Plot.R - c.Plot.L); vhi > 1.05*vlo && spread < 0.4 {
			t.Errorf("chart %q: its points (%.4g to %.4g) span %.0f%% of the axis, want at least 40%%", c.Title, vlo, vhi, 100*spread)
		}
		if math.IsNaN(vlo) {
			t.Errorf("chart %q: no ticks read on its time axis %+v %v", c.Title, c.Plot, c.Texts)
		}
	}
	if m := statusPrefix.FindString(page.Text); m != "" {
		t.Errorf("the page shows a status code, %q", m)
	}
	for _, tb := range page.Tables {
		if len(tb.Times) == 0 {
			continue // the files' table
		}
		units := 0
		for _, u := range []string{"(ns)", "(µs)", "(ms)", "(s)"} {
			if slices.ContainsFunc(tb.Head, func(h string) bool { return strings.HasSuffix(h, u) }) {
				units++
			}
		}
		if units != 1 || !slices.ContainsFunc(tb.Head, func(h string) bool { return strings.Contains(h, "median") }) {
			t.Errorf("a table's times are in %d units, want one: %q", units, tb.Head)
		}
		for _, cell := range tb.Times {
			if !timeCell.MatchString(cell) {
				t.Errorf("a table's time %q is not in the table's unit %q", cell, tb.Head)
			}
		}
		for _, n := range tb.Notes {
			if !strings.Contains(n, ", the leader at the time,") && !strings.Contains(n, tb.Winner+", the winner,") {
				t.Errorf("a drop note names a leader that is neither the winner (%s) nor said to lead at the time: %q", tb.Winner, n)
			}
		}
	}
}
