package search

import (
	"math"
	"math/rand/v2"
)

// anneal is simulated annealing over a grid's neighbour graph, on log
// times: a neighbour slower by a factor r is taken with probability
// r^(-1/T), T falling from annealStart to a hundredth of it over the
// budget. Moves to points already evaluated cost nothing, so the walk
// crosses known ground freely and proposes only new points; when every
// neighbour within reach is known it restarts at a random point.
type anneal struct {
	observations
	nb     [][]int
	rng    *rand.Rand
	budget int
	told   int
	cur    int // the walk's point; -1 before the first result
	jump   int // a restart proposed, where the walk goes when it is told; -1 if none
}

// annealStart is the first temperature: a neighbour 10% slower is taken
// with probability 0.39 at first, almost never at the end.
const annealStart = 0.1

func newAnneal(g *Grid, rng *rand.Rand, budget int) *anneal {
	return &anneal{observations: newObservations(g.Len()), nb: g.neighbours(), rng: rng, budget: budget, cur: -1, jump: -1}
}

func (a *anneal) temperature() float64 {
	return annealStart * math.Pow(0.01, min(float64(a.told)/float64(a.budget), 1))
}

// accept reports whether the walk moves from its point to one of log time
// v (Metropolis' rule).
func (a *anneal) accept(v float64) bool {
	cv := a.value[a.cur]
	switch {
	case v <= cv:
		return true
	case math.IsInf(v, 1):
		return false
	}
	return a.rng.Float64() < math.Exp(-(v-cv)/a.temperature())
}

func (a *anneal) Next() (int, bool) {
	if a.cur >= 0 {
		// A walk of at most a few dozen steps over known points, until a
		// neighbour never proposed turns up.
		for range 4 * (len(a.nb[a.cur]) + 1) {
			nbs := a.nb[a.cur]
			if len(nbs) == 0 {
				break
			}
			j := nbs[a.rng.IntN(len(nbs))]
			if !a.proposed[j] {
				a.propose(j)
				return j, true
			}
			if v, known := a.value[j]; known && a.accept(v) {
				a.cur = j
			}
		}
	}
	// No point yet, or nothing new within reach: start (again) elsewhere.
	j, ok := a.randomUnproposed(a.rng)
	if !ok {
		return 0, false
	}
	a.propose(j)
	if a.cur >= 0 {
		a.jump = j
	}
	return j, true
}

func (a *anneal) Tell(i int, seconds float64, ok bool) {
	v := a.tell(i, seconds, ok)
	a.told++
	switch {
	case a.cur < 0 || i == a.jump:
		if !math.IsInf(v, 1) || a.cur < 0 {
			a.cur = i
		}
		if i == a.jump {
			a.jump = -1
		}
	case a.accept(v):
		a.cur = i
	}
}
