package results

import (
	"cmp"
	"reflect"
	"slices"

	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/telemetry"
)

// Merge makes one file of the rounds of several, each from its own run
// of the same benchmarks on the same hardware: a side of a comparison
// measured in several processes, so that the variation between processes
// enters the variation that Compare judges by, as benchstat pools go test
// -count runs. Each benchmark keeps every file's rounds, in order, its
// Stats pooled, and how many rounds each file gave it (Benchmark.Runs);
// its outcome is as mergeBenchmark says. The winner of an operation at a
// dtype and shape is the candidate that every file naming a winner for it
// names, and only when it is Measured after merging; where the files name
// different winners there is none: the pooled rounds are not a tune that
// picked one. The probe is kept, its rounds concatenated, when every file
// has the same one. Files of different hardware, modes or objectives are
// refused (InvalidArgument): their differences are not noise; so is one
// run given twice, whose runs would not differ at all.
func Merge(files ...*File) (*File, error) {
	if len(files) == 0 {
		return nil, status.New(status.InvalidArgument, "results: Merge: no files")
	}
	if len(files) == 1 {
		return files[0], nil
	}
	out := *files[0]
	out.Benchmarks = nil
	out.Rounds = 0
	probe := true
	var probeRounds []float64
	winners := map[string]string{} // by operation, dtype and shape; "" where files disagree
	for i, f := range files {
		if j := slices.IndexFunc(files[:i], func(g *File) bool { return reflect.DeepEqual(g, f) }); j >= 0 {
			return nil, status.Newf(status.InvalidArgument, "results: Merge: files %d and %d are one run (the same results): the runs pooled must be separate runs, whose variation is what a difference is judged against", j+1, i+1)
		}
		if f.Device.Hardware != out.Device.Hardware {
			return nil, status.Newf(status.InvalidArgument, "results: Merge: files of different hardware (%s, %s)", out.Device.Hardware, f.Device.Hardware)
		}
		// Runs of one side may have other seeds (their inputs then vary
		// between runs as their speed does), not other modes or
		// objectives.
		if f.Mode != out.Mode || f.objective() != out.objective() {
			return nil, status.Newf(status.InvalidArgument, "results: Merge: files measured in %s mode for objective %s, and in %s mode for objective %s", out.Mode, out.objective(), f.Mode, f.objective())
		}
		out.Rounds += f.Rounds
		if f.Probe == nil || files[0].Probe == nil || f.Probe.Name != files[0].Probe.Name {
			probe = false
		} else {
			probeRounds = append(probeRounds, f.Probe.RoundMedians...)
		}
		for _, b := range f.Benchmarks {
			if w, named := winners[question(b)]; b.Winner && named && w != b.Candidate {
				winners[question(b)] = ""
			} else if b.Winner {
				winners[question(b)] = b.Candidate
			}
			if m, ok := out.Lookup(b.Name); ok {
				mergeBenchmark(m, b)
				continue
			}
			b.Rounds, b.Flags, b.Runs = slices.Clone(b.Rounds), slices.Clone(b.Flags), []int{len(b.Rounds)}
			out.Benchmarks = append(out.Benchmarks, b)
		}
	}
	out.Probe = nil
	if probe {
		out.Probe = &Probe{Name: files[0].Probe.Name, RoundMedians: probeRounds}
	}
	for i := range out.Benchmarks {
		b := &out.Benchmarks[i]
		b.Winner = b.Outcome == Measured && winners[question(*b)] == b.Candidate
		if !b.Winner {
			b.Tie = ""
		}
		var all []float64
		for _, r := range b.Rounds {
			all = append(all, r.Samples...)
		}
		if len(all) > 0 && b.Stats != nil {
			st := stats.Summarize(all, b.Stats.Batch)
			st.Samples = nil
			b.Stats = &st
		}
	}
	return &out, nil
}

// question is what b's operation is tuned for: its operation, dtype and
// shape, of which one candidate is the winner.
func question(b Benchmark) string { return b.Op + "/" + b.DType + "/" + b.Shape }

// mergeBenchmark adds n's rounds, flags, conditions, tie and outcome to
// b. One that did not measure in n (failed, wrong) takes n's outcome and
// error, where n did not run it (NotRun) gives only its flags; one
// dropped early in b's files but measured in n is Measured and loses the
// drop's detail, which described one run, not the rounds pooled.
func mergeBenchmark(b *Benchmark, n Benchmark) {
	b.Rounds = append(b.Rounds, n.Rounds...)
	b.Runs = append(b.Runs, len(n.Rounds))
	b.Tie = cmp.Or(b.Tie, n.Tie)
	for _, fl := range n.Flags {
		if !slices.Contains(b.Flags, fl) {
			b.Flags = append(b.Flags, fl)
		}
	}
	switch {
	case b.Conditions == nil:
		b.Conditions = n.Conditions
	case n.Conditions != nil:
		c := telemetry.Merge(*b.Conditions, *n.Conditions)
		b.Conditions = &c
	}
	switch {
	case n.Outcome == NotRun: // no run of it in n
	case b.Outcome == NotRun, n.Outcome != Measured && n.Outcome != Dropped && b.Outcome != n.Outcome:
		b.Outcome, b.Error, b.Drop = n.Outcome, n.Error, n.Drop
	case n.Outcome == Measured && b.Outcome == Dropped:
		b.Outcome, b.Error, b.Drop = Measured, "", nil
	}
}
