package hal

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/vkbench/vkbench/internal/enum"
	"github.com/vkbench/vkbench/status"
)

// Driver is an opened backend: it lists the devices it can reach and opens
// them. A Driver is safe for concurrent use.
type Driver interface {
	// Name is the name the backend registered under.
	Name() string
	// Enumerate lists the devices, in the backend's order. DeviceInfo.Index
	// is the position in this list and what Open takes.
	Enumerate() ([]DeviceInfo, error)
	// Open opens the device at index. Each call opens a new, independent
	// logical device, even for the same index.
	Open(ctx context.Context, index int, opts DeviceOptions) (Device, error)
	// Release releases the driver. Devices opened from it must be released
	// first.
	Release() error
}

// Device is an opened logical device with one compute queue. Its methods
// are safe for concurrent use; the objects it creates are safe for
// concurrent use except CommandBuffer, which one goroutine records at a
// time.
type Device interface {
	// Info describes the device.
	Info() DeviceInfo
	// CreateBuffer allocates a buffer. Memory that does not fit is
	// ResourceExhausted.
	CreateBuffer(desc BufferDesc) (Buffer, error)
	// CreateImage allocates a 2D image in device memory, its texels
	// zero. A format that the device cannot use as desc.Usage asks
	// (DeviceInfo.ImageFormats) matches ErrUnsupported, naming the format
	// and the feature it lacks; memory that does not fit is
	// ResourceExhausted.
	CreateImage(desc ImageDesc) (Image, error)
	// CreateSampler creates a sampler.
	CreateSampler(desc SamplerDesc) (Sampler, error)
	// CreateExecutable checks desc.SPIRV and builds a compute pipeline.
	// A malformed module or a missing entry point is InvalidArgument.
	CreateExecutable(desc ExecutableDesc) (Executable, error)
	// CreateCommandBuffer creates an empty command buffer.
	CreateCommandBuffer() (CommandBuffer, error)
	// CreateTimestampPool creates a pool of count GPU timestamps.
	CreateTimestampPool(count int) (TimestampPool, error)
	// Submit queues a recorded (ended) command buffer for execution after
	// every fence in wait has signalled, and returns the fence of this
	// submission. Fences in wait must come from this device.
	Submit(cb CommandBuffer, wait ...Fence) (Fence, error)
	// Err reports whether the device is still usable: nil, an error
	// matching ErrDeviceLost once the device has been lost, or one
	// matching ErrReleased once it has been released.
	Err() error
	// Release destroys the device with every object it created that is
	// still alive, safely beside any other call (see Ownership).
	Release() error
}

// MemoryKind says where a buffer's memory lives.
type MemoryKind uint8

const (
	// DeviceLocal memory is fastest for the GPU; the host reaches it through
	// Buffer.Write and Buffer.Read, which stage through host memory.
	DeviceLocal MemoryKind = iota
	// HostVisible memory is mapped: Write and Read are plain copies, and the
	// GPU reads it over the bus.
	HostVisible
)

// String returns "device-local" or "host-visible".
func (k MemoryKind) String() string { return enum.Name(k, memoryKindNames[:], "memory-kind(?)") }

var memoryKindNames = [...]string{DeviceLocal: "device-local", HostVisible: "host-visible"}

// BufferDesc describes a buffer to create. Every buffer can be bound as a
// storage buffer and be the source and destination of copies and fills.
type BufferDesc struct {
	// Size in bytes; must be positive.
	Size int64
	// Memory is where it lives.
	Memory MemoryKind
	// Label names the buffer in errors and debuggers.
	Label string
}

// Buffer is a range of device memory.
type Buffer interface {
	// Size is the size in bytes.
	Size() int64
	// Memory is where the buffer lives.
	Memory() MemoryKind
	// Write copies data into the buffer at offset, and returns when the
	// bytes are in the buffer. It must not race with GPU work that uses the
	// buffer. Where it fails (its context ended, say), the bytes it was to
	// write are undefined.
	Write(ctx context.Context, offset int64, data []byte) error
	// Read copies len(dst) bytes at offset out of the buffer. Where it
	// fails, dst is undefined.
	Read(ctx context.Context, offset int64, dst []byte) error
	// Release gives up the buffer; it is freed once nothing uses it.
	Release() error
}

