package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
)

// ab's defaults: --count, the fewest rounds (as many as a 95% bound
// needs: results.MinSequentialRounds); --max-time, after which no round
// starts (rounds of lavapipe on a loaded 2-core runner take about a
// second, and a 10% slowdown there needs 20 to 40 of them); --budget, the
// sampling time of a round (rounds, not samples, are what the bound counts,
// so many short rounds decide sooner than a few long ones).
const (
	abCount   = results.MinSequentialRounds
	abMaxTime = 60 * time.Second
	abBudget  = 500 * time.Millisecond
)

// abLimits are ab's own flags.
type abLimits struct {
	threshold float64 // in percent
	maxTime   time.Duration
	onUnclear string
}

func newABCmd() *cobra.Command {
	var f benchFlags
	var lim abLimits
	cmd := &cobra.Command{
		Use:   "ab OLD NEW [OPERATION...]",
		Short: "Measure two versions of kernels side by side and fail when the new one is slower",
		Long: `Measure the kernels of two manifests side by side, in one process: OLD and NEW
are kernel manifests (see docs/manifest.md) whose operations share
names, such as a kernel before and after a change. Every candidate present in
both versions of an operation (or of the OPERATIONs named) is measured on the
same device and the same inputs, OLD and NEW sampled alternately in a shuffled
order, so that whatever drifts (clocks, heat, other work on the device) hits
both alike, in independent rounds, each prepared, verified and warmed up
anew. NEW's results are verified against what OLD computed on the same
inputs, as well as by its own manifest.

For each pair it prints the ratio NEW/OLD (above 1 is slower), the median of
the rounds' ratios, with the bounds of its 95% confidence sequence, and a
verdict: slower when the lower bound lies above 1 + --threshold, faster when
the upper lies below 1 - --threshold, same when both lie within, not slower
when the upper lies below 1 + --threshold, unclear otherwise.

Rounds are added until every pair is decided (any verdict but unclear): at
least --count, and none started after --max-time. A confidence sequence
(Howard & Ramdas 2022, for the median; see results.MedianBounds) holds at
every round however many are looked at, so stopping when it decides keeps
its 95%: a quiet machine stops after a few rounds, a noisy one measures more
instead of guessing. A pair still unclear when --max-time is spent does
what --on-unclear says: pass, warn (the default: one warning on stderr,
and on GitHub Actions one annotation, naming all such pairs) or fail
(each pair's reason, and an ::error annotation each). Every output says how large a
slowdown could not be ruled out; JUnit marks the pair skipped.

This is the recommended gate for CI: two separate runs compared afterwards
(vkbench compare) see every change of the machine between them; two
versions interleaved in one run do not.

Exit status: 0 when no pair is slower (an unclear pair with --on-unclear
pass or warn), 1 when one is, or when a NEW candidate computed a wrong result
or failed where OLD ran, or a pair is unclear with --on-unclear fail, or an
operation cannot run on the device or at its size (its pairs reported not
measured, saying why, the others measured); 2 bad
usage or input (unreadable manifests, no operation or candidate in both), 3
a device failure, 4 the output could not be written.`,
		Example: `  vkbench ab base/kernels.json kernels.json
  vkbench ab base/kernels.json kernels.json saxpy --threshold 3 --format junit -o ab.xml
  vkbench ab base/kernels.json kernels.json --max-time 5m --on-unclear fail`,
		Args: argsWhere(func(n int) bool { return n >= 2 }, "ab takes two manifests, OLD and NEW, then operations (see vkbench ab --help)"),
		RunE: func(cmd *cobra.Command, args []string) error { return runAB(cmd, &f, lim, args) },
	}
	f.register(cmd.Flags())
	cmd.Flags().IntVar(&f.count, "count", abCount, fmt.Sprintf("the fewest rounds, each prepared, verified, warmed up and sampled anew within its own --budget; more are added until every pair is decided or --max-time is spent (a 95%% bound needs %d)", results.MinSequentialRounds))
	budget := cmd.Flags().Lookup("budget")
	f.budget, budget.DefValue = abBudget, abBudget.String()
	budget.Usage = "most time spent sampling one operation in one round"
	cmd.Flags().Lookup("format").Usage = "output: table, json or junit"
	floatVar(cmd.Flags(), &lim.threshold, "threshold", 5, "the smallest slowdown that fails, in percent: NEW is slower when the 95% bounds of NEW/OLD lie above 1 + threshold/100")
	cmd.Flags().DurationVar(&lim.maxTime, "max-time", abMaxTime, "start no round after this long (the --count rounds are measured whatever the time); 0 measures exactly --count rounds")
	onUnclearFlag(cmd.Flags(), &lim.onUnclear, "a pair still unclear at --max-time")
	return cmd
}

// abPair is one operation of both manifests, paired.
type abPair struct {
	op               kernels.Operation // manifest.Pair's
	names            []string          // the candidates in both
	onlyOld, onlyNew []string
}

