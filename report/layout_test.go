package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/store"
)

// svgText is a text element of an SVG and the box its glyphs take on the
// canvas, in the SVG's units (points, as gonum writes them).
type svgText struct {
	text                   string
	minX, minY, maxX, maxY float64
}

// affine is a transform of SVG: x' = a*x + c*y + e, y' = b*x + d*y + f.
type affine struct{ a, b, c, d, e, f float64 }

func (m affine) then(n affine) affine { // n applied after m
	return affine{
		a: n.a*m.a + n.c*m.b, b: n.b*m.a + n.d*m.b,
		c: n.a*m.c + n.c*m.d, d: n.b*m.c + n.d*m.d,
		e: n.a*m.e + n.c*m.f + n.e, f: n.b*m.e + n.d*m.f + n.f,
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

var transformRE = regexp.MustCompile(`(scale|translate|rotate)\(([^)]*)\)`)

// parseTransform reads the scale, translate and rotate of gonum's SVG.
func parseTransform(t *testing.T, s string) affine {
	m := affine{a: 1, d: 1}
	var steps []affine
	for _, op := range transformRE.FindAllStringSubmatch(s, -1) {
		var v []float64
		for _, f := range strings.FieldsFunc(op[2], func(r rune) bool { return r == ',' || r == ' ' }) {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("transform %q: %v", s, err)
			}
			v = append(v, x)
		}
		switch {
		case op[1] == "scale" && len(v) == 2:
			steps = append(steps, affine{a: v[0], d: v[1]})
		case op[1] == "translate" && len(v) == 2:
			steps = append(steps, affine{a: 1, d: 1, e: v[0], f: v[1]})
		case op[1] == "rotate" && len(v) == 1:
			r := v[0] * math.Pi / 180
			steps = append(steps, affine{a: math.Cos(r), b: math.Sin(r), c: -math.Sin(r), d: math.Cos(r)})
		default:
			t.Fatalf("transform %q: cannot read %s", s, op[0])
		}
	}
	// "A B" applies B first, then A.
	for i := len(steps) - 1; i >= 0; i-- {
		m = m.then(steps[i])
	}
	return m
}

var fontSizeRE = regexp.MustCompile(`font-size:([0-9.]+)px`)

// svgLayout parses an SVG that gonum drew: its size and its text
// elements, each with the box its glyphs take, measured in the charts'
// font.
func svgLayout(t *testing.T, data []byte) (width, height float64, texts []svgText) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	stack := []affine{{a: 1, d: 1}}
	var cur *svgText
	var curM affine
	var size float64
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
			attr := map[string]string{}
			for _, a := range tok.Attr {
				attr[a.Name.Local] = a.Value
			}
			m := parseTransform(t, attr["transform"]).then(stack[len(stack)-1])
			stack = append(stack, m)
			switch tok.Name.Local {
			case "svg":
				vb := strings.Fields(attr["viewBox"])
				if len(vb) != 4 {
					t.Fatalf("the SVG's viewBox is %q", attr["viewBox"])
				}
				width, _ = strconv.ParseFloat(vb[2], 64)
				height, _ = strconv.ParseFloat(vb[3], 64)
			case "text":
				x, _ := strconv.ParseFloat(attr["x"], 64)
				y, _ := strconv.ParseFloat(attr["y"], 64)
				sz := fontSizeRE.FindStringSubmatch(attr["style"])
				if sz == nil {
					t.Fatalf("a text without a font size: %v", attr)
				}
				size, _ = strconv.ParseFloat(sz[1], 64)
				cur, curM = &svgText{minX: x, minY: y}, m
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(tok)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if tok.Name.Local != "text" || cur == nil {
				continue
			}
			sty := noteStyle()
			sty.Font = sansFont(vg.Length(size))
			ext := sty.FontExtents()
			x0, y0 := cur.minX, cur.minY
			x1, y0t, y1 := x0+float64(sty.Width(cur.text)), y0-float64(ext.Ascent), y0+float64(ext.Descent)
			cur.minX, cur.minY, cur.maxX, cur.maxY = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for _, p := range [][2]float64{{x0, y0t}, {x1, y0t}, {x0, y1}, {x1, y1}} {
				px, py := curM.apply(p[0], p[1])
				cur.minX, cur.maxX = min(cur.minX, px), max(cur.maxX, px)
				cur.minY, cur.maxY = min(cur.minY, py), max(cur.maxY, py)
			}
			texts = append(texts, *cur)
			cur = nil
		}
	}
	if width == 0 || height == 0 {
		t.Fatal("the SVG has no size")
	}
	return width, height, texts
}

