package vk_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/hal/haltest"
	"github.com/vkbench/vkbench/internal/testenv"
	"github.com/vkbench/vkbench/status"
)

// driverIDLLVMPipe is VK_DRIVER_ID_MESA_LLVMPIPE: lavapipe.
const driverIDLLVMPipe = 13

func TestEnumerate(t *testing.T) {
	drv, _ := openDriver(t)
	if got := drv.Name(); got != "vulkan" {
		t.Errorf("Name() = %q, want vulkan", got)
	}
	infos := listDevices(t, drv)
	safe := regexp.MustCompile(`^[a-z0-9._-]+$`)
	for i, info := range infos {
		t.Logf("device %d: %s (%s), driver %s %s [%s], Vulkan %s, hardware %s", i, info.Name, info.Type, info.DriverName, info.DriverVersionString(), info.DriverInfo, info.APIVersion, info.Hardware())
		t.Logf("  limits %+v features %+v heaps %+v", info.Limits, info.Features, info.MemoryHeaps)
		if info.Index != i || info.Backend != "vulkan" {
			t.Errorf("device %d: Index %d, Backend %q", i, info.Index, info.Backend)
		}
		if info.Name == "" || len(info.MemoryHeaps) == 0 {
			t.Errorf("device %d: empty name or no memory heaps: %+v", i, info)
		}
		if h := info.Hardware(); !safe.MatchString(h) {
			t.Errorf("device %d: Hardware() = %q is not path-safe", i, h)
		}
		if info.APIVersion.Major() != 1 || info.APIVersion.Minor() < 2 {
			continue // listed, but Open refuses it
		}
		l := info.Limits
		if l.MaxWorkgroupInvocations == 0 || l.MaxWorkgroupCount[0] == 0 || l.MaxPushConstantsSize < 128 || l.MinStorageBufferAlign == 0 || l.SubgroupSize == 0 {
			t.Errorf("device %d: implausible limits %+v", i, l)
		}
		if !l.SubgroupOps.Has(hal.SubgroupBasic) {
			t.Errorf("device %d: no basic subgroup operations in compute: %b", i, l.SubgroupOps)
		}
		if info.DriverID == 0 || info.DriverName == "" || info.PipelineCacheUUID == [16]byte{} {
			t.Errorf("device %d: no driver identity: %+v", i, info)
		}
		if l.MinSubgroupSize == 0 || l.MinSubgroupSize > l.SubgroupSize || l.SubgroupSize > l.MaxSubgroupSize {
			t.Errorf("device %d: subgroup size %d outside its range [%d, %d]", i, l.SubgroupSize, l.MinSubgroupSize, l.MaxSubgroupSize)
		}
		for _, m := range info.CooperativeMatrices {
			t.Logf("  cooperative matrix %s", m)
			if !info.Features.CooperativeMatrix(m.API) || m.M == 0 || m.N == 0 || m.K == 0 {
				t.Errorf("device %d: cooperative matrix %s without its extension's feature (%+v), or of no size", i, m, info.Features)
			}
		}
		if info.DriverID == driverIDLLVMPipe {
			if info.Type != hal.CPU || info.DriverName != "llvmpipe" || info.VendorID != hal.VendorMesa {
				t.Errorf("lavapipe: type %v, driver %q, vendor %#x; want cpu, llvmpipe, %#x", info.Type, info.DriverName, info.VendorID, hal.VendorMesa)
			}
			// Mesa 22's lavapipe: fp16 arithmetic and storage, the Vulkan
			// memory model, subgroups of 8, no cooperative matrices.
			f := info.Features
			if !f.Float16 || !f.Storage16 || !f.VulkanMemoryModel || f.CooperativeMatrixNV || f.CooperativeMatrixKHR || len(info.CooperativeMatrices) != 0 {
				t.Errorf("lavapipe: features %+v, cooperative matrices %v", f, info.CooperativeMatrices)
			}
			if l.TimestampValidBits == 0 || l.TimestampPeriod <= 0 {
				t.Errorf("lavapipe: timestamps: %d bits, period %v", l.TimestampValidBits, l.TimestampPeriod)
			}
		}
	}
	// Enumerate returns copies.
	infos[0].MemoryHeaps[0].Size = 1
	again, err := drv.Enumerate()
	must(t, err, "Enumerate")
	if again[0].MemoryHeaps[0].Size == 1 {
		t.Error("Enumerate returned the driver's own slice")
	}
}

func TestOpenErrors(t *testing.T) {
	drv, _ := openDriver(t)
	_, err := drv.Open(context.Background(), 1000, hal.DeviceOptions{})
	wantCode(t, err, status.NotFound, "Open(1000)")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = drv.Open(ctx, 0, hal.DeviceOptions{})
	wantCode(t, err, status.Cancelled, "Open(cancelled ctx)")
}

func TestBufferRoundTrip(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		ctx := context.Background()
		for _, kind := range []hal.MemoryKind{hal.DeviceLocal, hal.HostVisible} {
			// 17 MiB and a little more makes a staged transfer take two chunks.
			for _, size := range []int64{1, 4099, 17<<20 + 3} {
				buf, err := dev.CreateBuffer(hal.BufferDesc{Size: size, Memory: kind, Label: "roundtrip"})
				must(t, err, "CreateBuffer")
				if buf.Size() != size || buf.Memory() != kind {
					t.Errorf("buffer is %d bytes of %v, want %d of %v", buf.Size(), buf.Memory(), size, kind)
				}
				want := make([]byte, size)
				for i := range want {
					want[i] = byte(rand.Uint32())
				}
				must(t, buf.Write(ctx, 0, want), "Write")
				got := make([]byte, size)
				must(t, buf.Read(ctx, 0, got), "Read")
				if !bytes.Equal(got, want) {
					t.Errorf("%v buffer of %d bytes: read back differs from what was written", kind, size)
				}
				if size > 2 {
					must(t, buf.Write(ctx, 1, []byte{0xaa}), "Write at 1")
					part := make([]byte, 2)
					must(t, buf.Read(ctx, size-2, part), "Read at end")
					if part[0] != want[size-2] || part[1] != want[size-1] {
						t.Errorf("%v: read at the end = %x, want %x", kind, part, want[size-2:])
					}
					must(t, buf.Read(ctx, 0, part), "Read at 0")
					if part[1] != 0xaa {
						t.Errorf("%v: byte 1 = %#x after writing 0xaa", kind, part[1])
					}
				}
				wantCode(t, buf.Write(ctx, -1, []byte{1}), status.InvalidArgument, "Write at -1")
				wantCode(t, buf.Write(ctx, size, []byte{1}), status.InvalidArgument, "Write past the end")
				wantCode(t, buf.Read(ctx, size-1, make([]byte, 2)), status.InvalidArgument, "Read past the end")
				must(t, buf.Release(), "Release")
			}
		}
	})
}

