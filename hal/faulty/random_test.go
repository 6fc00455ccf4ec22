package faulty_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/status"
)

// Codes of the random faults, different so that an error tells which rule
// made it.
const (
	randomSyncCode  = status.Aborted
	randomAsyncCode = status.Unavailable
)

// TestRandomFaults runs 200 mixed operations while every kind of call
// fails at a seeded random rate and some submissions fail asynchronously.
// Every error must be an injected one or one of its documented
// consequences (a submission that waited on a failed one), every injected
// fault must surface exactly where it was injected, and every operation
// that did not fail must compute correctly.
func TestRandomFaults(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			testRandomFaults(t, seed)
		})
	}
}

func testRandomFaults(t *testing.T, seed uint64) {
	drv := openDriver(t)
	plan := faulty.NewPlan()
	x := &randomRun{rig: newRig(t, drv, plan), seen: map[error]bool{}}
	const n, jobs, ops = 1024, 4, 200

	plan.FailRate(0.07, seed, randomSyncCode)
	plan.Add(faulty.Rule{Calls: []faulty.Call{faulty.Submit}, Rate: 0.15, Seed: seed + 100, Effect: faulty.FailAsync, Code: randomAsyncCode})

	var js []*job
	for i := range jobs {
		js = append(js, x.job(n, uint64(i)))
	}
	pool := x.timestampPool()
	rng := rand.New(rand.NewPCG(seed, 7))
	done := map[string]int{}
	failed := 0
	for op := range ops {
		what := fmt.Sprintf("operation %d", op)
		j := js[rng.IntN(len(js))]
		switch k := rng.IntN(5); k {
		case 0, 1: // a dispatch on new inputs
			x.setInputs(j, rng.Uint64())
			x.record(j)
			if x.execute(what, j.cb) {
				failed++
				continue
			}
			x.check(what, j)
			done["dispatch"]++
		case 2: // two dispatches, the second waiting on the first
			j2 := js[(indexOf(js, j)+1)%len(js)]
			x.setInputs(j, rng.Uint64())
			x.setInputs(j2, rng.Uint64())
			x.record(j)
			x.record(j2)
			f1 := x.submit(what+" first", j.cb)
			f2 := x.submit(what+" second", j2.cb, f1.fence)
			err1 := x.waitFor(what+" first", f1, nil)
			err2 := x.waitFor(what+" second", f2, err1)
			if err1 == nil {
				x.check(what+" first", j)
			}
			if err2 == nil {
				x.check(what+" second", j2)
			}
			if err1 != nil || err2 != nil {
				failed++
				continue
			}
			done["chain"]++
		case 3: // a fill and a copy, timed
			other := js[(indexOf(js, j)+1)%len(js)]
			v := rng.Uint32()
			x.recordSteps(j.cb,
				func() error { return j.cb.Timestamp(pool, 0) },
				func() error { return j.cb.Fill(j.out, 0, 4*n, v) },
				j.cb.Barrier,
				func() error { return j.cb.Copy(j.out, 0, other.out, 0, 4*n) },
				func() error { return j.cb.Timestamp(pool, 1) },
			)
			if x.execute(what, j.cb) {
				failed++
				continue
			}
			if d := wordsDiff(filled(n, v), x.read(other.out)); d != "" {
				t.Errorf("%s: fill and copy (-want +got):\n%s", what, d)
			}
			x.must(what+": Elapsed", x.try(func() error {
				d, err := pool.Elapsed(0, 1)
				if err == nil && d <= 0 {
					t.Errorf("%s: Elapsed = %v", what, d)
				}
				return err
			}))
			x.must(what+": Ticks", x.try(func() error { _, err := pool.Ticks(0, 2); return err }))
			done["fill+copy"]++
		case 4: // a buffer's whole life
			b := x.createBuffer(n, hal.MemoryKind(rng.IntN(2)), false)
			data := randomWords(rng.Uint64(), n)
			x.must(what+": Write", x.try(func() error { return b.Write(x.ctx, 0, bytesOf(data)) }))
			got := make([]byte, 4*n)
			x.must(what+": Read", x.try(func() error { return b.Read(x.ctx, 0, got) }))
			if d := wordsDiff(data, wordsOf(got)); d != "" {
				t.Errorf("%s: buffer read back (-want +got):\n%s", what, d)
			}
			x.must(what+": Release", b.Release())
			done["buffer"]++
		}
	}
	if err := x.dev.Err(); err != nil {
		t.Errorf("device Err after the random faults: %v", err)
	}
	// Every injected fault surfaced, where it was injected.
	injected := plan.Injected()
	byKind := map[string]int{}
	for _, in := range injected {
		byKind[in.Call.String()+"/"+in.Effect.String()]++
		if !x.seen[in.Err] {
			t.Errorf("injected fault %v (%s call %d) never surfaced", in.Err, in.Call, in.N)
		}
	}
	if len(injected) < 20 {
		t.Errorf("only %d faults injected in %d operations: the test tests little", len(injected), ops)
	}
	t.Logf("seed %d: %d operations done %v, %d failed asynchronously; %d faults injected: %v", seed, ops, done, failed, len(injected), byKind)
}

