package vkbench

import (
	"time"

	"github.com/vkbench/vkbench/autotune"
)

// Result is what the cache holds for one key of an Op: the candidate that
// won, and why — every candidate's outcome, and the timing or the error
// that decided it.
type Result struct {
	// Key names the key: the Op, its element type and the size measured,
	// such as "scale/f32/1024".
	Key string
	// Size is the size measured, one integer per name in the Op's Dims:
	// the key's, which the size asked about rounds up to
	// (TunerOptions.Level).
	Size []int
	// Fastest is the winner's index in the Op's Candidates.
	Fastest int
	// Winner is the winner's name.
	Winner string
	// Tie is set when the winner's confidence interval overlaps the
	// runner-up's, or their medians are within the target precision.
	Tie bool
	// TieRule says how a tie was broken.
	TieRule string
	// Candidates are the parts of the candidates that apply at the size
	// (Kernel.Applies), in the Op's order.
	Candidates []CandidateResult
	// Device names the device that measured.
	Device string
	// Time is when it measured.
	Time time.Time
}

// Outcome is what became of a candidate in a tune.
type Outcome string

// The outcomes.
const (
	// Measured candidates computed the right result and were timed.
	Measured Outcome = "measured"
	// Dropped candidates computed the right result, and were stopped early
	// because they were clearly slower than the leader.
	Dropped Outcome = "dropped"
	// Wrong candidates computed a wrong result (Problem.Check said so, or
	// they wrote past the end of a buffer): they can never win.
	Wrong Outcome = "wrong"
	// Failed candidates did not build or run.
	Failed Outcome = "failed"
	// Unsupported candidates need what the device lacks.
	Unsupported Outcome = "unsupported"
)

// CandidateResult is one candidate's part in a tune.
type CandidateResult struct {
	// Index is the candidate's in the Op's Candidates.
	Index int
	// Name is the candidate's Kernel's.
	Name string
	// Outcome is what became of it.
	Outcome Outcome
	// Error says why, where it is not Measured: the wrong result, the
	// failure, what the device lacks, how much slower it was.
	Error string
	// Median is the median time of one run, and Low and High bound its
	// 95% confidence interval (zero with too few samples for one); all
	// zero where the candidate was not timed.
	Median, Low, High time.Duration
	// Samples is how many samples were taken.
	Samples int
}

// resultOf is the Result of an entry of the cache.
func resultOf(e *autotune.Entry) *Result {
	r := &Result{Key: e.Key, Fastest: e.Fastest, Winner: e.FastestName, Tie: e.Tie, TieRule: e.TieRule, Device: e.Device, Time: e.Time}
	if e.Size.Len() > 0 {
		r.Size = e.Size.Extents()
	}
	seconds := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	for _, c := range e.Results {
		cr := CandidateResult{Index: c.Index, Name: c.Name, Outcome: Outcome(c.Outcome), Error: c.Error}
		if s := c.Stats; s != nil {
			cr.Median, cr.Low, cr.High, cr.Samples = seconds(s.Median), seconds(s.Lo), seconds(s.Hi), s.N
		}
		r.Candidates = append(r.Candidates, cr)
	}
	return r
}