func TestBufferErrors(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		for _, size := range []int64{0, -1} {
			_, err := dev.CreateBuffer(hal.BufferDesc{Size: size})
			wantCode(t, err, status.InvalidArgument, "CreateBuffer of size "+itoa(size))
		}
		var heap uint64
		for _, h := range dev.Info().MemoryHeaps {
			heap = max(heap, h.Size)
		}
		for _, kind := range []hal.MemoryKind{hal.DeviceLocal, hal.HostVisible} {
			for _, size := range []int64{int64(heap) + 1, 1 << 62} {
				_, err := dev.CreateBuffer(hal.BufferDesc{Size: size, Memory: kind, Label: "huge"})
				wantCode(t, err, status.ResourceExhausted, "CreateBuffer of "+itoa(size)+" bytes")
			}
		}
		// Nothing leaked: the device still works.
		buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 16})
		must(t, err, "CreateBuffer after failures")
		release(t, buf)
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// scale dispatches testdata/scale.comp (b[i] = a[i]*mul + add) over n
// words with a workgroup size set by a specialization constant.
func TestDispatch(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		ctx := context.Background()
		const n, local = 1000, 64
		exe, err := dev.CreateExecutable(hal.ExecutableDesc{
			Label:            "scale",
			SPIRV:            readSPIRV(t, "scale.spv"),
			Bindings:         2,
			PushConstantSize: 12,
			Constants:        []hal.Constant{{ID: 0, Value: local}},
		})
		must(t, err, "CreateExecutable")
		defer release(t, exe)
		if exe.Label() != "scale" {
			t.Errorf("Label() = %q", exe.Label())
		}
		for _, kinds := range [][2]hal.MemoryKind{{hal.HostVisible, hal.DeviceLocal}, {hal.DeviceLocal, hal.HostVisible}} {
			in, err := dev.CreateBuffer(hal.BufferDesc{Size: 4 * n, Memory: kinds[0], Label: "in"})
			must(t, err, "CreateBuffer(in)")
			out, err := dev.CreateBuffer(hal.BufferDesc{Size: 4 * n, Memory: kinds[1], Label: "out"})
			must(t, err, "CreateBuffer(out)")
			a := make([]uint32, n)
			for i := range a {
				a[i] = rand.Uint32()
			}
			must(t, in.Write(ctx, 0, words(a)), "Write")
			push := words([]uint32{n, 3, 7})
			run(t, dev, func(cb hal.CommandBuffer) {
				must(t, cb.Fill(out, 0, 4*n, 0xdeadbeef), "Fill")
				must(t, cb.Barrier(), "Barrier")
				must(t, cb.Dispatch(hal.Dispatch{
					Executable:    exe,
					Bindings:      []hal.Binding{{Buffer: in}, {Buffer: out}},
					PushConstants: push,
					Groups:        [3]uint32{(n + local - 1) / local, 1, 1},
				}), "Dispatch")
			})
			got := make([]byte, 4*n)
			must(t, out.Read(ctx, 0, got), "Read")
			for i, x := range a {
				if w := binary.LittleEndian.Uint32(got[4*i:]); w != x*3+7 {
					t.Fatalf("%v→%v: b[%d] = %d, want %d", kinds[0], kinds[1], i, w, x*3+7)
				}
			}
			release(t, in)
			release(t, out)
		}
	})
}

// TestEmptyBindingKinds: an empty BindingKinds, not nil, means what nil
// means, storage buffers only, as the check of its length has it.
func TestEmptyBindingKinds(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		ctx := context.Background()
		const n = 64
		exe, err := dev.CreateExecutable(hal.ExecutableDesc{
			Label:            "scale",
			SPIRV:            readSPIRV(t, "scale.spv"),
			Bindings:         2,
			BindingKinds:     []hal.BindingKind{},
			PushConstantSize: 12,
			Constants:        []hal.Constant{{ID: 0, Value: n}},
		})
		must(t, err, "CreateExecutable")
		defer release(t, exe)
		in, err := dev.CreateBuffer(hal.BufferDesc{Size: 4 * n, Memory: hal.HostVisible, Label: "in"})
		must(t, err, "CreateBuffer(in)")
		defer release(t, in)
		out, err := dev.CreateBuffer(hal.BufferDesc{Size: 4 * n, Memory: hal.HostVisible, Label: "out"})
		must(t, err, "CreateBuffer(out)")
		defer release(t, out)
		a := make([]uint32, n)
		for i := range a {
			a[i] = uint32(i)
		}
		must(t, in.Write(ctx, 0, words(a)), "Write")
		run(t, dev, func(cb hal.CommandBuffer) {
			must(t, cb.Dispatch(hal.Dispatch{
				Executable:    exe,
				Bindings:      []hal.Binding{{Buffer: in}, {Buffer: out}},
				PushConstants: words([]uint32{n, 3, 7}),
				Groups:        [3]uint32{1, 1, 1},
			}), "Dispatch")
		})
		got := make([]byte, 4*n)
		must(t, out.Read(ctx, 0, got), "Read")
		for i, x := range a {
			if w := binary.LittleEndian.Uint32(got[4*i:]); w != x*3+7 {
				t.Fatalf("b[%d] = %d, want %d", i, w, x*3+7)
			}
		}
	})
}

func words(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func TestCopyFill(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		ctx := context.Background()
		a, err := dev.CreateBuffer(hal.BufferDesc{Size: 64, Label: "a"})
		must(t, err, "CreateBuffer")
		defer release(t, a)
		b, err := dev.CreateBuffer(hal.BufferDesc{Size: 64, Memory: hal.HostVisible, Label: "b"})
		must(t, err, "CreateBuffer")
		defer release(t, b)
		run(t, dev, func(cb hal.CommandBuffer) {
			must(t, cb.Fill(a, 0, 64, 0x01020304), "Fill")
			must(t, cb.Fill(b, 0, 64, 0), "Fill")
			must(t, cb.Barrier(), "Barrier")
			must(t, cb.Copy(a, 8, b, 16, 8), "Copy")
			wantCode(t, cb.Fill(a, 2, 8, 0), status.InvalidArgument, "Fill at 2")
			wantCode(t, cb.Fill(a, 0, 6, 0), status.InvalidArgument, "Fill of 6 bytes")
			wantCode(t, cb.Fill(a, 60, 8, 0), status.InvalidArgument, "Fill past the end")
			wantCode(t, cb.Copy(a, 60, b, 0, 8), status.InvalidArgument, "Copy past the source")
			wantCode(t, cb.Copy(a, 0, b, 60, 8), status.InvalidArgument, "Copy past the destination")
			wantCode(t, cb.Copy(a, 0, a, 4, 8), status.InvalidArgument, "overlapping Copy")
			wantCode(t, cb.Copy(a, 0, b, 0, 0), status.InvalidArgument, "empty Copy")
		})
		got := make([]byte, 64)
		must(t, b.Read(ctx, 0, got), "Read")
		want := make([]byte, 64)
		copy(want[16:], words([]uint32{0x01020304, 0x01020304}))
		if !bytes.Equal(got, want) {
			t.Errorf("after Fill and Copy: %x, want %x", got, want)
		}
	})
}

