package haltest

import (
	"fmt"
	"sync"

	"github.com/vkbench/vkbench/hal"
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
			if err := b.Write(e.ctx, 0, make([]byte, 64)); err != nil {
				e.Errorf("Write: %v", err)
			}
			if err := b.Release(); err != nil {
				e.Errorf("Buffer.Release: %v", err)
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
	defer func() {
		if rerr := cb.Release(); rerr != nil && err == nil {
			err = fmt.Errorf("CommandBuffer.Release: %w", rerr)
		}
	}()
	buf, err := e.dev.CreateBuffer(hal.BufferDesc{Size: int64(4 * n), Memory: memoryKinds[g%2]})
	if err != nil {
		return fmt.Errorf("CreateBuffer: %w", err)
	}
	defer func() {
		if rerr := buf.Release(); rerr != nil && err == nil {
			err = fmt.Errorf("Buffer.Release: %w", rerr)
		}
	}()
	got := make([]byte, 4*n)
	for r := range rounds {
		add := uint32(g<<16 | r)
		if err := cb.Begin(); err != nil {
			return fmt.Errorf("round %d: Begin: %w", r, err)
		}
		err := cb.Dispatch(hal.Dispatch{
			Executable:    x,
			Bindings:      []hal.Binding{{Buffer: buf}},
			PushConstants: words(add, uint32(n)),
			Groups:        groupsFor(n, uint32(local)),
		})
		if err != nil {
			return fmt.Errorf("round %d: Dispatch: %w", r, err)
		}
		if err := cb.End(); err != nil {
			return fmt.Errorf("round %d: End: %w", r, err)
		}
		f, err := e.dev.Submit(cb)
		if err != nil {
			return fmt.Errorf("round %d: Submit: %w", r, err)
		}
		werr := f.Wait(e.ctx)
		if err := f.Release(); err != nil {
			return fmt.Errorf("round %d: Fence.Release: %w", r, err)
		}
		if werr != nil {
			return fmt.Errorf("round %d: Wait: %w", r, werr)
		}
		if err := buf.Read(e.ctx, 0, got); err != nil {
			return fmt.Errorf("round %d: Read: %w", r, err)
		}
		want := make([]uint32, n)
		for i := range want {
			want[i] = uint32(i)*3 + add
		}
		if d := diffElems(unpack[uint32](got), want, "words", "%#x", 0); d != "" {
			return fmt.Errorf("round %d: fill_iota(add %#x): %s", r, add, d)
		}
	}
	return nil
}
