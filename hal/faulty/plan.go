package faulty

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/enum"
	"github.com/vkbench/vkbench/status"
)

// ErrInjected is matched (errors.Is) by every error the wrapper makes up,
// and through their causes by the errors those cause later: of
// submissions that waited on a failed one, and of a lost device whose
// backend keeps the cause given to MarkLost (vk does).
var ErrInjected = errors.New("faulty: injected fault")

// Call names a method of the HAL, for rules and counters. Accessors that
// cannot fail (Info, Err, Size, Label, Count, …) are not calls.
type Call uint8

// The calls, named after the methods; Buffer's Write and Read are
// BufferWrite and BufferRead.
const (
	// None is no call: the Call of an Injection made by Plan.LoseNow or
	// Plan.LoseAfter rather than at a call.
	None Call = iota
	// Open is Driver.Open of a driver made by WrapDriver.
	Open
	CreateBuffer
	CreateExecutable
	CreateCommandBuffer
	CreateTimestampPool
	Submit
	// PipelineCacheData is hal.PipelineCacher's method, when the wrapped
	// device has it.
	PipelineCacheData
	BufferWrite
	BufferRead
	Begin
	Dispatch
	Copy
	Fill
	Barrier
	Timestamp
	End
	// Wait and Poll are the Fence methods.
	Wait
	Poll
	// Elapsed and Ticks are the TimestampPool methods.
	Elapsed
	Ticks
	CreateImage
	CreateSampler
	// ImageWrite and ImageRead are Image's Write and Read.
	ImageWrite
	ImageRead
	CopyBufferToImage
	CopyImageToBuffer
	// Release is the Release method of every object and of the device. It
	// is counted but never fails by injection: the error model promises
	// that releasing works, lost device or not.
	Release

	numCalls
)

// callNames are the calls' names, in the order of the constants (which
// TestCalls checks).
var callNames = [numCalls]string{
	"None", "Open", "CreateBuffer", "CreateExecutable", "CreateCommandBuffer", "CreateTimestampPool",
	"Submit", "PipelineCacheData", "BufferWrite", "BufferRead",
	"Begin", "Dispatch", "Copy", "Fill", "Barrier", "Timestamp", "End",
	"Wait", "Poll", "Elapsed", "Ticks",
	"CreateImage", "CreateSampler", "ImageWrite", "ImageRead", "CopyBufferToImage", "CopyImageToBuffer",
	"Release",
}

// String returns the call's name, such as "CreateBuffer".
func (c Call) String() string { return enum.Name(c, callNames[:], "Call(%d)") }

// Calls returns every call that a rule can make fail, in order: all of
// them but None and Release.
func Calls() []Call {
	calls := make([]Call, 0, numCalls)
	for c := Open; c < numCalls; c++ {
		if c != Release {
			calls = append(calls, c)
		}
	}
	return calls
}

// Effect is what an injected fault does.
type Effect uint8

const (
	// Fail makes the call return an error at once without calling the
	// wrapped object, which is left as it was.
	Fail Effect = iota
	// FailAsync applies to Submit only: the submission runs, and its
	// fence, and those of the submissions that wait on it, report the
	// error (see Faults in the package documentation).
	FailAsync
	// Lose loses the device at the call: the call returns the loss, as
	// every pending fence and every later call does.
	Lose
	// NoTick applies to Elapsed only: the call reports that the GPU timer
	// did not tick between the two timestamps (an error matching
	// hal.ErrNoTick), as a backend does when they read the same.
	NoTick
	// Slow applies to Elapsed only: the call reports the time between
	// the two timestamps multiplied by Rule.Factor, as a device whose
	// speed changed (clocks, heat, other work on it) would: a drift that
	// a measurement must notice rather than report as the kernels'.
	Slow
	// Corrupt applies to BufferRead alone: the call reads the buffer, then
	// flips every bit of what it read, as a kernel that computed a wrong
	// result would have written it.
	Corrupt
)

// String returns "fail", "fail-async", "lose", "no-tick", "slow" or
// "corrupt".
func (e Effect) String() string { return enum.Name(e, effectNames[:], "Effect(%d)") }