func TestExecutableErrors(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		scale := readSPIRV(t, "scale.spv")
		limits := dev.Info().Limits
		for _, tc := range []struct {
			name string
			desc hal.ExecutableDesc
		}{
			{"garbage", hal.ExecutableDesc{SPIRV: []byte("this is not SPIR-V at all"), Bindings: 2, PushConstantSize: 12}},
			{"truncated", hal.ExecutableDesc{SPIRV: scale[:len(scale)-2], Bindings: 2, PushConstantSize: 12}},
			{"empty", hal.ExecutableDesc{}},
			{"no such entry point", hal.ExecutableDesc{SPIRV: scale, EntryPoint: "nope", Bindings: 2, PushConstantSize: 12}},
			{"push size not a multiple of 4", hal.ExecutableDesc{SPIRV: scale, Bindings: 2, PushConstantSize: 13}},
			{"push size over the limit", hal.ExecutableDesc{SPIRV: scale, Bindings: 2, PushConstantSize: int(limits.MaxPushConstantsSize) + 4}},
			{"negative bindings", hal.ExecutableDesc{SPIRV: scale, Bindings: -1, PushConstantSize: 12}},
			{"duplicate constants", hal.ExecutableDesc{SPIRV: scale, Bindings: 2, PushConstantSize: 12, Constants: []hal.Constant{{ID: 0, Value: 1}, {ID: 0, Value: 2}}}},
			{"push size short of the module's block", hal.ExecutableDesc{SPIRV: scale, Bindings: 2, PushConstantSize: 8}},
			{"sets not summing to the bindings", hal.ExecutableDesc{SPIRV: scale, Bindings: 2, Sets: []int{1}, PushConstantSize: 12}},
			{"a negative set", hal.ExecutableDesc{SPIRV: scale, Bindings: 2, Sets: []int{3, -1}, PushConstantSize: 12}},
			{"no sets", hal.ExecutableDesc{SPIRV: scale, Bindings: 2, Sets: []int{}, PushConstantSize: 12}},
			{"set 0's bindings in set 1", hal.ExecutableDesc{SPIRV: scale, Bindings: 2, Sets: []int{0, 2}, PushConstantSize: 12}},
		} {
			tc.desc.Label = tc.name
			_, err := dev.CreateExecutable(tc.desc)
			wantCode(t, err, status.InvalidArgument, tc.name)
		}
	})
}

// fakeBuffer is a buffer of no backend at all.
type fakeBuffer struct{ hal.Buffer }

func TestForeignObjects(t *testing.T) {
	drv, _ := openDriver(t)
	i := defaultDevice(t, drv)
	open := func() hal.Device {
		dev, err := drv.Open(context.Background(), i, hal.DeviceOptions{})
		must(t, err, "Open")
		t.Cleanup(func() { release(t, dev) })
		return dev
	}
	dev, other := open(), open()
	exe, err := dev.CreateExecutable(hal.ExecutableDesc{SPIRV: readSPIRV(t, "empty.spv"), Bindings: 1})
	must(t, err, "CreateExecutable")
	otherExe, err := other.CreateExecutable(hal.ExecutableDesc{SPIRV: readSPIRV(t, "empty.spv"), Bindings: 1})
	must(t, err, "CreateExecutable")
	buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 64})
	must(t, err, "CreateBuffer")
	otherBuf, err := other.CreateBuffer(hal.BufferDesc{Size: 64})
	must(t, err, "CreateBuffer")
	otherPool, err := other.CreateTimestampPool(2)
	must(t, err, "CreateTimestampPool")
	otherCB, err := other.CreateCommandBuffer()
	must(t, err, "CreateCommandBuffer")
	must(t, otherCB.Begin(), "Begin")
	must(t, otherCB.End(), "End")
	otherFence, err := other.Submit(otherCB)
	must(t, err, "Submit")
	must(t, otherFence.Wait(context.Background()), "Wait")

	cb, err := dev.CreateCommandBuffer()
	must(t, err, "CreateCommandBuffer")
	must(t, cb.Begin(), "Begin")
	foreign := func(err error, what string) {
		t.Helper()
		wantCode(t, err, status.InvalidArgument, what)
		if !errors.Is(err, hal.ErrForeignObject) {
			t.Errorf("%s: %v does not match hal.ErrForeignObject", what, err)
		}
	}
	dispatch := func(e hal.Executable, b hal.Buffer) error {
		return cb.Dispatch(hal.Dispatch{Executable: e, Bindings: []hal.Binding{{Buffer: b}}, Groups: [3]uint32{1, 1, 1}})
	}
	foreign(dispatch(otherExe, buf), "Dispatch with another device's executable")
	foreign(dispatch(exe, otherBuf), "Dispatch with another device's buffer")
	foreign(dispatch(exe, fakeBuffer{}), "Dispatch with a buffer of no backend")
	foreign(cb.Copy(buf, 0, otherBuf, 0, 4), "Copy to another device's buffer")
	foreign(cb.Fill(otherBuf, 0, 4, 0), "Fill of another device's buffer")
	foreign(cb.Timestamp(otherPool, 0), "Timestamp into another device's pool")
	must(t, dispatch(exe, buf), "Dispatch")
	must(t, cb.End(), "End")
	_, err = dev.Submit(otherCB)
	foreign(err, "Submit of another device's command buffer")
	_, err = dev.Submit(cb, otherFence)
	foreign(err, "Submit waiting on another device's fence")
	f, err := dev.Submit(cb)
	must(t, err, "Submit after the rejected calls")
	must(t, f.Wait(context.Background()), "Wait")
}

