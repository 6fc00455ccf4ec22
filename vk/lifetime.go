//go:build cgo

package vk

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vkbench/vkbench/status"
)

// How vk keeps hal's rules of ownership: every object of a device has a
// handle, which its owner releases, and holds, which keep it alive. A
// recording holds each object it records once, until the command buffer
// is begun again or destroyed; a submission holds its command buffer (a
// staged copy, its buffer or image) until any call (Wait, Poll, Submit,
// Release) sees the timeline pass its value, or the device is released;
// a host call in progress holds the object it works on. The last hold of
// a released object destroys it.
//
// The device's gate is a read-write lock on the life of the device itself
// (d.c): a call that uses the VkDevice holds it for reading for the length
// of its host work, never across a wait for the GPU, and Device.Release
// takes it for writing to destroy everything, so no call is inside Vulkan
// when the device goes. Objects are destroyed under d.mu, and the device's
// destruction marks every object dead under d.mu before it destroys the
// VkDevice, so a hold that ends after that destroys nothing.

// lifetime is what every object of a device keeps of its life. Objects
// embed it.
type lifetime struct {
	d *device
	// self is the object that embeds the lifetime, set by create.
	self resource
	// released is set by the owner's Release: calls through the handle fail.
	released atomic.Bool
	// holds counts the recordings, submissions and calls in progress that
	// use the object; guarded by device.mu.
	holds int
	// dead is set when the object has been destroyed, or given up with its
	// device; guarded by device.mu.
	dead bool
}

func (l *lifetime) life() *lifetime { return l }

// resource is an object of a device.
type resource interface {
	life() *lifetime
	// destroy frees the object's Vulkan objects. It is called once, with
	// device.mu held, while the VkDevice exists.
	destroy()
}

// inflight is a hold that a submission keeps until the timeline reaches
// value.
type inflight struct {
	value uint64
	r     resource
	made  time.Time // when it was submitted
	// builds marks the builds of kernels the submission makes (nil:
	// none), which do not count toward its run (device.hung).
	builds *buildMarks
}

// enter holds the gate for a call that uses the VkDevice; it fails once the
// device has been destroyed. leave ends it. A goroutine must not enter
// twice: a Device.Release waiting for the gate would deadlock it.
func (d *device) enter(op string) error {
	d.gate.RLock()
	if d.c == nil {
		d.gate.RUnlock()
		return released(op, "device")
	}
	return nil
}

func (d *device) leave() { d.gate.RUnlock() }

// call is what a public call that uses the VkDevice does first: check that
// the device is usable and enter the gate. The caller must leave.
func (d *device) call(op string) error {
	if err := d.usable(op); err != nil {
		return err
	}
	return d.enter(op)
}

// create is every Create call of the device: it enters the gate, makes
// the object with build and registers it, so that the device destroys it
// if it is still alive when the device is released. If the device was
// released meanwhile, it destroys the object and fails.
func create[H any](d *device, op string, build func() (resource, error)) (H, error) {
	var none H
	if err := d.call(op); err != nil {
		return none, err
	}
	defer d.leave()
	r, err := build()
	if err != nil {
		return none, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.released.Load() {
		r.destroy()
		return none, released(op, "device")
	}
	d.live[r] = struct{}{}
	r.life().self = r
	return r.(H), nil
}

// hold keeps r alive for a call in progress; it fails on a lost or
// released device, or if r's handle was released. drop ends the hold.
func (d *device) hold(r resource, op string) error {
	if err := d.usable(op); err != nil {
		return err
	}
	l := r.life()
	d.mu.Lock()
	defer d.mu.Unlock()
	if l.released.Load() || l.dead {
		return released(op, describe(r))
	}
	l.holds++
	return nil
}

// enterHolding is what a call on an object that uses the VkDevice does
// first: enter the gate and hold r. leaveHolding undoes it.
func (d *device) enterHolding(op string, r resource) error {
	if err := d.enter(op); err != nil {
		return err
	}
	if err := d.hold(r, op); err != nil {
		d.leave()
		return err
	}
	return nil
}

func (d *device) leaveHolding(r resource) {
	d.drop(r)
	d.leave()
}

// drop ends a hold of r; the last hold of a released object destroys it.
func (d *device) drop(r resource) {
	d.mu.Lock()
	d.dropLocked(r)
	d.mu.Unlock()
}

func (d *device) dropLocked(r resource) {
	l := r.life()
	l.holds--
	if l.holds == 0 && l.released.Load() && !l.dead {
		d.destroyLocked(r)
	}
}

func (d *device) destroyLocked(r resource) {
	r.life().dead = true
	delete(d.live, r)
	r.destroy()
}

// Release marks the object released and destroys it if nothing holds it.
// Otherwise a submission may hold it that the GPU has finished already:
// the timeline is read once, so that an object released after its work
// is done goes at once. Release never waits for the GPU; a second Release
// returns nil.
func (l *lifetime) Release() error {
	if !l.released.CompareAndSwap(false, true) {
		return nil
	}
	d := l.d
	d.mu.Lock()
	held := l.holds > 0
	if !held && !l.dead {
		d.destroyLocked(l.self)
	}
	d.mu.Unlock()
	if held {
		d.collect()
	}
	return nil
}

// first returns a pointer to the first element of s, nil if s is empty:
// an array as C takes it.
func first[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// objectOf returns the object of device d that h, an argument of op,
// stands for; what names the argument in errors, followed by index when
// that is not negative.
func objectOf[T resource](d *device, op, what string, index int, h any) (T, error) {
	o, ok := h.(T)
	var none T
	if ok && any(o) != any(none) && o.life().d == d && !o.life().released.Load() {
		return o, nil
	}
	if index >= 0 {
		what += " " + strconv.Itoa(index)
	}
	switch {
	case h == nil:
		return none, status.Newf(status.InvalidArgument, "vk: %s: %s is nil", op, what)
	case !ok || any(o) == any(none) || o.life().d != d:
		return none, foreign(op, what)
	}
	if name := describe(o); strings.HasPrefix(name, what) {
		what = name
	} else {
		what += " (" + name + ")"
	}
	return none, released(op, what)
}

// retire ends the holds of the submissions whose value the timeline has
// reached.
func (d *device) retire(reached uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for n < len(d.inflight) && d.inflight[n].value <= reached {
		d.dropLocked(d.inflight[n].r)
		n++
	}
	d.inflight = slices.Delete(d.inflight, 0, n)
	if n > 0 {
		d.progressed = time.Now()
	}
}

// collect reads the timeline and retires what it has passed. It is
// best effort: a device destroyed or lost meanwhile has nothing to say.
func (d *device) collect() {
	if d.enter("") != nil {
		return
	}
	defer d.leave()
	_, _ = d.reached(math.MaxUint64) // an error has marked a lost device lost
}
