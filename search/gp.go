package search

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// gp is a Gaussian process regression with a Matérn 5/2 kernel, one
// length scale a feature (automatic relevance determination), unit signal
// variance (targets are standardized) and Gaussian noise: the model of
// the Bayes strategy.
type gp struct {
	ls    []float64 // length scale of each feature
	noise float64   // noise variance, relative to the signal's
	x     [][]float64
	chol  mat.Cholesky
	l     mat.TriDense  // the Cholesky factor L, LLᵀ = K
	alpha *mat.VecDense // K⁻¹y
}

// kernel is the Matérn 5/2 covariance of a and b.
func (g *gp) kernel(a, b []float64) float64 {
	r2 := 0.0
	for j := range a {
		d := (a[j] - b[j]) / g.ls[j]
		r2 += d * d
	}
	r := math.Sqrt(5 * r2)
	return (1 + r + r*r/3) * math.Exp(-r)
}

// fit conditions the process on targets y at x and returns the log
// marginal likelihood; ok is false when the kernel matrix is not positive
// definite (the noise is too small for points this close).
func (g *gp) fit(x [][]float64, y []float64) (logML float64, ok bool) {
	n := len(x)
	k := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := g.kernel(x[i], x[j])
			if i == j {
				v += g.noise + 1e-9
			}
			k.SetSym(i, j, v)
		}
	}
	if !g.chol.Factorize(k) {
		return math.Inf(-1), false
	}
	g.x = x
	g.l.Reset()
	g.chol.LTo(&g.l)
	g.alpha = mat.NewVecDense(n, nil)
	if err := g.chol.SolveVecTo(g.alpha, mat.NewVecDense(n, y)); err != nil {
		return math.Inf(-1), false
	}
	return -0.5*mat.Dot(mat.NewVecDense(n, y), g.alpha) - 0.5*g.chol.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi), true
}

// predict returns the posterior mean and variance at x.
func (g *gp) predict(x []float64) (mean, variance float64) {
	means, variances := g.predictAll([][]float64{x})
	return means[0], variances[0]
}

// predictAll returns the posterior means and variances at every point of
// xs, as two matrix operations: the mean is k*ᵀ K⁻¹y, the variance
// k(x,x) - k*ᵀ K⁻¹ k* = 1 - |L⁻¹k*|² (1 where L cannot be solved).
func (g *gp) predictAll(xs [][]float64) (means, variances []float64) {
	n, m := len(g.x), len(xs)
	ks := mat.NewDense(n, m, nil)
	for i := range n {
		for k, x := range xs {
			ks.Set(i, k, g.kernel(x, g.x[i]))
		}
	}
	means = make([]float64, m)
	variances = make([]float64, m)
	var mu mat.VecDense
	mu.MulVec(ks.T(), g.alpha)
	var v mat.Dense
	err := v.Solve(&g.l, ks)
	for k := range m {
		means[k], variances[k] = mu.AtVec(k), 1
		if err == nil {
			col := mat.Col(nil, k, &v)
			variances[k] = max(1-floats.Dot(col, col), 1e-12)
		}
	}
	return means, variances
}

// lengthScales and noises are the hyperparameters tried: features are
// scaled to [0, 1], so a length scale of 0.1 is a tenth of a param's
// range, and 3.2 a param that hardly matters.
var (
	lengthScales = []float64{0.1, 0.2, 0.4, 0.8, 1.6, 3.2}
	noises       = []float64{1e-4, 1e-3, 1e-2, 1e-1}
)

// tune chooses the length scales and the noise that maximize the log
// marginal likelihood of y at x, one at a time over the values above, in
// two sweeps from the current ones: a coarse but cheap maximization (a
// few dozen factorizations), enough for a model that only ranks points.
func (g *gp) tune(x [][]float64, y []float64) {
	best, _ := g.fit(x, y)
	try := func(set func(float64), values []float64, keep float64) {
		for _, v := range values {
			set(v)
			if l, ok := g.fit(x, y); ok && l > best {
				best, keep = l, v
			}
		}
		set(keep)
	}
	for range 2 {
		for j := range g.ls {
			try(func(v float64) { g.ls[j] = v }, lengthScales, g.ls[j])
		}
		try(func(v float64) { g.noise = v }, noises, g.noise)
	}
}

// expectedImprovement is the expected amount by which a point of
// posterior mean mu and variance v falls below best (minimizing), less a
// margin xi that favours exploring over splitting hairs.
func expectedImprovement(mu, v, best, xi float64) float64 {
	s := math.Sqrt(v)
	d := best - mu - xi
	if s < 1e-12 {
		return max(d, 0)
	}
	z := d / s
	return d*distuv.UnitNormal.CDF(z) + s*distuv.UnitNormal.Prob(z)
}
