package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/store"
)

// version is vkbench's version, recorded with every result: the main
// module's version as the build stamped it (a tag, or since Go 1.24 a
// pseudo-version naming the commit, with "+dirty" for uncommitted
// changes), else 0.1.0-dev.
var version = buildVersion()

func buildVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "0.1.0-dev"
}

// maxCount bounds --count: a thousand rounds of the shortest budget is
// already a quarter of an hour per operation.
const maxCount = 1000

// operations resolves names among the built-in operations and those of a
// manifest. With no names: the manifest's operations when there is one,
// else every built-in operation.
func operations(names []string, manifest []kernels.Operation) ([]kernels.Operation, error) {
	if len(names) == 0 {
		if len(manifest) > 0 {
			return manifest, nil
		}
		return catalogue.Builtin(), nil
	}
	var ops []kernels.Operation
	for _, n := range names {
		if i := slices.IndexFunc(manifest, func(op kernels.Operation) bool { return op.Name() == n }); i >= 0 {
			ops = append(ops, manifest[i])
			continue
		}
		op, err := catalogue.Lookup(n)
		if err != nil && len(manifest) > 0 {
			err = status.Annotatef(err, "nor in the manifest (%s)", strings.Join(opNames(manifest), ", "))
		}
		if err != nil {
			return nil, usageError{err}
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// operations resolves the operations named in args among the built-in
// ones and those of --manifest (see operations), and checks every --size
// against them (planSizes).
func (f *benchFlags) operations(cmd *cobra.Command, args []string) ([]kernels.Operation, sizePlan, error) {
	extra, err := f.loadManifest(f.manifest, f.compiles.options(cmd, f.quiet))
	if err != nil {
		return nil, nil, err
	}
	ops, err := operations(args, extra)
	if err != nil {
		return nil, nil, err
	}
	sizes, err := planSizes(f.sizes, ops)
	return ops, sizes, err
}

func newRunCmd() *cobra.Command {
	var f benchFlags
	var candidates string
	cmd := &cobra.Command{
		Use:   "run [OPERATION...]",
		Short: "Benchmark every candidate of the given operations (default: all built-in)",
		Long: `Benchmark every candidate kernel of the given operations (or those that
--candidates selects) on one device: each candidate is verified on seeded
random inputs (a built-in operation against its CPU reference; a manifest's
against its reference candidate, or the values its "expect" gives, or not at
all with "verify": "none", shown as not verified), then timed with GPU
timestamps in shuffled rounds until its 95% interval is within --precision,
--budget is spent or it has --max-samples samples (a result short of
--precision is flagged budget-spent-before-target or
max-samples-before-target). An operation that cannot run at its size at all
(its reference candidate refuses the size, say) is reported failed with the
reason, and the others run; the exit status is then 1. A device lost on the
way (a kernel past --hang-timeout) ends the run after its output, which keeps
what was measured before: the candidate that lost it failed, saying why, those
not measured yet not run, and its operation without a winner; the exit status
is then 3.
The fastest is marked. Candidates that compute a wrong result are reported
as wrong, with where they differ, and never win; those that fail to build or
run are reported as failed, each with the reason. The table counts, in a line
each, the candidates dropped early as slower and those the device cannot run
(with their reasons); -v lists them. An interval wider than --precision reads
"unsettled"; a winner whose interval overlaps the runner-up's says "tie". A
summary of the winners ends it: time, the rate that matters (GB/s, GFLOP/s, or
GOP/s for integer arithmetic), % of peak where vkbench peak measured one, and
how much slower the runner-up is. The peak is a measurement too: a rate past
it reads "at peak" where their 95% intervals overlap, "above peak" where the
rate's lies above the peak's (a stale peak, or miscounted work), never a
percentage over 100; the JSON keeps the figure.

Operations: ` + strings.Join(opNames(catalogue.Builtin()), ", ") + `.

Exit status: 0 success, 1 a candidate computed a wrong result or an operation
could not run at its size, 2 bad usage, 3 a device failure, 4 the output could
not be written.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := f.options()
			if err != nil {
				return err
			}
			return runBench(cmd, &f, opts, args, candidates, nil)
		},
	}
	f.register(cmd.Flags())
	f.registerRunTune(cmd.Flags())
	cmd.Flags().StringVar(&candidates, "candidates", "", "measure only the candidates whose name matches this regular expression, such as 'vec4|regblock-128x128'; operations with none are skipped")
	return cmd
}

func newTuneCmd() *cobra.Command {
	var f tuneFlags
	cmd := &cobra.Command{
		Use:         "tune [OPERATION...]",
		Short:       "Benchmark the given operations and commit the winners to the tune cache",
		Annotations: map[string]string{keptOnInterrupt: ", winners already in the tune cache kept"},
		Long: `As run, and commit each operation's winner to the tune cache, in the table of
this device's hardware (a manifest's operations in a table of their own, named
by the manifest's "tuner", else its file's name). A key already in the cache
is answered from it without measuring, unless --force; it says so on stderr.
Processes that share the cache file (or a --store) and ask for one key at once
tune it once: one measures it while the others wait for its answer, saying so
on stderr. A --store that refuses this machine (its password, its database,
rediss:// to a plain-text server or the converse) is bad usage, before any
work; one out of reach, now or later, is one warning, and the file serves alone.
Shapes are bucketed by --level, and the bucket's representative shape is
measured, which stderr names when it is not the size asked; where a candidate
applies at the size asked but not at that shape (a manifest candidate's
assert), the size itself is measured, under a key of its own. --compile-only
builds the pipeline of every candidate the device can run, at the size asked
(--size, else the default) and at the shape tune measures for it at --level,
with those of a manifest candidate's later dispatches and passes there, and
keeps the driver's pipeline cache, so that later runs at those sizes pay no
compile time; it measures nothing, and fails where it cannot keep that cache
(every other command warns: it only spares compile time).

--all-devices tunes on every device at once. Devices of the same hardware
share one table and split the work: each key is tuned once, by whichever
device takes it first. A device lost on the way commits nothing of the tune it
was running, and its key goes to another device of the same hardware. With
--all-devices, --device takes a comma-separated list (0,2,3) to tune on those
devices only. Every job's outcome is written (-o's file too) whatever became of
the others; a job that failed, saying why.

Exit status: as run's.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.search.check(cmd); err != nil {
				return err
			}
			// Every mode refuses a bad flag, --compile-only too, which
			// measures nothing.
			opts, err := f.options()
			if err != nil {
				return err
			}
			if opts.Level, err = autotune.ParseLevel(f.level); err != nil {
				return usageError{err}
			}
			if f.compileOnly {
				if err := checkFormat(f.format, runFormats...); err != nil {
					return err
				}
				return compileAll(cmd, &f, opts.Level, args)
			}
			if f.allDevices {
				return tuneAllDevices(cmd, &f, opts, args)
			}
			return runBench(cmd, &f.benchFlags, opts, args, "", &f)
		},
	}
	f.register(cmd)
	return cmd
}

