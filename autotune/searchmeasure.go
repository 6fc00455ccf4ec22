package autotune

import (
	"context"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
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

func newPointMeasurer(ctx context.Context, dev hal.Device, op kernels.Operation, size kernels.Size, opts Options) (*pointMeasurer, error) {
	opts.fill()
	if err := opts.check(); err != nil {
		return nil, err
	}
	pm := &pointMeasurer{base: *newMeasurement(dev, op, size, opts)}
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
func (pm *pointMeasurer) measure(ctx context.Context, i int, c kernels.Candidate, exe hal.Executable, build time.Duration) (results.Result, error) {
	m := pm.base
	m.opts.Warmup = -1
	switch {
	case pm.last.IsZero():
		m.opts.Warmup = pm.base.opts.Warmup
	case time.Since(pm.last) > searchIdle && pm.base.opts.Warmup > 0:
		m.opts.Warmup = pm.base.opts.Warmup / 4
	}
	// The point is the measurement's one candidate, at its own index in
	// the problem of every point.
	st := &candState{res: results.Result{Index: i, Name: c.Name}, exe: exe}
	m.cands = []*candState{st}
	err := m.verifyCandidate(ctx, c, st, build)
	if err != nil {
		if fatal(ctx, m.dev, err) {
			return results.Result{}, err
		}
		st.fail(err)
	} else {
		st.alive = true
		if err := m.sample(ctx); err != nil {
			return results.Result{}, err
		}
		pm.last = time.Now()
	}
	return m.entry().Results[0], nil
}
