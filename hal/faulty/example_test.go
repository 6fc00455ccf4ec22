package faulty_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/faulty"
	"github.com/vkbench/vkbench/status"
)

// A test wraps a real device and says which calls fail. Here the next
// Dispatch fails at once, with the code the test chose, and the command
// buffer is left as it was, so the same Dispatch can be recorded again.
func ExampleWrap() {
	drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { fmt.Println(drv.Release()) }()
	inner, err := drv.Open(context.Background(), 0, hal.DeviceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	plan := faulty.NewPlan()
	dev := faulty.Wrap(inner, plan)
	defer func() { fmt.Println(dev.Release()) }()

	cb, err := dev.CreateCommandBuffer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { fmt.Println(cb.Release()) }()
	if err := cb.Begin(); err != nil {
		fmt.Println(err)
		return
	}
	plan.FailNth(faulty.Dispatch, 1, status.Aborted)
	var d hal.Dispatch // a real one would name an executable and buffers
	err = cb.Dispatch(d)
	fmt.Println(status.CodeOf(err), errors.Is(err, faulty.ErrInjected), plan.Faults(faulty.Dispatch))
	// Output:
	// ABORTED true 1
	// <nil>
	// <nil>
	// <nil>
}

// Plan.Hold keeps submissions from the device, so that a test can wait on
// one that does not complete.
func ExamplePlan_Hold() {
	dev, release, err := hal.Open(context.Background(), "vulkan", hal.OpenOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { fmt.Println(release()) }()
	plan := faulty.NewPlan()
	held := faulty.Wrap(dev, plan)
	defer func() { fmt.Println(held.Release()) }()
	cb, err := held.CreateCommandBuffer()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := cb.Begin(); err != nil {
		fmt.Println(err)
		return
	}
	if err := cb.End(); err != nil {
		fmt.Println(err)
		return
	}

	plan.Hold()
	f, err := held.Submit(cb)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	fmt.Println(status.CodeOf(f.Wait(ctx))) // still held

	plan.Release()                            // lets it through
	fmt.Println(f.Wait(context.Background())) // it ran
	// Output:
	// DEADLINE_EXCEEDED
	// <nil>
	// <nil>
	// <nil>
}

// WrapDriver wraps every device a driver opens, each with the plan chosen
// for its index.
func ExampleWrapDriver() {
	inner, err := hal.OpenDriver("vulkan", hal.DriverOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	plan := faulty.NewPlan()
	plan.LoseAt(faulty.Wait, 3) // the third Wait reports the device lost
	drv := faulty.WrapDriver(inner, func(index int) *faulty.Plan { return plan })
	defer func() { fmt.Println(drv.Release()) }()
	dev, err := drv.Open(context.Background(), 0, hal.DeviceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { fmt.Println(dev.Release()) }()
	// ... after the third Wait, every call on dev and its objects fails:
	ctx := context.Background()
	cb, err := dev.CreateCommandBuffer()
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 1; i <= 3; i++ {
		if err := cb.Begin(); err != nil {
			fmt.Println(err)
			return
		}
		if err := cb.End(); err != nil {
			fmt.Println(err)
			return
		}
		f, err := dev.Submit(cb)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(i, status.CodeOf(f.Wait(ctx)))
	}
	// After the third Wait, every call on dev and its objects fails:
	fmt.Println(errors.Is(dev.Err(), hal.ErrDeviceLost), errors.Is(cb.Begin(), hal.ErrDeviceLost))
	// Output:
	// 1 OK
	// 2 OK
	// 3 DATA_LOSS
	// true true
	// <nil>
	// <nil>
}
