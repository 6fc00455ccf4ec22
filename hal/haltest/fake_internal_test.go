package haltest

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
	"sync"
	"time"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// fakeDevice is a device that runs the suite's kernels in Go, on a
// goroutine that plays the GPU's queue: a reference of the contract for the
// suite to be tested against.
type fakeDevice struct {
	info hal.DeviceInfo

	mu       sync.Mutex
	released bool
	lost     error // set once, by markLost
	lostCh   chan struct{}

	queue  chan *fakeSubmission
	exited chan struct{}
}

var (
	_ hal.Device     = (*fakeDevice)(nil)
	_ hal.LossMarker = (*fakeDevice)(nil)
)

const fakeHeap = 1 << 30

func newFakeDevice() *fakeDevice {
	d := &fakeDevice{
		info: hal.DeviceInfo{
			Backend:  "fake",
			Name:     "haltest fake device",
			Type:     hal.CPU,
			VendorID: hal.VendorMesa,
			Limits: hal.Limits{
				MaxWorkgroupSize:        [3]uint32{1024, 1024, 64},
				MaxWorkgroupInvocations: 1024,
				MaxWorkgroupCount:       [3]uint32{65535, 65535, 65535},
				MaxSharedMemory:         32 << 10,
				MaxPushConstantsSize:    128,
				MaxBoundDescriptorSets:  1,
				MaxStorageBufferRange:   1 << 27,
				MinStorageBufferAlign:   16,
				SubgroupSize:            1,
				TimestampPeriod:         1,
				TimestampValidBits:      64,
			},
			MemoryHeaps: []hal.MemoryHeap{{Size: fakeHeap, DeviceLocal: true}},
		},
		lostCh: make(chan struct{}),
		queue:  make(chan *fakeSubmission, 4096),
		exited: make(chan struct{}),
	}
	go d.run()
	return d
}

// run is the queue: submissions in order, each after the fences it waits
// on.
func (d *fakeDevice) run() {
	defer close(d.exited)
	for s := range d.queue {
		var err error
		for _, w := range s.wait {
			<-w.done
			if w.err != nil {
				err = status.Annotate(w.err, "fake: a submission waited on failed")
				break
			}
		}
		if err == nil {
			for _, c := range s.cmds {
				if d.checkLost() != nil {
					break
				}
				c()
			}
		}
		s.fence.err = err
		close(s.fence.done)
	}
}

type fakeSubmission struct {
	cmds  []func()
	wait  []*fakeFence
	fence *fakeFence
}

// check returns the error every call returns in the device's state.
func (d *fakeDevice) check() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.released {
		return hal.ErrReleased
	}
	return d.lost
}

func (d *fakeDevice) checkLost() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lost
}

func (d *fakeDevice) MarkLost(cause error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lost == nil {
		d.lost = status.Join(hal.ErrDeviceLost, cause)
		close(d.lostCh)
	}
}

func (d *fakeDevice) Info() hal.DeviceInfo {
	return d.info.Clone()
}

func (d *fakeDevice) Err() error { return d.check() }

func (d *fakeDevice) Release() error {
	d.mu.Lock()
	if d.released {
		d.mu.Unlock()
		return nil
	}
	d.released = true
	close(d.queue)
	d.mu.Unlock()
	select {
	case <-d.exited:
	case <-time.After(time.Minute):
		return status.New(status.DeadlineExceeded, "fake: work in flight did not finish")
	}
	return nil
}

// object is what every object of the device has.
type fakeObject struct {
	dev      *fakeDevice
	mu       sync.Mutex
	released bool
}

func (o *fakeObject) check() error {
	o.mu.Lock()
	r := o.released
	o.mu.Unlock()
	if r {
		return hal.ErrReleased
	}
	return o.dev.check()
}

func (o *fakeObject) Release() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.released = true
	return nil
}

