package vkbench

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/search"
	"github.com/vkbench/vkbench/status"
)

// Space is a family of kernels that differ only in parameters (tile
// sizes, workgroup sizes, unroll factors), for Tuner.Search to explore
// when there are too many to list as an Op's Candidates: every
// combination of the Params' values that Valid accepts is a
// configuration, and Kernel makes its kernel.
type Space struct {
	// Params are the parameters and the values each may take.
	Params []Param
	// Valid, if set, reports whether configuration c can run at size (in
	// the Op's Dims): a configuration it refuses is never compiled.
	Valid func(c Config, size []int) bool
	// Kernel returns configuration c's kernel, whose Name must be unique
	// in the space.
	Kernel func(c Config) Kernel
}

// Param is one parameter of a Space: its name and its values.
type Param struct {
	// Name is the name a Config gives the param's value under.
	Name string
	// Values are the values it takes, in the order a search walks them.
	Values []int
}

// Config is a configuration of a Space: a value for each param, by name.
type Config map[string]int

// Pow2 returns the powers of two from lo to hi, such as the values of a
// workgroup size: Pow2(32, 256) is [32 64 128 256].
func Pow2(lo, hi int) []int { return kernels.Pow2(lo, hi) }

// SearchOptions bound a search of a Space.
type SearchOptions struct {
	// Strategy is "exhaustive", "random", "anneal" (simulated annealing)
	// or "bayes" (a Gaussian process proposing the configuration of
	// largest expected improvement); "" chooses exhaustive for a small
	// space and bayes otherwise.
	Strategy string
	// MaxEvals bounds the configurations evaluated; 0 means every one for
	// exhaustive, a quarter of the space for the others.
	MaxEvals int
	// TimeLimit bounds the search's wall-clock time; 0 means none.
	TimeLimit time.Duration
	// Seed seeds the strategy: the same seed and results, the same search.
	Seed uint64
}

// spaceOf makes op's Space a kernels.Space, whose configurations' kernels
// it remembers by name for the operation of the points a search measures.
func (o *operation) spaceOf(s *Space) (*kernels.Space, error) {
	if len(s.Params) == 0 || s.Kernel == nil {
		return nil, status.Newf(status.InvalidArgument, "vkbench: Op %q: its Space needs Params and Kernel", o.name)
	}
	var mu sync.Mutex
	kerns := map[string]variant{}
	params := make([]kernels.Param, len(s.Params))
	for i, p := range s.Params {
		params[i] = kernels.Param(p)
	}
	ks := &kernels.Space{
		Params: params,
		Candidate: func(c kernels.Config) (kernels.Candidate, error) {
			k := s.Kernel(Config(c))
			cand, v, err := k.candidate()
			if err != nil {
				return kernels.Candidate{}, err
			}
			mu.Lock()
			kerns[cand.Name] = v
			mu.Unlock()
			return cand, nil
		},
		Operation: func(cands []kernels.Candidate) (kernels.Operation, []int) {
			pts := &operation{name: o.name, dims: o.dims, dtype: o.dtype, prepare: o.prepare, cands: cands}
			index := make([]int, len(cands))
			mu.Lock()
			for i, c := range cands {
				pts.kerns = append(pts.kerns, kerns[c.Name])
				index[i] = i
			}
			mu.Unlock()
			return pts, index
		},
	}
	if s.Valid != nil {
		ks.Restrictions = []kernels.Restriction{{
			Expr:  "Space.Valid",
			Holds: func(e kernels.Env) (bool, error) { return s.Valid(Config(e.Config), e.Size.Extents()), nil },
		}}
	}
	if err := ks.Check(); err != nil {
		return nil, status.Annotatef(err, "vkbench: Op %q", o.name)
	}
	return ks, nil
}

// Space returns the operation's space as kernels.Searchable asks; nil
// for an Op without one.
func (o *operation) Space() *kernels.Space { return o.space }

// Search explores op's Space at size with a strategy, measures and
// verifies each configuration it proposes on the tuner's device, commits
// the fastest verified one to the cache and returns its pipeline, with
// the configuration: the pipeline the search measured, or, where the
// answer came from elsewhere, one built for it. Configurations measured
// before are answered from the cache's tuning log: a search run again
// with a larger budget measures only what it lacks. A machine that has
// not searched the key takes the answer stored for it, in its file or the
// shared store, verified on this device first. The pipeline is the
// caller's: Release it when done (the Device's Close releases it
// otherwise). A search that fails returns none, and keeps none.
//
// Errors: an Op without a Space, or a malformed one, has code
// InvalidArgument; a Space none of whose configurations Valid accepts at
// size, NotFound; when no configuration computes correctly the code is
// FailedPrecondition; a context that ends stops the search (what it
// measured stays in the tuning log); a lost device matches ErrDeviceLost.
func (t *Tuner) Search(ctx context.Context, op *Op, opts SearchOptions, size ...int) (*Pipeline, Config, error) {
	o, err := t.operation(op, size)
	if err != nil {
		return nil, nil, err
	}
	if o.space == nil {
		return nil, nil, status.Newf(status.InvalidArgument, "vkbench: Op %q has no Space to search", o.name)
	}
	res, err := t.t.Search(ctx, o, kernels.SizeOf(size...), autotune.SearchOptions{Options: search.Options{Strategy: opts.Strategy, MaxEvals: opts.MaxEvals, TimeLimit: opts.TimeLimit, Seed: opts.Seed},
		KeepWinner: true})
	if err != nil {
		return nil, nil, err // the search kept no pipeline
	}
	e := res.Entry
	pts, ok := res.Points.Op.(*operation)
	if !ok || e.Fastest < 0 || e.Fastest >= len(pts.kerns) {
		if res.Pipeline != nil {
			_ = res.Pipeline.Release() // never used: nobody to tell
		}
		return nil, nil, status.Newf(status.Internal, "vkbench: Op %q: the search's answer names no configuration", o.name)
	}
	var cfg Config
	if i := slices.Index(res.Points.Index, e.Fastest); i >= 0 {
		cfg = Config(res.Points.Configs[i])
	}
	if res.Pipeline != nil {
		return &Pipeline{exe: res.Pipeline, v: pts.kerns[e.Fastest]}, cfg, nil
	}
	p, err := t.dev.build(pts.kerns[e.Fastest], pts.cands[e.Fastest])
	if err != nil {
		return nil, nil, err
	}
	return p, cfg, nil
}
