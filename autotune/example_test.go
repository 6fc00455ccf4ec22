package autotune_test

import (
	"context"
	"fmt"
	"github.com/vkbench/vkbench/internal/devtest"
	"log"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/store"
	"github.com/vkbench/vkbench/vk" // registers "vulkan"
)

// TestMain leaves the examples out where tests may skip and there is no
// Vulkan device: an example cannot skip (see testenv).
func TestMain(m *testing.M) {
	devtest.SkipExamplesWithoutVulkan()
	os.Exit(m.Run())
}

// A level buckets shapes, so that one tune answers for every shape of its
// bucket.
func ExampleLevel_Bucket() {
	s := kernels.SizeOf(1000, 3000)
	for _, l := range []autotune.Level{autotune.Minimal, autotune.Balanced, autotune.Extensive, autotune.Full} {
		fmt.Println(l, l.Bucket(s))
	}
	// Output:
	// minimal 1024x4096
	// balanced 1024x4096
	// extensive 1024x3072
	// full 1000x3000
}

// A tuner answers which candidate is fastest, and keeps the answer in the
// cache file, where Entries (and the vkbench cache command) read it back.
func ExampleTuner_Fastest() {
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
	dir, err := os.MkdirTemp("", "autotune-example")
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := os.RemoveAll(dir); err != nil {
			log.Print(err)
		}
	}()
	cache, err := store.Open(store.Options{Path: filepath.Join(dir, "autotune.db")})
	if err != nil {
		log.Fatal(err)
	}
	opts := autotune.DefaultOptions
	opts.Budget = 100 * time.Millisecond // the default, 10 s, measures to ±1%
	tuner := autotune.NewTuner(dev, cache, opts)

	op, err := catalogue.Lookup("copy")
	if err != nil {
		log.Fatal(err)
	}
	size := kernels.SizeOf(50000)
	i, err := tuner.Fastest(ctx, op, size) // tunes at 65536, the bucket's shape
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tuner.Key(op, size))

	entries, err := autotune.Entries(ctx, cache, tuner.Table())
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		// e.Results has every candidate's outcome and statistics.
		fmt.Println(e.Key, e.FastestName == op.Candidates()[i].Name, len(e.Results))
	}
	// Output:
	// copy/u32/65536
	// copy/u32/65536 true 11
}