// use checks that an object passed to d is one of d's and alive.
func (d *fakeDevice) use(o *fakeObject) error {
	if o.dev != d {
		return hal.ErrForeignObject
	}
	return o.check()
}

// --- buffers

type fakeBuffer struct {
	fakeObject
	mem  hal.MemoryKind
	data []byte
}

func (d *fakeDevice) CreateBuffer(desc hal.BufferDesc) (hal.Buffer, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	switch {
	case desc.Size <= 0:
		return nil, status.Newf(status.InvalidArgument, "fake: buffer size %d", desc.Size)
	case desc.Memory != hal.DeviceLocal && desc.Memory != hal.HostVisible:
		return nil, status.Newf(status.InvalidArgument, "fake: memory kind %d", desc.Memory)
	case desc.Size > fakeHeap:
		return nil, status.Newf(status.ResourceExhausted, "fake: %d bytes do not fit", desc.Size)
	}
	return &fakeBuffer{fakeObject: fakeObject{dev: d}, mem: desc.Memory, data: make([]byte, desc.Size)}, nil
}

func (b *fakeBuffer) Size() int64            { return int64(len(b.data)) }
func (b *fakeBuffer) Memory() hal.MemoryKind { return b.mem }

func (b *fakeBuffer) span(offset int64, n int) ([]byte, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	if offset < 0 || offset > b.Size() || int64(n) > b.Size()-offset {
		return nil, status.Newf(status.InvalidArgument, "fake: %d bytes at %d of a buffer of %d", n, offset, b.Size())
	}
	return b.data[offset : offset+int64(n)], nil
}

func (b *fakeBuffer) Write(ctx context.Context, offset int64, data []byte) error {
	s, err := b.span(offset, len(data))
	if err != nil {
		return err
	}
	copy(s, data)
	return nil
}

func (b *fakeBuffer) Read(ctx context.Context, offset int64, dst []byte) error {
	s, err := b.span(offset, len(dst))
	if err != nil {
		return err
	}
	copy(dst, s)
	return nil
}

// buffer returns hb as d's buffer.
func (d *fakeDevice) buffer(hb hal.Buffer) (*fakeBuffer, error) {
	b, ok := hb.(*fakeBuffer)
	if !ok || b == nil {
		return nil, status.Newf(status.InvalidArgument, "fake: %T is not a buffer of this backend", hb)
	}
	return b, d.use(&b.fakeObject)
}

// --- executables

type fakeExecutable struct {
	fakeObject
	label     string
	kernel    string
	bindings  int
	push      int
	constants map[uint32]uint32
}

func (d *fakeDevice) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	m, entry, err := spirv.Check(desc.SPIRV, desc.EntryPoint)
	if err != nil {
		return nil, err
	}
	if desc.Bindings < 0 || desc.PushConstantSize < 0 || desc.PushConstantSize%4 != 0 ||
		desc.PushConstantSize > int(d.info.Limits.MaxPushConstantsSize) {
		return nil, status.Newf(status.InvalidArgument, "fake: %d bindings, %d bytes of push constants", desc.Bindings, desc.PushConstantSize)
	}
	if n, limit := len(desc.Sets), int(d.info.Limits.MaxBoundDescriptorSets); n > limit {
		return nil, status.Wrapf(hal.ErrUnsupported, status.OK, "fake: needs %d descriptor sets, device has %d", n, limit)
	}
	for _, b := range m.Bindings(entry) {
		if b.Set != 0 || int(b.Binding) >= desc.Bindings {
			return nil, status.Newf(status.InvalidArgument, "fake: the module uses %v", b)
		}
	}
	if push, ok := m.PushConstantBytes(entry, nil); !ok || push > desc.PushConstantSize {
		return nil, status.Newf(status.InvalidArgument, "fake: the module's push constants (%d bytes, known %v) exceed %d", push, ok, desc.PushConstantSize)
	}
	x := &fakeExecutable{
		fakeObject: fakeObject{dev: d},
		label:      desc.Label,
		bindings:   desc.Bindings,
		push:       desc.PushConstantSize,
	}
	for _, k := range []kernel{kernelAdd, kernelFillIota, kernelInc, kernelSpin, kernelEmpty} {
		if bytes.Equal(desc.SPIRV, k.spirv) {
			x.kernel = k.name
		}
	}
	if x.kernel == "" {
		return nil, status.New(status.Unimplemented, "fake: runs only the suite's kernels")
	}
	x.constants, _ = hal.ConstantValues(desc.Constants) // one given twice: the last wins
	return x, nil
}

