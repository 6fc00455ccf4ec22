package autotune

import (
	"math/rand/v2"
	"testing"

	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// TestOutranksFollowsPick: a point that outranks another, which a search
// then releases, leaves it no win by pickByObjective's rule, whatever
// the other points ranked beside them: random sets of results, with and
// without energies and their intervals, by each objective. By time every
// faster point outranks (a search keeps one pipeline), and by the others
// some do.
func TestOutranksFollowsPick(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	result := func(i int) results.Result {
		m, w := 1e-3*(1+rng.Float64()), rng.Float64()/20
		r := results.Result{Index: i, Measurement: results.Measurement{Outcome: results.Measured,
			Stats: &stats.Stats{Median: m, Lo: m * (1 - w), Hi: m * (1 + w), N: 10, Batch: 1}}}
		if rng.IntN(20) > 0 { // else no energy
			r.EnergyJ = 1 + rng.Float64()/10
		}
		if w := rng.Float64() / 20; rng.IntN(5) > 0 { // else no interval
			r.EnergyLoJ, r.EnergyHiJ = r.EnergyJ*(1-w), r.EnergyJ*(1+w)
		}
		return r
	}
	for _, obj := range []Objective{ObjectiveTime, ObjectiveEnergy, ObjectiveEDP} {
		outranked := 0
		for range 5000 {
			e := &Entry{Objective: obj, Bounds: Bounds{TargetHalfWidth: 0.01}}
			var ranked []int
			for i := range 2 + rng.IntN(5) {
				e.Results, ranked = append(e.Results, result(i)), append(ranked, i)
			}
			crown(e, ranked)
			for _, q := range e.Results {
				for _, p := range e.Results {
					out := outranks(q, p, obj)
					if out && e.Fastest == p.Index || obj == ObjectiveTime && out != (q.Stats.Median < p.Stats.Median) {
						t.Fatalf("%s: %+v outranks %+v: %v, and the winner among %+v is %d", obj, q, p, out, e.Results, e.Fastest)
					}
					if out {
						outranked++
					}
				}
			}
		}
		if outranked == 0 {
			t.Errorf("%s: no point outranked another", obj)
		}
	}
}