func indexOf(js []*job, j *job) int {
	for i, x := range js {
		if x == j {
			return i
		}
	}
	return -1
}

// randomRun runs operations through faults injected at random: each call
// is retried while it fails by injection, and every error is accounted for.
type randomRun struct {
	*rig
	seen map[error]bool // the injected errors that surfaced
}

// injection returns the injection that made err, if err is one.
func (x *randomRun) injection(err error) (faulty.Injection, bool) {
	for _, in := range x.plan.Injected() {
		if in.Err == err {
			return in, true
		}
	}
	return faulty.Injection{}, false
}

// try calls f until it returns anything but a synchronous injected
// failure, and returns that.
func (x *randomRun) try(f func() error) error {
	x.t.Helper()
	for range 1000 {
		err := f()
		if err == nil {
			return nil
		}
		in, ok := x.injection(err)
		if !ok || in.Effect != faulty.Fail {
			return err
		}
		if x.seen[err] {
			x.t.Errorf("injected failure %v surfaced twice", err)
		}
		x.seen[err] = true
		if c := status.CodeOf(err); c != randomSyncCode {
			x.t.Errorf("injected failure %v has code %v, want %v", err, c, randomSyncCode)
		}
	}
	x.t.Fatal("a call failed by injection 1000 times in a row")
	return nil
}

// must fails the test at once on an error that is not accounted for.
func (x *randomRun) must(what string, err error) {
	x.t.Helper()
	if err != nil {
		x.t.Fatalf("%s: unexpected error %v", what, err)
	}
}

func (x *randomRun) job(n int, seed uint64) *job {
	j := &job{n: n}
	j.a = x.createBuffer(n, hal.HostVisible, true)
	j.b = x.createBuffer(n, hal.DeviceLocal, true)
	j.out = x.createBuffer(n, hal.HostVisible, true)
	var err error
	x.must("CreateCommandBuffer", x.try(func() error { j.cb, err = x.dev.CreateCommandBuffer(); return err }))
	x.cleanup("command buffer", j.cb.Release)
	x.setInputs(j, seed)
	x.record(j)
	return j
}

// createBuffer creates a buffer, released when the test ends if keep.
func (x *randomRun) createBuffer(words int, mem hal.MemoryKind, keep bool) hal.Buffer {
	var b hal.Buffer
	var err error
	x.must("CreateBuffer", x.try(func() error {
		b, err = x.dev.CreateBuffer(hal.BufferDesc{Size: int64(4 * words), Memory: mem})
		return err
	}))
	if keep {
		x.cleanup("buffer", b.Release)
	}
	return b
}

func (x *randomRun) timestampPool() hal.TimestampPool {
	var p hal.TimestampPool
	var err error
	x.must("CreateTimestampPool", x.try(func() error { p, err = x.dev.CreateTimestampPool(2); return err }))
	x.cleanup("timestamp pool", p.Release)
	return p
}

func (x *randomRun) setInputs(j *job, seed uint64) {
	a, b := randomWords(seed, j.n), randomWords(seed+1, j.n)
	x.must("Write", x.try(func() error { return j.a.Write(x.ctx, 0, bytesOf(a)) }))
	x.must("Write", x.try(func() error { return j.b.Write(x.ctx, 0, bytesOf(b)) }))
	j.want = expected(a, b, j.reps)
}