func (x *fakeExecutable) Label() string { return x.label }

func (x *fakeExecutable) constant(id, def uint32) uint32 {
	if v, ok := x.constants[id]; ok {
		return v
	}
	return def
}

// run runs the kernel on bound spans.
func (x *fakeExecutable) run(spans [][]byte, push []byte, groups [3]uint32) {
	get := func(b []byte, i uint32) (uint32, bool) {
		if int(i)*4+4 > len(b) {
			return 0, false
		}
		return binary.LittleEndian.Uint32(b[4*i:]), true
	}
	set := func(b []byte, i, v uint32) {
		if int(i)*4+4 <= len(b) {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
	}
	p := unpack[uint32](push)
	switch x.kernel {
	case "add":
		for i := uint32(0); i < min(p[0], groups[0]*64); i++ {
			a, ok1 := get(spans[0], i)
			b, ok2 := get(spans[1], i)
			if ok1 && ok2 {
				set(spans[2], i, a+b)
			}
		}
	case "fill_iota":
		local, mul := x.constant(0, 1), x.constant(1, 1)
		for i := uint32(0); i < min(p[1], groups[0]*local); i++ {
			set(spans[0], i, i*mul+p[0])
		}
	case "inc":
		for i := uint32(0); i < min(p[1], groups[0]*64); i++ {
			if v, ok := get(spans[0], i); ok {
				set(spans[0], i, v*3+p[0])
			}
		}
	case "spin":
		for i := uint32(0); i < groups[0]*64; i++ {
			set(spans[0], i, spinRef(i, p[0]))
		}
	}
}

func (d *fakeDevice) executable(hx hal.Executable) (*fakeExecutable, error) {
	x, ok := hx.(*fakeExecutable)
	if !ok || x == nil {
		return nil, status.Newf(status.InvalidArgument, "fake: %T is not an executable of this backend", hx)
	}
	return x, d.use(&x.fakeObject)
}

// --- command buffers

type cbState int

const (
	cbInitial cbState = iota
	cbRecording
	cbEnded
)

type fakeCommandBuffer struct {
	fakeObject
	state    cbState
	cmds     []func()
	inFlight *fakeFence
}

func (d *fakeDevice) CreateCommandBuffer() (hal.CommandBuffer, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	return &fakeCommandBuffer{fakeObject: fakeObject{dev: d}}, nil
}

// busy reports whether the last submission is still running.
func (cb *fakeCommandBuffer) busy() bool {
	if cb.inFlight == nil {
		return false
	}
	select {
	case <-cb.inFlight.done:
		return false
	default:
		return true
	}
}

// Release gives up the command buffer at any time: its submission's
// commands are closures over Go memory, which the queue keeps alive.
func (cb *fakeCommandBuffer) Release() error { return cb.fakeObject.Release() }

func (cb *fakeCommandBuffer) Begin() error {
	if err := cb.check(); err != nil {
		return err
	}
	if cb.busy() {
		return hal.ErrInFlight
	}
	cb.state, cb.cmds = cbRecording, nil
	return nil
}

// recording checks that cb can record.
func (cb *fakeCommandBuffer) recording() error {
	if err := cb.check(); err != nil {
		return err
	}
	if cb.state != cbRecording {
		return status.New(status.FailedPrecondition, "fake: command buffer is not recording")
	}
	return nil
}

func (cb *fakeCommandBuffer) End() error {
	if err := cb.recording(); err != nil {
		return err
	}
	cb.state = cbEnded
	return nil
}

func invalid(format string, args ...any) error {
	return status.Newf(status.InvalidArgument, format, args...)
}

func (cb *fakeCommandBuffer) Dispatch(dd hal.Dispatch) error {
	if err := cb.recording(); err != nil {
		return err
	}
	d := cb.dev
	x, err := d.executable(dd.Executable)
	if err != nil {
		return err
	}
	if len(dd.Bindings) != x.bindings {
		return invalid("fake: %d bindings, want %d", len(dd.Bindings), x.bindings)
	}
	if len(dd.PushConstants) != x.push {
		return invalid("fake: %d bytes of push constants, want %d", len(dd.PushConstants), x.push)
	}
	for i, g := range dd.Groups {
		if g == 0 || g > d.info.Limits.MaxWorkgroupCount[i] {
			return invalid("fake: %d groups", g)
		}
	}
	spans := make([][]byte, len(dd.Bindings))
	for i, bd := range dd.Bindings {
		b, err := d.buffer(bd.Buffer)
		if err != nil {
			return err
		}
		size := bd.Size
		if size == 0 {
			size = b.Size() - bd.Offset
		}
		switch {
		case bd.Offset < 0 || bd.Size < 0 || bd.Offset%int64(d.info.Limits.MinStorageBufferAlign) != 0:
			return invalid("fake: binding %d at %d", i, bd.Offset)
		case bd.Offset >= b.Size() || size > b.Size()-bd.Offset:
			return invalid("fake: binding %d past the end", i)
		}
		spans[i] = b.data[bd.Offset : bd.Offset+size]
	}
	push := slices.Clone(dd.PushConstants)
	groups := dd.Groups
	cb.cmds = append(cb.cmds, func() { x.run(spans, push, groups) })
	return nil
}

func (cb *fakeCommandBuffer) Copy(src hal.Buffer, srcOffset int64, dst hal.Buffer, dstOffset int64, size int64) error {
	if err := cb.recording(); err != nil {
		return err
	}
	s, err := cb.dev.buffer(src)
	if err != nil {
		return err
	}
	t, err := cb.dev.buffer(dst)
	if err != nil {
		return err
	}
	if size <= 0 || srcOffset < 0 || dstOffset < 0 || srcOffset > s.Size()-size || dstOffset > t.Size()-size {
		return invalid("fake: copy of %d bytes from %d to %d", size, srcOffset, dstOffset)
	}
	from, to := s.data[srcOffset:srcOffset+size], t.data[dstOffset:dstOffset+size]
	cb.cmds = append(cb.cmds, func() { copy(to, from) })
	return nil
}

func (cb *fakeCommandBuffer) Fill(dst hal.Buffer, offset, size int64, value uint32) error {
	if err := cb.recording(); err != nil {
		return err
	}
	b, err := cb.dev.buffer(dst)
	if err != nil {
		return err
	}
	if size <= 0 || offset < 0 || offset%4 != 0 || size%4 != 0 || offset > b.Size()-size {
		return invalid("fake: fill of %d bytes at %d", size, offset)
	}
	to := b.data[offset : offset+size]
	cb.cmds = append(cb.cmds, func() {
		for i := 0; i < len(to); i += 4 {
			binary.LittleEndian.PutUint32(to[i:], value)
		}
	})
	return nil
}

func (cb *fakeCommandBuffer) Barrier() error { return cb.recording() }

func (cb *fakeCommandBuffer) Timestamp(hp hal.TimestampPool, index int) error {
	if err := cb.recording(); err != nil {
		return err
	}
	p, ok := hp.(*fakePool)
	if !ok || p == nil {
		return invalid("fake: %T is not a pool of this backend", hp)
	}
	if err := cb.dev.use(&p.fakeObject); err != nil {
		return err
	}
	if index < 0 || index >= len(p.slots) {
		return invalid("fake: slot %d of %d", index, len(p.slots))
	}
	cb.cmds = append(cb.cmds, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.slots[index] = time.Now().UnixNano()
	})
	return nil
}