func TestDispatchErrors(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		ctx := context.Background()
		limits := dev.Info().Limits
		exe, err := dev.CreateExecutable(hal.ExecutableDesc{Label: "scale", SPIRV: readSPIRV(t, "scale.spv"), Bindings: 2, PushConstantSize: 12, Constants: []hal.Constant{{ID: 0, Value: 1}}})
		must(t, err, "CreateExecutable")
		defer release(t, exe)
		in, err := dev.CreateBuffer(hal.BufferDesc{Size: 1024, Memory: hal.HostVisible})
		must(t, err, "CreateBuffer")
		defer release(t, in)
		out, err := dev.CreateBuffer(hal.BufferDesc{Size: 1024, Memory: hal.HostVisible})
		must(t, err, "CreateBuffer")
		defer release(t, out)
		gone, err := dev.CreateBuffer(hal.BufferDesc{Size: 1024})
		must(t, err, "CreateBuffer")
		must(t, gone.Release(), "Release")
		must(t, in.Write(ctx, 0, words([]uint32{5})), "Write")

		good := hal.Dispatch{Executable: exe, Bindings: []hal.Binding{{Buffer: in}, {Buffer: out}}, PushConstants: words([]uint32{1, 2, 3}), Groups: [3]uint32{1, 1, 1}}
		cb, err := dev.CreateCommandBuffer()
		must(t, err, "CreateCommandBuffer")
		defer release(t, cb)
		wantCode(t, cb.Dispatch(good), status.FailedPrecondition, "Dispatch before Begin")
		wantCode(t, cb.End(), status.FailedPrecondition, "End before Begin")
		_, err = dev.Submit(cb)
		wantCode(t, err, status.FailedPrecondition, "Submit before End")
		must(t, cb.Begin(), "Begin")
		_, err = dev.Submit(cb)
		wantCode(t, err, status.FailedPrecondition, "Submit while recording")

		bad := func(what string, code status.Code, change func(d *hal.Dispatch)) {
			t.Helper()
			d := good
			d.Bindings = append([]hal.Binding(nil), good.Bindings...)
			change(&d)
			err := cb.Dispatch(d)
			wantCode(t, err, code, what)
		}
		bad("no executable", status.InvalidArgument, func(d *hal.Dispatch) { d.Executable = nil })
		bad("one binding too few", status.InvalidArgument, func(d *hal.Dispatch) { d.Bindings = d.Bindings[:1] })
		bad("nil buffer", status.InvalidArgument, func(d *hal.Dispatch) { d.Bindings[1].Buffer = nil })
		bad("short push constants", status.InvalidArgument, func(d *hal.Dispatch) { d.PushConstants = d.PushConstants[:8] })
		bad("zero groups", status.InvalidArgument, func(d *hal.Dispatch) { d.Groups[1] = 0 })
		bad("too many groups", status.InvalidArgument, func(d *hal.Dispatch) { d.Groups[0] = limits.MaxWorkgroupCount[0] + 1 })
		bad("range past the end", status.InvalidArgument, func(d *hal.Dispatch) { d.Bindings[0].Offset, d.Bindings[0].Size = 512, 1024 })
		bad("negative offset", status.InvalidArgument, func(d *hal.Dispatch) { d.Bindings[0].Offset = -int64(limits.MinStorageBufferAlign) })
		bad("offset at the end", status.InvalidArgument, func(d *hal.Dispatch) { d.Bindings[0].Offset = 1024 })
		if limits.MinStorageBufferAlign > 1 {
			bad("misaligned offset", status.InvalidArgument, func(d *hal.Dispatch) { d.Bindings[0].Offset = 1 })
		}
		bad("released buffer", status.FailedPrecondition, func(d *hal.Dispatch) { d.Bindings[1].Buffer = gone })
		if err := cb.Dispatch(hal.Dispatch{Executable: exe, Bindings: []hal.Binding{{Buffer: in}, {Buffer: gone}}, PushConstants: good.PushConstants, Groups: good.Groups}); !errors.Is(err, hal.ErrReleased) {
			t.Errorf("Dispatch with a released buffer: %v does not match hal.ErrReleased", err)
		}

		// The rejected calls recorded nothing: the command buffer runs the
		// one good dispatch (b[0] = 5*2 + 3).
		must(t, cb.Dispatch(good), "Dispatch")
		must(t, cb.End(), "End")
		f, err := dev.Submit(cb)
		must(t, err, "Submit")
		must(t, f.Wait(ctx), "Wait")
		got := make([]byte, 4)
		must(t, out.Read(ctx, 0, got), "Read")
		if w := binary.LittleEndian.Uint32(got); w != 13 {
			t.Errorf("b[0] = %d, want 13", w)
		}

		// A recording holds what it uses: its objects' handles may be
		// released before it is submitted, and it still runs.
		tmp, err := dev.CreateBuffer(hal.BufferDesc{Size: 1024, Memory: hal.HostVisible})
		must(t, err, "CreateBuffer")
		must(t, cb.Begin(), "Begin")
		must(t, cb.Fill(tmp, 0, 4, 7), "Fill")
		must(t, cb.Copy(tmp, 0, out, 0, 4), "Copy")
		must(t, cb.End(), "End")
		must(t, tmp.Release(), "Release")
		f, err = dev.Submit(cb)
		must(t, err, "Submit of a recording whose buffer was released")
		must(t, f.Wait(ctx), "Wait")
		must(t, out.Read(ctx, 0, got), "Read")
		if w := binary.LittleEndian.Uint32(got); w != 7 {
			t.Errorf("b[0] = %d after a fill and copy through a released buffer, want 7", w)
		}
	})
}

func TestInFlight(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		inFlight := func(err error, what string) {
			t.Helper()
			wantCode(t, err, status.FailedPrecondition, what)
			if !errors.Is(err, hal.ErrInFlight) {
				t.Errorf("%s: %v does not match hal.ErrInFlight", what, err)
			}
		}
		// The checks count only if the submission was still running after
		// the last of them (then it was during each): a busy host may run
		// them after a short one ended, and they are made again, beside a
		// submission four times as long.
		var cb hal.CommandBuffer
		var f hal.Fence
		for spin := 100 * time.Millisecond; ; spin *= 4 {
			s := newSpinner(t, dev, spin)
			cb, f = s.start(t)
			beginErr := cb.Begin()
			_, submitErr := dev.Submit(cb)
			done, pollErr := f.Poll()
			if ended, _ := f.Poll(); ended && spin < 2*time.Second {
				continue
			}
			inFlight(beginErr, "Begin in flight")
			inFlight(submitErr, "Submit in flight")
			if done || pollErr != nil {
				t.Errorf("Poll in flight = %v, %v", done, pollErr)
			}
			break
		}

		// Once a later submission has finished, the first is no longer in
		// flight, though nobody waited on its own fence.
		later, err := dev.CreateCommandBuffer()
		must(t, err, "CreateCommandBuffer")
		defer release(t, later)
		must(t, later.Begin(), "Begin")
		must(t, later.End(), "End")
		lf, err := dev.Submit(later, f)
		must(t, err, "Submit")
		must(t, lf.Wait(context.Background()), "Wait")
		must(t, cb.Begin(), "Begin after the submission finished")
		must(t, cb.End(), "End")
		if done, err := f.Poll(); !done || err != nil {
			t.Errorf("Poll after completion = %v, %v", done, err)
		}
	})
}

func TestWaitContext(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		s := newSpinner(t, dev, 200*time.Millisecond)
		_, f := s.start(t)

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := f.Wait(ctx)
		wantCode(t, err, status.Cancelled, "Wait(cancelled)")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Wait(cancelled) = %v, does not match context.Canceled", err)
		}
		past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		wantCode(t, f.Wait(past), status.DeadlineExceeded, "Wait(past deadline)")

		start := time.Now()
		short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		// A plain timer beside the Wait: how late a busy host runs it, the
		// Wait may be late too.
		control := make(chan time.Duration, 1)
		go func() {
			<-time.After(20 * time.Millisecond)
			control <- time.Since(start)
		}()
		err = f.Wait(short)
		took := time.Since(start)
		late := <-control - 20*time.Millisecond
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Wait(20ms) = %v, want nil or DeadlineExceeded", err)
		}

		// The submission stayed in flight and can be waited on again.
		must(t, f.Wait(context.Background()), "Wait after the context errors")
		spin := time.Since(start)
		// The Wait returned nearer its deadline than the end of its work
		// (seen by the Wait after it), 150 ms at least, beyond how late
		// the timer ran: measured in the same spin, which a busy machine
		// slows too, where a fixed 150 ms was all it had. What it
		// returned does not matter: a Wait that returned nil (the spin
		// done) or its error only with the spin's end fails.
		bound := max(150*time.Millisecond, (20*time.Millisecond+spin)/2) + late
		t.Logf("Wait with a 20ms deadline: %v after %v, within %v; the spin done after %v", err, took, bound, spin)
		if took > bound {
			t.Errorf("Wait with a 20ms deadline returned %v after %v, the spin done after %v; want within %v (a plain timer beside it ran %v late)", err, took, spin, bound, late)
		}
		if done, err := f.Poll(); !done || err != nil {
			t.Errorf("Poll after Wait = %v, %v", done, err)
		}
		must(t, f.Wait(ctx), "Wait(cancelled) of a finished submission")
	})
}

