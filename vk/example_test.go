package vk_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"log"
	"os"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/vk" // registers "vulkan"
)

// Example runs testdata/scale.comp, b[i] = a[i]*mul + add, on the default
// device.
func Example() {
	if err := scale(context.Background()); err != nil {
		log.Fatal(err)
	}
	// Output: [11 21 31 41]
}

func scale(ctx context.Context) (err error) {
	dev, release, err := hal.Open(ctx, vk.DriverName, hal.OpenOptions{})
	if err != nil {
		return err
	}
	// Releasing the device releases what it made, so the buffers, the
	// executable and the command buffer need no Release of their own.
	defer func() {
		if rerr := release(); err == nil {
			err = rerr
		}
	}()

	code, err := os.ReadFile("testdata/scale.spv")
	if err != nil {
		return err
	}
	exe, err := dev.CreateExecutable(hal.ExecutableDesc{
		Label:            "scale",
		SPIRV:            code,
		Bindings:         2,                                  // a and b
		PushConstantSize: 12,                                 // n, mul, add
		Constants:        []hal.Constant{{ID: 0, Value: 64}}, // workgroup size
	})
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	a, err := dev.CreateBuffer(hal.BufferDesc{Size: 16, Memory: hal.HostVisible, Label: "a"})
	if err != nil {
		return err
	}
	b, err := dev.CreateBuffer(hal.BufferDesc{Size: 16, Memory: hal.HostVisible, Label: "b"})
	if err != nil {
		return err
	}
	if err := a.Write(ctx, 0, le.AppendUint32(le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 1), 2), 3), 4)); err != nil {
		return err
	}

	cb, err := dev.CreateCommandBuffer()
	if err != nil {
		return err
	}
	if err := cb.Begin(); err != nil {
		return err
	}
	if err := cb.Dispatch(hal.Dispatch{
		Executable:    exe,
		Bindings:      []hal.Binding{{Buffer: a}, {Buffer: b}},
		PushConstants: le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 4), 10), 1), // n=4, mul=10, add=1
		Groups:        [3]uint32{1, 1, 1},
	}); err != nil {
		return err
	}
	if err := cb.End(); err != nil {
		return err
	}
	fence, err := dev.Submit(cb)
	if err != nil {
		return err
	}
	if err := fence.Wait(ctx); err != nil {
		return err
	}

	out := make([]byte, 16)
	if err := b.Read(ctx, 0, out); err != nil {
		return err
	}
	fmt.Println([]uint32{le.Uint32(out), le.Uint32(out[4:]), le.Uint32(out[8:]), le.Uint32(out[12:])})
	return nil
}
