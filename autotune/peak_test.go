package autotune_test

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
)

// TestComputeOf checks which peak bounds which operation: the matrix
// units' rate at the operation's precision where it was measured, else
// the FMA rate of its element type.
func TestComputeOf(t *testing.T) {
	lookup := func(name string) kernels.Operation {
		op, err := catalogue.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return op
	}
	h200 := &autotune.Peak{Rates: autotune.Rates{GFLOPs: 62700, FP16GFLOPs: 125000, Int32GOPs: 31000,
		MatrixF16GFLOPs: 650000, MatrixF16AccGFLOPs: 660000, MatrixS8GOPs: 1300000, MatrixBF16GFLOPs: 640000}}
	older := *h200 // stored before peak-coopmat-bf16
	older.MatrixBF16GFLOPs = 0
	lavapipe := &autotune.Peak{Rates: autotune.Rates{GFLOPs: 95, FP16GFLOPs: 22, Int32GOPs: 100}}
	for _, tt := range []struct {
		op   string
		peak *autotune.Peak
		want float64
	}{
		{"gemm-f16", h200, 650000},
		{"gemm-f16", lavapipe, 22}, // no matrix units: the fp16 rate
		{"peak-coopmat-f16acc", h200, 660000},
		{"peak-coopmat-s8", h200, 1300000},
		{"gemm-bf16", h200, 640000},
		{"peak-coopmat-bf16", h200, 640000},
		{"gemm-bf16", &older, 650000}, // the fp16 matrix rate stands in
		{"gemm-bf16", lavapipe, 95},   // no matrix units: the fp32 rate
		{"peak-fma-f16", h200, 125000},
		{"gemm", h200, 62700},
		{"peak-mad-i32", h200, 31000},
		{"gemm-f16", nil, 0},
	} {
		if got := tt.peak.ComputeOf(lookup(tt.op)); got != tt.want {
			t.Errorf("ComputeOf(%s) with %+v = %g, want %g", tt.op, tt.peak, got, tt.want)
		}
	}
}