// --- submissions

type fakeFence struct {
	fakeObject
	done chan struct{}
	err  error // set before done is closed
}

func (d *fakeDevice) Submit(hcb hal.CommandBuffer, wait ...hal.Fence) (hal.Fence, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	cb, ok := hcb.(*fakeCommandBuffer)
	if !ok || cb == nil {
		return nil, invalid("fake: %T is not a command buffer of this backend", hcb)
	}
	if err := d.use(&cb.fakeObject); err != nil {
		return nil, err
	}
	if cb.state != cbEnded {
		return nil, status.New(status.FailedPrecondition, "fake: command buffer not ended")
	}
	if cb.busy() {
		return nil, hal.ErrInFlight
	}
	s := &fakeSubmission{cmds: cb.cmds}
	for _, hf := range wait {
		f, ok := hf.(*fakeFence)
		if !ok || f == nil {
			return nil, invalid("fake: %T is not a fence of this backend", hf)
		}
		if err := d.use(&f.fakeObject); err != nil {
			return nil, err
		}
		s.wait = append(s.wait, f)
	}
	s.fence = &fakeFence{fakeObject: fakeObject{dev: d}, done: make(chan struct{})}
	cb.inFlight = s.fence
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.released {
		return nil, hal.ErrReleased
	}
	d.queue <- s
	return s.fence, nil
}