// checkInside fails t for each text of the SVG data whose glyphs go past
// the canvas's edges.
func checkInside(t *testing.T, data []byte) []svgText {
	t.Helper()
	w, h, texts := svgLayout(t, data)
	const slack = 0.5 // points
	for _, tx := range texts {
		if tx.minX < -slack || tx.minY < -slack || tx.maxX > w+slack || tx.maxY > h+slack {
			t.Errorf("%q takes [%.1f, %.1f]×[%.1f, %.1f], past the canvas's 0..%.1f × 0..%.1f", tx.text, tx.minX, tx.maxX, tx.minY, tx.maxY, w, h)
		}
	}
	return texts
}

// TestLayoutInside checks the parser itself: a text drawn past the right
// edge is found, upright or turned.
func TestLayoutInside(t *testing.T) {
	svg := `<svg width="100pt" height="50pt" viewBox="0 0 100 50"><g transform="scale(1, -1) translate(0, -50)">
<text x="90" y="-25" transform="scale(1, -1)" style="font-size:10px">wide text</text>
<g transform="rotate(90)"><text x="10" y="5" transform="scale(1, -1)" style="font-size:10px">up</text></g></g></svg>`
	w, h, texts := svgLayout(t, []byte(svg))
	if w != 100 || h != 50 || len(texts) != 2 {
		t.Fatalf("%v×%v, %+v", w, h, texts)
	}
	if wide := texts[0]; wide.minX != 90 || wide.maxX <= 100 || wide.maxY < 25 || wide.minY > 25-7 {
		t.Errorf("wide text at %+v, want from x=90 past 100, about y=25", wide)
	}
	// Turned a quarter, "up" reads upwards from y=40, its baseline at x=5.
	if up := texts[1]; up.maxY != 40 || up.minY >= 40 || up.minX >= 5 || up.maxX <= 5 {
		t.Errorf("turned text at %+v, want up from y=40 across x=5", up)
	}
}

// TestRowsLabelled overlays two files where a candidate has a point in
// one only: copy's scalar, measured in the first only and slowest (the
// last row); its vec4-unroll4, missing from the second. Every row keeps its name beside it, and the rows' names are in
// the order of their rows, top down, within the chart: the winner first,
// then by time.
func TestRowsLabelled(t *testing.T) {
	in, err := ReadFiles([]string{"../testdata/cli/report-input.json", "../testdata/cli/report-input.json"})
	if err != nil {
		t.Fatal(err)
	}
	// scalar, dropped in both files (not drawn), is measured in base
	// only, the slowest: the last row has a point of the first file alone,
	// which gonum would leave outside an axis spanned by the points.
	files := [2]results.File{*in[0].File, *in[1].File}
	for i := range files {
		files[i].Benchmarks = nil
		for _, b := range in[i].File.Benchmarks {
			if b.Op == "copy" && b.Candidate == "vec4-unroll4" && i == 1 {
				continue
			}
			if b.Op == "copy" && b.Candidate == "scalar" {
				if i == 1 {
					continue
				}
				b.Outcome, b.Drop, b.Error = results.Measured, nil, ""
				b.Stats = &stats.Stats{Median: 5e-3, Lo: 4.9e-3, Hi: 5.1e-3}
			}
			files[i].Benchmarks = append(files[i].Benchmarks, b)
		}
	}
	in = []Input{{Label: "base.json", File: &files[0]}, {Label: "new.json", File: &files[1]}}
	var buf bytes.Buffer
	if n, err := Write(&buf, SVG, in, Options{}); err != nil || n != 2 {
		t.Fatalf("%d charts, %v; want 2", n, err)
	}
	texts := checkInside(t, buf.Bytes())
	ys := map[string]float64{}
	for _, tx := range texts {
		ys[tx.text] = (tx.minY + tx.maxY) / 2
	}
	for _, rows := range [][]string{{"vec4", "vec4-unroll4", "scalar"}, {"regblock", "naive"}} {
		for i, r := range rows {
			y, ok := ys[r]
			if !ok {
				t.Errorf("row %q has no label", r)
			} else if i > 0 && y <= ys[rows[i-1]] {
				t.Errorf("row %q labelled at y=%.1f, not under %q at %.1f", r, y, rows[i-1], ys[rows[i-1]])
			}
		}
	}
}