var effectNames = [...]string{Fail: "fail", FailAsync: "fail-async", Lose: "lose", NoTick: "no-tick", Slow: "slow", Corrupt: "corrupt"}

// Rule says which calls fail and how. A rule sees every call of its kinds
// made after it was added, in the order the plan counts them, whatever the
// other rules do; when several rules take the same call, the one added
// first says what happens to it (the others count it as taken all the
// same). Nothing is injected on a device that is lost.
type Rule struct {
	// Calls are the kinds of call the rule applies to; empty means every
	// call but Release (and, for FailAsync, Submit alone). Release is
	// never made to fail.
	Calls []Call
	// Nth makes the rule take the Nth call it sees (1 is the next one),
	// and only that one.
	Nth int
	// Rate, when Nth is 0, makes the rule take each call it sees with this
	// probability, drawn from a PCG generator seeded with Seed, so that a
	// run is reproducible as long as the calls come in the same order.
	Rate float64
	// Seed seeds Rate's generator.
	Seed uint64
	// Effect is what happens to a call the rule takes.
	Effect Effect
	// Code is the code of the injected error; 0 (OK) means Internal. A
	// loss always reports hal.ErrDeviceLost's code, DataLoss; Code is then
	// that of its cause.
	Code status.Code
	// Factor is what Slow multiplies the times it reports by.
	Factor float64
}

// Injection records one injected fault.
type Injection struct {
	// Call is the call that was made to fail, or None for a loss made by
	// Plan.LoseNow or Plan.LoseAfter.
	Call Call
	// N is the call's number among the plan's calls of its kind, from 1.
	N      int
	Effect Effect
	// Err is the injected error: what the call returned (Fail), what the
	// fence reports (FailAsync), or the cause given to the device's loss
	// (Lose).
	Err error
}

// rule is a Rule with its state.
type rule struct {
	Rule
	kinds [numCalls]bool
	seen  int
	rng   *rand.Rand
}

// fault is what decide chose for a call: its number among the plan's
// calls of its kind, and what is injected into it, if anything.
type fault struct {
	n       int
	err     error   // for Fail and NoTick, what the call returns
	async   error   // for FailAsync, what the submission's fence reports
	lost    error   // for Lose, the cause of the loss
	slow    float64 // for Slow, what the times reported are multiplied by
	corrupt bool    // for Corrupt, whether the data read is corrupted
}

// Plan is a schedule of faults for the devices wrapped with it, and the
// counters of what they did. A plan may be shared by several devices, which
// then share its counters, rules and hold. Its methods are safe for
// concurrent use.
type Plan struct {
	mu       sync.Mutex
	rules    []*rule
	calls    [numCalls]int
	faults   [numCalls]int
	injected []Injection

	// holdMu guards the hold, the devices and their held submissions, and
	// the resolution of held fences. It is never taken before a device's
	// lossMu.
	holdMu  sync.Mutex
	holding bool
	devices []*device
	timer   *time.Timer

	ticks atomic.Uint64 // ScaleTimestamps's factor; 0 or 1 is none
}

// NewPlan returns a plan with no rules: devices wrapped with it behave as
// the devices they wrap, and their calls are counted.
func NewPlan() *Plan { return &Plan{} }

// ScaleTimestamps makes the devices of the plan report a timestamp period
// m times shorter than their own, and counter readings (Ticks) m times
// larger: the same times, told in another unit, as a GPU whose period is
// not 1 ns tells them. Elapsed converts the scaled readings with the
// reported period (hal.TickDuration), so a conversion that leaves the
// period out reports m times the time. m of 0 or 1 turns it off.
func (p *Plan) ScaleTimestamps(m uint32) { p.ticks.Store(uint64(m)) }

