package kernels_test

import (
	"context"
	"fmt"
	"github.com/vkbench/vkbench/internal/devtest"
	"log"
	"os"
	"testing"

	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/vk" // registers "vulkan"
)

// TestMain leaves the examples out where tests may skip and there is no
// Vulkan device: an example cannot skip (see testenv).
func TestMain(m *testing.M) {
	devtest.SkipExamplesWithoutVulkan()
	os.Exit(m.Run())
}

// Sizes are written as extents in order, or as named extents in any order.
func ExampleParseSize() {
	gemm, err := catalogue.Lookup("gemm")
	if err != nil {
		log.Fatal(err)
	}
	for _, text := range []string{"67x45x33", "K=33,M=67,N=45", "1Ki x 1Ki x 64"} {
		s, err := kernels.ParseSize(gemm.Dims(), text)
		fmt.Println(s, err)
	}
	// Output:
	// 67x45x33 <nil>
	// 67x45x33 <nil>
	// 1024x1024x64 <nil>
}

// VerifyCandidate runs one candidate on seeded random data and compares
// its result with the CPU reference.
func ExampleVerifyCandidate() {
	ctx := context.Background()
	dev, release, err := hal.Open(ctx, vk.DriverName, hal.OpenOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := release(); err != nil {
			log.Print(err)
		}
	}()
	triad, err := catalogue.Lookup("triad") // a = b + s·c
	if err != nil {
		log.Fatal(err)
	}
	for i, c := range triad.Candidates() {
		err := kernels.VerifyCandidate(ctx, dev, triad, kernels.SizeOf(10000), i, 1)
		fmt.Println(c.Name, err)
	}
	// Output:
	// scalar-wg256 <nil>
	// vec4-wg128 <nil>
	// vec4-wg256 <nil>
	// vec4-wg512 <nil>
	// gridstride-vec4-u2-wg256-g2048 <nil>
	// gridstride-vec4-u4-wg256-g1024 <nil>
}