// TestConvergenceInside draws the convergence of a log of a device with a
// hardware name longer than the chart is wide, and none of the driver's:
// the title is cut to fit, and the axes' labels and the legend stay on
// the canvas. With the driver's name of the device, the title names it.
func TestConvergenceInside(t *testing.T) {
	hw := "mesa_0000_llvmpipe-llvm-15.0.6-256-bits_llvmpipe_22.3.6_" + strings.Repeat("x", 40)
	log := &search.TuneLog{Header: search.LogHeader{Key: "gemm/f32/64x64x64", Table: store.Table{Hardware: hw, Tuner: "builtin"}}}
	var order []string
	for i, ms := range []float64{0.201, 0.198, 0.180, 0.180, 0.160, 0.160} {
		name := fmt.Sprintf("c%d", i)
		order = append(order, name)
		log.Evals = append(log.Evals, search.LogRecord{Config: kernels.Config{"A": i}, Result: results.Result{Index: i, Name: name,
			Measurement: results.Measurement{Outcome: results.Measured, Stats: &stats.Stats{Median: ms / 1e3}}}})
	}
	log.Searches = []search.LogSearch{{Strategy: search.Random, Order: order, Measured: len(order)}}
	var buf bytes.Buffer
	if n, err := Convergence(&buf, SVG, []*search.TuneLog{log}, Options{}); err != nil || n != 1 {
		t.Fatalf("%d searches, %v", n, err)
	}
	texts := checkInside(t, buf.Bytes())
	if !slices.ContainsFunc(texts, func(tx svgText) bool {
		return strings.HasPrefix(tx.text, "Search convergence: gemm/f32/64x64x64 on mesa_0000_llvmpipe") && strings.HasSuffix(tx.text, "…")
	}) {
		t.Errorf("no title cut to fit among %+v", texts)
	}
	for _, want := range []string{"fastest time so far (ms), lower is better", "evaluations", "random", "fastest recorded, 0.160 ms"} {
		if !slices.ContainsFunc(texts, func(tx svgText) bool { return tx.text == want }) {
			t.Errorf("no %q", want)
		}
	}

	log.Header.Device = "0:llvmpipe (LLVM 15.0.6, 256 bits):6d65736132322e332e36000000000000"
	buf.Reset()
	if _, err := Convergence(&buf, SVG, []*search.TuneLog{log}, Options{}); err != nil {
		t.Fatal(err)
	}
	texts = checkInside(t, buf.Bytes())
	if !slices.ContainsFunc(texts, func(tx svgText) bool {
		return tx.text == "Search convergence: gemm/f32/64x64x64 on llvmpipe (LLVM 15.0.6, 256 bits)"
	}) {
		t.Errorf("the title does not name the device: %+v", texts)
	}
}

// TestNoBenchmarks: a result file that holds no benchmarks is nothing to
// draw, named; beside a file with charts it is drawn with it.
func TestNoBenchmarks(t *testing.T) {
	in, err := ReadFiles([]string{"../testdata/cli/report-input.json"})
	if err != nil {
		t.Fatal(err)
	}
	empty := *in[0].File
	empty.Benchmarks = nil
	only := []Input{{Label: "nobench.json", File: &empty}}
	opts := Options{Peak: func(string) *autotune.Peak {
		return &autotune.Peak{Rates: autotune.Rates{BandwidthGBps: 10, GFLOPs: 100}}
	}}
	for _, f := range []Format{HTML, SVG, PNG} {
		var buf bytes.Buffer
		n, err := Write(&buf, f, only, opts)
		if !errors.Is(err, ErrNothing) || !strings.Contains(fmt.Sprint(err), "nobench.json holds no benchmarks") || buf.Len() > 0 {
			t.Errorf("%s: %d charts, %v, %d bytes written; want ErrNothing naming nobench.json, nothing written", f, n, err, buf.Len())
		}
	}
	n, err := Write(&bytes.Buffer{}, SVG, append(only, in[0]), opts)
	if err != nil || n != 3 {
		t.Errorf("beside a file with charts: %d charts, %v; want 3", n, err)
	}
}