func TestMarkLost(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		ctx := context.Background()
		s := newSpinner(t, dev, 200*time.Millisecond)
		buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 64})
		must(t, err, "CreateBuffer")
		idle, err := dev.CreateCommandBuffer()
		must(t, err, "CreateCommandBuffer")
		// The spin must still run when the device is lost: on a busy host
		// the 10 ms sleep below can outlast it, and then it runs again,
		// four times longer.
		var f hal.Fence
		var waited chan error
		var wake func() time.Time
		var woken func() time.Duration
		for attempt := 1; ; attempt++ {
			_, f = s.start(t)
			waited = make(chan error, 1)
			go func() { waited <- f.Wait(ctx) }()
			// A control beside it (haltest.WaitControl): a Wait on the
			// same fence whose context is cancelled at the loss, which
			// measures what the host adds to a Wait's return.
			wake, woken = haltest.WaitControl([]hal.Fence{f})
			time.Sleep(10 * time.Millisecond)
			if done, _ := f.Poll(); !done {
				break
			}
			woken()
			if err := <-waited; err != nil || attempt == 3 {
				t.Fatalf("the spin (%d workgroups) ended before the loss %d times (last Wait: %v)", s.groups[1], attempt, err)
			}
			s.groups[1] = min(4*s.groups[1], 65535)
		}
		cause := errors.New("injected fault")
		lostAt := wake()
		dev.(hal.LossMarker).MarkLost(cause)
		dev.(hal.LossMarker).MarkLost(errors.New("a second loss changes nothing"))

		lost := func(err error, what string) {
			t.Helper()
			if !errors.Is(err, hal.ErrDeviceLost) || !errors.Is(err, cause) || status.CodeOf(err) != status.DataLoss {
				t.Errorf("%s: %v; want DATA_LOSS matching hal.ErrDeviceLost and the cause", what, err)
			}
		}
		select {
		case err := <-waited:
			took := time.Since(lostAt)
			lost(err, "pending Wait")
			// 100 ms and what the host added to the control's Wait, where
			// a fixed 100 ms left a busy machine nothing: the spin, 200 ms
			// or more still to run, fails a Wait that returns with it.
			host := woken()
			t.Logf("pending Wait returned %v after the loss; the control's, %v", took, host)
			if took > 100*time.Millisecond+host {
				t.Errorf("pending Wait returned %v after the loss; want within 100 ms of the %v a Wait cancelled then took", took, host)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("pending Wait did not return after the device was lost")
		}
		lost(dev.Err(), "Err")
		lost(f.Wait(ctx), "Wait")
		if done, err := f.Poll(); !done {
			t.Error("Poll of a lost device's fence is not done")
		} else {
			lost(err, "Poll")
		}
		_, err = dev.CreateBuffer(hal.BufferDesc{Size: 64})
		lost(err, "CreateBuffer")
		_, err = dev.CreateCommandBuffer()
		lost(err, "CreateCommandBuffer")
		_, err = dev.CreateExecutable(hal.ExecutableDesc{SPIRV: readSPIRV(t, "empty.spv"), Bindings: 1})
		lost(err, "CreateExecutable")
		_, err = dev.CreateTimestampPool(1)
		lost(err, "CreateTimestampPool")
		lost(buf.Write(ctx, 0, []byte{1}), "Buffer.Write")
		lost(buf.Read(ctx, 0, make([]byte, 1)), "Buffer.Read")
		lost(idle.Begin(), "Begin")
		_, err = dev.Submit(idle)
		lost(err, "Submit")
		_, err = dev.(hal.PipelineCacher).PipelineCacheData()
		lost(err, "PipelineCacheData")

		// Releasing still works, and never hangs.
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, r := range []interface{ Release() error }{idle, buf, dev} {
				if err := r.Release(); err != nil {
					t.Errorf("Release after the loss: %v", err)
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Release hung on a lost device")
		}
	})
}

func TestTimestamps(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		if dev.Info().Limits.TimestampValidBits == 0 {
			_, err := dev.CreateTimestampPool(2)
			if !errors.Is(err, hal.ErrUnsupported) {
				t.Errorf("CreateTimestampPool without timestamps: %v, want hal.ErrUnsupported", err)
			}
			t.Skip("the compute queue has no timestamps")
		}
		s := newSpinner(t, dev, 20*time.Millisecond)
		pool, err := dev.CreateTimestampPool(4)
		must(t, err, "CreateTimestampPool")
		defer release(t, pool)
		if pool.Count() != 4 {
			t.Errorf("Count() = %d", pool.Count())
		}
		_, err = pool.Elapsed(0, 1)
		wantCode(t, err, status.FailedPrecondition, "Elapsed before any write")

		start := time.Now()
		run(t, dev, func(cb hal.CommandBuffer) {
			must(t, cb.Timestamp(pool, 0), "Timestamp")
			must(t, s.record(cb), "Dispatch")
			must(t, cb.Timestamp(pool, 1), "Timestamp")
			wantCode(t, cb.Timestamp(pool, 4), status.InvalidArgument, "Timestamp(4)")
			wantCode(t, cb.Timestamp(pool, -1), status.InvalidArgument, "Timestamp(-1)")
		})
		wall := time.Since(start)
		gpu, err := pool.Elapsed(0, 1)
		must(t, err, "Elapsed")
		t.Logf("spin of %v workgroups: %v on the GPU, %v round trip", s.groups, gpu, wall)
		if gpu <= 0 || gpu > wall {
			t.Errorf("Elapsed = %v, want in (0, %v]", gpu, wall)
		}
		ticks, err := pool.Ticks(0, 2)
		must(t, err, "Ticks")
		if len(ticks) != 2 || ticks[1] <= ticks[0] {
			t.Errorf("Ticks = %v", ticks)
		}
		_, err = pool.Elapsed(1, 0)
		wantCode(t, err, status.Internal, "Elapsed backwards")
		if !errors.Is(err, hal.ErrNoTick) {
			t.Errorf("Elapsed backwards: %v does not match hal.ErrNoTick", err)
		}
		_, err = pool.Elapsed(0, 2)
		wantCode(t, err, status.FailedPrecondition, "Elapsed to an unwritten slot")
		_, err = pool.Ticks(3, 2)
		wantCode(t, err, status.InvalidArgument, "Ticks past the end")
		_, err = pool.Elapsed(0, 4)
		wantCode(t, err, status.InvalidArgument, "Elapsed(0, 4)")
	})
}

func TestRelease(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		ctx := context.Background()
		buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 64})
		must(t, err, "CreateBuffer")
		exe, err := dev.CreateExecutable(hal.ExecutableDesc{SPIRV: readSPIRV(t, "empty.spv"), Bindings: 1})
		must(t, err, "CreateExecutable")
		pool, err := dev.CreateTimestampPool(2)
		must(t, err, "CreateTimestampPool")
		cb, err := dev.CreateCommandBuffer()
		must(t, err, "CreateCommandBuffer")
		must(t, cb.Begin(), "Begin")
		must(t, cb.End(), "End")
		f, err := dev.Submit(cb)
		must(t, err, "Submit")
		must(t, f.Wait(ctx), "Wait")

		for _, r := range []interface{ Release() error }{buf, exe, pool, cb, f} {
			must(t, r.Release(), "Release")
			must(t, r.Release(), "second Release")
		}
		isReleased := func(err error, what string) {
			t.Helper()
			if !errors.Is(err, hal.ErrReleased) {
				t.Errorf("%s after Release: %v, want hal.ErrReleased", what, err)
			}
		}
		isReleased(buf.Write(ctx, 0, []byte{1}), "Buffer.Write")
		isReleased(cb.Begin(), "Begin")
		isReleased(f.Wait(ctx), "Fence.Wait")
		_, err = pool.Ticks(0, 1)
		isReleased(err, "Ticks")

		// Objects still alive are released with the device.
		left, err := dev.CreateBuffer(hal.BufferDesc{Size: 64, Memory: hal.HostVisible})
		must(t, err, "CreateBuffer")
		must(t, dev.Release(), "Device.Release")
		must(t, dev.Release(), "second Device.Release")
		isReleased(left.Write(ctx, 0, []byte{1}), "Write to a buffer of a released device")
		must(t, left.Release(), "Release of a buffer of a released device")
		_, err = dev.CreateBuffer(hal.BufferDesc{Size: 64})
		isReleased(err, "CreateBuffer on a released device")
	})
}