// Add adds a rule. It panics if the rule can never take a call (no Nth and
// no Rate), if Nth or Rate is out of range, or if it names Release or
// None, or names a call other than Submit with FailAsync.
func (p *Plan) Add(r Rule) {
	x := &rule{Rule: r}
	switch {
	case r.Nth < 0:
		panic("faulty: Rule.Nth is negative")
	case r.Nth == 0 && !(r.Rate > 0 && r.Rate <= 1):
		panic("faulty: a Rule needs Nth > 0 or a Rate in (0, 1]")
	case r.Effect > Corrupt:
		panic("faulty: unknown " + r.Effect.String())
	case (r.Effect == NoTick || r.Effect == Slow) && !slices.Equal(r.Calls, []Call{Elapsed}):
		panic("faulty: " + r.Effect.String() + " applies to Elapsed alone")
	case r.Effect == Corrupt && !slices.Equal(r.Calls, []Call{BufferRead}):
		panic("faulty: corrupt applies to BufferRead alone")
	case r.Effect == Slow && !(r.Factor > 0):
		panic("faulty: Slow needs a positive Factor")
	}
	calls := r.Calls
	if len(calls) == 0 {
		calls = Calls()
		if r.Effect == FailAsync {
			calls = []Call{Submit}
		}
	}
	for _, c := range calls {
		switch {
		case c == None || c == Release || c >= numCalls:
			panic("faulty: a Rule cannot make " + c.String() + " fail")
		case r.Effect == FailAsync && c != Submit:
			panic("faulty: FailAsync applies to Submit only, not " + c.String())
		}
		x.kinds[c] = true
	}
	if r.Nth == 0 {
		x.rng = rand.New(rand.NewPCG(r.Seed, r.Seed^0x9e3779b97f4a7c15))
	}
	if x.Code == status.OK {
		x.Code = status.Internal
	}
	p.mu.Lock()
	p.rules = append(p.rules, x)
	p.mu.Unlock()
}

// FailNth makes the nth call of kind call from now fail at once with code
// (Internal if 0).
func (p *Plan) FailNth(call Call, n int, code status.Code) {
	p.Add(Rule{Calls: []Call{call}, Nth: n, Code: code})
}

// FailRate makes each call of the given kinds (every kind but Release if
// none is given) fail at once with probability rate, drawn from a PCG
// generator seeded with seed.
func (p *Plan) FailRate(rate float64, seed uint64, code status.Code, calls ...Call) {
	p.Add(Rule{Calls: calls, Rate: rate, Seed: seed, Code: code})
}

// FailAsync makes the nth submission from now fail asynchronously with
// code (Internal if 0): it runs, and its fence reports the error.
func (p *Plan) FailAsync(n int, code status.Code) {
	p.Add(Rule{Calls: []Call{Submit}, Nth: n, Effect: FailAsync, Code: code})
}

// NoTickAt makes the nth Elapsed from now report that the GPU timer did
// not tick (hal.ErrNoTick).
func (p *Plan) NoTickAt(n int) {
	p.Add(Rule{Calls: []Call{Elapsed}, Nth: n, Effect: NoTick})
}

// SlowFromNow makes every Elapsed from now on report its time multiplied
// by factor: the device drifts, say, to a quarter of its speed (factor 4)
// in the middle of a measurement.
func (p *Plan) SlowFromNow(factor float64) {
	p.Add(Rule{Calls: []Call{Elapsed}, Rate: 1, Effect: Slow, Factor: factor})
}

// CorruptRead makes the nth BufferRead from now return the buffer's
// contents with every bit flipped: what a wrong kernel's output reads as.
func (p *Plan) CorruptRead(n int) {
	p.Add(Rule{Calls: []Call{BufferRead}, Nth: n, Effect: Corrupt})
}

// LoseAt loses the device at the nth call of kind call from now. At Wait
// or Poll this is how a real driver reports a loss.
func (p *Plan) LoseAt(call Call, n int) {
	p.Add(Rule{Calls: []Call{call}, Nth: n, Effect: Lose, Code: status.DataLoss})
}

// LoseNow loses every device wrapped with the plan, now, whatever is in
// flight or held. It returns once each device is lost.
func (p *Plan) LoseNow() {
	p.holdMu.Lock()
	devices := slices.Clone(p.devices)
	p.holdMu.Unlock()
	if len(devices) == 0 {
		return
	}
	cause := status.Wrap(ErrInjected, status.DataLoss, "faulty: injected device loss (Plan.LoseNow)")
	p.record(Injection{Call: None, Effect: Lose, Err: cause})
	for _, d := range devices {
		d.lose(cause)
	}
}

