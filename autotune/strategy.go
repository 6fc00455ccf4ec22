package autotune

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// Strategy decides which point of a space a search evaluates next. A
// search asks Next for proposals and Tells each one's result, in the order
// proposed; it keeps up to SearchOptions.Lookahead proposals outstanding
// (being compiled or measured) and asks for the next only after telling
// the oldest, so that a strategy sees the same results in the same order
// on the GPU, from the tuning log and in a replay: seeded, a search is
// reproducible.
type Strategy interface {
	// Next returns the index of the next point to evaluate (one it has not
	// proposed before), or false when it has nothing more to propose.
	Next() (int, bool)
	// Tell reports point i's median time in seconds, or ok false when it
	// failed (did not build, computed a wrong result, did not run): such a
	// point never wins.
	Tell(i int, seconds float64, ok bool)
}

// The strategies a search can use, by name.
const (
	// Exhaustive evaluates every point, in the space's order.
	Exhaustive = "exhaustive"
	// Random evaluates points in a seeded random order, without
	// repetition.
	Random = "random"
	// Anneal is simulated annealing: a walk between neighbouring points
	// (one or two params one value apart) that always takes a faster
	// neighbour and a slower one with a probability that falls as the
	// search goes on, restarting elsewhere when every neighbour is known.
	Anneal = "anneal"
	// Bayes is Bayesian optimization: a Gaussian process (Matérn 5/2,
	// one length scale a param, fitted to the log of the times) models
	// the space, and the point of largest expected improvement is
	// evaluated next.
	Bayes = "bayes"
	// Auto is Exhaustive for spaces of at most SmallSpace points, Bayes
	// for larger ones.
	Auto = "auto"
)

// Strategies are the names NewStrategy takes, Auto last.
var Strategies = []string{Exhaustive, Random, Anneal, Bayes, Auto}

// SmallSpace is the most points Auto searches exhaustively.
const SmallSpace = 64

// Grid is what a strategy knows of a space: its params and, for each valid
// point, the position of its value of each param in the param's list.
type Grid struct {
	Params []kernels.Param
	// Coords[i][j] is the index of point i's value of param j.
	Coords [][]int
}

// GridOf returns the grid of a space's valid points.
func GridOf(pts *kernels.Points) *Grid {
	g := &Grid{Params: pts.Space.Params}
	for _, c := range pts.Configs {
		g.Coords = append(g.Coords, pts.Space.Index(c))
	}
	return g
}

// Len is the number of points.
func (g *Grid) Len() int { return len(g.Coords) }

// features returns point i's coordinates scaled to [0, 1].
func (g *Grid) features(i int) []float64 {
	f := make([]float64, len(g.Params))
	for j, p := range g.Params {
		if n := len(p.Values); n > 1 {
			f[j] = float64(g.Coords[i][j]) / float64(n-1)
		}
	}
	return f
}

// neighbours returns, for each point, the points one or two params away,
// each by one value in its list: a local search's moves. (Two at once,
// because restrictions tie params together: BM and TY move as one when
// the micro-tile BM/TY must stay whole.)
func (g *Grid) neighbours() [][]int {
	at := make(map[string]int, g.Len())
	key := func(c []int) string {
		var b strings.Builder
		for _, v := range c {
			b.WriteByte(byte(v))
			b.WriteByte(byte(v >> 8))
		}
		return b.String()
	}
	for i, c := range g.Coords {
		at[key(c)] = i
	}
	out := make([][]int, g.Len())
	for i, c := range g.Coords {
		d := slices.Clone(c)
		add := func() {
			if j, ok := at[key(d)]; ok && j != i && !slices.Contains(out[i], j) {
				out[i] = append(out[i], j)
			}
		}
		for a := range c {
			for _, da := range []int{-1, 1} {
				d[a] = c[a] + da
				add()
				for b := a + 1; b < len(c); b++ {
					for _, db := range []int{-1, 1} {
						d[b] = c[b] + db
						add()
						d[b] = c[b]
					}
				}
				d[a] = c[a]
			}
		}
		slices.Sort(out[i])
	}
	return out
}

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
		if g.Len() <= SmallSpace {
			return NewStrategy(Exhaustive, g, seed, budget)
		}
		return NewStrategy(Bayes, g, seed, budget)
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
	return nil, status.Newf(status.InvalidArgument, "autotune: unknown strategy %q (want %s)", name, strings.Join(Strategies, ", "))
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
