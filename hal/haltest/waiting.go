package haltest

import (
	"context"
	"fmt"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

func testWaitContext(e *env) {
	job := e.newSpinJob(time.Second)
	cb := e.recorded(func(cb hal.CommandBuffer) { job.record(e, cb) })
	start := time.Now()
	f := e.submit(cb)
	if done, err := f.Poll(); done {
		e.Fatalf("Poll right after submitting %v = done (%v), want not done", job, err)
	}

	// promptly bounds how late a Wait whose context is done may return:
	// long enough for a busy host, far shorter than the job.
	const promptly = 200 * time.Millisecond
	cancelled, cancel := context.WithCancel(e.ctx)
	cancel()
	expired, cancel := context.WithDeadline(e.ctx, time.Now().Add(-time.Second))
	defer cancel()
	for _, c := range []struct {
		what string
		ctx  context.Context
		code status.Code
	}{
		{"Wait with a cancelled context", cancelled, status.Cancelled},
		{"Wait with an expired deadline", expired, status.DeadlineExceeded},
	} {
		t0 := time.Now()
		wantCode(e, c.what, f.Wait(c.ctx), c.code, nil)
		if d := time.Since(t0); d > promptly {
			e.Errorf("%s took %v", c.what, d)
		}
	}

	const deadline = 20 * time.Millisecond
	t0 := time.Now()
	short, cancel := context.WithTimeout(e.ctx, deadline)
	defer cancel()
	// A plain timer of the same deadline beside the Wait: how late the
	// host runs it is what a busy machine adds (252 ms once, at a load
	// of 20 on two cores), which the Wait may add too.
	control := make(chan time.Duration, 1)
	go func() {
		<-time.After(deadline)
		control <- time.Since(t0)
	}()
	err := f.Wait(short)
	d := time.Since(t0)
	late := <-control - deadline
	wantCode(e, fmt.Sprintf("Wait with a %v deadline on %v", deadline, job), err, status.DeadlineExceeded, nil)
	if d > deadline+promptly+late {
		e.Errorf("Wait with a %v deadline returned after %v (a plain timer beside it ran %v late)", deadline, d, late)
	}
	if done, err := f.Poll(); done {
		e.Errorf("Poll after a Wait that timed out = done (%v) %v after submitting %v; want still in flight",
			err, time.Since(start), job)
	}

	e.wait(f, "Wait after Waits that gave up")
	e.Logf("%v took %v (host time)", job, time.Since(start))
	wantDone(e, "the submission, waited for", f)
	e.wait(f, "a second Wait after completion")
	checkSpin(e, job.out, job.iters)
}

func testManySubmissions(e *env) {
	const (
		count = 200
		n     = 50 // words each submission writes
		local = 64
	)
	x := e.executable(kernelFillIota, hal.Constant{ID: 0, Value: local}, hal.Constant{ID: 1, Value: 7})
	stride := alignUp(4*n, int64(e.info.Limits.MinStorageBufferAlign))
	out := e.bufferOf(hal.HostVisible, repeat(sentinel, int(count*stride/4)))
	fences := make([]hal.Fence, count)
	for i := range count {
		cb := e.recorded(func(cb hal.CommandBuffer) {
			e.dispatch(cb, hal.Dispatch{
				Executable:    x,
				Bindings:      []hal.Binding{{Buffer: out, Offset: int64(i) * stride, Size: 4 * n}},
				PushConstants: words(uint32(1000*i), n),
				Groups:        groupsFor(n, local),
			})
		})
		fences[i] = e.submit(cb)
	}
	// Poll them all, then wait from the last to the first.
	for _, f := range fences {
		if _, err := f.Poll(); err != nil {
			e.Errorf("Poll: %v", err)
		}
	}
	for i := count - 1; i >= 0; i-- {
		e.wait(fences[i], fmt.Sprintf("submission %d of %d", i, count))
	}
	got := e.readWords(out)
	for i := range count {
		want := repeat(sentinel, int(stride/4))
		for j := range n {
			want[j] = uint32(j)*7 + uint32(1000*i)
		}
		check(e, fmt.Sprintf("submission %d of %d", i, count), got[int64(i)*stride/4:int64(i+1)*stride/4], want, 0)
	}
	for i, f := range fences {
		wantDone(e, fmt.Sprintf("submission %d, waited for", i), f)
	}
}

func testSubmissionChain(e *env) {
	const (
		steps = 50
		n     = 300
	)
	x := e.executable(kernelInc)
	buf := e.bufferOf(hal.DeviceLocal, repeat(1, n))
	want := uint32(1)
	var fences []hal.Fence
	for k := range steps {
		cb := e.recorded(func(cb hal.CommandBuffer) {
			e.dispatch(cb, hal.Dispatch{
				Executable:    x,
				Bindings:      []hal.Binding{{Buffer: buf}},
				PushConstants: words(uint32(k), n),
				Groups:        groupsFor(n, kernelInc.local),
			})
		})
		// Each waits on the one before it, the first on none.
		fences = append(fences, e.submit(cb, fences[max(0, k-1):]...))
		want = want*3 + uint32(k)
	}
	// A copy that waits on every fence of the chain.
	out := e.bufferOf(hal.HostVisible, repeat(sentinel, n))
	cb := e.recorded(func(cb hal.CommandBuffer) { e.must("Copy", cb.Copy(buf, 0, out, 0, 4*n)) })
	last := e.submit(cb, fences...)
	e.wait(last, "a copy waiting on every step of the chain")
	for i, f := range fences {
		wantDone(e, fmt.Sprintf("step %d, which a completed submission waited on", i), f)
	}
	check(e, fmt.Sprintf("x = x*3 + k for k in 0..%d, in order", steps-1), e.readWords(out), repeat(want, n), 0)
}
