package main

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/stats"
)

// finiteFloat is a float64 flag that refuses NaN and the infinities when
// it is parsed. Every comparison with NaN is false, so a range check such
// as "threshold < 0" lets it through, and a gate given --threshold NaN
// would never fail; refusing it at the parser keeps every float flag safe
// whatever checks its command makes afterwards.
type finiteFloat float64

func (f *finiteFloat) String() string { return strconv.FormatFloat(float64(*f), 'g', -1, 64) }

// Type is pflag's name for the value in help: "float64", as for
// pflag.Float64Var, so that help reads the same.
func (f *finiteFloat) Type() string { return "float64" }

func (f *finiteFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number (%v)", err.(*strconv.NumError).Err) // ParseFloat's errors are all *NumError
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("not a finite number")
	}
	*f = finiteFloat(v)
	return nil
}

// nonEmpty is a string flag that refuses "" when parsed, wanting want
// instead: left out, --cache means the default cache and --manifest none,
// and a script that passes --cache "$CACHE" (or --manifest "$M") with the
// variable unset means neither: not the user's cache, not every built-in
// operation instead of the user's kernels.
type nonEmpty struct {
	p    *string
	want string
}

func (v nonEmpty) String() string {
	if v.p == nil {
		return "" // pflag's zero value, for help
	}
	return *v.p
}

// Type is pflag's name for the value in help: "string", as for
// pflag.StringVar, so that help reads the same.
func (v nonEmpty) Type() string { return "string" }

func (v nonEmpty) Set(s string) error {
	if s == "" {
		return errors.New("want " + v.want)
	}
	*v.p = s
	return nil
}

// floatVar defines a float64 flag that only takes finite values.
func floatVar(fs *pflag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	fs.Var((*finiteFloat)(p), name, usage)
}

// The roofs report accepts, in GB/s and GFLOP/s: from a thousandth (a
// microcontroller) to a billion (a thousand times today's largest GPU).
// The charts are drawn on log scales, which values far outside this
// cannot span.
const (
	minPeak = 1e-3
	maxPeak = 1e9
)

// checkPeakFlags checks report's --peak-gbps and --peak-gflops: 0 means
// the stored peak.
func checkPeakFlags(gbps, gflops float64) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"peak-gbps", gbps}, {"peak-gflops", gflops}} {
		if f.v != 0 && (f.v < minPeak || f.v > maxPeak) {
			return usageError{fmt.Errorf("--%s %g is outside [%g, %g] (0 means the peak stored by vkbench peak)", f.name, f.v, float64(minPeak), float64(maxPeak))}
		}
	}
	return nil
}

// benchFlags are the flags of every command that measures (run, tune, ab,
// peak): the device, the cache, sizes, sampling and output. The flags only
// some of them take are registered by those: --count, --manifest,
// --objective and --energy-window (registerRunTune); unregistered, their
// fields keep the defaults register sets.
type benchFlags struct {
	dev        deviceFlags
	cache      cacheFlags
	sizes      []string
	cold       bool
	budget     time.Duration
	precision  float64
	minSamples int
	maxSamples int
	count      int
	seed       uint64
	format     string
	output     string
	manifest   string
	quiet      bool
	objective  string
	// energyWindow is how long each candidate runs for its energy.
	energyWindow time.Duration
	warmup       time.Duration
	// compiles says what the manifest's GLSL compiles do; named are the
	// files the manifests name, which -o may not replace.
	compiles compileNotes
	named    []input
}