// Constant is one specialization constant: the 32-bit value (use
// math.Float32bits for floats; 0 or 1 for booleans) of constant_id ID.
type Constant struct {
	ID    uint32
	Value uint32
}

// ConstantValues returns cs by constant_id, the form a module's sizes are
// worked out with (spirv's SharedMemory and PushConstantBytes take it),
// and an InvalidArgument error naming the first constant_id cs gives
// twice, which no pipeline can be built with (the map holds the last
// value given).
func ConstantValues(cs []Constant) (map[uint32]uint32, error) {
	values := make(map[uint32]uint32, len(cs))
	var err error
	for _, c := range cs {
		if _, twice := values[c.ID]; twice && err == nil {
			err = status.Newf(status.InvalidArgument, "hal: specialization constant %d is given twice", c.ID)
		}
		values[c.ID] = c.Value
	}
	return values, err
}

// ConstantsOf returns values as Constants in constant_id order, the order
// an ExecutableDesc lists them in; nil where values is empty.
func ConstantsOf(values map[uint32]uint32) []Constant {
	var cs []Constant
	for _, id := range slices.Sorted(maps.Keys(values)) {
		cs = append(cs, Constant{ID: id, Value: values[id]})
	}
	return cs
}

// ExecutableDesc describes a compute pipeline built from SPIR-V.
type ExecutableDesc struct {
	// Label names the executable in errors.
	Label string
	// SPIRV is the module, as bytes (little-endian words).
	SPIRV []byte
	// EntryPoint is the GLCompute entry point's name; "main" if empty.
	EntryPoint string
	// Bindings is the number of bindings the kernel uses: in descriptor
	// set 0 at bindings 0..Bindings-1 when Sets is nil.
	Bindings int
	// Sets, if not nil, spreads the bindings over descriptor sets: set s
	// holds Sets[s] bindings, at bindings 0..Sets[s]-1 (0 for a set the
	// kernel does not use), and Sets sums to Bindings. BindingKinds and
	// a dispatch's Bindings list set 0's bindings first, then set 1's,
	// and so on. len(Sets) is at most Limits.MaxBoundDescriptorSets.
	Sets []int
	// BindingKinds is what each binding holds; nil or empty means every
	// one is a storage buffer, and otherwise its length is Bindings.
	BindingKinds []BindingKind
	// PushConstantSize is the size in bytes of the push-constant block
	// (a multiple of 4, at most the device's limit).
	PushConstantSize int
	// Constants are the specialization constants, the workgroup size among
	// them when the kernel declares local_size_x_id and friends.
	Constants []Constant
	// SubgroupSize, if not 0, is the subgroup size the pipeline requires
	// (VK_EXT_subgroup_size_control, core in Vulkan 1.3); 0 leaves it to
	// the driver. FullSubgroups requires every subgroup to be full. What a
	// device allows of both is DeviceInfo.SubgroupsUnsupported's rule.
	SubgroupSize  uint32
	FullSubgroups bool
}

// BindingIndex returns the place of the binding at (set, binding) in the
// flat list of d's bindings (BindingKinds, a dispatch's Bindings: set 0's
// first, then set 1's, ...), and false where d has no binding there.
func (d ExecutableDesc) BindingIndex(set, binding uint32) (int, bool) {
	sets := d.Sets
	if sets == nil {
		sets = []int{d.Bindings}
	}
	if int(set) >= len(sets) || int(binding) >= sets[set] {
		return 0, false
	}
	i := int(binding)
	for _, n := range sets[:set] {
		i += n
	}
	return i, true
}

// Executable is a compute pipeline ready to dispatch.
type Executable interface {
	// Label is the label it was created with.
	Label() string
	// Release gives it up; it is freed once no recording uses it.
	Release() error
}

// Binding is what one binding of a dispatch holds, as its executable's
// BindingKinds says: a range of a buffer for a storage buffer (Size 0
// means to the end of the buffer), an image for a storage image, an image
// and a sampler for a sampled image. The fields of the other kinds are
// zero.
type Binding struct {
	Buffer Buffer
	Offset int64
	Size   int64

	Image   Image
	Sampler Sampler
}

