// Package results is the file format of vkbench's measurements and the
// statistics that compare two of them.
//
// A File is what `vkbench run --format json` writes: a versioned document
// (schema in SchemaJSON) with the device, the mode, and for each benchmark
// (an operation, a shape and a candidate) its statistics and, for each of
// the independent rounds that measured it (run --count), that round's
// statistics and raw samples. Parse also accepts Go's benchmark format, as
// `go test -bench -count N` and `vkbench run --format gobench` write it:
// one line per round.
//
// Measurement is the one record of a measured candidate, shared with the
// tuner: what became of it (Outcome), its statistics, and what one run
// moves and does. A tuner's entry keeps a Result per candidate; a
// Benchmark is a Measurement with the benchmark's name around it.
//
// Compare tells, for each benchmark present in both files, whether the new
// one is slower, judging by the variation between rounds, as benchstat does
// over go test -count runs:
//
//	base, _ := results.ReadFile("base.json")
//	cur, _ := results.ReadFile("new.json")
//	rep := results.Compare(base, cur, results.DefaultCompareOptions)
//	if rep.Regressions > 0 {
//		os.Exit(1)
//	}
//
// A file of several rounds keeps a Probe, a fixed kernel measured in
// every round, by which Compare tells the machine's change from the
// kernels'.
//
// ABReport is the other gate, vkbench ab's: two versions measured side by
// side in one run, judged pair by pair by the 95% bounds of a confidence
// sequence for their ratio (MedianBounds), so that ab can add rounds
// until a pair is decided. Both gates share one Verdict vocabulary and
// one rule of what fails (Verdict.Fails). Every document has a JSON
// Schema (SchemaJSON).
package results

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
)

// Schema names the version of the File format that this package writes:
// version 2 keeps every round (Benchmark.Rounds).
const Schema = "vkbench.results/v2"

// SchemaV1 names the first version, which Parse still reads: one round,
// whose samples are in Stats.
const SchemaV1 = "vkbench.results/v1"

// Device says which device measured.
type Device struct {
	Index    int    `json:"index"`
	Name     string `json:"name"`
	Hardware string `json:"hardware"`
	UUID     string `json:"uuid,omitempty"`
	Driver   string `json:"driver,omitempty"`
}

// Benchmark is one candidate of one operation at one shape: its
// Measurement, named, and the rates at its median (GBps, GFLOPs,
// PercentPeak), which the file states for programs that read it.
type Benchmark struct {
	// Name is "op/dtype/shape/candidate", unique in a file.
	Name      string `json:"name"`
	Op        string `json:"op"`
	DType     string `json:"dtype"`
	Shape     string `json:"shape"`
	Candidate string `json:"candidate"`
	SPIRVHash string `json:"spirv_sha256,omitempty"`
	// Winner marks the candidate the tune picked for its operation at
	// its dtype and shape: one at most, and Measured (in a merged file,
	// see Merge).
	Winner bool `json:"winner,omitempty"`
	// Tie, on the winner only, says that its 95% interval overlaps the
	// runner-up's or their medians are within the target precision, and
	// how the tie was broken.
	Tie string `json:"tie,omitempty"`
	// Measurement is the candidate's: in a file, Stats pool the samples
	// of every round, and the samples themselves are in Rounds.
	Measurement
	// GBps and GFLOPs are Measurement.Rates, written for programs that
	// read the file; a reader computes them rather than trust them.
	GBps   float64 `json:"gb_per_s,omitempty"`
	GFLOPs float64 `json:"gflop_per_s,omitempty"`
	// PercentPeak is the rate as a percentage of the device's measured
	// peak; 0 when no peak is known.
	PercentPeak float64 `json:"percent_of_peak,omitempty"`
	// Runs is, for a benchmark that Merge pooled from several runs, how
	// many of its rounds came from each, in order (Compare judges such
	// sides by their runs); nil for one run; never written.
	Runs []int `json:"-"`
}

// File is a set of measurements from one run.
type File struct {
	Schema  string    `json:"schema"`
	Version string    `json:"vkbench_version"`
	Time    time.Time `json:"time"`
	Device  Device    `json:"device"`
	Mode    string    `json:"mode"`
	Seed    uint64    `json:"seed"`
	// Rounds is how many independent rounds measured each operation.
	Rounds int `json:"rounds"`
	// Objective is what picked the winners: time, energy or edp; absent
	// means time.
	Objective string `json:"objective,omitempty"`
	// Conditions says what the GPU's conditions were read from ("nvml"),
	// or why they were not ("not available: ...").
	Conditions string `json:"conditions,omitempty"`
	// Probe is the fixed kernel measured in every round beside the
	// benchmarks (run --count), absent from files of one round.
	Probe      *Probe      `json:"probe,omitempty"`
	Benchmarks []Benchmark `json:"benchmarks"`
}

// Probe is a fixed kernel measured in every round among the benchmarks,
// the same in every file: how fast the machine was in each round, so that
// Compare does not take a machine that ran slower during one file's run
// (clocks, heat, other work on it) for slower kernels.
type Probe struct {
	// Name is the probe's benchmark name (operation/dtype/shape/candidate):
	// two files' probes are comparable only when their names are equal.
	Name string `json:"name"`
	// RoundMedians are the probe's median time per run in seconds, in the
	// order of each benchmark's rounds.
	RoundMedians []float64 `json:"round_medians_s"`
}

// RoundMedians returns the median of each round of b: what a comparison
// compares.
func (b *Benchmark) RoundMedians() []float64 {
	var out []float64
	for _, r := range b.Rounds {
		out = append(out, r.Median)
	}
	return out
}