// register registers the flags every measuring command takes, and sets
// the defaults of those it may not register.
func (f *benchFlags) register(fs *pflag.FlagSet) {
	f.count, f.objective = 1, string(autotune.ObjectiveTime)
	f.dev.register(fs)
	f.cache.register(fs)
	fs.StringArrayVarP(&f.sizes, "size", "s", nil, "problem size, as 1048576, 4096x4096x4096 or M=512,N=512,K=512; prefix OP= to set one operation's (gemm=512x512x512); repeatable (default: chosen for the device)")
	fs.BoolVar(&f.cold, "cold", false, "flush the GPU's last-level cache before every timed run (default: back to back, caches warm)")
	fs.DurationVar(&f.budget, "budget", autotune.DefaultOptions.Budget, "most time spent sampling one operation")
	floatVar(fs, &f.precision, "precision", autotune.DefaultOptions.TargetHalfWidth*100, "stop sampling when every candidate's 95% interval is within ±this percent of its median")
	fs.IntVar(&f.minSamples, "min-samples", autotune.DefaultOptions.MinSamples, fmt.Sprintf("fewest samples per candidate; at least %d, since fewer cannot give a 95%% interval of the median", stats.MinIntervalSamples))
	fs.IntVar(&f.maxSamples, "max-samples", autotune.DefaultOptions.MaxSamples, "most samples per candidate")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the random inputs and of the sampling order")
	fs.StringVarP(&f.format, "format", "f", "table", "output: table, json, csv or gobench")
	fs.StringVarP(&f.output, "output", "o", "", "write the output to this file instead of standard output")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar")
	fs.DurationVar(&f.warmup, "warmup", autotune.DefaultOptions.Warmup, "GPU time spent running the candidates before any sample counts, for the GPU to reach its clocks; 0 samples at once (the conditions then show the clocks moving)")
}

// registerRunTune registers the flags of run and tune: --count, the
// independent rounds, and what they choose among: the operations of a
// manifest, and the objective that picks a winner.
func (f *benchFlags) registerRunTune(fs *pflag.FlagSet) {
	fs.IntVar(&f.count, "count", 1, "measure each operation in this many independent rounds (each prepared, verified, warmed up and sampled again, within its own --budget), as go test -count does; compare needs 5 or more to judge a difference")
	fs.Var(nonEmpty{&f.manifest, "the path of a kernel manifest (JSON)"}, "manifest", "the operations of this kernel manifest (JSON): benchmarked instead of the built-in ones when no operation is named, and nameable as operations")
	fs.StringVar(&f.objective, "objective", "time", "pick the winner by time (median time per run), energy (joules per run) or edp (energy × time); energy needs the GPU's energy counter (NVIDIA, through NVML)")
	fs.DurationVar(&f.energyWindow, "energy-window", 0, fmt.Sprintf("where the GPU's energy counter can be read, how long in all each candidate runs back to back, in six windows (each at least five steps of a counter that moves in steps), for its energy per run and that energy's interval (default: %v with --objective energy or edp, no energy with time)", autotune.DefaultOptions.EnergyWindow))
}

// theDefault is " (the default)" where a flag's value v is its default
// def: a flag the user did not give, named in a message, says so.
func theDefault(v, def int) string {
	if v == def {
		return " (the default)"
	}
	return ""
}

