package haltest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// inFlightJob is how long the spin job lasts that keeps a submission in
// flight while the ownership properties release what it uses: long enough
// that a Release which waited for the GPU would show, short enough for
// lavapipe.
const inFlightJob = 400 * time.Millisecond

// ownedRun is a submission that uses one object of every kind: a spin job
// first, then an add whose output is copied into a buffer that the test
// keeps, between two timestamps.
type ownedRun struct {
	job  *spinJob
	add  *addCase
	x    hal.Executable
	pool hal.TimestampPool // nil without timestamps
	cb   hal.CommandBuffer
	keep hal.Buffer
}

// newOwnedRun records an ownedRun with inputs in memory mem.
func (e *env) newOwnedRun(rng *rand.Rand, mem hal.MemoryKind) *ownedRun {
	e.Helper()
	r := &ownedRun{
		job: e.newSpinJob(inFlightJob),
		add: e.newAddCase(rng, 1000, mem),
		x:   e.executable(kernelAdd),
		cb:  e.commandBuffer(),
	}
	r.keep = e.buffer(r.add.c.Size(), hal.HostVisible)
	if e.info.Limits.TimestampValidBits > 0 {
		r.pool = e.timestampPool(2)
	}
	e.record(r.cb, func() {
		r.job.record(e, r.cb)
		e.barrier(r.cb)
		e.stamped(r.cb, r.pool, r.add.dispatch(r.x))
		e.barrier(r.cb)
		e.must("Copy", r.cb.Copy(r.add.c, 0, r.keep, 0, r.add.c.Size()))
	})
	return r
}

// used are the objects the submission uses, but the buffer it leaves its
// result in.
func (r *ownedRun) used() []object {
	objs := []object{
		{"spin Executable", r.job.x}, {"spin output Buffer", r.job.out},
		{"add Executable", r.x}, {"Buffer a", r.add.a}, {"Buffer b", r.add.b}, {"Buffer c", r.add.c},
		{"CommandBuffer", r.cb},
	}
	if r.pool != nil {
		objs = append(objs, object{"TimestampPool", r.pool})
	}
	return objs
}

// releaseUnwaited releases objs, which a submission uses that nobody has
// waited for: each must return nil, and Release must not wait for the GPU.
// That it did not is shown by the submission, f, still running after the
// releases; where it has ended (or has not been submitted, f nil), by the
// releases taking well under the job's time: a busy host can stretch a
// Release, not a GPU's work.
func releaseUnwaited(e *env, objs []object, f hal.Fence) {
	e.Helper()
	t0 := time.Now()
	for _, o := range objs {
		if err := o.r.Release(); err != nil {
			e.Errorf("%s.Release of an object a submission uses: %v", o.name, err)
		}
	}
	d := time.Since(t0)
	if f != nil {
		if done, _ := f.Poll(); !done {
			return
		}
	}
	if d > inFlightJob/2 {
		e.Errorf("releasing the objects of a submission took %v; Release must not wait for the GPU (the job lasts %v)", d, inFlightJob)
	}
}

func testReleaseAfterSubmit(e *env) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, mem := range memoryKinds {
		r := e.newOwnedRun(rng, mem)
		f := e.submit(r.cb)
		releaseUnwaited(e, r.used(), f)
		if done, err := f.Poll(); done {
			e.Logf("warning: the submission was done (%v) before its objects were released; the property was not tested in %v memory", err, mem)
		}
		e.wait(f, fmt.Sprintf("the submission whose objects were released (%v)", mem))
		check(e, fmt.Sprintf("add with every object released after Submit (%v)", mem), e.readWords(r.keep), r.add.want, 0)
		wantDone(e, "the submission, waited for", f)
	}
}

func testReleaseWhileWaiting(e *env) {
	rng := rand.New(rand.NewPCG(33, 34))
	r := e.newOwnedRun(rng, hal.DeviceLocal)
	f := e.submit(r.cb)
	waited := make(chan error, 1)
	go func() { waited <- f.Wait(e.ctx) }()
	releaseUnwaited(e, r.used(), f)
	e.must("Wait while another goroutine released what the submission uses", <-waited)
	check(e, "add whose objects were released during the Wait", e.readWords(r.keep), r.add.want, 0)
}