func runAB(cmd *cobra.Command, f *benchFlags, lim abLimits, args []string) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	if err := checkGate(lim.threshold, lim.onUnclear, f.format); err != nil {
		return err
	}
	if lim.maxTime < 0 {
		return usageError{fmt.Errorf("--max-time %v: want 0 or more", lim.maxTime)}
	}
	pairs, err := pairManifests(f, args[0], args[1], args[2:])
	if err != nil {
		return err
	}
	var ops []kernels.Operation
	for _, p := range pairs {
		ops = append(ops, p.op)
	}
	sizes, err := planSizes(f.sizes, ops)
	if err != nil {
		return err
	}
	// ab, as run, only reads the tune cache (the driver's pipeline cache).
	sess, err := f.open(cmd, false, &opts, input{args[0], "ab's OLD manifest"}, input{args[1], "ab's NEW manifest"})
	if err != nil {
		return err
	}
	opts.NoDrop, opts.SameBatch = true, true
	opts.EnergyWindow = -1 // ab compares times
	bar := startProgress(cmd, f.quiet, &opts)
	info := sess.dev.Info()
	rep := &results.ABReport{Schema: results.ABSchema, Version: version, Time: time.Now().UTC(), Old: args[0], New: args[1],
		Device: resultsDevice(info), Mode: string(opts.Mode), Seed: opts.Seed, MinRounds: f.count, Conditions: sess.conditions,
		MaxTime: lim.maxTime.Seconds(), OnUnclear: lim.onUnclear, Threshold: lim.threshold / 100, Confidence: stats.Confidence}
	gate := &abGate{dev: sess.dev, opts: opts, minRounds: f.count, maxTime: lim.maxTime, threshold: lim.threshold / 100}
	for _, p := range pairs {
		gate.ops = append(gate.ops, &abOp{pair: p, size: sizes.sizeFor(p.op, info)})
	}
	err = gate.run(cmd.Context())
	bar.finish()
	if err == nil {
		gate.report(rep)
		err = writeAB(sess.out, f.format, rep, terminalWidth(sess.out))
	}
	if err := sess.close(cmd, err); err != nil {
		return err
	}
	warnUnclear(cmd, "ab", rep.OnUnclear, abTable(rep))
	// The gate's verdict: a pair slower, NEW wrong or failed where OLD
	// ran, or a pair unclear with --on-unclear fail; and operations that
	// could not run at their size.
	var verdict []string
	if f := rep.Failures(); f != "" {
		verdict = append(verdict, "ab: NEW: "+f)
	}
	for _, op := range gate.ops {
		gate.failed.ran(op.merged)
	}
	if err := gate.failed.err(len(gate.ops)); err != nil {
		verdict = append(verdict, err.Error())
	}
	if len(verdict) > 0 {
		return errFailed(strings.Join(verdict, "; "))
	}
	return nil
}

// pairManifests loads the manifests and pairs their operations: those
// of the same name in both, or of the names given, each with the
// candidates both have.
func pairManifests(f *benchFlags, oldPath, newPath string, names []string) ([]abPair, error) {
	olds, err := f.loadManifest(oldPath, manifest.Options{})
	if err != nil {
		return nil, err
	}
	news, err := f.loadManifest(newPath, manifest.Options{})
	if err != nil {
		return nil, err
	}
	oldNames, newNames := opNames(olds), opNames(news)
	shared := slices.DeleteFunc(slices.Clone(oldNames), func(n string) bool { return !slices.Contains(newNames, n) })
	if len(shared) == 0 {
		return nil, usageError{fmt.Errorf("%s (%s) and %s (%s) have no operation of the same name", oldPath, strings.Join(oldNames, ", "), newPath, strings.Join(newNames, ", "))}
	}
	if len(names) > 0 {
		for _, n := range names {
			if !slices.Contains(shared, n) {
				return nil, usageError{fmt.Errorf("no operation %q in both manifests (in both: %s)", n, strings.Join(shared, ", "))}
			}
		}
		shared = names
	}
	var pairs []abPair
	for _, n := range shared {
		// A manifest describes each operation once.
		p, err := pairOperation(olds[slices.Index(oldNames, n)], news[slices.Index(newNames, n)])
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, p)
	}
	return pairs, nil
}

// pairOperation pairs the candidates of two versions of an operation.
func pairOperation(old, new kernels.Operation) (abPair, error) {
	// Every name of NEW's is onlyNew until OLD has it too.
	var p abPair
	for _, c := range new.Candidates() {
		p.onlyNew = append(p.onlyNew, c.Name)
	}
	for _, c := range old.Candidates() {
		if i := slices.Index(p.onlyNew, c.Name); i >= 0 {
			p.names, p.onlyNew = append(p.names, c.Name), slices.Delete(p.onlyNew, i, i+1)
		} else {
			p.onlyOld = append(p.onlyOld, c.Name)
		}
	}
	if len(p.names) == 0 {
		return p, usageError{fmt.Errorf("%s: no candidate of the same name in both manifests (old: %s; new: %s)", old.Name(), strings.Join(p.onlyOld, ", "), strings.Join(p.onlyNew, ", "))}
	}
	op, err := manifest.Pair(old, new, p.names)
	if err != nil {
		return p, usageError{err}
	}
	p.op = op
	return p, nil
}
