package main

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/status"
)

// abOp is one paired operation as ab measures it, round by round.
type abOp struct {
	pair    abPair
	size    kernels.Size
	rounds  []*autotune.Entry
	merged  *autotune.Entry // the rounds so far, merged
	decided bool
	spent   time.Duration
	// failure is why the operation could not run (operationsOwn), said
	// once for both versions (ownWords); its pairs are not measured.
	failure string
}

// abGate measures the paired operations in rounds until each is decided:
// at least minRounds, and none started once maxTime has passed since the
// first (0: exactly minRounds).
type abGate struct {
	dev       hal.Device
	opts      autotune.Options
	minRounds int
	maxTime   time.Duration
	threshold float64
	ops       []*abOp
	spent     time.Duration
	// failed are the operations that could not run at their size (as
	// run's): their pairs are reported not measured, the others measured.
	failed opFailures
}

// run measures round after round, each undecided operation once a round,
// and stops when all are decided or the time is up. An operation that
// cannot run at its size (operationsOwn) is failed and decided; any other
// error that is not about one candidate (a device lost, the context
// cancelled) ends it.
func (g *abGate) run(ctx context.Context) error {
	start := time.Now()
	defer func() { g.spent = time.Since(start) }()
	for round := 0; ; round++ {
		if round >= g.minRounds && time.Since(start) >= g.maxTime {
			return nil
		}
		pending := 0
		for _, op := range g.ops {
			if op.decided {
				continue
			}
			pending++
			t := time.Now()
			e, err := autotune.MeasureRound(ctx, g.dev, op.pair.op, op.size, g.opts, round)
			op.spent += time.Since(t)
			if err != nil && e == nil && operationsOwn(ctx, g.dev, err) {
				op.failure, op.decided = ownWords(err), true
				g.failed.failed(op.pair.op, op.size, errors.New(op.failure))
				continue
			}
			if err != nil {
				return err
			}
			op.rounds = append(op.rounds, e)
			op.merged = autotune.MergeRounds(op.pair.op, op.rounds, g.opts)
			op.decided = round+1 >= g.minRounds && g.decided(op)
		}
		if pending == 0 {
			return nil
		}
	}
}

// decided reports whether every pair of op is decided by its rounds so
// far (results.Verdict.Decided), judged as the report will judge them.
func (g *abGate) decided(op *abOp) bool {
	scratch := results.ABReport{Threshold: g.threshold}
	addPair(&scratch, op)
	return !slices.ContainsFunc(scratch.Rows, func(row results.ABRow) bool { return !row.Verdict.Decided() })
}

// report adds every operation's pairs, as measured, to rep.
func (g *abGate) report(rep *results.ABReport) {
	for _, op := range g.ops {
		if op.merged == nil && op.failure == "" {
			continue
		}
		addPair(rep, op)
		rep.Rounds = max(rep.Rounds, len(op.rounds))
	}
	rep.Seconds = g.spent.Seconds()
	rep.Finish()
}

// ownWords is err as its code and what it says itself, without the notes
// added on its way up: an operation that cannot run concerns both
// versions, where the note of the pair's side that was being prepared
// first ("preparing old") would say it of one.
func ownWords(err error) string {
	var st *status.Status
	if !errors.As(err, &st) || st.Message() == "" {
		return err.Error()
	}
	said := st.Code().String() + ": " + st.Message()
	if cause := st.Unwrap(); cause != nil {
		said += ": " + strings.TrimPrefix(cause.Error(), st.Code().String()+": ")
	}
	return said
}
