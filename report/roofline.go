package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
)

type roofline struct {
	hardware string
	device   string
	peak     *autotune.Peak
	unread   string // the cache whose stored peak could not be read
	files    []int
	notes    []string
	// points are each file's benchmarks that stand on a roofline
	// (onRoof), box their extent, and onRoof whether there are any: with
	// a peak, the roofline is then drawn.
	points []roofPoints
	box    logBox
	onRoof bool
	// roofs are the compute roofs that the points stand under, each once,
	// in roofRates' order: each point's that run's percentage of peak is
	// of (roofOf), where the peak knows it.
	roofs []computeRoof
}

// onRoof reports whether b can stand on a roofline: it does
// floating-point arithmetic and moves bytes. Integer arithmetic is no
// FLOP: its operations are a note under the roofline, in GOP/s.
func onRoof(b *results.Benchmark) bool {
	return measured(b) && b.Flops > 0 && b.Bytes > 0 && arithmeticUnit(b.DType) == FLOPs
}

// rooflineNotes sets rl's notes and the points that stand on it.
func (r *report) rooflineNotes(rl *roofline) {
	hw := cmp.Or(rl.hardware, "unknown hardware")
	unread := ""
	if rl.unread != "" {
		unread = "; its stored peak could not be read from " + rl.unread
	}
	switch {
	case rl.peak == nil && rl.unread != "":
		rl.notes = append(rl.notes, fmt.Sprintf("No roofline for %s: its stored peak could not be read from %s (a warning said why; pass --peak-gbps and --peak-gflops).", hw, rl.unread))
	case rl.peak == nil:
		rl.notes = append(rl.notes, fmt.Sprintf("No roofline for %s: no peak is known (run vkbench peak on it, point --cache at the cache that holds its peak, or pass --peak-gbps and --peak-gflops).", hw))
	case rl.peak.BandwidthGBps == 0:
		rl.notes = append(rl.notes, fmt.Sprintf("The bandwidth roof of %s is unknown (--peak-gbps%s); only the compute roof is drawn.", hw, unread))
	case rl.peak.GFLOPs == 0:
		rl.notes = append(rl.notes, fmt.Sprintf("The compute roof of %s is unknown (--peak-gflops%s); only the bandwidth roof is drawn.", hw, unread))
	}
	// Operations that do no arithmetic are not on the roofline: say what
	// their best candidate moved.
	var noArith []string
	rl.box = logBox{xmin: math.Inf(1), xmax: math.Inf(-1), ymin: math.Inf(1), ymax: math.Inf(-1)}
	for _, f := range rl.files {
		seen := map[string]bool{}
		pts := roofPoints{f: f}
		for i := range r.in[f].File.Benchmarks {
			b := &r.in[f].File.Benchmarks[i]
			if onRoof(b) {
				rl.addRoof(b)
				_, gflops := b.Rates()
				pt := plotter.XY{X: b.Flops / b.Bytes, Y: gflops}
				rl.box.widen(pt.X, pt.Y)
				if b.Winner {
					group, _, _ := splitName(b)
					pts.winners, pts.labels = append(pts.winners, pt), append(pts.labels, cmp.Or(b.Op, group))
				} else {
					pts.others = append(pts.others, pt)
				}
			}
			if !b.Winner || !measured(b) {
				continue
			}
			gbps, gops := b.Rates()
			key, title, _ := splitName(b)
			switch {
			case b.Flops > 0 && arithmeticUnit(b.DType) == IntOps:
				rl.notes = append(rl.notes, fmt.Sprintf("%s%s does integer arithmetic, not on this FLOP/s roofline: best %s at %s.", title, fileSuffix(r, f), b.Candidate, RateText(gops, IntOps)))
			case b.Flops <= 0 && gbps > 0 && !seen[key]:
				seen[key] = true
				pct := ""
				if rl.peak != nil && rl.peak.BandwidthGBps > 0 {
					pct = fmt.Sprintf(", %.0f%% of the %.0f GB/s roof", 100*gbps/rl.peak.BandwidthGBps, rl.peak.BandwidthGBps)
				}
				rl.notes = append(rl.notes, fmt.Sprintf("%s%s moves data only: best %s at %.3g GB/s%s.", title, fileSuffix(r, f), b.Candidate, gbps, pct))
			}
		}
		if len(pts.winners)+len(pts.others) == 0 {
			noArith = append(noArith, r.in[f].Label)
		}
		rl.points = append(rl.points, pts)
		rl.onRoof = rl.onRoof || len(pts.winners)+len(pts.others) > 0
	}
	if len(noArith) > 0 && rl.peak != nil {
		rl.notes = append(rl.notes, fmt.Sprintf("Nothing to place on the roofline from %s: no benchmark there has both FLOPs and bytes.", strings.Join(noArith, ", ")))
	}
}

