package search

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// bayes is Bayesian optimization as the package doc's model says. Failed
// points are left out of the model. Every bayesLocal-th guided proposal
// is instead the unproposed neighbour of the best point so far that the
// model predicts fastest: expected improvement alone wanders off a narrow
// basin it has found (replayed on the recorded logs, the refinement cut
// the worst of 60 seeds from 28% of the space to 20% on the H200's and
// the median on the model's from 14% to 9%).
type bayes struct {
	observations
	feats   [][]float64
	rng     *rand.Rand
	n0      int
	model   gp
	tunedAt int     // how many results the hyperparameters were chosen with
	order   []int   // results' points, in the order told
	pending []int   // proposed, not yet told
	nb      [][]int // the grid's neighbours
	guides  int     // guided proposals made
}

// bayesExplore is the margin of expected improvement, in standard
// deviations of the log times, below which a gain is not worth chasing.
const bayesExplore = 0.01

// bayesRetune is how many new results make the hyperparameters be chosen
// again, at least (later, a fifth more: a choice costs dozens of
// factorizations, which grow as the cube of the results).
const bayesRetune = 5

func newBayes(g *Grid, rng *rand.Rand) *bayes {
	b := &bayes{observations: newObservations(g.Len()), rng: rng, nb: g.neighbours()}
	for i := range g.Len() {
		b.feats = append(b.feats, g.features(i))
	}
	d := len(g.Params)
	b.n0 = min(g.Len(), max(10, 2*d))
	b.model = gp{ls: slices.Repeat([]float64{0.4}, d), noise: 1e-3}
	return b
}

func (b *bayes) Next() (int, bool) {
	if b.left == 0 {
		return 0, false
	}
	i, ok := b.guided()
	if ok {
		b.guides++
		if b.guides%bayesLocal == 0 {
			if j, near := b.nearBest(); near {
				i = j
			}
		}
	} else {
		i, _ = b.randomUnproposed(b.rng)
	}
	b.propose(i)
	b.pending = append(b.pending, i)
	return i, true
}

func (b *bayes) Tell(i int, seconds float64, ok bool) {
	b.tell(i, seconds, ok)
	b.order = append(b.order, i)
	if k := slices.Index(b.pending, i); k >= 0 {
		b.pending = slices.Delete(b.pending, k, k+1)
	}
}

// guided returns the point of largest expected improvement, or false
// while the initial design is not done or too few points have times.
func (b *bayes) guided() (int, bool) {
	if len(b.proposed)-b.left < b.n0 {
		return 0, false
	}
	var x [][]float64
	var y []float64
	for _, i := range b.order {
		if v := b.value[i]; !math.IsInf(v, 1) {
			x = append(x, b.feats[i])
			y = append(y, v)
		}
	}
	if len(y) < 3 {
		return 0, false
	}
	mean, sd := stat.PopMeanStdDev(y, nil)
	if sd < 1e-9 {
		sd = 1
	}
	z := make([]float64, len(y))
	for k, v := range y {
		z[k] = (v - mean) / sd
	}
	best := slices.Min(z)
	if b.tunedAt == 0 || len(y)-b.tunedAt >= max(bayesRetune, b.tunedAt/5) {
		b.model.tune(x, z)
		b.tunedAt = len(y)
	}
	if _, ok := b.model.fit(x, z); !ok {
		return 0, false
	}
	if len(b.pending) > 0 {
		// The believer: outstanding proposals as if they had come out at
		// the model's mean.
		for _, p := range b.pending {
			mu, _ := b.model.predict(b.feats[p])
			x = append(x, b.feats[p])
			z = append(z, mu)
		}
		if _, ok := b.model.fit(x, z); !ok {
			return 0, false
		}
	}
	var open []int
	var xs [][]float64
	for i, p := range b.proposed {
		if !p {
			open = append(open, i)
			xs = append(xs, b.feats[i])
		}
	}
	mus, vs := b.model.predictAll(xs)
	pick, bestEI := -1, -1.0
	for k, i := range open {
		if ei := expectedImprovement(mus[k], vs[k], best, bayesExplore); ei > bestEI {
			pick, bestEI = i, ei
		}
	}
	return pick, pick >= 0
}

// bayesLocal is how often a guided proposal refines the best point.
const bayesLocal = 3

// nearBest returns the neighbour of the best point so far never proposed
// that the model predicts fastest, or false.
func (b *bayes) nearBest() (int, bool) {
	best, bv := -1, math.Inf(1)
	for i, v := range b.value {
		if v < bv {
			best, bv = i, v
		}
	}
	if best < 0 {
		return 0, false
	}
	pick, pv := -1, math.Inf(1)
	for _, j := range b.nb[best] {
		if b.proposed[j] {
			continue
		}
		if mu, _ := b.model.predict(b.feats[j]); mu < pv {
			pick, pv = j, mu
		}
	}
	return pick, pick >= 0
}
