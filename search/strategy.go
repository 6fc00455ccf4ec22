package search

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/vkbench/vkbench/status"
)

// Strategy decides which point of a space a search evaluates next; Drive
// drives the built-in ones (NewStrategy) and a caller's own alike.
type Strategy interface {
	// Next returns the index of the next point to evaluate (one it has not
	// proposed before), or false when it has nothing more to propose.
	Next() (int, bool)
	// Tell reports point i's median time in seconds, or ok false when it
	// failed: such a point never wins.
	Tell(i int, seconds float64, ok bool)
}

// The strategies a search can use, by name (the package doc says what
// each does).
const (
	Exhaustive = "exhaustive"
	Random     = "random"
	Anneal     = "anneal"
	Bayes      = "bayes"
	Auto       = "auto"
)

// Strategies are the names NewStrategy takes, Auto last.
var Strategies = []string{Exhaustive, Random, Anneal, Bayes, Auto}

// SmallSpace is the most points Auto searches exhaustively.
const SmallSpace = 64

// NewStrategy returns the strategy called name for grid g, seeded. budget
// is the number of evaluations the search may make (annealing cools over
// it); 0 means the whole grid. An unknown name is InvalidArgument.
func NewStrategy(name string, g *Grid, seed uint64, budget int) (Strategy, error) {
	if budget <= 0 || budget > g.Len() {
		budget = g.Len()
	}
	rng := rand.New(rand.NewPCG(seed, 0x5ea4c4))
	switch name {
	case Auto:
		return NewStrategy(autoStrategy(g.Len()), g, seed, budget)
	case Exhaustive:
		order := make([]int, g.Len())
		for i := range order {
			order[i] = i
		}
		return &ordered{order: order}, nil
	case Random:
		return &ordered{order: rng.Perm(g.Len())}, nil
	case Anneal:
		return newAnneal(g, rng, budget), nil
	case Bayes:
		return newBayes(g, rng), nil
	}
	return nil, status.Newf(status.InvalidArgument, "search: unknown strategy %q (want %s)", name, strings.Join(Strategies, ", "))
}

// autoStrategy is the strategy Auto stands for on a space of points.
func autoStrategy(points int) string {
	if points <= SmallSpace {
		return Exhaustive
	}
	return Bayes
}

// ordered proposes points in a fixed order: exhaustive and random search.
type ordered struct {
	order []int
	next  int
}

func (o *ordered) Next() (int, bool) {
	if o.next >= len(o.order) {
		return 0, false
	}
	o.next++
	return o.order[o.next-1], true
}

func (o *ordered) Tell(int, float64, bool) {}

// observations is what the model-free and model-guided strategies share:
// the points proposed and the times told, as logarithms (+Inf for a
// failure).
type observations struct {
	proposed []bool
	value    map[int]float64
	left     int // points never proposed
}

func newObservations(n int) observations {
	return observations{proposed: make([]bool, n), value: map[int]float64{}, left: n}
}

func (o *observations) propose(i int) {
	if !o.proposed[i] {
		o.proposed[i] = true
		o.left--
	}
}

func (o *observations) tell(i int, seconds float64, ok bool) float64 {
	v := math.Inf(1)
	if ok && seconds > 0 {
		v = math.Log(seconds)
	}
	o.value[i] = v
	return v
}

// randomUnproposed returns a point never proposed, uniformly, or false.
func (o *observations) randomUnproposed(rng *rand.Rand) (int, bool) {
	if o.left == 0 {
		return 0, false
	}
	k := rng.IntN(o.left)
	for i, p := range o.proposed {
		if !p {
			if k == 0 {
				return i, true
			}
			k--
		}
	}
	return 0, false
}
