package vkbench

import (
	"context"
	"math"
	"reflect"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// Elem is the element types a Buffer holds: 32-bit scalars, as a GLSL
// float, int or uint array in a std430 storage buffer sees them.
type Elem interface {
	~float32 | ~int32 | ~uint32
}

// Binding is a buffer that a kernel can be given: any *Buffer[T], or a
// Slice of one.
type Binding interface {
	// binding describes the whole buffer to the tuner: nil for a nil
	// buffer or a slice.
	binding() (hal.Buffer, kernels.DType, int)
	// bind is the range a dispatch binds.
	bind() hal.Binding
}

// Buffer is a storage buffer of Len elements of type T in device memory.
// Its methods are safe for concurrent use; a Write or Read that races with
// a Run using the buffer reads or writes some mix of before and after.
type Buffer[T Elem] struct {
	buf    hal.Buffer
	n      int
	limits hal.Limits // of its device, for Slice
}

var _ Binding = (*Buffer[float32])(nil)

// bindingOf is b's binding, nil for a nil b or a typed-nil buffer.
func bindingOf(b Binding) (hal.Buffer, kernels.DType, int) {
	if b == nil {
		return nil, 0, 0
	}
	return b.binding()
}

// NewBuffer allocates a buffer of n elements of type T on d, filled with
// zeros. Memory that does not fit is an error with code ResourceExhausted.
func NewBuffer[T Elem](ctx context.Context, d *Device, n int) (*Buffer[T], error) {
	return newBuffer(d, n, "NewBuffer", func(b *Buffer[T]) error {
		return d.runOnce(ctx, func(cb hal.CommandBuffer) error { return cb.Fill(b.buf, 0, b.buf.Size(), 0) })
	})
}

// Upload allocates a buffer on d that holds a copy of data.
func Upload[T Elem](ctx context.Context, d *Device, data []T) (*Buffer[T], error) {
	return newBuffer(d, len(data), "Upload", func(b *Buffer[T]) error { return b.Write(ctx, data) })
}

// newBuffer allocates a buffer of n elements and fills it, for NewBuffer
// and Upload; call names the one that asks, for its errors.
func newBuffer[T Elem](d *Device, n int, call string, fill func(*Buffer[T]) error) (*Buffer[T], error) {
	if d == nil || d.hal == nil {
		return nil, errNoDevice
	}
	if n <= 0 || int64(n) > math.MaxInt64/4 {
		return nil, status.Newf(status.InvalidArgument, "vkbench: %s: a buffer of %d elements", call, n)
	}
	var zero T
	// The slack after the elements lets the tuner find a kernel that
	// writes past them (kernels.Check); Run binds only the elements.
	buf, err := d.hal.CreateBuffer(hal.BufferDesc{Size: int64(n)*4 + kernels.GuardBytes, Label: reflect.TypeOf(zero).String()})
	if err != nil {
		return nil, status.Annotate(err, "vkbench: "+call)
	}
	b := &Buffer[T]{buf: buf, n: n, limits: d.hal.Info().Limits}
	if err := fill(b); err != nil {
		return nil, status.Join(status.Annotate(err, "vkbench: "+call), b.Release())
	}
	return b, nil
}

// Len is the number of elements; 0 for a nil buffer.
func (b *Buffer[T]) Len() int {
	if b == nil {
		return 0
	}
	return b.n
}

// Write copies data to the start of the buffer; len(data) must not exceed
// Len. It returns when the data is in the buffer.
func (b *Buffer[T]) Write(ctx context.Context, data []T) error {
	if b == nil {
		return errNilBuffer
	}
	if len(data) > b.n {
		return status.Newf(status.InvalidArgument, "vkbench: writing %d elements to a buffer of %d", len(data), b.n)
	}
	if len(data) == 0 {
		return nil
	}
	return kernels.WriteWords(ctx, b.buf, data)
}

// Read copies the buffer's elements into dst, which must hold exactly Len
// of them.
func (b *Buffer[T]) Read(ctx context.Context, dst []T) error {
	if b == nil {
		return errNilBuffer
	}
	if len(dst) != b.n {
		return status.Newf(status.InvalidArgument, "vkbench: reading a buffer of %d elements into a slice of %d; Read takes them all", b.n, len(dst))
	}
	if len(dst) == 0 {
		return nil
	}
	return kernels.ReadWords(ctx, b.buf, dst)
}

// Release frees the buffer, at once or when the Run still using it is
// done. It never waits for the GPU; releasing twice is not an error.
func (b *Buffer[T]) Release() error {
	if b == nil {
		return nil
	}
	return b.buf.Release()
}

var errNilBuffer = status.New(status.InvalidArgument, "vkbench: the buffer is nil")

func (b *Buffer[T]) binding() (hal.Buffer, kernels.DType, int) {
	if b == nil {
		return nil, 0, 0
	}
	var zero T
	switch reflect.TypeOf(zero).Kind() {
	case reflect.Float32:
		return b.buf, kernels.F32, b.n
	case reflect.Int32:
		return b.buf, kernels.I32, b.n
	}
	return b.buf, kernels.U32, b.n
}

func (b *Buffer[T]) bind() hal.Binding {
	if b == nil {
		return hal.Binding{}
	}
	return hal.Binding{Buffer: b.buf, Size: 4 * int64(b.n)}
}

// Slice returns elements [lo, hi) of b as a Binding for Run, for a
// buffer larger than the device binds at once (maxStorageBufferRange).
// What can never bind is refused here, with InvalidArgument: a range
// outside the buffer or empty, a start that is not a multiple of the
// device's storage-buffer alignment, a range longer than its largest
// binding. A slice is not a Problem's buffer.
func (b *Buffer[T]) Slice(lo, hi int) (Binding, error) {
	if b == nil {
		return nil, errNilBuffer
	}
	bad := func(format string, args ...any) (Binding, error) {
		return nil, status.Newf(status.InvalidArgument, "vkbench: Slice(%d, %d) of a buffer of %d: "+format, append([]any{lo, hi, b.n}, args...)...)
	}
	switch off, size := 4*int64(lo), 4*int64(hi-lo); {
	case lo < 0 || hi > b.n || lo >= hi:
		return bad("want 0 <= lo < hi <= %d", b.n)
	case b.limits.MinStorageBufferAlign > 0 && uint64(off)%b.limits.MinStorageBufferAlign != 0:
		return bad("byte offset %d is not a multiple of the device's storage-buffer alignment %d", off, b.limits.MinStorageBufferAlign)
	case b.limits.MaxStorageBufferRange > 0 && uint64(size) > b.limits.MaxStorageBufferRange:
		return bad("%d bytes exceed the device's largest binding, %d (maxStorageBufferRange)", size, b.limits.MaxStorageBufferRange)
	}
	return bufferSlice[T]{b: b, lo: lo, hi: hi}, nil
}

// bufferSlice is elements [lo, hi) of a buffer.
type bufferSlice[T Elem] struct {
	b      *Buffer[T]
	lo, hi int
}

func (s bufferSlice[T]) binding() (hal.Buffer, kernels.DType, int) { return nil, 0, 0 }

func (s bufferSlice[T]) bind() hal.Binding {
	return hal.Binding{Buffer: s.b.buf, Offset: 4 * int64(s.lo), Size: 4 * int64(s.hi-s.lo)}
}