// pipelineCacheHeader is the header every pipeline cache starts with
// (VkPipelineCacheHeaderVersionOne).
type pipelineCacheHeader struct {
	Size, Version, VendorID, DeviceID uint32
	UUID                              [16]byte
}

// readPipelineCacheHeader reads the header at the start of data; ok is
// false when data is too short to hold one.
func readPipelineCacheHeader(data []byte) (h pipelineCacheHeader, ok bool) {
	if len(data) < 32 {
		return h, false
	}
	le := binary.LittleEndian
	h.Size, h.Version, h.VendorID, h.DeviceID = le.Uint32(data), le.Uint32(data[4:]), le.Uint32(data[8:]), le.Uint32(data[12:])
	copy(h.UUID[:], data[16:32])
	return h, true
}

// TestPipelineCache checks that a device ignores a cache that is not its
// own, and that the cache it returns is the driver's, for this device:
// the Vulkan header with the device's vendor, device and pipeline-cache
// UUID. A device opened with that cache returns at least what it was
// given.
func TestPipelineCache(t *testing.T) {
	drv, _ := openDriver(t)
	i := defaultDevice(t, drv)
	foreign := []byte("not a pipeline cache, though longer than a header")
	dev, err := drv.Open(context.Background(), i, hal.DeviceOptions{PipelineCache: foreign})
	must(t, err, "Open with a foreign cache")
	info := dev.Info()
	exe, err := dev.CreateExecutable(hal.ExecutableDesc{SPIRV: readSPIRV(t, "scale.spv"), Bindings: 2, PushConstantSize: 12})
	must(t, err, "CreateExecutable")
	release(t, exe)
	data, err := dev.(hal.PipelineCacher).PipelineCacheData()
	must(t, err, "PipelineCacheData")
	must(t, dev.Release(), "Release")
	t.Logf("pipeline cache: %d bytes", len(data))

	want := pipelineCacheHeader{Size: 32, Version: 1, VendorID: info.VendorID, DeviceID: info.DeviceID, UUID: info.PipelineCacheUUID}
	checkHeader := func(what string, data []byte) {
		t.Helper()
		got, ok := readPipelineCacheHeader(data)
		if !ok {
			t.Fatalf("%s: %d bytes, too short for a pipeline cache's header", what, len(data))
		}
		if int(got.Size) > len(data) {
			t.Errorf("%s: the header says it is %d bytes long, of %d", what, got.Size, len(data))
		}
		if got.Size >= 32 { // the size of VkPipelineCacheHeaderVersionOne; later versions may be longer
			got.Size = 32
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s is not a pipeline cache of %s (-want +got):\n%s", what, info.Name, diff)
		}
	}
	checkHeader("the cache after a foreign one", data)

	dev, err = drv.Open(context.Background(), i, hal.DeviceOptions{PipelineCache: data})
	must(t, err, "Open with the cache")
	again, err := dev.(hal.PipelineCacher).PipelineCacheData()
	must(t, err, "PipelineCacheData of a device opened with the cache")
	checkHeader("the cache of a device opened with it", again)
	if len(again) < len(data) {
		t.Errorf("a device opened with a cache of %d bytes returns %d: it dropped what it was given", len(data), len(again))
	}
	exe, err = dev.CreateExecutable(hal.ExecutableDesc{SPIRV: readSPIRV(t, "scale.spv"), Bindings: 2, PushConstantSize: 12})
	must(t, err, "CreateExecutable with the cache")
	release(t, exe)
	must(t, dev.Release(), "Release")
}

// TestConcurrentSubmit runs several goroutines, each with its own command
// buffer, submitting and waiting on one device at once (for -race).
func TestConcurrentSubmit(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		ctx := context.Background()
		exe, err := dev.CreateExecutable(hal.ExecutableDesc{Label: "scale", SPIRV: readSPIRV(t, "scale.spv"), Bindings: 2, PushConstantSize: 12, Constants: []hal.Constant{{ID: 0, Value: 32}}})
		must(t, err, "CreateExecutable")
		defer release(t, exe)
		// ok reports err as a failure; must would call FailNow off the
		// test's goroutine.
		ok := func(err error, what string) bool {
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
			return err == nil
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				in, err := dev.CreateBuffer(hal.BufferDesc{Size: 128, Memory: hal.HostVisible})
				if !ok(err, "CreateBuffer") {
					return
				}
				defer release(t, in)
				out, err := dev.CreateBuffer(hal.BufferDesc{Size: 128})
				if !ok(err, "CreateBuffer") {
					return
				}
				defer release(t, out)
				cb, err := dev.CreateCommandBuffer()
				if !ok(err, "CreateCommandBuffer") {
					return
				}
				defer release(t, cb)
				for i := range 20 {
					x := uint32(g*1000 + i)
					if !ok(in.Write(ctx, 0, words([]uint32{x})), "Write") {
						return
					}
					if !ok(cb.Begin(), "Begin") {
						return
					}
					if !ok(cb.Dispatch(hal.Dispatch{Executable: exe, Bindings: []hal.Binding{{Buffer: in}, {Buffer: out}}, PushConstants: words([]uint32{1, 2, 1}), Groups: [3]uint32{1, 1, 1}}), "Dispatch") {
						return
					}
					if !ok(cb.End(), "End") {
						return
					}
					f, err := dev.Submit(cb)
					if !ok(err, "Submit") {
						return
					}
					if !ok(f.Wait(ctx), "Wait") {
						return
					}
					got := make([]byte, 4)
					if !ok(out.Read(ctx, 0, got), "Read") {
						return
					}
					if w := binary.LittleEndian.Uint32(got); w != 2*x+1 {
						t.Errorf("goroutine %d, round %d: %d, want %d", g, i, w, 2*x+1)
						return
					}
				}
			})
		}
		wg.Wait()
	})
}