// selectCandidates keeps, of each operation, the candidates whose name
// matches expr (all of them when expr is empty). An operation with none is
// skipped, and says so on w; when no operation has one, it is a usage
// error.
func selectCandidates(w io.Writer, ops []kernels.Operation, expr string) ([]kernels.Operation, error) {
	if expr == "" {
		return ops, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, usageError{fmt.Errorf("--candidates %q: %v", expr, err)}
	}
	var skipped []string
	var out []kernels.Operation
	for _, op := range ops {
		sub, err := kernels.Subset(op, func(c kernels.Candidate) bool { return re.MatchString(c.Name) })
		if status.CodeOf(err) == status.NotFound {
			skipped = append(skipped, op.Name())
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, sub)
	}
	if len(out) == 0 {
		return nil, usageError{fmt.Errorf("--candidates %q matches no candidate of %s", expr, strings.Join(skipped, ", "))}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "--candidates %q matches no candidate of %s: skipped\n", expr, strings.Join(skipped, ", "))
	}
	return out, nil
}

func opNames(ops []kernels.Operation) []string {
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Name()
	}
	return names
}

// runFormats are run's and tune's formats.
var runFormats = []string{"table", "json", "csv", "gobench"}

// runBench measures the operations args names (of them, the candidates
// candidates selects) with opts and writes the results; with tune's flags,
// it tunes (commits the winners).
func runBench(cmd *cobra.Command, f *benchFlags, opts autotune.Options, args []string, candidates string, tune *tuneFlags) error {
	if err := checkFormat(f.format, runFormats...); err != nil {
		return err
	}
	// Sizes are checked against the operations named, before
	// --candidates skips any.
	ops, sizes, err := f.operations(cmd, args)
	if err != nil {
		return err
	}
	tables := manifestTables(ops)
	if ops, err = selectCandidates(cmd.ErrOrStderr(), ops, candidates); err != nil {
		return err
	}
	if tune != nil {
		if ops, err = tune.sharded(cmd, ops); err != nil {
			return err
		}
	}
	// run only reads the tune cache (peaks, the driver's pipeline cache),
	// so a read-only one serves it; tune stores its winners.
	s, err := f.open(cmd, tune != nil, &opts)
	if err != nil {
		return err
	}
	info := s.dev.Info()
	p, err := loadPeak(cmd, s.cache, info.Hardware())
	if err != nil {
		return s.close(cmd, err)
	}
	if p != nil {
		opts.Peak = &p.Peak
	}
	file := &results.File{Schema: results.Schema, Version: version, Time: time.Now().UTC(), Mode: string(opts.Mode), Seed: opts.Seed, Rounds: opts.Rounds,
		Objective: string(opts.Objective), Conditions: s.conditions,
		Device: resultsDevice(info)}
	bar := startProgress(cmd, f.quiet, &opts)
	runErr := measureAll(cmd, s.dev, s.cache, opts, ops, tables, sizes, file, tune)
	bar.finish()
	// Results measured before a failure are shown (a file given with -o
	// keeps what it had); an interrupted run shows nothing. An operation
	// that could not run at its size is a result, as a wrong candidate
	// is: the others' are written, -o's file too, and the status is 1.
	// So is what was measured before the device was lost, minutes of
	// work: it is written, -o's file too, and the status is still 3.
	var werr error
	if cmd.Context().Err() == nil && (runErr == nil || len(file.Benchmarks) > 0) {
		werr = writeResults(s.out, f.format, file, tableOptions{precision: opts.TargetHalfWidth, verbose: verbose(cmd), tableWidth: terminalWidth(s.out)})
	}
	if runErr != nil && cmd.Context().Err() == nil && deviceLost(s.dev, runErr) {
		if errors.Is(runErr, status.DeadlineExceeded) {
			runErr = fmt.Errorf("%w; if the kernel is only slow, give it longer with --hang-timeout", runErr)
		}
		return status.Join(runErr, s.close(cmd, werr))
	}
	failedOps, _ := errors.AsType[errFailed](runErr)
	if failedOps != "" {
		runErr = nil
	}
	if err := s.close(cmd, status.Join(runErr, werr)); err != nil {
		return err
	}
	if failedOps != "" {
		return failedOps
	}
	return wrongResult(file.Benchmarks)
}

