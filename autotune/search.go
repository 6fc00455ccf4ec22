package autotune

import (
	"cmp"

	"github.com/vkbench/vkbench/search"
)

// SearchOptions bound and seed a search of a parameter space, and say
// how its points are measured.
type SearchOptions struct {
	// Options are the strategy, its seed and the search's bounds.
	search.Options
	// CompileThreads is how many pipelines compile at once, on CPU
	// threads, while the GPU measures (no more than Lookahead can: only
	// proposed points compile); negative compiles each point's pipeline
	// just before measuring it (no overlap). Zero means
	// DefaultCompileThreads.
	CompileThreads int
	// Force measures every point again instead of answering from the
	// tuning log (and replaces its records).
	Force bool
	// Progress, if set, is told of each evaluation as it completes.
	Progress func(SearchProgress)
}

// SearchProgress reports one evaluation of a search.
type SearchProgress struct {
	// Eval counts the evaluations so far, this one included; Budget is
	// the most there will be.
	Eval, Budget int
	Name         string
	// Seconds is its median, 0 for a failure; FromLog is set when the
	// tuning log answered.
	Seconds float64
	FromLog bool
	// Best is the fastest so far.
	Best        string
	BestSeconds float64
}

// DefaultCompileThreads is how many pipelines a search compiles at once
// by default.
var DefaultCompileThreads = 4

func (o *SearchOptions) fill(points int) error {
	if err := o.Options.Fill(points); err != nil {
		return err
	}
	o.CompileThreads = cmp.Or(o.CompileThreads, DefaultCompileThreads) // negative: in line
	return nil
}
