package autotune

import (
	"context"
	"encoding/json"
	"math"
	"time"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// Peak is a device's measured peak, for percent-of-peak and plausibility:
// each rate's median, and its 95% interval.
type Peak struct {
	Rates
	// Low and High are the bottoms and tops of the rates' 95% intervals;
	// a peak stored without them is judged as a point.
	Low  *Rates `json:"ci_lo,omitempty"`
	High *Rates `json:"ci_hi,omitempty"`
	// SMClockMHz and MemClockMHz are the highest clocks seen while the
	// peak kernels were measured, where read (FlagPeakOtherClock).
	SMClockMHz  float64 `json:"sm_clock_mhz,omitempty"`
	MemClockMHz float64 `json:"mem_clock_mhz,omitempty"`
}

// Rates are the rates a peak measures, in thousands of millions a second.
type Rates struct {
	// BandwidthGBps is the copy bandwidth (bytes read + written) in GB/s.
	BandwidthGBps float64 `json:"bandwidth_gb_per_s"`
	// GFLOPs is the fp32 FMA rate.
	GFLOPs float64 `json:"gflop_per_s"`
	// FP16GFLOPs and Int32GOPs are the fp16 FMA and int32 multiply-add
	// rates; 0 when unsupported or not measured.
	FP16GFLOPs float64 `json:"fp16_gflop_per_s,omitempty"`
	Int32GOPs  float64 `json:"int32_gop_per_s,omitempty"`
	// MatrixF16GFLOPs, MatrixF16AccGFLOPs, MatrixS8GOPs and
	// MatrixBF16GFLOPs are the matrix units' (tensor cores') rates,
	// measured by peak-coopmat-f16, -f16acc, -s8 and -bf16: fp16 with fp32
	// sums, fp16 with fp16 sums, int8 with int32 sums, bfloat16 with fp32
	// sums; 0 where the device has none or they were not measured.
	MatrixF16GFLOPs    float64 `json:"matrix_f16_gflop_per_s,omitempty"`
	MatrixF16AccGFLOPs float64 `json:"matrix_f16acc_gflop_per_s,omitempty"`
	MatrixS8GOPs       float64 `json:"matrix_s8_gop_per_s,omitempty"`
	MatrixBF16GFLOPs   float64 `json:"matrix_bf16_gflop_per_s,omitempty"`
}

// all are r's rates, each once.
func (r *Rates) all() []*float64 {
	return []*float64{&r.BandwidthGBps, &r.GFLOPs, &r.FP16GFLOPs, &r.Int32GOPs,
		&r.MatrixF16GFLOPs, &r.MatrixF16AccGFLOPs, &r.MatrixS8GOPs, &r.MatrixBF16GFLOPs}
}

// ComputeOf returns the peak rate that bounds op's arithmetic (RateOf),
// 0 when unknown.
func (p *Peak) ComputeOf(op kernels.Operation) float64 {
	if p == nil {
		return 0
	}
	return *p.Rates.RateOf(op)
}

// RateOf returns the field of r that bounds op's arithmetic: for an
// operation on the matrix units (kernels.ArithmeticOf), their rate at its
// precision where it was measured; otherwise the FMA rate of its element
// type: fp16, int32 multiply-add for int32 and uint32, else fp32.
func (r *Rates) RateOf(op kernels.Operation) *float64 {
	var m *float64
	switch kernels.ArithmeticOf(op) {
	case kernels.MatrixF16:
		m = &r.MatrixF16GFLOPs
	case kernels.MatrixF16Acc:
		m = &r.MatrixF16AccGFLOPs
	case kernels.MatrixS8:
		m = &r.MatrixS8GOPs
	case kernels.MatrixBF16:
		// Without a bfloat16 rate the fp16 one stands in (the same on
		// every device known here), never the vector rate, which
		// gemm-bf16's matrix candidates would exceed several times.
		if m = &r.MatrixBF16GFLOPs; *m == 0 {
			m = &r.MatrixF16GFLOPs
		}
	}
	switch {
	case m != nil && *m > 0:
		return m
	case op.DType() == kernels.F16:
		return &r.FP16GFLOPs
	case op.DType() == kernels.I32, op.DType() == kernels.U32:
		return &r.Int32GOPs
	}
	return &r.GFLOPs
}

// upper is the top of the 95% interval of the peak's rate that rate
// reads: the rate itself for a peak stored without intervals, +Inf where
// the rate has no interval.
func (p *Peak) upper(rate func(*Rates) float64) float64 {
	v := rate(&p.Rates)
	if p.High == nil {
		return v
	}
	if hi := rate(p.High); hi >= v {
		return hi
	}
	return math.Inf(1)
}

// Above returns the flags of the rates of m (op's) whose 95% interval
// lies wholly above the peak's: FlagAbovePeakBandwidth,
// FlagAbovePeakFLOPs. One without an interval is never above.
func (p *Peak) Above(m *results.Measurement, op kernels.Operation) []string {
	if p == nil || m.Stats == nil {
		return nil
	}
	_, slowest := interval(*m.Stats)
	var flags []string
	if bw := p.upper(func(r *Rates) float64 { return r.BandwidthGBps }); bw > 0 && m.Bytes/slowest/1e9 > bw {
		flags = append(flags, FlagAbovePeakBandwidth)
	}
	if c := p.upper(func(r *Rates) float64 { return *r.RateOf(op) }); c > 0 && m.Flops/slowest/1e9 > c {
		flags = append(flags, FlagAbovePeakFLOPs)
	}
	return flags
}

// HalfWidth is the half-width of the 95% interval of the rate that rate
// points at in a Rates, relative to the rate: 0 for a rate not measured,
// +Inf for one without an interval (stored by an older vkbench, say).
func (p *Peak) HalfWidth(rate func(*Rates) *float64) float64 {
	v := *rate(&p.Rates)
	lo, hi, ok := p.interval(rate)
	switch {
	case v <= 0:
		return 0
	case !ok:
		return math.Inf(1)
	}
	return (hi - lo) / 2 / v
}

// interval returns the 95% interval of the rate that rate points at, and
// whether it has one: a measured rate within its stored interval.
func (p *Peak) interval(rate func(*Rates) *float64) (lo, hi float64, ok bool) {
	v := *rate(&p.Rates)
	if v <= 0 || p.Low == nil || p.High == nil || !(*rate(p.Low) <= v && v <= *rate(p.High)) {
		return 0, 0, false
	}
	return *rate(p.Low), *rate(p.High), true
}

// PeakRecord is a stored peak measurement. Time and Version are those of
// the latest measurement stored, whose rates may have kept earlier ones
// (SavePeak): a kept rate keeps its value and interval only.
type PeakRecord struct {
	Peak
	Device  string    `json:"device"`
	Version string    `json:"vkbench_version"`
	Time    time.Time `json:"time"`
}

// PeakKept is what SavePeak kept of Old, the peak stored before (nil
// where none): all of it (Whole), or the rates that the new peak measured
// Slower beyond both intervals or too Noisy (0 for the others). Damaged
// is why the stored peak could not be read (DataLoss), where it could
// not: the new one replaced it whole.
type PeakKept struct {
	Old           *PeakRecord
	Whole         bool
	Slower, Noisy Rates
	Damaged       error
}

// SavePeak stores the peak measured on hardware in s over the one stored,
// rate by rate. A stored rate stays, with its interval, where p did not
// measure it; unless replace is set, also where p's interval of it is
// wider than precision (a half-width relative to the rate) and wider than
// the stored one's, and where p's lies wholly below the stored one's (a
// device measured slower beyond the noise of both was busy or
// throttled). Where a rate stays, the clocks are the highest of both;
// where every rate stays, nothing is written. A stored peak that does not
// decode is replaced (kept.Damaged says why): it is no peak to keep, and
// the cache would otherwise keep it until removed by hand. ctx ending while it waits for the store is its error, ctx's,
// and nothing is written.
func SavePeak(ctx context.Context, s *store.Store, hardware string, p PeakRecord, precision float64, replace bool) (PeakKept, error) {
	var kept PeakKept
	err := s.UpdatePeak(ctx, hardware, func(v []byte) ([]byte, error) {
		kept = PeakKept{} // this reading's alone
		rec := p
		if kept.Old, kept.Damaged = decodePeak(s, hardware, v); kept.Old != nil {
			var took bool
			rec, kept.Slower, kept.Noisy, took = keepStored(*kept.Old, rec, precision, replace)
			if kept.Whole = !took; kept.Whole {
				return nil, nil
			}
		}
		data, err := json.Marshal(rec)
		if err != nil {
			return nil, status.Wrap(err, status.Internal, "autotune: encoding peak")
		}
		return data, nil
	})
	return kept, err
}

// keepStored returns p with the rates SavePeak keeps of old taken from
// old, interval and all (with replace, only those p did not measure);
// which of them it kept as slower or noisy; and whether any rate of p is
// left.
func keepStored(old, p PeakRecord, precision float64, replace bool) (_ PeakRecord, slower, noisy Rates, took bool) {
	var low, high Rates // p's own stay the caller's
	if p.Low != nil && p.High != nil {
		low, high = *p.Low, *p.High
	}
	p.Low, p.High = &low, &high
	for i := range p.Rates.all() {
		rate := func(r *Rates) *float64 { return r.all()[i] }
		_, hi, ok := p.interval(rate)
		oldLo, oldHi, oldOK := old.interval(rate)
		keep := func(into *Rates) {
			*rate(&p.Rates), *rate(p.Low), *rate(p.High) = *rate(&old.Rates), oldLo, oldHi
			if into != nil {
				*rate(into) = *rate(&old.Rates)
			}
		}
		w := p.HalfWidth(rate)
		switch {
		case *rate(&p.Rates) <= 0:
			if *rate(&old.Rates) > 0 {
				keep(nil) // not measured this time (unsupported, or wrong)
			}
		case replace:
			took = true
		case w > precision && *rate(&old.Rates) > 0 && old.HalfWidth(rate) <= w:
			keep(&noisy)
		case ok && oldOK && hi < oldLo:
			keep(&slower)
		default:
			took = true
		}
	}
	if slower != (Rates{}) || noisy != (Rates{}) {
		p.SMClockMHz, p.MemClockMHz = max(p.SMClockMHz, old.SMClockMHz), max(p.MemClockMHz, old.MemClockMHz)
	}
	return p, slower, noisy, took
}

// LoadPeak returns the peak stored in s for hardware, if any. One that
// does not decode is an error with code DataLoss naming the cache and
// hardware, and a warning, as a damaged tuning entry is (ReadEntry).
// ctx ending while it waits for the store is its error, ctx's.
func LoadPeak(ctx context.Context, s *store.Store, hardware string) (*PeakRecord, error) {
	v, err := s.LoadPeak(ctx, hardware)
	if err != nil {
		return nil, err
	}
	p, err := decodePeak(s, hardware, v)
	if err != nil {
		s.Warn("%v", err)
	}
	return p, err
}

// decodePeak decodes v, the peak stored for hardware in s: nil where
// there is none; DataLoss where it cannot be read.
func decodePeak(s *store.Store, hardware string, v []byte) (*PeakRecord, error) {
	if v == nil {
		return nil, nil
	}
	var p PeakRecord
	if err := json.Unmarshal(v, &p); err != nil {
		return nil, status.Wrapf(err, status.DataLoss, "autotune: cache %s: stored peak of %s is damaged", s.Path(), hardware)
	}
	return &p, nil
}