// addRoof adds the compute roof of b to rl's roofs, where its peak knows
// it and they lack it, keeping them in roofRates' order.
func (rl *roofline) addRoof(b *results.Benchmark) {
	if rl.peak == nil {
		return
	}
	c := roofOf(rl.peak, b)
	if c.gflops <= 0 || slices.Contains(rl.roofs, c) {
		return
	}
	rl.roofs = append(rl.roofs, c)
	slices.SortFunc(rl.roofs, func(a, b computeRoof) int {
		return slices.IndexFunc(roofRates, func(r roofRate) bool { return r.name == a.name }) -
			slices.IndexFunc(roofRates, func(r roofRate) bool { return r.name == b.name })
	})
}

// rooflinePanel draws achieved GFLOP/s against arithmetic intensity, on
// log axes, under the roofs of rl.peak; without a peak, or nothing to
// place under it, it is rl's notes alone.
func (r *report) rooflinePanel(rl *roofline) (panel, error) {
	pn := panel{title: "Roofline", notes: rl.notes}
	if rl.device != "" {
		pn.title += ": " + rl.device
	}
	if rl.peak == nil || !rl.onRoof {
		return pn, nil
	}
	p := newPlot("Roofline: "+rl.device, "arithmetic intensity (FLOP/byte)", "GFLOP/s")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())

	box := roofBox(rl.box, rl.peak.BandwidthGBps, rl.roofs)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = box.xmin, box.xmax, box.ymin, box.ymax
	if err := addRoofs(p, rl.peak.BandwidthGBps, rl.roofs, box); err != nil {
		return panel{}, err
	}
	// The points go over the roofs; the winners' labels where they cover
	// no point and no other label.
	lp := &labelPlacer{box: box}
	for _, pts := range rl.points {
		lp.points(pts.others, roofRing.radius)
		lp.points(pts.winners, roofDot.radius)
	}
	for _, pts := range rl.points {
		if err := r.addRoofPoints(p, pts, lp); err != nil {
			return panel{}, err
		}
	}
	pn.plot, pn.height, pn.legend = p, 11*vg.Centimeter+legendHeight, r.rooflineLegend()
	return pn, nil
}

// rooflineLegend is what a roofline's marks mean: with one file, winners
// and the other candidates; with several, each file's colour.
func (r *report) rooflineLegend() []legendEntry {
	if len(r.in) == 1 {
		return []legendEntry{{"winner", winnerColor, roofDot}, {"other candidates", fileColors[0], roofRing}}
	}
	var out []legendEntry
	for f, input := range r.in {
		out = append(out, legendEntry{input.Label, r.color(f, true), roofDot})
	}
	return out
}

// logBox is the extent of a chart on log axes.
type logBox struct{ xmin, xmax, ymin, ymax float64 }

func (b *logBox) widen(x, y float64) {
	b.xmin, b.xmax, b.ymin, b.ymax = min(b.xmin, x), max(b.xmax, x), min(b.ymin, y), max(b.ymax, y)
}

// roofPoints are one file's benchmarks on a roofline: its winners,
// labelled by operation, and its other candidates.
type roofPoints struct {
	f       int
	others  plotter.XYs
	winners plotter.XYs
	labels  []string
}

// roofBox widens box, which holds the points, to hold the roofs too, the
// memory roof of bandwidth bw (0 where unknown) and the compute roofs
// cs, up to where they meet, with a margin.
func roofBox(box logBox, bw float64, cs []computeRoof) logBox {
	for _, c := range cs {
		if bw > 0 {
			box.widen(c.gflops/bw, c.gflops)
		} else {
			box.ymax = max(box.ymax, c.gflops)
		}
	}
	box.xmin, box.xmax = box.xmin/4, box.xmax*4
	box.ymin, box.ymax = box.ymin/4, box.ymax*3
	if bw > 0 {
		// The memory roof starts inside the chart.
		box.ymin = min(box.ymin, bw*box.xmin)
	}
	return box
}