// LoseAfter calls LoseNow after d, on a timer that is stopped when the
// last device wrapped with the plan is released or LoseAfter is called
// again.
func (p *Plan) LoseAfter(d time.Duration) {
	p.holdMu.Lock()
	defer p.holdMu.Unlock()
	if p.timer != nil {
		p.timer.Stop()
	}
	p.timer = time.AfterFunc(d, p.LoseNow)
}

// Hold makes later submissions stay in the wrapper instead of reaching the
// wrapped queue, until Release (see Holding in the package documentation).
func (p *Plan) Hold() {
	p.holdMu.Lock()
	p.holding = true
	p.holdMu.Unlock()
}

// Release ends the hold and lets the held submissions through to their
// wrapped devices, in the order they were made, before it returns.
func (p *Plan) Release() {
	p.holdMu.Lock()
	defer p.holdMu.Unlock()
	p.holding = false
	for _, d := range p.devices {
		subs := d.held
		d.held = nil
		for _, s := range subs {
			d.forwardLocked(s)
		}
	}
}

// Held returns how many submissions are held now.
func (p *Plan) Held() int {
	p.holdMu.Lock()
	defer p.holdMu.Unlock()
	n := 0
	for _, d := range p.devices {
		n += len(d.held)
	}
	return n
}

// Calls returns how many calls of kind c the plan's devices received,
// those that failed included.
func (p *Plan) Calls(c Call) int { return p.count(&p.calls, c) }

// Faults returns how many faults were injected at calls of kind c (None
// counts the losses of LoseNow and LoseAfter).
func (p *Plan) Faults(c Call) int { return p.count(&p.faults, c) }

// count reads the counter of c in counts, one of the plan's; 0 for a Call
// that is none of the calls.
func (p *Plan) count(counts *[numCalls]int, c Call) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c >= numCalls {
		return 0
	}
	return counts[c]
}

// Injected returns every fault injected so far, in order.
func (p *Plan) Injected() []Injection {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.injected)
}

func (p *Plan) record(in Injection) {
	p.mu.Lock()
	p.faults[in.Call]++
	p.injected = append(p.injected, in)
	p.mu.Unlock()
}

// decide counts a call of kind c and chooses its fault, if any. On a lost
// device (quiet) nothing is injected.
func (p *Plan) decide(c Call, quiet bool) fault {
	p.mu.Lock()
	p.calls[c]++
	n := p.calls[c]
	var taken *rule
	if !quiet && c != Release {
		// Every rule sees the call, so that its count and its random draws
		// do not depend on the other rules.
		for _, r := range p.rules {
			if !r.kinds[c] || (r.Nth > 0 && r.seen >= r.Nth) {
				continue
			}
			r.seen++
			if r.Nth > 0 && r.seen == r.Nth || r.Nth == 0 && r.rng.Float64() < r.Rate {
				taken = cmp.Or(taken, r)
			}
		}
	}
	p.mu.Unlock()
	f := fault{n: n}
	if taken == nil {
		return f
	}
	switch taken.Effect {
	case Fail:
		f.err = status.Wrapf(ErrInjected, taken.Code, "faulty: injected failure of %s call %d", c, n)
	case FailAsync:
		f.async = status.Wrapf(ErrInjected, taken.Code, "faulty: injected asynchronous failure of submission %d", n)
	case Lose:
		f.lost = status.Wrapf(ErrInjected, taken.Code, "faulty: injected device loss at %s call %d", c, n)
	case NoTick:
		f.err = status.Join(status.Wrapf(hal.ErrNoTick, status.OK, "faulty: injected: the timer did not tick at Elapsed call %d", n), ErrInjected)
	case Slow:
		f.slow = taken.Factor
	case Corrupt:
		f.corrupt = true
	}
	p.record(Injection{Call: c, N: n, Effect: taken.Effect, Err: cmp.Or(f.err, f.async, f.lost)})
	return f
}

// detach removes d from the devices of the plan, and stops LoseAfter's
// timer when none is left. holdMu must be held.
func (p *Plan) detachLocked(d *device) {
	p.devices = slices.DeleteFunc(p.devices, func(x *device) bool { return x == d })
	if len(p.devices) == 0 && p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
}
