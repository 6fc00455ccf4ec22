package haltest

import (
	"fmt"
	"sync"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// testConcurrency: goroutines sharing one device, each with its own
// command buffer and buffer, record, submit, wait and read back, while
// another creates and releases objects and reads the device's info.
func testConcurrency(e *env) {
	const (
		workers = 4
		rounds  = 15
		n       = 500
		local   = 64
	)
	x := e.executable(kernelFillIota, hal.Constant{ID: 0, Value: local}, hal.Constant{ID: 1, Value: 3})
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			if err := fillRounds(e, x, g, rounds, n, local); err != nil {
				e.Errorf("goroutine %d: %v", g, err)
			}
		})
	}
	wg.Go(func() {
		for i := range 3 * rounds {
			if e.dev.Info().Name == "" {
				e.Error("Info().Name is empty")
			}
			b, err := e.dev.CreateBuffer(hal.BufferDesc{Size: int64(64 + 4*i), Memory: memoryKinds[i%2]})
			if err != nil {
				e.Errorf("CreateBuffer: %v", err)
				return
			}
			if err := status.Join(b.Write(e.ctx, 0, make([]byte, 64)), b.Release()); err != nil {
				e.Errorf("Buffer.Write and Release: %v", err)
			}
			if i%5 == 0 {
				x, err := e.dev.CreateExecutable(hal.ExecutableDesc{SPIRV: kernelEmpty.spirv})
				if err != nil {
					e.Errorf("CreateExecutable: %v", err)
					return
				}
				if err := x.Release(); err != nil {
					e.Errorf("Executable.Release: %v", err)
				}
			}
		}
	})
	wg.Wait()
}

// fillRounds runs rounds of fill_iota on its own command buffer and
// buffer, checking each.
func fillRounds(e *env, x hal.Executable, g, rounds, n, local int) (err error) {
	cb, err := e.dev.CreateCommandBuffer()
	if err != nil {
		return fmt.Errorf("CreateCommandBuffer: %w", err)
	}
	buf, err := e.dev.CreateBuffer(hal.BufferDesc{Size: int64(4 * n), Memory: memoryKinds[g%2]})
	if err != nil {
		return status.Join(fmt.Errorf("CreateBuffer: %w", err), cb.Release())
	}
	defer func() { err = status.Join(err, cb.Release(), buf.Release()) }()
	got := make([]byte, 4*n)
	c := &fillCase{n: n, local: local, out: buf}
	for r := range rounds {
		add := uint32(g<<16 | r)
		if err := runDispatch(e, cb, c.dispatch(x, add)); err != nil {
			return fmt.Errorf("round %d: %w", r, err)
		}
		if err := buf.Read(e.ctx, 0, got); err != nil {
			return fmt.Errorf("round %d: Read: %w", r, err)
		}
		if d := diffElems(unpack[uint32](got), c.want(3, add), 0); d != "" {
			return fmt.Errorf("round %d: fill_iota(add %#x): %s", r, add, d)
		}
	}
	return nil
}

// runDispatch records d into cb, submits cb and waits for it, saying
// which step failed: for goroutines, which must not end the test.
func runDispatch(e *env, cb hal.CommandBuffer, d hal.Dispatch) error {
	if err := status.Join(cb.Begin(), cb.Dispatch(d), cb.End()); err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	f, err := e.dev.Submit(cb)
	if err != nil {
		return fmt.Errorf("submitting: %w", err)
	}
	if err := status.Join(f.Wait(e.ctx), f.Release()); err != nil {
		return fmt.Errorf("waiting and releasing the fence: %w", err)
	}
	return nil
}