// addRoofs draws the roofs across box, with their labels: the memory
// roof of bandwidth bw (0 where unknown) up to the highest compute roof
// (across the chart without one), and each compute roof of cs from where
// it meets the memory roof, labelled with its precision ("fp16 300
// GFLOP/s").
func addRoofs(p *plot.Plot, bw float64, cs []computeRoof, box logBox) error {
	xmin, xmax := box.xmin, box.xmax
	top := xmax
	if bw > 0 && len(cs) > 0 {
		top = slices.MaxFunc(cs, func(a, b computeRoof) int { return cmp.Compare(a.gflops, b.gflops) }).gflops / bw
	}
	// ridge is where c meets the memory roof, or the chart's left edge.
	ridge := func(c computeRoof) float64 {
		if bw > 0 {
			return max(xmin, c.gflops/bw)
		}
		return xmin
	}
	var lines []plotter.XYs
	if bw > 0 {
		lines = append(lines, plotter.XYs{{X: xmin, Y: bw * xmin}, {X: top, Y: bw * top}})
	}
	for _, c := range cs {
		lines = append(lines, plotter.XYs{{X: ridge(c), Y: c.gflops}, {X: xmax, Y: c.gflops}})
	}
	for _, roof := range lines {
		line, err := plotter.NewLine(roof)
		if err != nil {
			return err
		}
		line.Color = roofColor
		line.Width = vg.Points(1.5)
		p.Add(line)
	}
	// The roofs' labels: the memory roof's under its rising line, the
	// compute roofs' over their flat ones.
	if bw > 0 {
		x := xmin * 1.3
		if err := addLabel(p, plotter.XY{X: x, Y: bw * x}, fmt.Sprintf("memory %.0f GB/s", bw), vg.Point{X: vg.Points(4), Y: vg.Points(-14)}, roofColor); err != nil {
			return err
		}
	}
	for _, c := range cs {
		x := ridge(c) * 1.3
		if err := addLabel(p, plotter.XY{X: x, Y: c.gflops}, fmt.Sprintf("%s %.0f GFLOP/s", c.name, c.gflops), vg.Point{X: vg.Points(4), Y: vg.Points(4)}, roofColor); err != nil {
			return err
		}
	}
	return nil
}

// addLabel writes text at pt, offset by offset, in the notes' size and
// in col.
func addLabel(p *plot.Plot, pt plotter.XY, text string, offset vg.Point, col color.Color) error {
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{pt}, Labels: []string{text}})
	if err != nil {
		return err
	}
	lb.Offset = offset
	lb.TextStyle[0].Font = sansFont(9)
	lb.TextStyle[0].Color = col
	p.Add(lb)
	return nil
}

// addRoofPoints draws one file's points in its colours, its winners
// filled and labelled, each label below those already placed near it.
func (r *report) addRoofPoints(p *plot.Plot, pts roofPoints, lp *labelPlacer) error {
	wcol := r.color(pts.f, true)
	if err := addScatter(p, pts.others, r.color(pts.f, false), roofRing); err != nil {
		return err
	}
	if err := addScatter(p, pts.winners, wcol, roofDot); err != nil {
		return err
	}
	for i, pt := range pts.winners {
		if err := addLabel(p, pt, pts.labels[i], lp.place(pt, pts.labels[i]), wcol); err != nil {
			return err
		}
	}
	return nil
}

// labelPlacer places labels on a roofline's log axes where they cover no
// point and no label placed before, working in points of the page as
// the chart will be drawn (its data area about 440 by 230 points).
type labelPlacer struct {
	box   logBox
	taken []vg.Rectangle
}

const (
	roofDataWidth  = 440
	roofDataHeight = 230
)

// at is where (x, y) falls in the data area, in points.
func (lp *labelPlacer) at(pt plotter.XY) vg.Point {
	u := math.Log10(pt.X/lp.box.xmin) / math.Log10(lp.box.xmax/lp.box.xmin) * roofDataWidth
	v := math.Log10(pt.Y/lp.box.ymin) / math.Log10(lp.box.ymax/lp.box.ymin) * roofDataHeight
	return vg.Point{X: vg.Length(u), Y: vg.Length(v)}
}

