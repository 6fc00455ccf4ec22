package main

import (
	"context"
	"fmt"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// The probe is a fixed built-in kernel that run --count measures in every
// round, among the operations, so that compare can tell the kernels'
// change from the machine's: a device (or, for lavapipe, a CPU) that ran
// slower during one of the two runs slows the probe too, and compare
// judges each benchmark's rounds relative to the probe's in the same
// rounds. A 4 MiB copy: short, memory-bound, the same on every device.
const (
	probeOp        = "copy"
	probeCandidate = "vec4-wg256"
	probeElems     = 1 << 20
	// probeBudget bounds the probe's share of a round.
	probeBudget = 300 * time.Millisecond
)

// probe measures the probe kernel round by round.
type probe struct {
	op     kernels.Operation
	name   string
	rounds []float64
}

func newProbe() (*probe, error) {
	op, err := catalogue.Lookup(probeOp)
	if err != nil {
		return nil, err
	}
	op, err = kernels.Subset(op, func(c kernels.Candidate) bool { return c.Name == probeCandidate })
	if err != nil {
		return nil, err
	}
	return &probe{op: op, name: fmt.Sprintf("%s/%s/%d/%s", probeOp, op.DType(), probeElems, probeCandidate)}, nil
}

// measure measures round r of the probe, as the operations' rounds are
// measured, within its own shorter budget.
func (p *probe) measure(ctx context.Context, dev hal.Device, opts autotune.Options, r int) error {
	opts.Budget = min(opts.Budget, probeBudget)
	opts.EnergyWindow = -1
	opts.Progress = nil
	e, err := autotune.MeasureRound(ctx, dev, p.op, kernels.SizeOf(probeElems), opts, r)
	if err != nil {
		return fmt.Errorf("measuring the probe %s: %w", p.name, err)
	}
	if len(e.Results) != 1 {
		return fmt.Errorf("measuring the probe %s: %d results, want 1", p.name, len(e.Results))
	}
	if e.Results[0].Stats == nil {
		return fmt.Errorf("measuring the probe %s: no samples (%s: %s)", p.name, e.Results[0].Outcome, e.Results[0].Error)
	}
	p.rounds = append(p.rounds, e.Results[0].Stats.Median)
	return nil
}
