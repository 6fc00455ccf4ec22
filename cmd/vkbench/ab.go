package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/status"
)

// abCount is ab's default --count: rounds enough for the 95% interval of
// a ratio to be narrow where the device is noisy (lavapipe on a busy CPU),
// in tens of seconds.
const abCount = 10

func newABCmd() *cobra.Command {
	var f benchFlags
	var threshold float64
	cmd := &cobra.Command{
		Use:   "ab OLD NEW [OPERATION...]",
		Short: "Measure two versions of kernels side by side and fail when the new one is slower",
		Long: `Measure the kernels of two manifests side by side, in one process: OLD and NEW
are kernel manifests (see testdata/manifests/README.md) whose operations share
names, such as a kernel before and after a change. Every candidate present in
both versions of an operation (or of the OPERATIONs named) is measured on the
same device and the same inputs, OLD and NEW sampled alternately in a shuffled
order, so that whatever drifts (clocks, heat, other work on the device) hits
both alike, in --count independent rounds, each prepared, verified and warmed
up anew. NEW's results are verified against what OLD computed on the same
inputs, as well as by its own manifest.

For each pair it prints the ratio NEW/OLD of the median times (above 1 is
slower) with a 95% interval over the rounds, and a verdict: slower when the
whole interval lies above 1 + --threshold, faster when below 1 - --threshold,
same when within both, unclear when it reaches past one of them (more
rounds would tell). This is the recommended gate for CI: two separate runs
compared afterwards (vkbench compare) see every change of the machine between
them; two versions interleaved in one run do not.

Exit status: 0 when no pair is slower, 1 when one is, or when a NEW candidate
computed a wrong result or failed where OLD ran, 2 bad usage or input
(unreadable manifests, no operation or candidate in both), 3 a device failure.`,
		Example: `  vkbench ab base/kernels.json kernels.json
  vkbench ab base/kernels.json kernels.json saxpy --threshold 3 --format junit -o ab.xml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageError{fmt.Errorf("ab takes two manifests, OLD and NEW, then operations (see %s --help)", cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAB(cmd, &f, threshold/100, args)
		},
	}
	f.register(cmd.Flags())
	f.registerCount(cmd.Flags())
	f.count = abCount
	fl := cmd.Flags().Lookup("count")
	fl.DefValue = fmt.Sprint(abCount)
	fl.Usage = "independent rounds, each prepared, verified, warmed up and sampled anew within its own --budget: the 95% interval of each ratio comes from the variation between them (at least 2)"
	cmd.Flags().Lookup("budget").DefValue = "1s"
	f.budget = time.Second
	cmd.Flags().Lookup("format").Usage = "output: table, json or junit"
	floatVar(cmd.Flags(), &threshold, "threshold", 5, "the smallest slowdown that fails, in percent: NEW is slower when the 95% interval of NEW/OLD lies above 1 + threshold/100")
	return cmd
}

// abPair is one operation of both manifests, paired.
type abPair struct {
	op               kernels.Operation // manifest.Pair's
	names            []string          // the candidates in both
	onlyOld, onlyNew []string
}

func runAB(cmd *cobra.Command, f *benchFlags, threshold float64, args []string) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	if f.count < 2 {
		return usageError{fmt.Errorf("--count %d: ab needs 2 rounds or more for an interval (%d by default)", f.count, abCount)}
	}
	if threshold < 0 || threshold >= 1 {
		return usageError{fmt.Errorf("--threshold %g is outside [0, 100)", threshold*100)}
	}
	if err := f.checkFormat("table", "json", "junit"); err != nil {
		return err
	}
	pairs, err := pairManifests(args[0], args[1], args[2:])
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
	cache, err := f.cache.open(cmd, true)
	if err != nil {
		return err
	}
	// The report, to standard output or -o, written atomically.
	out, err := openOutput(cmd, f.output, cache.Path())
	if err != nil {
		return err
	}
	defer out.Discard() // unless committed
	dev, release, err := f.dev.open(cmd, cache)
	if err != nil {
		return err
	}
	conditions, closeTelemetry, err := withTelemetry(&opts, dev.Info())
	if err != nil {
		return status.Join(err, release())
	}
	defer closeTelemetry()
	opts.NoDrop, opts.SameBatch = true, true
	opts.EnergyWindow = -1 // ab compares times
	bar := startProgress(cmd, f.quiet, &opts)
	info := dev.Info()
	rep := newABReport(args[0], args[1], info, opts, threshold)
	rep.Conditions = conditions
	var runErr error
	for _, p := range pairs {
		size := sizes.sizeFor(p.op, info)
		e, err := autotune.Measure(cmd.Context(), dev, p.op, size, opts)
		if err != nil {
			runErr = err
			break
		}
		addPair(rep, p, e)
	}
	bar.finish()
	keepPipelineCache(cmd, dev, cache)
	if err := status.Join(runErr, release()); err != nil {
		return err
	}
	rep.Finish()
	if err := writeAB(out, f.format, rep); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	return abErr(rep)
}

// pairManifests loads the manifests and pairs their operations: those
// of the same name in both, or of the names given, each with the
// candidates both have.
func pairManifests(oldPath, newPath string, names []string) ([]abPair, error) {
	olds, err := loadManifest(oldPath)
	if err != nil {
		return nil, err
	}
	news, err := loadManifest(newPath)
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
	var p abPair
	var newNames []string
	for _, c := range new.Candidates() {
		newNames = append(newNames, c.Name)
	}
	for _, c := range old.Candidates() {
		if slices.Contains(newNames, c.Name) {
			p.names = append(p.names, c.Name)
		} else {
			p.onlyOld = append(p.onlyOld, c.Name)
		}
	}
	for _, n := range newNames {
		if !slices.Contains(p.names, n) {
			p.onlyNew = append(p.onlyNew, n)
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