// TestCompilerStats asks every device what its compiler made of a kernel:
// NVIDIA's drivers have VK_KHR_pipeline_executable_properties and must
// report a positive register count; a driver without it (lavapipe 22)
// answers Unimplemented. Either way a released executable answers
// Released.
func TestCompilerStats(t *testing.T) {
	eachDevice(t, func(t *testing.T, dev hal.Device) {
		exe, err := dev.CreateExecutable(hal.ExecutableDesc{Label: "scale", SPIRV: readSPIRV(t, "scale.spv"), Bindings: 2, PushConstantSize: 12, Constants: []hal.Constant{{ID: 0, Value: 64}}})
		must(t, err, "CreateExecutable")
		stats, err := exe.(hal.CompilerReporter).CompilerStats()
		info := dev.Info()
		switch {
		case status.CodeOf(err) == status.Unimplemented:
			if info.VendorID == 0x10de {
				t.Errorf("an NVIDIA driver reports no compiler statistics: %v", err)
			}
			t.Logf("no compiler statistics: %v", err)
		case err != nil:
			t.Fatalf("CompilerStats: %v", err)
		default:
			if len(stats) == 0 {
				t.Errorf("CompilerStats returned no statistics and no error")
			}
			registers := false
			for _, s := range stats {
				t.Logf("%s: %s = %g (%s)", s.Executable, s.Name, s.Value, s.Description)
				if s.Name == "" || s.Executable == "" || math.IsNaN(s.Value) {
					t.Errorf("a statistic without a name, an executable or a value: %+v", s)
				}
				if strings.Contains(strings.ToLower(s.Name), "register") && s.Value > 0 {
					registers = true
				}
			}
			if info.VendorID == 0x10de && !registers {
				t.Errorf("no positive register count among NVIDIA's statistics")
			}
		}
		release(t, exe)
		_, err = exe.(hal.CompilerReporter).CompilerStats()
		if !errors.Is(err, hal.ErrReleased) {
			t.Errorf("CompilerStats of a released executable: %v, want hal.ErrReleased", err)
		}
	})
}

// TestReleaseBusy checks Release of a device whose GPU is still running
// past the device's ReleaseWait (a negative one is refused when the
// device is opened): Release returns in about that time,
// returning an error that says the device is left to the driver,
// the fence of the running work fails as lost, with the wait named, and
// the log says once, as a warning, that the device is left to the driver,
// without calling it lost (it is busy, not lost) or warning again when
// the driver is released.
func TestReleaseBusy(t *testing.T) {
	var logs testenv.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	msgs := &messages{}
	drv, err := hal.OpenDriver("vulkan", hal.DriverOptions{Validation: true, OnMessage: msgs.add, Logger: logger})
	if err != nil && status.CodeOf(err) == status.FailedPrecondition && !testenv.Strict() {
		drv, err = hal.OpenDriver("vulkan", hal.DriverOptions{Logger: logger})
	}
	if err != nil {
		testenv.Unavailable(t, "no usable Vulkan here: %v", err)
	}
	defer msgs.flush(t)
	const wait = 100 * time.Millisecond
	_, err = drv.Open(context.Background(), defaultDevice(t, drv), hal.DeviceOptions{ReleaseWait: -time.Second})
	wantCode(t, err, status.InvalidArgument, "Open with a negative ReleaseWait")
	dev, err := drv.Open(context.Background(), defaultDevice(t, drv), hal.DeviceOptions{ReleaseWait: wait})
	must(t, err, "Open")
	s := newSpinner(t, dev, 2*time.Second)
	cb, f := s.start(t)
	start := time.Now()
	err = dev.Release()
	took := time.Since(start)
	if status.CodeOf(err) != status.DeadlineExceeded || !strings.Contains(err.Error(), "left to the driver") {
		t.Errorf("Device.Release of a busy device: %v; want DEADLINE_EXCEEDED saying the device is left to the driver", err)
	}
	_, createErr := dev.CreateBuffer(hal.BufferDesc{Size: 4})
	for call, err := range map[string]error{"Err": dev.Err(), "CreateBuffer": createErr} {
		if !errors.Is(err, hal.ErrReleased) || errors.Is(err, hal.ErrDeviceLost) {
			t.Errorf("%s after a Release that timed out = %v, want hal.ErrReleased (the device was released, whatever its work)", call, err)
		}
	}
	must(t, drv.Release(), "Driver.Release")
	if took > wait+time.Second {
		t.Errorf("Device.Release took %v with work running; want about its ReleaseWait, %v", took, wait)
	}
	err = f.Wait(context.Background())
	if !errors.Is(err, hal.ErrDeviceLost) || status.CodeOf(err) != status.DataLoss || !strings.Contains(err.Error(), "did not finish its work within 100ms") {
		t.Errorf("Wait of the work running at Release = %v, want the device lost, naming the wait", err)
	}
	release(t, f)
	release(t, cb)
	got := logs.String()
	if n := strings.Count(got, "level="); n != 1 || !strings.Contains(got, "level=WARN") || !strings.Contains(got, "did not finish its work in time") || !strings.Contains(got, "waited=100ms") {
		t.Errorf("log of a busy device's Release, want one warning that it is left to the driver:\n%s", got)
	}
	if strings.Contains(got, "device lost") {
		t.Errorf("the log calls a busy device lost:\n%s", got)
	}
}

// TestHangTimeout checks that a submission running past the device's
// HangTimeout, as a kernel that never ends would, makes the device lost
// with a DeadlineExceeded cause naming the bound, and ends the Wait on
// it, where the Wait returned only when the work did; and that a queue of
// submissions, each short, that takes longer than the bound in all is
// not taken for one.
func TestHangTimeout(t *testing.T) {
	// The hung work runs on after the test, and on lavapipe it runs on the
	// threads that every device of the process shares, between the
	// dispatches of later tests: after it, TestHangTimeoutBuild's one
	// workgroup waited past its bound (2 runs in 6). The test runs in a
	// process of its own, whose exit ends that work.
	if os.Getenv(hangChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHangTimeout$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), hangChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the test, in a process of its own: %v\n%s", err, out)
		}
		t.Logf("the test, in a process of its own:\n%s", out)
		return
	}
	drv, _ := openDriver(t)
	index := defaultDevice(t, drv)
	_, err := drv.Open(context.Background(), index, hal.DeviceOptions{HangTimeout: -time.Second})
	wantCode(t, err, status.InvalidArgument, "Open with a negative HangTimeout")
	// The spin kernel's workgroups for 200 ms a dispatch, calibrated on a
	// device with the default bound.
	calibrated, err := drv.Open(context.Background(), index, hal.DeviceOptions{})
	must(t, err, "Open")
	groups := newSpinner(t, calibrated, 200*time.Millisecond).groups
	// The control: short submissions, each a tenth of the bound or so,
	// queued back to back, more than the bound of work in all, on a device
	// with the bound. No submission may be taken for a hang, but a busy
	// machine can stall one past the bound (at a load of 15 on two cores
	// an eighth of a 200 ms dispatch took 153 ms): then the control runs
	// again with twice the bound, up to 4.8 s. A device that counts a run
	// from its submission takes every such queue for a hang.
	bound := 300 * time.Millisecond
	var dev hal.Device
	for ; ; bound *= 2 {
		small := newSpinner(t, calibrated, bound/10).groups
		// A long ReleaseWait, which Release would spend draining the hung
		// work, were it not taken for a hang.
		dev, err = drv.Open(context.Background(), index, hal.DeviceOptions{HangTimeout: bound, ReleaseWait: 5 * time.Minute})
		must(t, err, "Open")
		err = hangControl(t, dev, small, bound)
		if err == nil {
			break
		}
		if err := dev.Release(); err != nil && status.CodeOf(err) != status.DeadlineExceeded {
			t.Fatalf("Release: %v", err)
		}
		if bound >= 4800*time.Millisecond {
			t.Fatalf("%v; want no hang", err)
		}
		t.Logf("%v; trying a bound of %v", err, 2*bound)
	}

	// 200 ms dispatches in one submission, four bounds of work (seven
	// for 300 ms), as calibrated. The calibration times submissions, whose
	// cost on a busy host can outweigh the work, so where the work ends
	// within four bounds without a hang it is too short to tell: twice as
	// many dispatches, until it runs past the bound or ends after four
	// (no hang seen: the failure). What is left runs on after the test.
	long := spinnerOn(t, dev, groups)
	for n := int(4*bound/(200*time.Millisecond)) + 1; ; n *= 2 {
		start := time.Now()
		if err = hangLong(t, dev, long, n); err != nil || time.Since(start) >= 4*bound || n >= 1<<16 {
			break
		}
		t.Logf("%d dispatches of %v ended in %v, too soon to tell; trying %d", n, groups, time.Since(start), 2*n)
	}
	if !errors.Is(err, hal.ErrDeviceLost) || !strings.Contains(err.Error(), "DEADLINE_EXCEEDED") || !strings.Contains(err.Error(), "past the hang timeout of "+bound.String()) {
		t.Errorf("Wait of a submission running past the HangTimeout = %v; want the device lost, its cause DEADLINE_EXCEEDED naming the bound", err)
	}
	if !errors.Is(dev.Err(), hal.ErrDeviceLost) {
		t.Errorf("Err after a hang = %v; want the device lost", dev.Err())
	}
	// The hung work (seconds of it left) is not waited for: Release
	// leaves it to the driver at once, where it drained it for seconds
	// and returned nil.
	if err := dev.Release(); status.CodeOf(err) != status.DeadlineExceeded || !strings.Contains(err.Error(), "ran past the hang timeout of "+bound.String()) {
		t.Errorf("Release after a hang = %v; want DEADLINE_EXCEEDED: the hung work left to the driver, not waited for", err)
	}
}

