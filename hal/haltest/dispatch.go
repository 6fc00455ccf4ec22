package haltest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/hal"
)

// addCase is a dispatch of kernelAdd on random inputs, with the output
// longer than n so that writes past n show.
type addCase struct {
	n       int
	a, b, c hal.Buffer
	bOffset int64
	want    []uint32 // all of c once the dispatch has run
}

// newAddCase makes the buffers of an add of n random words in memory mem.
// b lives at an aligned offset inside a larger buffer.
func (e *env) newAddCase(rng *rand.Rand, n int, mem hal.MemoryKind) *addCase {
	e.Helper()
	const tail = 17
	a, b := random[uint32](rng, n), random[uint32](rng, n)
	c := &addCase{n: n, bOffset: alignUp(4, int64(e.info.Limits.MinStorageBufferAlign))}
	c.a = e.bufferOf(mem, a)
	c.b = e.buffer(c.bOffset+int64(4*n)+12, mem)
	e.write(c.b, c.bOffset, words(b...))
	c.c = e.bufferOf(mem, repeat(sentinel, n+tail))
	c.want = repeat(sentinel, n+tail)
	for i := range n {
		c.want[i] = a[i] + b[i]
	}
	return c
}

// dispatch returns the correct dispatch of the case with x, an executable
// of kernelAdd.
func (c *addCase) dispatch(x hal.Executable) hal.Dispatch {
	return hal.Dispatch{
		Executable: x,
		Bindings: []hal.Binding{
			{Buffer: c.a},
			{Buffer: c.b, Offset: c.bOffset, Size: int64(4 * c.n)},
			{Buffer: c.c},
		},
		PushConstants: words(uint32(c.n)),
		Groups:        groupsFor(c.n, kernelAdd.local),
	}
}

func (c *addCase) check(e *env, what string) {
	e.Helper()
	check(e, what, e.readWords(c.c), c.want, 0)
}

// run records c's dispatch of x, an executable of kernelAdd, runs it and
// checks the output.
func (c *addCase) run(e *env, x hal.Executable, what string) {
	e.Helper()
	e.execute(e.recorded(func(cb hal.CommandBuffer) { e.dispatch(cb, c.dispatch(x)) }), what)
	c.check(e, what)
}

func testDispatch(e *env) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := e.executable(kernelAdd)
	for _, mem := range memoryKinds {
		e.newAddCase(rng, 64*37+29, mem).run(e, x, fmt.Sprintf("c = a + b in %v buffers", mem))
	}
	// An executable whose kernel has no bindings and no push constants.
	empty := e.executable(kernelEmpty)
	e.execute(e.recorded(func(cb hal.CommandBuffer) {
		e.dispatch(cb, hal.Dispatch{Executable: empty, Groups: [3]uint32{3, 2, 1}})
	}), "empty")
}

func testDispatchSets(e *env) {
	limit := int(e.info.Limits.MaxBoundDescriptorSets)
	desc := kernelAddSets.desc()
	desc.Sets = addSets
	if limit >= len(addSets) {
		x, err := e.dev.CreateExecutable(desc)
		x = owned(e, "Executable", x, err, "CreateExecutable(add_sets)")
		c := e.newAddCase(rand.New(rand.NewPCG(5, 6)), 64*5+3, hal.DeviceLocal)
		cb := e.commandBuffer()
		// Enough dispatches in one recording to outgrow a first pool of
		// descriptor sets, three sets each.
		e.record(cb, func() {
			for i := range 50 {
				if i > 0 {
					e.barrier(cb)
				}
				e.dispatch(cb, c.dispatch(x))
			}
		})
		e.execute(cb, "add_sets")
		c.check(e, "c = a + b with b and c in set 2, dispatched 50 times")
	}
	desc.Sets = append(slices.Clone(addSets), make([]int, max(limit+1-len(addSets), 0))...)
	err := unmade(e.dev.CreateExecutable(desc))
	want := fmt.Sprintf("needs %d descriptor sets, device has %d", len(desc.Sets), limit)
	if !errors.Is(err, hal.ErrUnsupported) || !strings.Contains(err.Error(), want) {
		e.Errorf("CreateExecutable of %d sets on a device of %d: %v; want unsupported saying %q", len(desc.Sets), limit, err, want)
	}
}

// fillCase is a dispatch of kernelFillIota over n words of a buffer that
// has more.
type fillCase struct {
	n, local int
	out      hal.Buffer
}

func (e *env) newFillCase(n, local int) *fillCase {
	e.Helper()
	return &fillCase{n: n, local: local, out: e.bufferOf(hal.HostVisible, repeat(sentinel, n+local+5))}
}

func (c *fillCase) dispatch(x hal.Executable, add uint32) hal.Dispatch {
	return hal.Dispatch{
		Executable:    x,
		Bindings:      []hal.Binding{{Buffer: c.out}},
		PushConstants: words(add, uint32(c.n)),
		Groups:        groupsFor(c.n, uint32(c.local)),
	}
}

func (c *fillCase) want(mul, add uint32) []uint32 {
	w := repeat(sentinel, int(c.out.Size()/4))
	for i := range c.n {
		w[i] = uint32(i)*mul + add
	}
	return w
}