func (f *fakeFence) Wait(ctx context.Context) error {
	if err := f.check(); err != nil {
		return err
	}
	select {
	case <-f.done:
		if err := f.dev.checkLost(); err != nil {
			return err
		}
		return f.err
	case <-f.dev.lostCh:
		return f.dev.checkLost()
	case <-ctx.Done():
		return status.Wrap(ctx.Err(), status.CodeOf(ctx.Err()), "fake: wait")
	}
}

func (f *fakeFence) Poll() (bool, error) {
	if err := f.check(); err != nil {
		if status.CodeOf(err) == status.DataLoss {
			return true, err
		}
		return false, err
	}
	select {
	case <-f.done:
		return true, f.err
	default:
		return false, nil
	}
}

// --- timestamps

type fakePool struct {
	fakeObject
	slots []int64 // 0: never written
}

func (d *fakeDevice) CreateTimestampPool(count int) (hal.TimestampPool, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	if count <= 0 {
		return nil, invalid("fake: pool of %d", count)
	}
	return &fakePool{fakeObject: fakeObject{dev: d}, slots: make([]int64, count)}, nil
}

func (p *fakePool) Count() int { return len(p.slots) }

func (p *fakePool) Ticks(first, n int) ([]uint64, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if first < 0 || n < 0 || first > len(p.slots)-n {
		return nil, invalid("fake: slots %d+%d of %d", first, n, len(p.slots))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := make([]uint64, n)
	for i := range t {
		t[i] = uint64(p.slots[first+i])
	}
	return t, nil
}

func (p *fakePool) Elapsed(start, end int) (time.Duration, error) {
	t, err := p.Ticks(0, len(p.slots))
	if err != nil {
		return 0, err
	}
	if start < 0 || end < 0 || start >= len(t) || end >= len(t) {
		return 0, invalid("fake: slots %d, %d of %d", start, end, len(t))
	}
	if t[start] == 0 || t[end] == 0 {
		return 0, status.New(status.FailedPrecondition, "fake: slot never written")
	}
	if t[end] <= t[start] {
		return 0, status.Annotate(hal.ErrNoTick, "fake: the timer did not tick")
	}
	return time.Duration(t[end] - t[start]), nil
}