// hangChild, set in the environment, runs TestHangTimeout's body.
const hangChild = "VKBENCH_HANG_CHILD"

// TestHangTimeoutBuild checks that the time a driver spends building a
// kernel at its first dispatch does not count toward the HangTimeout:
// lavapipe builds testdata/slowbuild.comp there, on the queue, for a
// second or more, and one workgroup of it then runs in microseconds, so
// a bound of a quarter of the build must not take its first dispatch for
// a hang. Before, the run counted from the submission, build and all,
// and the device turned lost. On a device that builds at
// CreateExecutable the test shows nothing, and passes.
func TestHangTimeoutBuild(t *testing.T) {
	// Mesa keeps what it builds in a cache on disk, from which a later
	// run would read the kernel back in milliseconds: a salt of this run
	// makes the kernel one that no run built. Where this test opens the
	// process's first driver, nothing is written either (Mesa opens its
	// cache once a process).
	t.Setenv("MESA_SHADER_CACHE_DISABLE", "true")
	salt := uint32(time.Now().UnixNano()) | 1
	drv, _ := openDriver(t)
	// How long a build takes on this machine, now, with the default
	// bound; then a bound of a quarter of that, but no less than 250 ms,
	// which a busy machine can stall the microseconds of work by.
	built, err := firstDispatch(t, drv, 0, salt)
	must(t, err, "Wait of the first dispatch with the default bound")
	bound := max(built/4, 250*time.Millisecond).Round(time.Millisecond)
	took, err := firstDispatch(t, drv, bound, salt+2)
	if err != nil {
		t.Fatalf("Wait of a kernel's first dispatch, built for %v, with a HangTimeout of %v = %v; want nil: the build is not the kernel running", took.Round(time.Millisecond), bound, err)
	}
	t.Logf("first dispatches, build and all: %v, then %v with a HangTimeout of %v", built.Round(time.Millisecond), took.Round(time.Millisecond), bound)
	if took <= bound {
		t.Logf("the build took no longer than the bound: the test shows nothing here")
	}
}

// firstDispatch opens a device of drv with hang as its HangTimeout,
// dispatches one workgroup of slowbuild.spv with salt, and returns how
// long it took from Submit and what Wait returned.
func firstDispatch(t *testing.T, drv hal.Driver, hang time.Duration, salt uint32) (time.Duration, error) {
	t.Helper()
	dev, err := drv.Open(context.Background(), defaultDevice(t, drv), hal.DeviceOptions{HangTimeout: hang})
	must(t, err, "Open")
	defer func() {
		// After a hang (the failure), Release leaves the device to the
		// driver, which says so.
		if err := dev.Release(); err != nil && status.CodeOf(err) != status.DeadlineExceeded {
			t.Errorf("Release: %v", err)
		}
	}()
	exe, err := dev.CreateExecutable(hal.ExecutableDesc{Label: "slowbuild", SPIRV: readSPIRV(t, "slowbuild.spv"), Bindings: 1, Constants: []hal.Constant{{ID: 0, Value: salt}}})
	must(t, err, "CreateExecutable(slowbuild)")
	defer release(t, exe)
	buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 256, Label: "slowbuild"})
	must(t, err, "CreateBuffer")
	defer release(t, buf)
	cb, err := dev.CreateCommandBuffer()
	must(t, err, "CreateCommandBuffer")
	defer release(t, cb)
	must(t, cb.Begin(), "Begin")
	must(t, cb.Dispatch(hal.Dispatch{Executable: exe, Bindings: []hal.Binding{{Buffer: buf}}, Groups: [3]uint32{1, 1, 1}}), "Dispatch")
	must(t, cb.End(), "End")
	start := time.Now()
	f, err := dev.Submit(cb)
	must(t, err, "Submit")
	defer release(t, f)
	err = f.Wait(context.Background())
	return time.Since(start), err
}

// hangControl queues short submissions of groups on dev back to back
// and waits for the last, more of them each time (from 8), until the last
// was queued within half the bound and done after one and a half: an
// error where the queue was taken for a hang or could not be so made.
// The first builds the kernel, which does not count (TestHangTimeoutBuild).
func hangControl(t *testing.T, dev hal.Device, groups [3]uint32, bound time.Duration) error {
	t.Helper()
	short := spinnerOn(t, dev, groups)
	for n := 8; ; n *= 2 {
		var fences []hal.Fence
		start := time.Now()
		for range n {
			_, f := short.start(t)
			fences = append(fences, f)
		}
		queued := time.Since(start)
		if err := fences[n-1].Wait(context.Background()); err != nil {
			return fmt.Errorf("Wait of the last of %d short submissions (queued in %v, %v in all, the bound %v): %w", n, queued, time.Since(start), bound, err)
		}
		took := time.Since(start)
		switch {
		case queued > bound/2 || n >= 1024:
			return fmt.Errorf("%d short submissions were queued in %v and done in %v; the control needs them queued within half the bound, %v, and done after one and a half", n, queued, took, bound)
		case took >= 3*bound/2:
			return nil
		}
	}
}

// hangLong submits n dispatches of long in one command buffer and waits
// for them.
func hangLong(t *testing.T, dev hal.Device, long *spinner, n int) error {
	t.Helper()
	cb, err := dev.CreateCommandBuffer()
	must(t, err, "CreateCommandBuffer")
	defer release(t, cb)
	must(t, cb.Begin(), "Begin")
	for range n {
		must(t, long.record(cb), "Dispatch(spin)")
		must(t, cb.Barrier(), "Barrier")
	}
	must(t, cb.End(), "End")
	f, err := dev.Submit(cb)
	must(t, err, "Submit")
	defer release(t, f)
	return f.Wait(context.Background())
}