// wrongResult is the command's error where a candidate of bs computed a
// wrong result (the first), else nil.
func wrongResult(bs []results.Benchmark) error {
	for _, b := range bs {
		if b.Outcome == results.Wrong {
			return errFailed(fmt.Sprintf("candidate %s computed a wrong result", b.Name))
		}
	}
	return nil
}

// measureAll measures (with tune's flags, tunes) every operation of ops on dev,
// adding the benchmarks to file; a tune commits to the table tables names
// for the operation (a manifest's), else to opts.Tuner's. It stops at the first error that is not
// one operation's own (no candidate computed correctly); a tune whose
// answer the cache file would not take has failed its purpose, and is such
// an error, of the cache path (exit status 2).
func measureAll(cmd *cobra.Command, dev hal.Device, cache *store.Store, opts autotune.Options, ops []kernels.Operation, tables map[string]string, sizes sizePlan, file *results.File, tune *tuneFlags) error {
	ctx := cmd.Context()
	commit := tune != nil
	if !commit && opts.Rounds > 1 {
		return measureInterleaved(cmd, dev, opts, ops, sizes, file)
	}
	tuners := map[string]*autotune.Tuner{} // by table, for a tune
	tunerOf := func(op kernels.Operation) *autotune.Tuner {
		table := tables[op.Name()]
		if tuners[table] == nil {
			tuners[table] = autotune.NewTuner(dev, cache, inTable(opts, table))
		}
		return tuners[table]
	}
	// What will be measured after the first is built ahead, behind the
	// measurements: every operation run measures, those a tune measures
	// (not answered by the cache, nor searched). The first builds its own.
	var ahead []autotune.Job
	for _, op := range ops {
		size := sizes.sizeFor(op, dev.Info())
		if commit && (tune.search.on() && kernels.SpaceOf(op) != nil || !tune.force && stored(ctx, tunerOf(op), op, size)) {
			continue
		}
		ahead = append(ahead, autotune.Job{Op: op, Size: size})
	}
	if len(ahead) > 1 {
		defer autotune.Prebuild(ctx, dev, opts, ahead[1:])()
	}
	var failed opFailures
	for i, op := range ops {
		size := sizes.sizeFor(op, dev.Info())
		var e *autotune.Entry
		var err error
		if commit {
			op, e, err = tune.tuneOne(cmd, tunerOf(op), op, size)
		} else {
			e, err = autotune.Measure(ctx, dev, op, size, opts)
		}
		if err != nil && deviceLost(dev, err) {
			// What was measured before the loss is kept (e); with
			// nothing, every candidate failed with err.
			file.Benchmarks = append(file.Benchmarks, benchmarksOf(op, cmp.Or(e, failedEntry(op, size, err.Error())), opts.Peak)...)
			addLost(file, op.Name(), ops[i+1:], sizes, dev.Info())
			return err
		}
		if e != nil {
			file.Benchmarks = append(file.Benchmarks, benchmarksOf(op, e, opts.Peak)...)
		}
		if notStored, ok := errors.AsType[*autotune.NotStoredError](err); ok {
			advice := "fix the cache file or point --cache at another"
			if status.CodeOf(notStored.Err) == status.Unavailable {
				advice = "another process holds the tune cache's lock: let it finish, or point --cache at another file"
			}
			return usageError{status.Annotatef(err, "tune failed: its winners must be stored; %s", advice)}
		}
		if err != nil && e == nil && operationsOwn(ctx, dev, err) {
			failed.add(file, op, size, err)
			continue
		}
		if err != nil && (e == nil || status.CodeOf(err) != status.FailedPrecondition) {
			return err
		}
		failed.noneRan(op, size, e)
	}
	return failed.err(len(ops))
}