// Dispatch is one compute dispatch to record.
type Dispatch struct {
	Executable Executable
	// Bindings in binding order, set by set when the executable has
	// Sets; len must equal the executable's Bindings.
	Bindings []Binding
	// PushConstants are copied at record time; len must equal the
	// executable's PushConstantSize (or be 0 when that is 0).
	PushConstants []byte
	// Groups is the number of workgroups in x, y and z; each at least 1 and
	// at most the device's limit.
	Groups [3]uint32
}

// CommandBuffer records work for one submission. Begin starts a new
// recording (discarding the previous one), End closes it; only an ended
// command buffer can be submitted, and only when its previous submission
// has completed.
type CommandBuffer interface {
	Begin() error
	// Dispatch records a compute dispatch.
	Dispatch(d Dispatch) error
	// Copy records a copy of size bytes between buffers.
	Copy(src Buffer, srcOffset int64, dst Buffer, dstOffset int64, size int64) error
	// CopyBufferToImage records a copy of the whole of dst from src at
	// srcOffset (dst.Desc().Bytes() bytes, rows tightly packed).
	CopyBufferToImage(src Buffer, srcOffset int64, dst Image) error
	// CopyImageToBuffer records a copy of the whole of src into dst at
	// dstOffset, rows tightly packed.
	CopyImageToBuffer(src Image, dst Buffer, dstOffset int64) error
	// Fill records filling size bytes (a multiple of 4) at offset (a
	// multiple of 4) with the 32-bit value.
	Fill(dst Buffer, offset, size int64, value uint32) error
	// Barrier makes the writes of every command recorded before it visible
	// to every command recorded after it.
	Barrier() error
	// Timestamp records the GPU time, once the commands before it are
	// done, into slot index of pool.
	Timestamp(pool TimestampPool, index int) error
	End() error
	// Release gives up the command buffer; it is freed, with what its
	// recording holds, once no submission of it is in flight.
	Release() error
}

// Fence is the completion of one submission.
type Fence interface {
	// Wait blocks until the submission completes and returns its error;
	// a done ctx or a lost device end it at once, as Errors says.
	Wait(ctx context.Context) error
	// Poll reports, without blocking, whether the submission has completed
	// and, if so, its error.
	Poll() (done bool, err error)
	// Release frees the fence. It does not wait for the submission.
	Release() error
}

// TimestampPool holds GPU timestamps written by command buffers.
type TimestampPool interface {
	// Count is the number of slots.
	Count() int
	// Elapsed returns the time between the timestamps in slots start and
	// end, written by a submission that has completed. A timer that did not
	// tick (end not after start) is an error, as is an unwritten slot.
	Elapsed(start, end int) (time.Duration, error)
	// Ticks returns the raw, masked counter values of slots [first,
	// first+n), for callers that want sub-nanosecond arithmetic; multiply
	// differences by DeviceInfo.Limits.TimestampPeriod for nanoseconds.
	Ticks(first, n int) ([]uint64, error)
	// Release gives up the pool; it is freed once no recording uses it.
	Release() error
}

// PipelineCacher is implemented by devices that keep a driver pipeline
// cache, so that later runs pay no compile time.
type PipelineCacher interface {
	// PipelineCacheData returns the cache to store. Its validity is tied to
	// DeviceInfo.PipelineCacheUUID.
	PipelineCacheData() ([]byte, error)
}

// CompilerReporter is implemented by executables whose driver says what
// its shader compiler made of them (Vulkan's
// VK_KHR_pipeline_executable_properties): registers, spills, shared memory,
// instruction counts. The names, units and meanings are the driver's own;
// a driver without the extension answers Unimplemented.
type CompilerReporter interface {
	CompilerStats() ([]CompilerStat, error)
}

// CompilerStat is one statistic of one compiled executable of a pipeline.
type CompilerStat struct {
	// Executable names the compiled executable (a compute pipeline has
	// one), as the driver does, such as "Compute Shader".
	Executable string
	// Name and Description are the driver's, such as "Register Count".
	Name, Description string
	// Value is the statistic; a yes-or-no one is 1 or 0.
	Value float64
}

// LossMarker is implemented by devices that can be told to turn lost, as
// if the driver had reported it. Fault injection uses it, so that an
// injected loss takes the same path as a real one.
type LossMarker interface {
	// MarkLost makes the device lost with cause, failing every pending
	// fence and every later call.
	MarkLost(cause error)
}
