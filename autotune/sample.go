package autotune

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// sample warms the GPU up, samples the surviving candidates, checks for
// drift, and measures their energy.
func (m *measurement) sample(ctx context.Context) error {
	rng := rand.New(rand.NewPCG(m.opts.Seed, 0x5eed+uint64(m.opts.round)))
	t0 := time.Now()
	if err := m.warmup(ctx); err != nil {
		return err
	}
	start := time.Now()
	m.debug("warmed up", "took", start.Sub(t0))
	defer func() { m.debug("sampled", "took", time.Since(start)) }()
	var mon *telemetry.Monitor
	if m.opts.Telemetry != nil {
		mon = telemetry.Watch(m.opts.Telemetry, telemetryInterval)
	}
	err := m.samplePasses(ctx, rng, !m.opts.NoDrop)
	if err == nil {
		err = m.recheck(ctx, rng)
	}
	m.attributeConditions(mon)
	if err != nil {
		return err
	}
	return m.energyPass(ctx)
}

// samplePasses takes one sample of each surviving candidate per pass, in
// a shuffled order, until decide says it is done. The first pass is
// warm-up.
func (m *measurement) samplePasses(ctx context.Context, rng *rand.Rand, drop bool) error {
	start := time.Now()
	for pass := -1; ; pass++ {
		order := m.survivors()
		if len(order) == 0 {
			return nil
		}
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, c := range order {
			if err := m.sampleOne(ctx, c, pass >= 0); err != nil {
				return err
			}
		}
		if pass+1 >= m.opts.MinSamples && m.decide(time.Since(start) > m.opts.Budget, drop) {
			return nil
		}
	}
}

// survivors are the candidates still sampled, in candidate order.
func (m *measurement) survivors() []*candState {
	return slices.DeleteFunc(slices.Clone(m.cands), func(c *candState) bool { return !c.alive })
}

// sampleOne takes one sample of candidate c, kept when keep. Only an error
// that ends the whole measurement is returned.
func (m *measurement) sampleOne(ctx context.Context, c *candState, keep bool) error {
	t, err := m.timed(ctx, c, c.batch)
	switch {
	case errors.Is(err, hal.ErrNoTick):
		// The sample is discarded and the runs batched twice as many; a
		// candidate the timer never sees fails.
		c.batch = min(c.batch*2, m.opts.MaxBatch)
		if c.noTick() > 3 {
			c.alive = false
			c.res.Outcome = results.Failed
			c.res.Error = "the GPU timer did not tick in 4 samples, even batched"
		}
		return nil
	case err != nil && fatal(ctx, m.dev, err):
		return err
	case err != nil:
		// A failed submission while sampling may be the device's passing
		// trouble rather than the kernel's (the kernel was verified): the
		// sample is discarded, and only a third failure ends the
		// candidate.
		c.failures++
		if c.failures >= 3 {
			c.alive = false
			c.fail(status.Annotatef(err, "sampling %s (3 failed submissions)", c.res.Name))
		}
		return nil
	}
	if keep {
		c.samples = append(c.samples, t)
		c.moments = append(c.moments, time.Now())
	}
	m.progress(c.res.Name, "sample", len(c.samples), m.opts.MaxSamples)
	return nil
}

// recheck catches drift: where a dropped candidate's median ends below
// the leader's, the device's speed changed under the measurement and the
// drop may have been wrong. Then the survivors and every such dropped
// candidate are measured again from scratch, none dropped, and flagged
// FlagRemeasured. What is still inconsistent after that is flagged
// FlagDrift by pickWinner.
func (m *measurement) recheck(ctx context.Context, rng *rand.Rand) error {
	leader, lead := m.leader()
	if leader < 0 {
		return nil
	}
	var again []*candState
	for _, c := range m.cands {
		if c.res.Outcome == results.Dropped && len(c.samples) > 0 && stats.Summarize(c.samples, c.batch).Median < lead.Median {
			again = append(again, c)
		}
	}
	if len(again) == 0 {
		return nil
	}
	var names []string
	for _, c := range append(again, m.survivors()...) {
		names = append(names, c.res.Name)
		c.alive = true
		c.samples, c.moments = nil, nil
		if c.res.Outcome == results.Dropped {
			c.res.Outcome, c.res.Error, c.res.Drop = "", "", nil
		}
		c.res.Flags = append(c.res.Flags, FlagRemeasured)
	}
	m.debug("drift: a dropped candidate ended faster than the leader; measuring again", "candidates", names)
	return m.samplePasses(ctx, rng, false)
}

// warmup runs the surviving candidates in turn until Warmup of GPU time
// has passed (or twice that of wall time), discarding the samples.
func (m *measurement) warmup(ctx context.Context) error {
	if m.opts.Warmup < 0 {
		return nil
	}
	var gpu float64
	start := time.Now()
	for gpu < m.opts.Warmup.Seconds() && time.Since(start) < 2*m.opts.Warmup {
		ran := false
		for _, c := range m.survivors() {
			t, err := m.timed(ctx, c, c.batch)
			if err != nil && fatal(ctx, m.dev, err) {
				return err
			}
			if err == nil {
				gpu += t * float64(c.batch)
				ran = true
			}
		}
		if !ran {
			return nil
		}
	}
	return nil
}

// leader returns the surviving candidate of lowest median so far, and its
// statistics; -1 when none has samples.
func (m *measurement) leader() (int, stats.Stats) {
	leader := -1
	var lead stats.Stats
	for i, c := range m.cands {
		if !c.alive || len(c.samples) == 0 {
			continue
		}
		if s := stats.Summarize(c.samples, c.batch); leader < 0 || s.Median < lead.Median {
			leader, lead = i, s
		}
	}
	return leader, lead
}

// dropMargin: a candidate whose interval's low end is above the leader's
// high end by more than this fraction is dropped early.
const dropMargin = 0.05

// decide drops clearly slower candidates (with drop) and reports whether
// sampling is done.
func (m *measurement) decide(budgetSpent, drop bool) bool {
	leader, lead := m.leader()
	if leader < 0 {
		return true
	}
	done := true
	for i, c := range m.cands {
		if !c.alive || len(c.samples) == 0 {
			continue
		}
		s := stats.Summarize(c.samples, c.batch)
		lo, _ := interval(s)
		_, leadHi := interval(lead)
		if drop && i != leader && lo > leadHi*(1+dropMargin) {
			c.alive = false
			c.res.Outcome = results.Dropped
			c.res.Drop = &results.Drop{Samples: len(c.samples), Median: s.Median, Leader: m.cands[leader].res.Name, LeaderMedian: lead.Median}
			c.res.Error = fmt.Sprintf("dropped after %d samples: median %.4gs, leader %s %.4gs", len(c.samples), s.Median, m.cands[leader].res.Name, lead.Median)
			continue
		}
		if s.HalfWidth() > m.opts.TargetHalfWidth && len(c.samples) < m.opts.MaxSamples {
			done = false
		}
	}
	if !done && budgetSpent {
		m.spent = true
		return true
	}
	return done
}
