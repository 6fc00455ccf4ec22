package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
}

// chartsScript lists every chart (an svg in a section) with its title,
// the size the browser laid it out at, how many shapes it drew, its texts,
// whether the drawing has an extent of its own (getBBox), and the texts
// that reach past its edges (which the browser cuts off).
const chartsScript = `Array.from(document.querySelectorAll('section')).filter(s => s.querySelector('svg')).map(s => {
	const svg = s.querySelector('svg');
	const r = svg.getBoundingClientRect();
	const b = svg.getBBox();
	return {
		title: s.querySelector('h2').textContent,
		width: r.width, height: r.height,
		shapes: svg.querySelectorAll('path, circle, line, polyline, polygon, rect').length,
		texts: Array.from(svg.querySelectorAll('text')).map(t => t.textContent),
		rendered: b.width > 0 && b.height > 0,
		outside: Array.from(svg.querySelectorAll('text')).filter(t => {
			const q = t.getBoundingClientRect();
			return q.width > 0 && (q.left < r.left - 0.5 || q.right > r.right + 0.5 || q.top < r.top - 0.5 || q.bottom > r.bottom + 0.5);
		}).map(t => t.textContent),
	};
})`

// TestReportInBrowser opens vkbench report's HTML in a real browser,
// headless Chromium driven through the DevTools protocol: the page loads
// with nothing on the console, every chart is laid out and drawn, with
// the series it must have, and a screenshot of the page is kept in the
// test's artifacts (go test -artifacts; scripts/test.sh keeps them under
// bin/test-artifacts).
func TestReportInBrowser(t *testing.T) {
	exe := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
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
	mustRun(t, 0, "report", cliData("report-input.json"), second, "-o", page, "--peak-gbps", "10", "--peak-gflops", "100")

	ctx := browser(t, exe)
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
	if _, err := chromedp.Run(ctx, chromedp.Steps(enable, chromedp.Navigate("file://"+page), chromedp.WaitReady("body"))); err != nil {
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
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
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

	var titles []string
	for _, c := range charts {
		titles = append(titles, c.Title)
		if !c.Rendered || c.Width < 200 || c.Height < 100 || c.Shapes < 10 {
			t.Errorf("chart %q is not drawn: laid out %.0f×%.0f, %d shapes, extent %v", c.Title, c.Width, c.Height, c.Shapes, c.Rendered)
		}
		if len(c.Outside) > 0 {
			t.Errorf("chart %q: texts drawn past its edges, cut off: %q", c.Title, c.Outside)
		}
	}
	want := []string{"copy u32, size 1048576", "gemm f32, size 256x256x256", "Roofline: Crafted GPU"}
	if d := cmp.Diff(want, titles); d != "" {
		t.Fatalf("charts (-want +got):\n%s", d)
	}
	// The series each chart must show: one a file, in the legend; every
	// candidate on the axis (those that did not run, with why); the
	// roofline's roofs and its operation.
	files := []string{"report-input.json", "again.json"}
	series := [][]string{
		append([]string{"vec4", "vec4-unroll4", "scalar (dropped early", "winner (filled)"}, files...),
		append([]string{"regblock", "naive", "tiled (failed", "regblock-big (unsupported", "winner (filled)"}, files...),
		append([]string{"memory 10 GB/s", "compute 100 GFLOP/s", "gemm", "arithmetic intensity (FLOP/byte)"}, files...),
	}
	for i, c := range charts {
		all := strings.Join(c.Texts, "\n")
		for _, s := range series[i] {
			if !strings.Contains(all, s) {
				t.Errorf("chart %q has no %q; its texts:\n%s", c.Title, s, all)
			}
		}
	}
	shotPath := filepath.Join(t.ArtifactDir(), "report.png")
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(shot) < 10000 {
		t.Errorf("the screenshot is %d bytes: an empty page?", len(shot))
	}
	t.Logf("screenshot of the report: %s (%d bytes)", shotPath, len(shot))
}