// deviceLost reports whether err, which ended a measurement, is the loss
// of dev, a device or its tuner (a kernel that ran past the hang timeout
// among its causes).
func deviceLost(dev interface{ Err() error }, err error) bool {
	return errors.Is(err, hal.ErrDeviceLost) || errors.Is(dev.Err(), hal.ErrDeviceLost)
}

// addLost adds to file, not run (results.NotRun), every candidate of
// rest, the operations that could not run after the device was lost
// measuring the operation lost ("" where it was lost between operations).
func addLost(file *results.File, lost string, rest []kernels.Operation, sizes sizePlan, info hal.DeviceInfo) {
	for _, op := range rest {
		e := failedEntry(op, sizes.sizeFor(op, info), results.LostBefore(lost))
		for i := range e.Results {
			e.Results[i].Outcome = results.NotRun
		}
		file.Benchmarks = append(file.Benchmarks, benchmarksOf(op, e, nil)...)
	}
}

// failedEntry is the entry of op at size where every candidate failed,
// for the reason why, none measured.
func failedEntry(op kernels.Operation, size kernels.Size, why string) *autotune.Entry {
	entry := &autotune.Entry{Size: size, Fastest: -1}
	for i, c := range op.Candidates() {
		entry.Results = append(entry.Results, results.Result{Index: i, Name: c.Name, Measurement: results.Measurement{Outcome: results.Failed, Error: why}})
	}
	return entry
}

// stored reports whether tuner's store answers op at size.
func stored(ctx context.Context, tuner *autotune.Tuner, op kernels.Operation, size kernels.Size) bool {
	e, err := tuner.Stored(ctx, op, size)
	return e != nil && err == nil
}

