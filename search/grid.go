package search

import (
	"fmt"
	"slices"

	"github.com/vkbench/vkbench/kernels"
)

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
	for i, c := range g.Coords {
		at[fmt.Sprint(c)] = i
	}
	out := make([][]int, g.Len())
	for i, c := range g.Coords {
		d := slices.Clone(c)
		add := func() {
			if j, ok := at[fmt.Sprint(d)]; ok && j != i && !slices.Contains(out[i], j) {
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