// Lookup returns the benchmark named name.
func (f *File) Lookup(name string) (*Benchmark, bool) {
	for i := range f.Benchmarks {
		if f.Benchmarks[i].Name == name {
			return &f.Benchmarks[i], true
		}
	}
	return nil, false
}

// Unalike says how a and b were measured where that makes their times
// incomparable, each as "on NAME in MODE mode", with, where the files
// differ in them, the objective that picked the winners (another one
// measures energy beside the samples and drops no candidate early) and
// the seed of the inputs (other inputs are other work); both "" where
// they were measured alike or a file names no device (Go's benchmark
// format). Other drivers, vkbenches, rounds and conditions may differ.
func Unalike(a, b *File) (as, bs string) {
	if a.Device.Name == "" || b.Device.Name == "" {
		return "", ""
	}
	var ea, eb []string
	if oa, ob := a.objective(), b.objective(); oa != ob {
		ea, eb = append(ea, "objective "+oa), append(eb, "objective "+ob)
	}
	if a.Seed != b.Seed {
		ea, eb = append(ea, fmt.Sprintf("seed %d", a.Seed)), append(eb, fmt.Sprintf("seed %d", b.Seed))
	}
	if a.Device.Name == b.Device.Name && a.Mode == b.Mode && len(ea) == 0 {
		return "", ""
	}
	say := func(f *File, extra []string) string {
		s := fmt.Sprintf("on %s in %s mode", f.Device.Name, f.Mode)
		if len(extra) > 0 {
			s += " (" + strings.Join(extra, ", ") + ")"
		}
		return s
	}
	return say(a, ea), say(b, eb)
}

// objective is what picked f's winners: time where the file names none.
func (f *File) objective() string { return cmp.Or(f.Objective, "time") }

// ReadFile reads a results file by name; see Parse.
func ReadFile(name string) (*File, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, status.Wrapf(err, status.CodeOf(err), "results: reading %s", name)
	}
	f, err := Parse(data)
	if err != nil {
		return nil, status.Annotatef(err, "in %s", name)
	}
	return f, nil
}

// Parse decodes a File: JSON when data starts with '{', Go's benchmark
// format otherwise. A JSON file is validated against its version's schema;
// one of version 1 is upgraded, its samples becoming its one round.
// Anything malformed is InvalidArgument and says where and what.
func Parse(data []byte) (*File, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, status.New(status.InvalidArgument, "results: empty file")
	}
	if trimmed[0] == '{' {
		return parseJSON(trimmed)
	}
	return parseGoBench(data)
}

func parseJSON(data []byte) (*File, error) {
	var f File
	version, err := decodeValid(data, &f, Schema, SchemaV1)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, b := range f.Benchmarks {
		if seen[b.Name] {
			return nil, fieldError(i, b.Name, "a second benchmark of this name")
		}
		seen[b.Name] = true
		if err := checkSamples(i, &b); err != nil {
			return nil, err
		}
	}
	if version == SchemaV1 {
		upgrade(&f)
	}
	return &f, nil
}

// checkSamples refuses samples that are not times: the schemas say so too,
// but version 1's allowed zero, which no timer that ticked reports.
func checkSamples(i int, b *Benchmark) error {
	rounds := b.Rounds
	if b.Stats != nil {
		rounds = append([]stats.Stats{*b.Stats}, rounds...)
	}
	for _, r := range rounds {
		for _, v := range r.Samples {
			if !(v > 0) || math.IsInf(v, 0) {
				return fieldError(i, b.Name, "sample %v is not a time", v)
			}
		}
	}
	return nil
}

func upgrade(f *File) {
	f.Schema, f.Rounds = Schema, 1
	for i := range f.Benchmarks {
		if b := &f.Benchmarks[i]; b.Stats != nil && len(b.Stats.Samples) > 0 {
			b.Rounds = []stats.Stats{*b.Stats}
			b.Stats.Samples = nil
		}
	}
}

// parseGoBench reads Go benchmark lines in sec/op (benchfmt tidies ns/op
// to seconds); each line is one round of its benchmark, as benchstat
// reads a run of go test -count.
func parseGoBench(data []byte) (*File, error) {
	f := &File{Schema: Schema}
	samples := map[string][]float64{}
	r := benchfmt.NewReader(bytes.NewReader(data), "")
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, status.Newf(status.InvalidArgument, "results: %v", rec)
		case *benchfmt.Result:
			name := strings.TrimPrefix(string(rec.Name.Full()), "Benchmark")
			sec, ok := rec.Value("sec/op")
			if !ok || math.IsNaN(sec) || math.IsInf(sec, 0) || sec < 0 {
				return nil, status.Newf(status.InvalidArgument, "results: benchmark %q has no valid sec/op (ns/op) value", name)
			}
			if samples[name] == nil {
				f.Benchmarks = append(f.Benchmarks, Benchmark{Name: name, Measurement: Measurement{Outcome: Measured}})
			}
			samples[name] = append(samples[name], sec)
		}
	}
	if err := r.Err(); err != nil {
		return nil, status.Wrap(err, status.InvalidArgument, "results: reading Go benchmark format")
	}
	if len(f.Benchmarks) == 0 {
		return nil, status.New(status.InvalidArgument, "results: no benchmarks found (neither vkbench JSON nor Go benchmark lines)")
	}
	for i := range f.Benchmarks {
		b := &f.Benchmarks[i]
		for _, v := range samples[b.Name] {
			b.Rounds = append(b.Rounds, stats.Summarize([]float64{v}, 1))
		}
		f.Rounds = max(f.Rounds, len(b.Rounds))
		st := stats.Summarize(samples[b.Name], 1)
		st.Samples = nil
		b.Stats = &st
	}
	return f, nil
}
