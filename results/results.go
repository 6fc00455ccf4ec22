// Package results is the file format of vkbench's measurements and the
// statistics that compare two of them.
//
// A File is what `vkbench run --format json` writes: a versioned document
// with the device, the mode, and for each benchmark (an operation, a shape
// and a candidate) its statistics and raw samples. Read also accepts Go's
// benchmark format, as `go test -bench` and `vkbench run --format gobench`
// write it, one line per sample.
//
// Compare tells, for each benchmark present in both files, whether the new
// one is slower, with a Mann–Whitney U test from golang.org/x/perf's
// benchmath and a threshold on the change of the median:
//
//	base, _ := results.ReadFile("base.json")
//	cur, _ := results.ReadFile("new.json")
//	rep := results.Compare(base, cur, results.DefaultCompareOptions)
//	if rep.Regressions > 0 {
//		os.Exit(1)
//	}
package results

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/status"
)

// Schema names the version of the File format.
const Schema = "vkbench.results/v1"

// Device says which device measured.
type Device struct {
	Index    int    `json:"index"`
	Name     string `json:"name"`
	Hardware string `json:"hardware"`
	UUID     string `json:"uuid,omitempty"`
	Driver   string `json:"driver,omitempty"`
}

// Benchmark is one candidate of one operation at one shape.
type Benchmark struct {
	// Name is "op/dtype/shape/candidate", unique in a file.
	Name      string           `json:"name"`
	Op        string           `json:"op"`
	DType     string           `json:"dtype"`
	Shape     string           `json:"shape"`
	Candidate string           `json:"candidate"`
	SPIRVHash string           `json:"spirv_sha256,omitempty"`
	Outcome   autotune.Outcome `json:"outcome"`
	Error     string           `json:"error,omitempty"`
	Winner    bool             `json:"winner,omitempty"`
	// Tie, on the winner only, says that its 95% interval overlaps the
	// runner-up's, and how the tie was broken.
	Tie string `json:"tie,omitempty"`
	// Bytes and Flops are moved and done by one run.
	Bytes  float64         `json:"bytes_per_run,omitempty"`
	Flops  float64         `json:"flops_per_run,omitempty"`
	Stats  *autotune.Stats `json:"stats,omitempty"`
	GBps   float64         `json:"gb_per_s,omitempty"`
	GFLOPs float64         `json:"gflop_per_s,omitempty"`
	// PercentPeak is the rate as a percentage of the device's measured
	// peak; 0 when no peak is known.
	PercentPeak float64  `json:"percent_of_peak,omitempty"`
	Flags       []string `json:"flags,omitempty"`
	// Compiler is what the driver's compiler reported of the candidate's
	// pipeline, by the driver's names ("Register Count", "Local Memory
	// Size"); absent where the driver reports nothing.
	Compiler map[string]float64 `json:"compiler,omitempty"`
}

// File is a set of measurements from one run.
type File struct {
	Schema     string      `json:"schema"`
	Version    string      `json:"vkbench_version"`
	Time       time.Time   `json:"time"`
	Device     Device      `json:"device"`
	Mode       string      `json:"mode"`
	Seed       uint64      `json:"seed"`
	Benchmarks []Benchmark `json:"benchmarks"`
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

// ReadFile reads a results file by name; see Read.
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

// Read reads a File from r; see Parse.
func Read(r io.Reader) (*File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, status.Wrap(err, status.CodeOf(err), "results: reading")
	}
	return Parse(data)
}

// Parse decodes a File: JSON when data starts with '{', Go's benchmark
// format otherwise. Anything malformed is InvalidArgument and says where.
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
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, status.Wrap(err, status.InvalidArgument, "results: malformed JSON")
	}
	if f.Schema != Schema {
		return nil, status.Newf(status.InvalidArgument, "results: schema %q, want %q", f.Schema, Schema)
	}
	seen := map[string]bool{}
	for i, b := range f.Benchmarks {
		if b.Name == "" {
			return nil, status.Newf(status.InvalidArgument, "results: benchmark %d has no name", i)
		}
		if seen[b.Name] {
			return nil, status.Newf(status.InvalidArgument, "results: benchmark %q appears twice", b.Name)
		}
		seen[b.Name] = true
		if s := b.Stats; s != nil {
			for _, v := range s.Samples {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					return nil, status.Newf(status.InvalidArgument, "results: benchmark %q has a sample %v that is not a time", b.Name, v)
				}
			}
		}
	}
	return &f, nil
}

// parseGoBench reads Go benchmark lines; each line is one sample of its
// benchmark, in sec/op (ns/op lines are tidied to seconds by benchfmt).
func parseGoBench(data []byte) (*File, error) {
	f := &File{Schema: Schema}
	index := map[string]int{}
	r := benchfmt.NewReader(bytes.NewReader(data), "")
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, status.Newf(status.InvalidArgument, "results: %v", rec)
		case *benchfmt.Result:
			name := strings.TrimPrefix(string(rec.Name.Full()), "Benchmark")
			sec := math.NaN()
			for _, v := range rec.Values {
				if v.Unit == "sec/op" {
					sec = v.Value
				}
			}
			if math.IsNaN(sec) || math.IsInf(sec, 0) || sec < 0 {
				return nil, status.Newf(status.InvalidArgument, "results: benchmark %q has no valid sec/op (ns/op) value", name)
			}
			i, ok := index[name]
			if !ok {
				i = len(f.Benchmarks)
				index[name] = i
				f.Benchmarks = append(f.Benchmarks, Benchmark{Name: name, Outcome: autotune.Measured, Stats: &autotune.Stats{}})
			}
			st := f.Benchmarks[i].Stats
			st.Samples = append(st.Samples, sec)
		}
	}
	if err := r.Err(); err != nil {
		return nil, status.Wrap(err, status.InvalidArgument, "results: reading Go benchmark format")
	}
	if len(f.Benchmarks) == 0 {
		return nil, status.New(status.InvalidArgument, "results: no benchmarks found (neither vkbench JSON nor Go benchmark lines)")
	}
	for i := range f.Benchmarks {
		st := f.Benchmarks[i].Stats
		*st = autotune.Summarize(st.Samples, 1)
	}
	return f, nil
}