// testSpecialization: specialization constants set the workgroup size and
// a value, per executable of the same module; without them the defaults
// hold.
func testSpecialization(e *env) {
	local := min(48, e.info.Limits.MaxWorkgroupSize[0], e.info.Limits.MaxWorkgroupInvocations)
	// If the workgroup size did not take effect (the default is 1), only
	// the first groups words would be written.
	const groups = 20
	cases := []struct {
		local, mul, add uint32
		constants       []hal.Constant
	}{
		{local, 3, 7, []hal.Constant{{ID: 0, Value: local}, {ID: 1, Value: 3}}},
		{16, 5, 11, []hal.Constant{{ID: 1, Value: 5}, {ID: 0, Value: 16}}},
		{1, 1, 13, nil},
	}
	cb := e.commandBuffer()
	fills := make([]*fillCase, len(cases))
	e.record(cb, func() {
		for i, c := range cases {
			x := e.executable(kernelFillIota, c.constants...)
			fills[i] = e.newFillCase(groups*int(c.local), int(c.local))
			e.dispatch(cb, fills[i].dispatch(x, c.add))
		}
	})
	e.execute(cb, "fill_iota")
	for i, c := range cases {
		check(e, fmt.Sprintf("fill_iota with constants %v (workgroup size %d, MUL %d)", c.constants, c.local, c.mul),
			e.readWords(fills[i].out), fills[i].want(c.mul, c.add), 0)
	}
}

// testPushConstants: push constants take effect and are copied when the
// dispatch is recorded, not when it is submitted.
func testPushConstants(e *env) {
	const local = 32
	x := e.executable(kernelFillIota, hal.Constant{ID: 0, Value: local}, hal.Constant{ID: 1, Value: 2})
	first, second := e.newFillCase(1000, local), e.newFillCase(333, local)
	cb := e.recorded(func(cb hal.CommandBuffer) {
		d := first.dispatch(x, 100)
		e.dispatch(cb, d)
		// Reuse the same slice for the second dispatch: the first must
		// have kept its own copy.
		copy(d.PushConstants, words(200, 333))
		d.Bindings = []hal.Binding{{Buffer: second.out}}
		d.Groups = groupsFor(333, local)
		e.dispatch(cb, d)
		copy(d.PushConstants, words(999, 999))
	})
	e.execute(cb, "fill_iota twice")
	check(e, "first dispatch (add 100, n 1000)", e.readWords(first.out), first.want(2, 100), 0)
	check(e, "second dispatch (add 200, n 333)", e.readWords(second.out), second.want(2, 200), 0)
}

func testCopyFillBarrier(e *env) {
	rng := rand.New(rand.NewPCG(5, 6))
	const size = 4096 + 12
	src := e.buffer(size, hal.DeviceLocal)
	dst := e.buffer(size, hal.HostVisible)
	srcModel, dstModel := random[byte](rng, size), random[byte](rng, size)
	e.write(src, 0, srcModel)
	e.write(dst, 0, dstModel)

	// Fill, then copy what was filled (and some of what was not) at odd
	// offsets, then fill over part of the copy.
	cb := e.recorded(func(cb hal.CommandBuffer) {
		e.must("Fill", cb.Fill(src, 256, 1024, 0xa1b2c3d4))
		e.barrier(cb)
		e.must("Copy", cb.Copy(src, 3, dst, 5, 2001))
		e.barrier(cb)
		e.must("Fill", cb.Fill(dst, 1000, 8, 0x01020304))
	})
	e.execute(cb, "fill, copy, fill")
	copy(srcModel[256:256+1024], fillBytes(1024, 0xa1b2c3d4))
	copy(dstModel[5:5+2001], srcModel[3:3+2001])
	copy(dstModel[1000:1008], fillBytes(8, 0x01020304))
	check(e, "destination after fill, copy, fill", e.read(dst, 0, size), dstModel, 0)
	check(e, "source after fill, copy, fill", e.read(src, 0, size), srcModel, 0)

	// Transfers feeding a dispatch feeding a transfer, in one command
	// buffer: a, b filled; c = a + b; c copied out.
	const n = 700
	x := e.executable(kernelAdd)
	a, b, c := e.buffer(4*n, hal.DeviceLocal), e.buffer(4*n, hal.DeviceLocal), e.buffer(4*n, hal.DeviceLocal)
	out := e.bufferOf(hal.HostVisible, repeat(sentinel, n))
	e.record(cb, func() {
		e.must("Fill", cb.Fill(a, 0, 4*n, 40))
		e.must("Fill", cb.Fill(b, 0, 4*n, 2))
		// Two writes of the same bytes need a barrier between them, or
		// their order is undefined.
		e.barrier(cb)
		e.must("Fill", cb.Fill(b, 4*100, 4*50, 1000))
		e.barrier(cb)
		e.dispatch(cb, (&addCase{n: n, a: a, b: b, c: c}).dispatch(x))
		e.barrier(cb)
		e.must("Copy", cb.Copy(c, 0, out, 0, 4*n))
	})
	e.execute(cb, "fill, add, copy")
	want := repeat(42, n)
	copy(want[100:150], repeat(1040, 50))
	check(e, "fill, add, copy", e.readWords(out), want, 0)
}

// fillBytes is what Fill writes: size bytes of value, little-endian.
func fillBytes(size int, value uint32) []byte {
	return words(repeat(value, size/4)...)
}