// tuneOne tunes op at size with tuner, searching its space where the
// flags ask for a search and it has one, and says on stderr where an
// answer came from the store or was measured at another shape. It
// returns the operation the entry's results are of.
func (t *tuneFlags) tuneOne(cmd *cobra.Command, tuner *autotune.Tuner, op kernels.Operation, size kernels.Size) (kernels.Operation, *autotune.Entry, error) {
	if t.search.on() && kernels.SpaceOf(op) != nil {
		return t.search.tune(cmd, &t.benchFlags, tuner, op, size, t.force)
	}
	e, err := tuner.Tune(cmd.Context(), op, size, t.force)
	if err == nil && e != nil && e.From != "" {
		_, _ = fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s; --force measures again\n", e.Key, answeredFrom(tuner, e))
	}
	if e != nil && e.Size != (kernels.SizeOf()) && e.Size != size {
		_, _ = fmt.Fprintf(cmd.ErrOrStderr(), "%s: measured at %s, the shape that stands for %s's bucket at --level %s (--level full measures every size itself)\n", e.Key, e.Size, size, t.level)
	}
	return op, e, err
}

// answeredFrom says which tier of tuner's store answered e, where it is
// (the file's path, or the shared store's URL without its password), and
// when e was measured.
func answeredFrom(tuner *autotune.Tuner, e *autotune.Entry) string {
	when := e.Time.Local().Format("2006-01-02 15:04:05")
	if e.From == autotune.FromShared {
		return fmt.Sprintf("answered from the shared store %s (tuned %s, verified on this device)", tuner.Store().Shared().Path(), when)
	}
	return fmt.Sprintf("answered from the local tune cache %s (tuned %s)", tuner.Store().Path(), when)
}

// inTable returns opts committing to the tune cache table named table (a
// manifest's), or opts as they are for "".
func inTable(opts autotune.Options, table string) autotune.Options {
	if table != "" {
		opts.Tuner = table
	}
	return opts
}

// operationsOwn reports whether err, which stopped an operation before any
// candidate was measured, is that operation's own at its size (a reference
// candidate whose assert refuses the size, a buffer too large for the
// device, a dispatch of too many workgroups) rather than the device's or
// the user's: the other operations can still run.
func operationsOwn(ctx context.Context, dev hal.Device, err error) bool {
	own := []status.Code{status.FailedPrecondition, status.InvalidArgument, status.OutOfRange, status.Unimplemented, status.ResourceExhausted}
	return ctx.Err() == nil && dev.Err() == nil && !errors.Is(err, hal.ErrDeviceLost) && slices.Contains(own, status.CodeOf(err))
}

// measureInterleaved measures opts.Rounds rounds of every operation, a
// round of each in a shuffled order, then the next round: each
// operation's rounds are spread over the whole run, so that what changes
// on the device during it (clocks, heat, other work) shows in the
// variation between them, where compare looks for it, rather than in
// the difference between one operation's rounds and the next's.
func measureInterleaved(cmd *cobra.Command, dev hal.Device, opts autotune.Options, ops []kernels.Operation, sizes sizePlan, file *results.File) error {
	rounds := make([][]*autotune.Entry, len(ops))
	failed := make([]error, len(ops))
	rng := rand.New(rand.NewPCG(opts.Seed, 0x0de5))
	probe, err := newProbe()
	if err != nil {
		return err
	}
	lost := -1 // the operation being measured when the device was lost
	var lostErr error
rounds:
	for r := range opts.Rounds {
		// The probe takes its turn among the operations (index len(ops)),
		// at a place of the round as random as theirs.
		for _, i := range rng.Perm(len(ops) + 1) {
			var err error
			switch {
			case i == len(ops):
				err = probe.measure(cmd.Context(), dev, opts, r)
			case failed[i] == nil:
				var e *autotune.Entry
				e, err = autotune.MeasureRound(cmd.Context(), dev, ops[i], sizes.sizeFor(ops[i], dev.Info()), opts, r)
				if err != nil && operationsOwn(cmd.Context(), dev, err) {
					failed[i], err = err, nil
				} else if e != nil { // with a loss, what was measured before it
					rounds[i] = append(rounds[i], e)
				}
			}
			if err != nil && cmd.Context().Err() == nil && deviceLost(dev, err) {
				// The rounds measured before are kept, each operation's
				// its own number of them.
				lost, lostErr = i, err
				break rounds
			}
			if err != nil {
				return err
			}
		}
	}
	if len(probe.rounds) > 0 {
		file.Probe = &results.Probe{Name: probe.name, RoundMedians: probe.rounds}
	}
	var opsFailed opFailures
	var notRun []kernels.Operation
	for i, op := range ops {
		size := sizes.sizeFor(op, dev.Info())
		if failed[i] != nil {
			opsFailed.add(file, op, size, failed[i])
			continue
		}
		if len(rounds[i]) == 0 && i == lost {
			rounds[i] = append(rounds[i], failedEntry(op, size, lostErr.Error()))
		}
		if len(rounds[i]) == 0 {
			notRun = append(notRun, op)
			continue
		}
		e := autotune.MergeRounds(op, rounds[i], opts)
		file.Benchmarks = append(file.Benchmarks, benchmarksOf(op, e, opts.Peak)...)
		opsFailed.noneRan(op, size, e)
	}
	if lostErr != nil {
		var op string // "" where the probe was measured
		if lost < len(ops) {
			op = ops[lost].Name()
		}
		addLost(file, op, notRun, sizes, dev.Info())
		return lostErr
	}
	return opsFailed.err(len(ops))
}