// testWaitInterrupted interrupts Waits at random moments. On a busy host a
// timer can fire after a 20 ms job has ended, which tests nothing: the job
// then grows, so that what is tested does not depend on how busy the host
// is.
func testWaitInterrupted(e *env) {
	const rounds, most = 50, 400
	length := 20 * time.Millisecond
	var cb hal.CommandBuffer
	var job *spinJob
	prepare := func() {
		job = e.newSpinJob(length)
		cb = e.commandBuffer()
		e.record(cb, func() { job.record(e, cb) })
	}
	prepare()
	rng := rand.New(rand.NewPCG(35, 36))
	hits := map[bool]int{}
	misses := 0
	for i := 0; i < most && (hits[false] < rounds/2 || hits[true] < rounds/2 || i < 2*rounds); i++ {
		deadline := i%2 == 1
		f := e.submit(cb)
		delay := time.Duration(rng.Int64N(int64(length / 2)))
		var ctx context.Context
		var cancel context.CancelFunc
		if deadline {
			ctx, cancel = context.WithTimeout(e.ctx, delay)
		} else {
			ctx, cancel = context.WithCancel(e.ctx)
			time.AfterFunc(delay, cancel)
		}
		err := f.Wait(ctx)
		cause := ctx.Err()
		cancel()
		if err != nil {
			hits[deadline]++
			code, what := status.Cancelled, "a Wait cancelled"
			if deadline {
				code, what = status.DeadlineExceeded, "a Wait past its deadline"
			}
			if cause == nil {
				e.Errorf("round %d: %s returned %v while its context was not done yet", i, what, err)
			} else if !errors.Is(err, cause) {
				e.Errorf("round %d: %s returned %v, which does not match the context's error %v", i, what, err, cause)
			}
			wantCode(e, fmt.Sprintf("round %d: %s", i, what), err, code, nil)
		} else if misses++; misses%10 == 0 && length < 640*time.Millisecond {
			length *= 2
			e.Logf("round %d: %d Waits ended before their interruption; the job now lasts about %v", i, misses, length)
			prepare()
		}
		if err := f.Wait(e.ctx); err != nil {
			e.Fatalf("round %d: the Wait after an interrupted one: %v", i, err)
		}
		if err := f.Release(); err != nil {
			e.Errorf("round %d: Fence.Release: %v", i, err)
		}
	}
	for _, deadline := range []bool{false, true} {
		if hits[deadline] < rounds/2 {
			e.Errorf("only %d Waits (deadline %v) ended before the job (now about %v); the property was barely tested", hits[deadline], deadline, length)
		}
	}
}

func testCloseRacing(e *env) {
	const (
		rounds  = 50
		workers = 8
	)
	rng := rand.New(rand.NewPCG(37, 38))
	var calls int64
	defer func() { e.Logf("%d rounds: %d calls succeeded before the device was released", rounds, calls) }()
	for round := range rounds {
		re := e.other()
		dev := re.dev
		w := &racer{e: re, x: re.executable(kernelAdd)}
		for g := range workers {
			w.bufs = append(w.bufs, re.buffer(4*raceWords, memoryKinds[g%2]))
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for g := range workers {
			wg.Go(func() {
				<-start
				w.work(g)
			})
		}
		close(start)
		time.Sleep(time.Duration(rng.Int64N(int64(5 * time.Millisecond))))
		releaseWithin(e, time.Minute, fmt.Sprintf("round %d: Device.Release racing %d goroutines", round, workers), dev)
		wg.Wait()
		calls += w.calls.Load()
		wantReleased(e, fmt.Sprintf("round %d: Err after Release", round), dev.Err())
		if e.Failed() {
			e.Fatalf("round %d of %d failed; %d calls had succeeded", round, rounds, w.calls.Load())
		}
	}
}

// racer is what testCloseRacing's goroutines share on one device.
type racer struct {
	e     *env
	x     hal.Executable
	bufs  []hal.Buffer // one per goroutine, alternating memory kinds
	calls atomic.Int64 // calls that succeeded
}

const raceWords = 256

// work repeats goroutine g's kind of call until one fails, which must be
// with hal.ErrReleased.
func (w *racer) work(g int) {
	calls := []func(int) error{w.upload, w.write, w.read, w.run, w.build}
	call := calls[g%len(calls)]
	for {
		err := call(g)
		if err == nil {
			w.calls.Add(1)
			continue
		}
		if !errors.Is(err, hal.ErrReleased) || status.CodeOf(err) != status.FailedPrecondition {
			w.e.Errorf("goroutine %d: a call racing Device.Release failed with %v (code %v); want hal.ErrReleased", g, err, status.CodeOf(err))
		}
		return
	}
}

func (w *racer) upload(g int) error {
	b, err := w.e.dev.CreateBuffer(hal.BufferDesc{Size: 4 * raceWords, Memory: memoryKinds[g%2], Label: "upload"})
	if err != nil {
		return err
	}
	err = b.Write(w.e.ctx, 0, words(repeat(uint32(g), raceWords)...))
	return status.Join(err, b.Release())
}

func (w *racer) write(g int) error {
	return w.bufs[g].Write(w.e.ctx, 0, words(repeat(uint32(g), raceWords)...))
}

func (w *racer) read(g int) error {
	return w.bufs[g].Read(w.e.ctx, 0, make([]byte, 4*raceWords))
}

// run adds the goroutine's buffer to itself, in place of all three
// operands: what it computes does not matter, only that it runs.
func (w *racer) run(g int) error {
	cb, err := w.e.dev.CreateCommandBuffer()
	if err != nil {
		return err
	}
	defer func() { _ = cb.Release() }()
	b := w.bufs[g]
	return runDispatch(w.e, cb, (&addCase{n: raceWords, a: b, b: b, c: b}).dispatch(w.x))
}

func (w *racer) build(int) error {
	x, err := w.e.dev.CreateExecutable(kernelAdd.desc())
	if err != nil {
		return err
	}
	return x.Release()
}
