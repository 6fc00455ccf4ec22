package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
)

// opFailures are the operations that could not be measured at their
// size, each "name at size: reason", and how many others were measured
// (with a winner): the command exits with status 1 after the other
// operations ran.
type opFailures struct {
	reasons  []string
	measured int
}

// add reports op as failed at size, for the reason err: every candidate
// of it failed, in file, and op among f.
func (f *opFailures) add(file *results.File, op kernels.Operation, size kernels.Size, err error) {
	file.Benchmarks = append(file.Benchmarks, benchmarksOf(op, failedEntry(op, size, err.Error()), nil)...)
	f.failed(op, size, err)
}

// failed reports op as failed at size, for the reason err, among f.
func (f *opFailures) failed(op kernels.Operation, size kernels.Size, err error) {
	f.reasons = append(f.reasons, fmt.Sprintf("%s at %s: %v", op.Name(), size, err))
}

// ran counts e's operation as measured where it has a winner.
func (f *opFailures) ran(e *autotune.Entry) {
	if e != nil && e.Fastest >= 0 {
		f.measured++
	}
}

// noneRan adds op when e has no winner and a candidate failed when it ran
// (with the first one's error): every candidate that could run here
// failed, and the operation was not measured. Candidates the device
// cannot run are no failure of the run. An e with a winner is counted as
// measured.
func (f *opFailures) noneRan(op kernels.Operation, size kernels.Size, e *autotune.Entry) {
	if f.ran(e); e == nil || e.Fastest >= 0 {
		return
	}
	if i := slices.IndexFunc(e.Results, func(r results.Result) bool { return r.Outcome == results.Failed }); i >= 0 {
		f.reasons = append(f.reasons, fmt.Sprintf("%s at %s: no candidate ran; %s: %s", op.Name(), size, e.Results[i].Name, e.Results[i].Error))
	}
}

// err is f as the command's error, of ops operations, or nil where none
// failed. It says that the other operations ran only where they were
// measured, and how many were where some were not (the device could not
// run them, or a candidate computed a wrong result).
func (f opFailures) err(ops int) error {
	if len(f.reasons) == 0 {
		return nil
	}
	var others string
	switch n := ops - len(f.reasons); {
	case n <= 0:
	case f.measured == 0:
		others = " (no other operation was measured)"
	case f.measured >= n:
		others = " (the other operations ran)"
	default:
		others = fmt.Sprintf(" (%d of the other %d operations %s measured)", f.measured, n, pick(f.measured, "was", "were"))
	}
	return errFailed(fmt.Sprintf("could not measure %s%s", strings.Join(f.reasons, "; "), others))
}