// resultsDevice is the device info describes, as results files and ab's
// report name it.
func resultsDevice(info hal.DeviceInfo) results.Device {
	return results.Device{Index: info.Index, Name: info.Name, Hardware: info.Hardware(), UUID: fmt.Sprintf("%x", info.DeviceUUID), Driver: info.DriverName + " " + info.DriverVersionString()}
}

// benchmarksOf turns a tune's entry into result-file benchmarks.
func benchmarksOf(op kernels.Operation, e *autotune.Entry, peak *autotune.Peak) []results.Benchmark {
	cands := op.Candidates()
	var out []results.Benchmark
	for _, r := range e.Results {
		b := results.Benchmark{
			Name:        fmt.Sprintf("%s/%s/%s/%s", op.Name(), op.DType(), e.Size, r.Name),
			Op:          op.Name(),
			DType:       op.DType().String(),
			Shape:       e.Size.String(),
			Candidate:   r.Name,
			Winner:      r.Index == e.Fastest,
			Measurement: r.Measurement,
			PercentPeak: report.PercentOfPeak(&r.Measurement, op, peak),
		}
		if e.Tie && b.Winner {
			b.Tie = e.TieRule
		}
		b.GBps, b.GFLOPs = r.Rates()
		if r.Stats != nil {
			// A file keeps each round's samples in its rounds; one round
			// measured alone is its own only round.
			st := *r.Stats
			if len(b.Rounds) == 0 {
				b.Rounds = []stats.Stats{st}
			}
			st.Samples = nil
			b.Stats = &st
		}
		if r.Index < len(cands) {
			b.SPIRVHash = fmt.Sprintf("%x", sha256.Sum256(cands[r.Index].SPIRV))
		}
		out = append(out, b)
	}
	return out
}

// compileAll builds every candidate's pipeline at the sizes tune would
// measure at level and keeps the driver's pipeline cache, which is its
// work: one it cannot keep is its error.
func compileAll(cmd *cobra.Command, f *tuneFlags, level autotune.Level, args []string) error {
	ops, plan, err := f.operations(cmd, args)
	if err != nil {
		return err
	}
	// The pipeline cache is what it is for: a file it cannot keep it in
	// is refused before any work, as tune's.
	cache, err := f.cache.openFor(cmd, true)
	if err != nil {
		return err
	}
	dev, release, err := f.dev.open(cmd, cache)
	if err != nil {
		return err
	}
	// At the size asked and the shape tune measures for it at --level.
	sizes := make([][]kernels.Size, len(ops))
	for i, op := range ops {
		size := plan.sizeFor(op, dev.Info())
		sizes[i] = []kernels.Size{size, level.Bucket(size)}
	}
	n, err := autotune.Compile(cmd.Context(), dev, ops, sizes)
	if err == nil {
		err = keepPipelineCache(cmd.Context(), cmd.ErrOrStderr(), dev, cache, true)
	}
	if err := status.Join(err, release()); err != nil {
		return err
	}
	_, err = fmt.Fprintf(cmd.ErrOrStderr(), "compiled %d pipelines\n", n)
	return err
}