// TestPeakAbove checks that a rate is above the peak only where its 95%
// interval lies wholly above the peak's: one whose interval overlaps the
// peak's is not, however far its median is past the peak's; a peak stored
// without intervals is a point. (Mutation: judging the kernel by its
// median, or the peak by its median where it has an interval, fails the
// overlapping cases.)
func TestPeakAbove(t *testing.T) {
	copyOp, err := catalogue.Lookup("copy")
	if err != nil {
		t.Fatal(err)
	}
	gemm, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	// 1 GB and 1 GFLOP a run: a rate in G/s is 1/seconds.
	at := func(lo, median, hi float64, n int) *results.Measurement {
		return &results.Measurement{Bytes: 1e9, Flops: 1e9, Stats: &stats.Stats{Median: 1 / median, Lo: 1 / hi, Hi: 1 / lo, N: n}}
	}
	withCI := &autotune.Peak{Rates: autotune.Rates{BandwidthGBps: 10, GFLOPs: 10},
		Low: &autotune.Rates{BandwidthGBps: 9.5, GFLOPs: 9}, High: &autotune.Rates{BandwidthGBps: 10.5, GFLOPs: 12}}
	point := &autotune.Peak{Rates: withCI.Rates} // stored by an older vkbench
	for _, tt := range []struct {
		name string
		peak *autotune.Peak
		op   kernels.Operation
		m    *results.Measurement
		want []string
	}{
		{"overlaps the peak's interval", withCI, copyOp, at(10.2, 10.8, 11.5, 10), nil},
		{"median far past, interval overlapping", withCI, copyOp, at(10.4, 14, 20, 10), nil},
		{"wholly above", withCI, copyOp, at(10.6, 10.8, 11, 10), []string{autotune.FlagAbovePeakBandwidth}},
		{"below", withCI, copyOp, at(8, 9, 10, 10), nil},
		{"no interval of its own", withCI, copyOp, at(20, 20, 20, 3), nil},
		{"above a point peak", point, copyOp, at(10.2, 10.8, 11.5, 10), []string{autotune.FlagAbovePeakBandwidth}},
		{"compute within the peak's", withCI, gemm, at(11, 11.5, 12, 10), []string{autotune.FlagAbovePeakBandwidth}},
		{"compute above the peak's", withCI, gemm, at(12.5, 13, 14, 10), []string{autotune.FlagAbovePeakBandwidth, autotune.FlagAbovePeakFLOPs}},
		{"no peak", nil, copyOp, at(10.6, 10.8, 11, 10), nil},
	} {
		if got := tt.peak.Above(tt.m, tt.op); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Above = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestPeakRecordStored checks the stored record: its intervals round
// trip, a record stored before peaks kept intervals still reads (as a
// point, of unknown noise), and the rule of SavePeak: a peak within the
// precision replaces the stored one; a rate measured more noisily
// replaces only a stored rate noisier still or without an interval, and
// otherwise the stored rate is kept and returned, rate by rate: the
// others of the same peak are stored. (Mutation: storing every peak fails
// the kept case; keeping every stored one fails the replaced ones.)
func TestPeakRecordStored(t *testing.T) {
	c := newCache(t, filepath.Join(t.TempDir(), "cache.db"))
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	const hw, precision = "mesa-0000_llvmpipe_llvmpipe_22.3.6", 0.01
	load := func() *autotune.PeakRecord {
		t.Helper()
		p, err := autotune.LoadPeak(t.Context(), c, hw)
		if err != nil || p == nil {
			t.Fatalf("LoadPeak = %v, %v", p, err)
		}
		return p
	}
	// peak is a copy peak of 10 GB/s, its interval ±w, measured on day.
	peak := func(w float64, day int) autotune.PeakRecord {
		return autotune.PeakRecord{Peak: autotune.Peak{Rates: autotune.Rates{BandwidthGBps: 10, GFLOPs: 80},
			Low:  &autotune.Rates{BandwidthGBps: 10 * (1 - w), GFLOPs: 80 * (1 - w/2)},
			High: &autotune.Rates{BandwidthGBps: 10 * (1 + w), GFLOPs: 80 * (1 + w/2)}},
			Device: "llvmpipe", Version: "test", Time: time.Date(2026, 12, day, 8, 0, 0, 0, time.UTC)}
	}
	// An older vkbench's record: rates only.
	old := `{"bandwidth_gb_per_s":6.2,"gflop_per_s":76,"device":"llvmpipe","vkbench_version":"v0.9","time":"2026-11-01T08:00:00Z"}`
	if err := c.UpdatePeak(t.Context(), hw, func([]byte) ([]byte, error) { return []byte(old), nil }); err != nil {
		t.Fatal(err)
	}
	got := load()
	bandwidth := func(r *autotune.Rates) *float64 { return &r.BandwidthGBps }
	if got.BandwidthGBps != 6.2 || got.GFLOPs != 76 || got.Low != nil || got.High != nil || !math.IsInf(got.HalfWidth(bandwidth), 1) {
		t.Errorf("old record read as %+v (half-width %g), want its rates, no intervals, half-width +Inf", got, got.HalfWidth(bandwidth))
	}
	// mixed is the peak of day 4 with the settled copy rate of day 3,
	// which its noisy one did not replace.
	mixed := peak(0.02, 4)
	mixed.Low.BandwidthGBps, mixed.High.BandwidthGBps = 10*(1-0.008), 10*(1+0.008)
	for i, step := range []struct {
		name   string
		rec    autotune.PeakRecord
		stored autotune.PeakRecord // what LoadPeak reads after it
		kept   bool                // nothing of rec stored
		noisy  float64             // the copy rate kept as tighter
	}{
		{"noisy over one without intervals", peak(0.03, 1), peak(0.03, 1), false, 0},
		{"noisier still", peak(0.05, 2), peak(0.03, 1), true, 10},
		{"settled", peak(0.008, 3), peak(0.008, 3), false, 0},
		{"noisy copy over a settled one, FLOP/s within the precision", peak(0.02, 4), mixed, false, 10},
		{"settled but wider than the stored", peak(0.01, 5), peak(0.01, 5), false, 0},
	} {
		kept, err := autotune.SavePeak(t.Context(), c, hw, step.rec, precision, false)
		if err != nil {
			t.Fatalf("%d %s: %v", i, step.name, err)
		}
		if kept.Whole != step.kept || kept.Noisy.BandwidthGBps != step.noisy {
			t.Errorf("%d %s: kept %+v, want kept whole: %v, copy kept as tighter: %g", i, step.name, kept, step.kept, step.noisy)
		}
		if diff := cmp.Diff(step.stored, *load()); diff != "" {
			t.Errorf("%d %s: stored peak (-want +got):\n%s", i, step.name, diff)
		}
	}
	if w := load().HalfWidth(bandwidth); math.Abs(w-0.01) > 1e-9 {
		t.Errorf("bandwidth's HalfWidth = %g, want 0.01", w)
	}
}

// TestPeakKeepsFaster checks SavePeak's rule rate by rate: a rate whose
// interval lies wholly below the stored one's (a busy or throttled device)
// keeps the stored rate and its interval, and is returned; one that
// overlaps it, or is faster, or that the stored peak lacks, replaces it;
// the clocks are the highest of both where a rate stays; replace stores
// the new peak whatever the stored one says, too noisy or slower; a
// stored rate without an interval is replaced; one the new peak did not
// measure stays, replace or not. (Mutation: keeping no slower rate fails
// the slower cases; judging by the medians fails the overlapping one.)
func TestPeakKeepsFaster(t *testing.T) {
	const hw, precision = "mesa-0000_llvmpipe_llvmpipe_22.3.6", 0.05
	// at is a peak of day at sm MHz: copy's bw GB/s in [lo, hi], fp32's
	// 80 GFLOP/s ±0.5%, and int32's 30 GOP/s where withInt.
	at := func(day int, sm, bw, lo, hi float64, withInt bool) autotune.PeakRecord {
		p := autotune.PeakRecord{Peak: autotune.Peak{Rates: autotune.Rates{BandwidthGBps: bw, GFLOPs: 80},
			Low: &autotune.Rates{BandwidthGBps: lo, GFLOPs: 79.6}, High: &autotune.Rates{BandwidthGBps: hi, GFLOPs: 80.4},
			SMClockMHz: sm, MemClockMHz: 2000}, Device: "llvmpipe", Version: "test", Time: time.Date(2026, 12, day, 8, 0, 0, 0, time.UTC)}
		if withInt {
			p.Int32GOPs, p.Low.Int32GOPs, p.High.Int32GOPs = 30, 29.7, 30.3
		}
		return p
	}
	stored := at(1, 1500, 100, 98, 102, false)
	pointStored := stored
	pointStored.Low, pointStored.High = nil, nil // an older vkbench's
	// slowerCopy is the new peak of day 2 with copy's rate stored (and
	// its interval) and the clocks the highest of both.
	slowerCopy := at(2, 1500, 100, 98, 102, true)
	for _, tt := range []struct {
		name        string
		old, rec    autotune.PeakRecord
		replace     bool
		want        autotune.PeakRecord
		noisyBytes  float64 // kept.Noisy.BandwidthGBps
		slowerBytes float64 // kept.Slower.BandwidthGBps
	}{
		{"slower beyond both intervals", stored, at(2, 1400, 90, 89, 91, true), false, slowerCopy, 0, 100},
		{"overlapping", stored, at(2, 1400, 97, 95, 98.5, true), false, at(2, 1400, 97, 95, 98.5, true), 0, 0},
		{"faster", stored, at(2, 1400, 120, 119, 121, true), false, at(2, 1400, 120, 119, 121, true), 0, 0},
		{"slower, replaced", stored, at(2, 1400, 90, 89, 91, true), true, at(2, 1400, 90, 89, 91, true), 0, 0},
		{"too noisy", stored, at(2, 1400, 90, 80, 100, true), false, slowerCopy, 100, 0},
		{"too noisy, replaced", stored, at(2, 1400, 90, 80, 100, true), true, at(2, 1400, 90, 80, 100, true), 0, 0},
		{"noisy over a point", pointStored, at(2, 1400, 90, 80, 100, true), false, at(2, 1400, 90, 80, 100, true), 0, 0},
		{"not measured", at(1, 1500, 100, 98, 102, true), at(2, 1400, 101, 99, 103, false), false, at(2, 1400, 101, 99, 103, true), 0, 0},
		{"not measured, replaced", at(1, 1500, 100, 98, 102, true), at(2, 1400, 90, 89, 91, false), true, at(2, 1400, 90, 89, 91, true), 0, 0},
		{"slower than a point", pointStored, at(2, 1400, 90, 89, 91, true), false, at(2, 1400, 90, 89, 91, true), 0, 0},
	} {
		c := newCache(t, filepath.Join(t.TempDir(), "cache.db"))
		if _, err := autotune.SavePeak(t.Context(), c, hw, tt.old, precision, true); err != nil {
			t.Fatal(err)
		}
		rec := tt.rec
		measured := *rec.Low
		kept, err := autotune.SavePeak(t.Context(), c, hw, rec, precision, tt.replace)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got, err := autotune.LoadPeak(t.Context(), c, hw)
		if err != nil || got == nil {
			t.Fatalf("%s: LoadPeak = %v, %v", tt.name, got, err)
		}
		if diff := cmp.Diff(tt.want, *got); diff != "" {
			t.Errorf("%s: stored peak (-want +got):\n%s", tt.name, diff)
		}
		if kept.Whole || kept.Noisy != (autotune.Rates{BandwidthGBps: tt.noisyBytes}) || kept.Slower != (autotune.Rates{BandwidthGBps: tt.slowerBytes}) {
			t.Errorf("%s: kept whole %v, noisy %+v, slower %+v; want noisy copy %g, slower copy %g", tt.name, kept.Whole, kept.Noisy, kept.Slower, tt.noisyBytes, tt.slowerBytes)
		}
		if kept.Old == nil {
			t.Errorf("%s: kept.Old = nil over a stored peak", tt.name)
		}
		if *rec.Low != measured {
			t.Errorf("%s: SavePeak changed the caller's measured intervals to %+v", tt.name, *rec.Low)
		}
		for i, r := range []func(*autotune.Rates) *float64{
			func(r *autotune.Rates) *float64 { return &r.BandwidthGBps },
			func(r *autotune.Rates) *float64 { return &r.GFLOPs },
			func(r *autotune.Rates) *float64 { return &r.Int32GOPs },
		} {
			if w := got.HalfWidth(r); got.Low != nil && math.IsInf(w, 0) {
				t.Errorf("%s: stored rate %d lies outside its interval: half-width %g", tt.name, i, w)
			}
		}
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestPeakSavedAtOnce: peaks stored at once, each measuring one rate,
// merge over each other: every rate measured is stored. (Reading the
// stored peak and writing the merged one in two transactions lost rates
// here: one writer's merge overwrote a rate another had stored between.)
func TestPeakSavedAtOnce(t *testing.T) {
	c := newCache(t, filepath.Join(t.TempDir(), "cache.db"))
	all := func(r *autotune.Rates) []*float64 {
		return []*float64{&r.BandwidthGBps, &r.GFLOPs, &r.FP16GFLOPs, &r.Int32GOPs,
			&r.MatrixF16GFLOPs, &r.MatrixF16AccGFLOPs, &r.MatrixS8GOPs, &r.MatrixBF16GFLOPs}
	}
	for round := range 20 {
		hw := fmt.Sprintf("hardware-%d", round)
		var wg sync.WaitGroup
		for i := range len(all(&autotune.Rates{})) {
			wg.Go(func() {
				var r, lo, hi autotune.Rates
				*all(&r)[i], *all(&lo)[i], *all(&hi)[i] = float64(10+i), float64(10+i)*0.99, float64(10+i)*1.01
				rec := autotune.PeakRecord{Peak: autotune.Peak{Rates: r, Low: &lo, High: &hi}, Device: "llvmpipe", Version: "test", Time: time.Now()}
				if _, err := autotune.SavePeak(t.Context(), c, hw, rec, 0.05, false); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, err := autotune.LoadPeak(t.Context(), c, hw)
		if err != nil || got == nil {
			t.Fatalf("LoadPeak = %v, %v", got, err)
		}
		for i, v := range all(&got.Rates) {
			if *v != float64(10+i) {
				t.Errorf("round %d: rate %d stored as %g; want %d: every rate measured, each by one of the writers at once", round, i, *v, 10+i)
			}
		}
	}
}

// TestPeakDamaged: a stored peak that does not decode is an error with
// code DataLoss from LoadPeak, naming the cache and the hardware (it was
// none, nil and no error: "no peak is known"); SavePeak replaces it whole
// and says why (PeakKept.Damaged).
func TestPeakDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	c := newCache(t, path)
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	const hw = "mesa-0000_llvmpipe_llvmpipe_22.3.6"
	if err := c.UpdatePeak(t.Context(), hw, func([]byte) ([]byte, error) { return []byte(`{"bandwidth_gb_per_s":`), nil }); err != nil {
		t.Fatal(err)
	}
	p, err := autotune.LoadPeak(t.Context(), c, hw)
	if p != nil || status.CodeOf(err) != status.DataLoss || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), hw) {
		t.Fatalf("LoadPeak of a damaged record = %v, %v; want nil and DataLoss naming %s and %s", p, err, path, hw)
	}
	rec := autotune.PeakRecord{Peak: autotune.Peak{Rates: autotune.Rates{BandwidthGBps: 10}}, Device: "llvmpipe", Version: "test"}
	kept, err := autotune.SavePeak(t.Context(), c, hw, rec, 0.01, false)
	if err != nil || kept.Old != nil || kept.Whole || status.CodeOf(kept.Damaged) != status.DataLoss {
		t.Fatalf("SavePeak over a damaged record = %+v, %v; want it replaced, Damaged with DataLoss", kept, err)
	}
	if p, err := autotune.LoadPeak(t.Context(), c, hw); err != nil || p == nil || p.BandwidthGBps != 10 {
		t.Errorf("LoadPeak after SavePeak = %+v, %v; want the new peak", p, err)
	}
}