// options checks the flags and returns the measurement options they say,
// at the default tuning level. --format is each command's to check
// (checkFormat): they write different things.
func (f *benchFlags) options() (autotune.Options, error) {
	objective, err := autotune.ParseObjective(f.objective)
	switch {
	case f.precision <= 0:
		return autotune.Options{}, usageError{fmt.Errorf("--precision %g: want a positive percentage", f.precision)}
	case f.budget <= 0:
		return autotune.Options{}, usageError{fmt.Errorf("--budget %v: want a positive duration", f.budget)}
	case f.maxSamples < f.minSamples:
		return autotune.Options{}, usageError{fmt.Errorf("--min-samples %d%s is more than --max-samples %d%s", f.minSamples, theDefault(f.minSamples, autotune.DefaultOptions.MinSamples),
			f.maxSamples, theDefault(f.maxSamples, autotune.DefaultOptions.MaxSamples))}
	case f.minSamples < stats.MinIntervalSamples:
		return autotune.Options{}, usageError{fmt.Errorf("--min-samples %d: a 95%% confidence interval of the median needs at least %d samples", f.minSamples, stats.MinIntervalSamples)}
	case f.count < 1 || f.count > maxCount:
		return autotune.Options{}, usageError{fmt.Errorf("--count %d is outside [1, %d]", f.count, maxCount)}
	case err != nil:
		return autotune.Options{}, usageError{fmt.Errorf("--objective %q: want time, energy or edp", f.objective)}
	case f.energyWindow < 0:
		return autotune.Options{}, usageError{fmt.Errorf("--energy-window %v: want a positive duration", f.energyWindow)}
	case f.warmup < 0:
		return autotune.Options{}, usageError{fmt.Errorf("--warmup %v: want 0 or more", f.warmup)}
	case f.dev.hang <= 0:
		return autotune.Options{}, usageError{fmt.Errorf("--hang-timeout %v: want a positive duration", f.dev.hang)}
	}
	o := autotune.DefaultOptions
	// A flag's 0 means none, which Options says with -1 (its 0 is the
	// default).
	o.Warmup = cmp.Or(f.warmup, -1)
	o.Objective = objective
	o.EnergyWindow = f.energyWindow // 0: as the objective needs
	o.TargetHalfWidth = f.precision / 100
	o.Budget = f.budget
	o.MinSamples, o.MaxSamples = f.minSamples, f.maxSamples
	o.Seed = f.seed
	o.Rounds = f.count
	o.Version = version
	if f.cold {
		o.Mode = autotune.Cold
	}
	return o, nil
}

// checkFormat refuses, as bad usage, a --format not among formats.
func checkFormat(format string, formats ...string) error {
	if slices.Contains(formats, format) {
		return nil
	}
	want := strings.Join(formats[:len(formats)-1], ", ") + " or " + formats[len(formats)-1]
	return usageError{fmt.Errorf("unknown --format %q (want %s)", format, want)}
}

// tuneFlags are tune's: the measuring flags, the tuning level that
// buckets shapes into keys, and the search of parameter spaces.
type tuneFlags struct {
	benchFlags
	level  string
	search searchFlags
	// compileOnly, force and allDevices are tune's modes.
	compileOnly, force, allDevices bool
	// shard is --shard: "I/N", or "" for all the work.
	shard string
}

func (f *tuneFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	f.benchFlags.register(fs)
	f.registerRunTune(fs)
	fs.StringVar(&f.level, "level", "balanced", "tuning level: how shapes are bucketed (minimal, balanced, extensive, full)")
	fs.BoolVar(&f.compileOnly, "compile-only", false, "only build the pipelines and keep the driver's pipeline cache")
	fs.BoolVar(&f.force, "force", false, "measure again and replace answers already in the cache")
	fs.BoolVar(&f.allDevices, "all-devices", false, "tune on every device at once; identical devices split the work")
	fs.StringVar(&f.shard, "shard", "", "tune only shard I of N (I/N, I from 0): the operations at positions I, I+N, I+2N, ... of those named, for N jobs of a job runner that share a --store")
	f.search.register(cmd)
}

// sharded returns the operations of ops that --shard takes (all of them
// without it), saying on stderr which when it takes a share.
func (f *tuneFlags) sharded(cmd *cobra.Command, ops []kernels.Operation) ([]kernels.Operation, error) {
	if f.shard == "" {
		return ops, nil
	}
	var index, count int
	if n, err := fmt.Sscanf(f.shard, "%d/%d", &index, &count); err != nil || n != 2 || count < 1 || index < 0 || index >= count || fmt.Sprintf("%d/%d", index, count) != f.shard {
		return nil, usageError{fmt.Errorf("--shard %q: want I/N with 0 <= I < N, such as 0/4", f.shard)}
	}
	share := autotune.Shard(ops, index, count)
	_, _ = fmt.Fprintf(cmd.ErrOrStderr(), "shard %s: %d of %d operations: %s\n", f.shard, len(share), len(ops), cmp.Or(strings.Join(opNames(share), ", "), "none"))
	return share, nil
}
