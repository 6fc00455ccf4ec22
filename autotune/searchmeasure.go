package autotune

import (
	"context"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// pointMeasurer measures the points of a space one at a time, on one
// problem prepared once: each is verified against the reference (a wrong
// one never wins), calibrated, and sampled in rounds until its interval is
// within the target, its budget (Options.Budget, per point) is spent or it
// has MaxSamples samples, as Measure samples a candidate.
type pointMeasurer struct {
	base measurement
	// last is when the GPU last ran a sample: a GPU idle for a while
	// (waiting for a compile) clocks down and is warmed up again.
	last time.Time
}

// searchIdle is how long the GPU may wait between points before the next
// is warmed up again, for a quarter of Options.Warmup.
const searchIdle = 100 * time.Millisecond

func newPointMeasurer(ctx context.Context, dev hal.Device, op kernels.Operation, shape Shape, opts Options) (*pointMeasurer, error) {
	opts.fill()
	if err := opts.check(); err != nil {
		return nil, err
	}
	pm := &pointMeasurer{base: *newMeasurement(dev, op, shape, opts)}
	if err := pm.base.setup(ctx); err != nil {
		pm.release()
		return nil, err
	}
	return pm, nil
}

func (pm *pointMeasurer) release() {
	m := pm.base
	m.cands = nil
	m.release()
}

// measure verifies and samples point i (candidate c of the operation),
// whose pipeline exe took build to make; exe stays the caller's. An error
// is returned only when it ends the search (device loss, cancellation);
// the point's own failures are in its Result.
func (pm *pointMeasurer) measure(ctx context.Context, i int, c kernels.Candidate, exe hal.Executable, build time.Duration) (Result, error) {
	m := pm.base
	m.p = onePoint(pm.base.p, i)
	m.reset, _ = m.p.(kernels.Resetter)
	m.opts.Warmup = -1
	switch {
	case pm.last.IsZero():
		m.opts.Warmup = pm.base.opts.Warmup
	case time.Since(pm.last) > searchIdle && pm.base.opts.Warmup > 0:
		m.opts.Warmup = pm.base.opts.Warmup / 4
	}
	st := &candState{res: Result{Name: c.Name}, exe: exe}
	m.cands = []*candState{st}
	err := m.verifyCandidate(ctx, 0, c, st, build)
	if err != nil {
		if fatal(ctx, m.dev, err) {
			return Result{}, err
		}
		st.fail(err)
	} else {
		st.alive = true
		if err := m.sample(ctx); err != nil {
			return Result{}, err
		}
		pm.last = time.Now()
	}
	r := m.entry().Results[0]
	r.Index = i
	return r, nil
}

// onePoint returns p as a problem of one candidate, candidate i of p, so
// that a measurement of one point can run on a problem of every point.
func onePoint(p kernels.Problem, i int) kernels.Problem {
	one := pointProblem{Problem: p, i: i}
	if r, ok := p.(kernels.Resetter); ok {
		return resettingPoint{one, r}
	}
	return one
}

type pointProblem struct {
	kernels.Problem
	i int
}

// Bytes and Flops are the point's own work, where the problem counts
// each candidate's apart (kernels.CandidateWorker).
func (p pointProblem) Bytes() float64 {
	if w, ok := p.Problem.(kernels.CandidateWorker); ok {
		b, _ := w.CandidateWork(p.i)
		return b
	}
	return p.Problem.Bytes()
}

func (p pointProblem) Flops() float64 {
	if w, ok := p.Problem.(kernels.CandidateWorker); ok {
		_, f := w.CandidateWork(p.i)
		return f
	}
	return p.Problem.Flops()
}

func (p pointProblem) index(cand int) (int, error) {
	if cand != 0 {
		return 0, status.Newf(status.InvalidArgument, "autotune: candidate %d of a problem of one", cand)
	}
	return p.i, nil
}

func (p pointProblem) Record(cb hal.CommandBuffer, exe hal.Executable, cand int) error {
	i, err := p.index(cand)
	if err != nil {
		return err
	}
	return p.Problem.Record(cb, exe, i)
}

func (p pointProblem) Verify(ctx context.Context, cand int) error {
	i, err := p.index(cand)
	if err != nil {
		return err
	}
	return p.Problem.Verify(ctx, i)
}

type resettingPoint struct {
	pointProblem
	r kernels.Resetter
}

func (p resettingPoint) RecordReset(cb hal.CommandBuffer, cand int) error {
	i, err := p.index(cand)
	if err != nil {
		return err
	}
	return p.r.RecordReset(cb, i)
}
