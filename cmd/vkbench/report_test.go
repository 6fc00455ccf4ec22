package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/store"
)

// svgTexts parses an SVG document and returns its text elements; it fails
// t if the document is not well-formed XML with an <svg> root.
func svgTexts(t testing.TB, data []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var texts []string
	var root string
	inText := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			inText = tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root != "svg" {
		t.Fatalf("the SVG's root element is %q", root)
	}
	return texts
}

func containsAll(t testing.TB, what string, texts []string, want ...string) {
	t.Helper()
	all := strings.Join(texts, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("%s has no %q; it has:\n%s", what, w, all)
		}
	}
}

// maskSVG replaces each inline SVG of an HTML report by a count of its
// text elements: the drawing's coordinates are gonum's business.
func maskSVG(t testing.TB, page string) string {
	return regexp.MustCompile(`(?s)<svg .*?</svg>`).ReplaceAllStringFunc(page, func(svg string) string {
		return "<svg><!-- " + strings.Join(svgTexts(t, []byte(svg)), " | ") + " --></svg>"
	})
}

func TestReportCrafted(t *testing.T) {
	dir := t.TempDir()
	in := cliData("report-input.json")
	peak := []string{"--peak-gbps", "10", "--peak-gflops", "100"}

	t.Run("html", func(t *testing.T) {
		out := filepath.Join(dir, "report.html")
		r := mustRun(t, 0, append([]string{"report", in, "-o", out}, peak...)...)
		if r.stdout != "" || r.stderr != "wrote "+out+": 3 charts of 1 file\n" {
			t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
		}
		page, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(page), "<svg "); n != 3 {
			t.Errorf("%d inline SVGs, want 3 (two operations and a roofline)", n)
		}
		// Self-contained: no scripts, nothing fetched; the only addresses
		// are the SVG namespaces.
		rest := strings.NewReplacer(`xmlns="http://www.w3.org/2000/svg"`, "", `xmlns:xlink="http://www.w3.org/1999/xlink"`, "").Replace(string(page))
		for _, bad := range []string{"<?xml", "<script", "http:", "https:", "<link", "src="} {
			if strings.Contains(rest, bad) {
				t.Errorf("the page contains %q: not self-contained", bad)
			}
		}
		// A row's flags are words; the token is the results file's.
		if !strings.Contains(string(page), "<td>[budget spent before the precision was reached]</td>") || strings.Contains(string(page), autotune.FlagBudgetSpent) {
			t.Errorf("vec4-unroll4's flag is not said in words:\n%s", page)
		}
		golden(t, "report-crafted-html", maskSVG(t, string(page)))
	})
	t.Run("svg", func(t *testing.T) {
		out := filepath.Join(dir, "report.svg")
		mustRun(t, 0, append([]string{"report", in, "-o", out}, peak...)...)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		texts := svgTexts(t, data)
		containsAll(t, "the SVG", texts,
			"copy u32, size 1048576 — report-input.json", "gemm f32, size 256x256x256 — report-input.json",
			"vec4", "vec4-unroll4", "median, 95% interval",
			"Dropped early as much slower, not drawn: scalar (2.092ms).",
			"Not drawn: 1 failed: 1× wrong result at C[3,5]: got 1.5, want 2.25 (tolerance 1e-05); 1 unsupported: 1× needs 32.5 KiB of",
			"time per run (ms), lower is better", "winner",
			"Roofline: Crafted GPU", "arithmetic intensity (FLOP/byte)", "GFLOP/s",
			"memory 10 GB/s", "fp32 100 GFLOP/s", "gemm",
			"copy u32, size 1048576 moves data only: best vec4 at 7.99 GB/s, 80% of the 10 GB/s roof.")
	})
	t.Run("png", func(t *testing.T) {
		out := filepath.Join(dir, "report.png")
		mustRun(t, 0, append([]string{"report", in, "-o", out}, peak...)...)
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = f.Close() }() // read only
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("the PNG does not decode: %v", err)
		}
		if b := img.Bounds(); b.Dx() != 1020 || b.Dy() < 1000 {
			t.Errorf("the PNG is %dx%d, want 1020 wide and taller than 1000", b.Dx(), b.Dy())
		}
	})
	t.Run("no-peak", func(t *testing.T) {
		out := filepath.Join(dir, "nopeak.svg")
		r := mustRun(t, 0, "report", in, "-o", out, "--cache", filepath.Join(dir, "empty.db"))
		if !strings.Contains(r.stderr, "2 charts") {
			t.Errorf("stderr %q, want two charts (no roofline)", r.stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		containsAll(t, "the SVG without a peak", svgTexts(t, data), "No roofline for crafted_0000_test: no peak is known")
	})
	t.Run("overlay", func(t *testing.T) {
		out := filepath.Join(dir, "overlay.html")
		mustRun(t, 0, "report", compareData("base.json"), compareData("slower.json"), compareData("mismatched.json"), "-o", out, "--cache", "off")
		page, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "report-overlay-html", maskSVG(t, string(page)))
	})
	// A result file without benchmarks is bad input, as compare refuses
	// it: the report names it and writes nothing, unless another file
	// has charts to draw.
	t.Run("no-benchmarks", func(t *testing.T) {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		empty := filepath.Join(dir, "nobench.json")
		body := regexp.MustCompile(`(?s)"benchmarks": \[.*\]`).ReplaceAll(data, []byte(`"benchmarks": []`))
		if err := os.WriteFile(empty, body, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "nobench.svg")
		r := mustRun(t, 2, append([]string{"report", empty, "-o", out}, peak...)...)
		if !strings.Contains(r.stderr, "nobench.json holds no benchmarks") {
			t.Errorf("stderr %q does not name the empty file", r.stderr)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s written (%v)", out, err)
		}
		r = mustRun(t, 0, append([]string{"report", empty, in, "-o", out}, peak...)...)
		if !strings.Contains(r.stderr, "3 charts of 2 files") {
			t.Errorf("beside a file with charts: stderr %q", r.stderr)
		}
	})
	t.Run("gobench", func(t *testing.T) {
		out := filepath.Join(dir, "gobench.svg")
		mustRun(t, 0, "report", compareData("base.txt"), "-o", out, "--cache", "off")
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		containsAll(t, "the SVG of Go benchmark lines", svgTexts(t, data), "copy/u32/4096 — base.txt", "vec4", "scalar")
	})
}

