package results

import (
	"math"

	moremath "github.com/aclements/go-moremath/stats"
)

// ProbeAlpha is the level at which Compare takes a probe to steady a
// benchmark's rounds (Row.ProbeP).
const ProbeAlpha = 0.05

// probeFit is how a benchmark's rounds move with the probe's (probeSteadies).
type probeFit struct {
	// ratio is the variance of the benchmark's log round medians relative
	// to the probe over that of its own, within each file, pooled (under
	// 1, the probe steadies them), and p the one-sided p-value of the
	// Pitman–Morgan test that it is under 1.
	ratio, p float64
	// slope is the least-squares slope of the benchmark's log round
	// medians against the probe's, within each file, and slopeVar its
	// variance: how much the benchmark moves as the probe moves.
	slope, slopeVar float64
}

// probeSteadies fits, for a benchmark's round medians s1 and s2 (base,
// new), the probe's in the same rounds (p1, p2). For paired X (own) and Y
// (relative), var X − var Y is the covariance of X + Y and X − Y, so the
// variances differ as those two correlate; the Pitman–Morgan test (Pitman
// 1939, Morgan 1939) is a t-test of that correlation, with n1 + n2 − 3
// degrees of freedom (one mean removed per file), as is the slope's
// variance. ratio 0 and p 1 where there is no spread to go by.
func probeSteadies(s1, p1, s2, p2 []float64) probeFit {
	var own, rel, uu, vv, uv float64
	for _, side := range [][2][]float64{{s1, p1}, {s2, p2}} {
		xs, qs := logsOf(side[0]), logsOf(side[1])
		mx, mq := moremath.Mean(xs), moremath.Mean(qs)
		for i := range xs {
			x, q := xs[i]-mx, qs[i]-mq
			r := x - q
			own, rel = own+x*x, rel+r*r
			u, v := x+r, q // v = x − r
			uu, vv, uv = uu+u*u, vv+v*v, uv+u*v
		}
	}
	fit := probeFit{p: 1}
	df := float64(len(s1) + len(s2) - 3)
	if own == 0 || uu == 0 || vv == 0 || df < 1 {
		return fit
	}
	xq := (uv + vv) / 2 // Σ(u + v)v / 2
	fit.slope = xq / vv
	fit.slopeVar = max(0, own-fit.slope*xq) / df / vv
	fit.ratio = rel / own
	if rho := uv / math.Sqrt(uu*vv); rho < 1 {
		fit.p = 1 - moremath.TDist{V: df}.CDF(rho*math.Sqrt(df/(1-rho*rho)))
	} else {
		fit.p = 0
	}
	return fit
}

// logsOf is the logarithms of values, in their order (rounds pair
// with the probe's by position).
func logsOf(values []float64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = math.Log(v)
	}
	return out
}
