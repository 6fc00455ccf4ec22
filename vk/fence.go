//go:build cgo

package vk

import (
	"context"
	"sync/atomic"

	"github.com/vkbench/vkbench/hal"
)

var _ hal.Fence = (*fence)(nil)

// fence is the completion of one submission: the timeline value it
// signals. It owns no Vulkan object.
type fence struct {
	d     *device
	value uint64
	// err is set for a submission that never ran because it waited on a
	// failed one; cause is the first failure of that chain.
	err, cause error
	released   atomic.Bool
}

// check returns the error that ends a wait before it starts: the
// device's, the fence's release, or the failure of a submission that
// never ran.
func (f *fence) check(op string) error {
	// The loss first: a Release that timed out leaves the device lost to
	// the fences of the work it could not wait for.
	if p := f.d.lost.Load(); p != nil {
		return *p
	}
	if err := f.d.usable(op); err != nil {
		return err
	}
	if f.released.Load() {
		return released(op, "fence")
	}
	return f.err
}

func (f *fence) Wait(ctx context.Context) error {
	if err := f.check("Fence.Wait"); err != nil {
		return err
	}
	return f.d.wait(ctx, "Fence.Wait", f.value)
}

// Poll reports done with the error for a fence that failed, was released
// or whose device was lost, so that a polling loop always ends.
func (f *fence) Poll() (bool, error) {
	if err := f.check("Fence.Poll"); err != nil {
		return true, err
	}
	if err := f.d.enter("Fence.Poll"); err != nil {
		return true, err
	}
	defer f.d.leave()
	done, err := f.d.reached(f.value)
	return done || err != nil, err
}

func (f *fence) Release() error {
	f.released.Store(true)
	return nil
}
