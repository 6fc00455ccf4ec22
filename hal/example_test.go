package hal_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/vkbench/vkbench/internal/devtest"
	"log"
	"os"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
	"github.com/vkbench/vkbench/vk" // registers "vulkan"
)

// TestMain leaves the examples out where tests may skip and there is no
// Vulkan device: an example cannot skip (see testenv).
func TestMain(m *testing.M) {
	devtest.SkipExamplesWithoutVulkan()
	os.Exit(m.Run())
}

// Open opens the default device of a backend in one call; the
// release function it returns releases the device and the driver.
func ExampleOpen() {
	dev, release, err := hal.Open(context.Background(), vk.DriverName, hal.OpenOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := release(); err != nil {
			log.Print(err)
		}
	}()
	info := dev.Info()
	// Name, Type, Limits, Features and MemoryHeaps describe the device;
	// Hardware names it in the autotune cache.
	fmt.Println(info.Backend, info.APIVersion.Major(), dev.Err())
	// Output: vulkan 1 <nil>
}

// A backend that was not imported is not registered.
func ExampleOpenDriver() {
	_, err := hal.OpenDriver("metal", hal.DriverOptions{})
	fmt.Println(err)
	// Output: NOT_FOUND: hal: unknown driver "metal"; registered: vulkan (forgotten import?)
}

// The default device is the first discrete GPU, else integrated, virtual,
// then CPU.
func ExampleDefaultDevice() {
	infos := []hal.DeviceInfo{
		{Name: "llvmpipe", Type: hal.CPU},
		{Name: "Intel UHD Graphics", Type: hal.IntegratedGPU},
		{Name: "NVIDIA H200", Type: hal.DiscreteGPU},
	}
	fmt.Println(infos[hal.DefaultDevice(infos)].Name)
	// Output: NVIDIA H200
}

// Device loss is sticky: once a device is lost, every call on it fails at
// once with an error matching ErrDeviceLost (code DataLoss), and releasing
// still works. Here the loss is made through hal.LossMarker, the path a
// fault injector uses; a real driver reports VK_ERROR_DEVICE_LOST.
func ExampleErrDeviceLost() {
	dev, release, err := hal.Open(context.Background(), vk.DriverName, hal.OpenOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := release(); err != nil {
			log.Print(err)
		}
	}()
	buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 16})
	if err != nil {
		log.Fatal(err)
	}

	dev.(hal.LossMarker).MarkLost(errors.New("the GPU fell off the bus"))

	_, err = dev.CreateBuffer(hal.BufferDesc{Size: 16})
	fmt.Println(errors.Is(err, hal.ErrDeviceLost), status.CodeOf(err))
	err = buf.Write(context.Background(), 0, make([]byte, 16))
	fmt.Println(errors.Is(err, hal.ErrDeviceLost), errors.Is(dev.Err(), hal.ErrDeviceLost))
	fmt.Println(buf.Release())
	// Output:
	// true DATA_LOSS
	// true true
	// <nil>
}