// points marks the glyphs of radius at pts as taken.
func (lp *labelPlacer) points(pts plotter.XYs, radius vg.Length) {
	for _, pt := range pts {
		c := lp.at(pt)
		lp.taken = append(lp.taken, vg.Rectangle{Min: vg.Point{X: c.X - radius, Y: c.Y - radius}, Max: vg.Point{X: c.X + radius, Y: c.Y + radius}})
	}
}

// place returns the offset of text's label at pt: right of the point,
// else left, above or below it, wherever it first covers nothing taken
// (right, when nothing is free), and takes its place.
func (lp *labelPlacer) place(pt plotter.XY, text string) vg.Point {
	sty := noteStyle()
	w, h := sty.Width(text), vg.Points(9)
	c := lp.at(pt)
	offsets := []vg.Point{
		{X: vg.Points(8), Y: -h / 3}, {X: -w - vg.Points(8), Y: -h / 3},
		{X: vg.Points(6), Y: vg.Points(5)}, {X: vg.Points(6), Y: -h - vg.Points(5)},
		{X: -w / 2, Y: vg.Points(7)}, {X: -w / 2, Y: -h - vg.Points(7)},
		{X: -w - vg.Points(6), Y: vg.Points(5)}, {X: -w - vg.Points(6), Y: -h - vg.Points(5)},
	}
	for _, off := range offsets {
		r := vg.Rectangle{Min: vg.Point{X: c.X + off.X, Y: c.Y + off.Y}, Max: vg.Point{X: c.X + off.X + w, Y: c.Y + off.Y + h}}
		if !slices.ContainsFunc(lp.taken, func(t vg.Rectangle) bool {
			return r.Min.X < t.Max.X && t.Min.X < r.Max.X && r.Min.Y < t.Max.Y && t.Min.Y < r.Max.Y
		}) {
			lp.taken = append(lp.taken, r)
			return off
		}
	}
	return offsets[0]
}

// computeRoof is one of a peak's compute roofs: its precision's name, as
// the roofline labels it, and its rate in GFLOP/s.
type computeRoof struct {
	name   string
	gflops float64
}

// roofRates are the compute rates of a peak, each with its name, in the
// order a roofline lists them.
var roofRates = []roofRate{
	{"fp32", func(r *autotune.Rates) *float64 { return &r.GFLOPs }},
	{"fp16", func(r *autotune.Rates) *float64 { return &r.FP16GFLOPs }},
	{"int32", func(r *autotune.Rates) *float64 { return &r.Int32GOPs }},
	{"matrix fp16", func(r *autotune.Rates) *float64 { return &r.MatrixF16GFLOPs }},
	{"matrix fp16 (fp16 sums)", func(r *autotune.Rates) *float64 { return &r.MatrixF16AccGFLOPs }},
	{"matrix int8", func(r *autotune.Rates) *float64 { return &r.MatrixS8GOPs }},
	{"matrix bf16", func(r *autotune.Rates) *float64 { return &r.MatrixBF16GFLOPs }},
}

type roofRate struct {
	name string
	rate func(*autotune.Rates) *float64
}

// roofOf is the compute roof of pk that bounds b's arithmetic, the one
// vkbench run's percentage of peak is of (autotune.Rates.RateOf, of b's
// operation: a built-in one by its name, another, or one of another
// dtype, by its dtype alone); the zero computeRoof where pk does not know
// it.
func roofOf(pk *autotune.Peak, b *results.Benchmark) computeRoof {
	op, err := catalogue.Lookup(b.Op)
	if err != nil || op.DType().String() != b.DType {
		dt, err := kernels.ParseDType(b.DType)
		if err != nil {
			return computeRoof{}
		}
		op = dtypeOp{dt: dt}
	}
	rate := pk.Rates.RateOf(op)
	for _, r := range roofRates {
		if r.rate(&pk.Rates) == rate && *rate > 0 {
			return computeRoof{name: r.name, gflops: *rate}
		}
	}
	return computeRoof{}
}

// dtypeOp stands for an operation that is not built in, for RateOf:
// its element type, on no matrix units.
type dtypeOp struct {
	kernels.Operation
	dt kernels.DType
}

func (o dtypeOp) DType() kernels.DType { return o.dt }