// TestReportRealRun draws a real run on this device, with the peak that
// vkbench peak stored, in every format.
func TestReportRealRun(t *testing.T) {
	needDevice(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.db")
	file := filepath.Join(dir, "run.json")
	mustRun(t, 0, append([]string{"peak", "--cache", cache}, peakArgs...)...)
	mustRun(t, 0, args("run", "--cache", cache, "--format", "json", "--output", file)...)
	for _, ext := range []string{"html", "svg", "png"} {
		out := filepath.Join(dir, "report."+ext)
		r := mustRun(t, 0, "report", file, "-o", out, "--cache", cache)
		// copy does no arithmetic: no point on the roofline, so one chart.
		if !strings.Contains(r.stderr, "1 chart of 1 file") {
			t.Errorf("%s: stderr %q", ext, r.stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		switch ext {
		case "svg":
			containsAll(t, "the SVG", svgTexts(t, data), "copy u32, size 4096 — run.json", "moves data only: best ")
		case "html":
			if !strings.Contains(string(data), "<td>"+needDevice(t).Name+"</td>") {
				t.Errorf("the page does not name the device")
			}
		case "png":
			if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				t.Errorf("the PNG does not decode: %v", err)
			}
		}
	}
}

// TestReportStoredPeak: the roofline's roofs come from the peak stored
// in the cache for the file's hardware. The cache is among report's
// inputs: -o over it is refused, the cache left whole (it was replaced by
// the report before). Interrupted before the peak is read (here before it
// starts), report writes nothing, as its line says: it wrote the report,
// without the roofline, before.
func TestReportStoredPeak(t *testing.T) {
	dir := t.TempDir()
	in := cliData("report-input.json")
	cache := filepath.Join(dir, "cache.svg")
	c, err := store.Open(store.Options{Path: cache})
	if err != nil {
		t.Fatal(err)
	}
	peak := autotune.PeakRecord{Peak: autotune.Peak{Rates: autotune.Rates{BandwidthGBps: 10, GFLOPs: 100, FP16GFLOPs: 300}}}
	if _, err := autotune.SavePeak(t.Context(), c, "crafted_0000_test", peak, 0.01, true); err != nil {
		t.Fatal(err)
	}
	t.Run("roofs", func(t *testing.T) {
		out := filepath.Join(dir, "report.svg")
		mustRun(t, 0, "report", in, "-o", out, "--cache", cache)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		containsAll(t, "the SVG", svgTexts(t, data), "memory 10 GB/s", "fp32 100 GFLOP/s")
		if strings.Contains(string(data), "fp16 300") {
			t.Error("the roofline draws an fp16 roof over fp32 points alone")
		}
	})
	// The stored peak's fp16 rate is the roof of fp16 points: gemm as
	// gemm-f16 is drawn under it, as run judges it; it was judged
	// against fp32's roof, the only one the report kept.
	t.Run("fp16", func(t *testing.T) {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		f16 := filepath.Join(dir, "f16.json")
		data = bytes.ReplaceAll(bytes.ReplaceAll(data, []byte(`"op": "gemm"`), []byte(`"op": "gemm-f16"`)), []byte(`"dtype": "f32"`), []byte(`"dtype": "f16"`))
		if err := os.WriteFile(f16, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "f16.svg")
		mustRun(t, 0, "report", f16, "-o", out, "--cache", cache)
		if data, err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
		containsAll(t, "the SVG", svgTexts(t, data), "memory 10 GB/s", "fp16 300 GFLOP/s")
	})
	t.Run("over-cache", func(t *testing.T) {
		r := mustRun(t, 2, "report", in, "-o", cache, "--cache", cache)
		if want := "vkbench: -o " + cache + " is " + cache + ", the tune cache's file; writing there would destroy it\n"; r.stderr != want {
			t.Errorf("-o over the cache: stderr %q, want %q", r.stderr, want)
		}
		if p, err := autotune.LoadPeak(t.Context(), c, "crafted_0000_test"); err != nil || p == nil || p.GFLOPs != 100 {
			t.Errorf("the cache after -o over it: peak %v, %v; want it whole", p, err)
		}
	})
	// A cache that cannot be read is a warning naming it; the report is
	// drawn, its roofline a note that says so.
	t.Run("damaged", func(t *testing.T) {
		damaged := filepath.Join(dir, "damaged.db")
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "cache", "damaged-garbled-pages.db"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(damaged, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "damaged.html")
		r := mustRun(t, 0, "report", in, "-o", out, "--cache", damaged)
		if !strings.Contains(r.stderr, "vkbench: warning: store: stored peaks not read: DATA_LOSS: store: cache "+damaged+" is damaged") {
			t.Errorf("stderr %q does not warn of the damaged cache, naming it", r.stderr)
		}
		// The note says the peak could not be read, naming the cache; it
		// said that no peak is known.
		page, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if want := "No roofline for crafted_0000_test: its stored peak could not be read from " + damaged + " ("; !strings.Contains(string(page), want) || strings.Contains(string(page), "no peak is known") {
			t.Errorf("the roofline's note does not say %q:\n%s", want, page)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(interrupt{syscall.SIGINT})
		var stdout, stderr strings.Builder
		out := filepath.Join(dir, "interrupted.svg")
		code := execute(ctx, []string{"report", in, "-o", out, "--cache", cache}, &stdout, &stderr)
		if _, err := os.Stat(out); code != 130 || !errors.Is(err, os.ErrNotExist) {
			t.Errorf("report interrupted: exit status %d, stderr %q, %s written (%v); want 130 and nothing written", code, stderr.String(), out, err)
		}
	})
}