// record records j's dispatch, retrying each step that fails by injection.
func (x *randomRun) record(j *job) {
	x.recordSteps(j.cb, func() error { return j.cb.Dispatch(j.dispatch(x.exe)) })
}

func (x *randomRun) recordSteps(cb hal.CommandBuffer, steps ...func() error) {
	x.must("Begin", x.try(cb.Begin))
	for _, step := range steps {
		x.must("recording", x.try(step))
	}
	x.must("End", x.try(cb.End))
}

func (x *randomRun) submit(what string, cb hal.CommandBuffer, wait ...hal.Fence) *submission {
	x.t.Helper()
	var f hal.Fence
	before := len(x.plan.Injected())
	x.must(what+": Submit", x.try(func() error {
		var err error
		f, err = x.dev.Submit(cb, wait...)
		return err
	}))
	x.cleanup("fence", f.Release)
	s := &submission{fence: f}
	for _, in := range x.plan.Injected()[before:] {
		if in.Effect == faulty.FailAsync {
			s.injected = in.Err
		}
	}
	return s
}

// submission is a fence and the asynchronous failure injected into its
// submission, if any.
type submission struct {
	fence    hal.Fence
	injected error
}

// waitFor waits for s, polling first, and accounts for its error: its own
// injected asynchronous failure, or, if it waited on a submission that
// failed with cause, a failure naming the first injected failure (which
// then supersedes its own). It returns the error.
func (x *randomRun) waitFor(what string, s *submission, cause error) error {
	x.t.Helper()
	f := s.fence
	var polled error
	x.must(what+": Poll", x.try(func() error {
		_, err := f.Poll()
		if err != nil && status.CodeOf(err) == randomAsyncCode {
			polled = err // the submission's failure, seen early
			return nil
		}
		return err
	}))
	err := x.try(func() error { return x.wait(f) })
	if polled != nil && err != polled {
		x.t.Errorf("%s: Poll said %v, Wait %v", what, polled, err)
	}
	switch {
	case cause != nil:
		if s.injected != nil {
			x.seen[s.injected] = true // superseded by the failure it waited on
		}
		if !errors.Is(err, rootOf(x, cause)) {
			x.t.Errorf("%s: error %v does not name %v, the failure it waited on", what, err, rootOf(x, cause))
		}
	case s.injected != nil:
		if err != s.injected {
			x.t.Errorf("%s: error %v, want its injected failure %v", what, err, s.injected)
		}
		x.seen[s.injected] = true
	case err != nil:
		x.t.Errorf("%s: unexpected error %v", what, err)
	}
	if err != nil && status.CodeOf(err) != randomAsyncCode {
		x.t.Errorf("%s: %v has code %v, want %v", what, err, status.CodeOf(err), randomAsyncCode)
	}
	return err
}

// rootOf returns the injected asynchronous failure that err names.
func rootOf(x *randomRun, err error) error {
	for _, in := range x.plan.Injected() {
		if in.Effect == faulty.FailAsync && errors.Is(err, in.Err) {
			return in.Err
		}
	}
	return err
}

// execute submits cb, waits and reports whether the submission failed (by
// an injected asynchronous failure, checked).
func (x *randomRun) execute(what string, cb hal.CommandBuffer) bool {
	x.t.Helper()
	return x.waitFor(what, x.submit(what, cb), nil) != nil
}

// read reads a buffer, retrying while that fails by injection.
func (x *randomRun) read(b hal.Buffer) []uint32 {
	x.t.Helper()
	dst := make([]byte, b.Size())
	x.must("Read", x.try(func() error { return b.Read(x.ctx, 0, dst) }))
	return wordsOf(dst)
}

// check compares j's output with what it must be.
func (x *randomRun) check(what string, j *job) {
	x.t.Helper()
	if d := wordsDiff(j.want, x.read(j.out)); d != "" {
		x.t.Errorf("%s: output differs (-want +got):\n%s", what, d)
	}
}
