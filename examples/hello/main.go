// Command hello is the program of the README's "The library" and the
// quickstart's first step: a kernel of its own, y = 10·x over four
// floats, run once.
package main

import (
	"context"
	_ "embed"
	"fmt"
	"log"

	"github.com/vkbench/vkbench"
)

//go:embed scale.spv
var scaleSPIRV []byte

func main() {
	ctx := context.Background()
	dev, err := vkbench.Open(ctx, vkbench.Options{}) // the first GPU, else lavapipe
	if err != nil {
		log.Fatal(err)
	}
	defer func() { // Close releases everything made from it
		if err := dev.Close(); err != nil {
			log.Print(err)
		}
	}()

	// Bindings (2) and the workgroup size (64) are read from the module.
	scale, err := dev.Build(ctx, vkbench.Kernel{Name: "scale", SPIRV: scaleSPIRV, PushConstantSize: 8})
	if err != nil {
		log.Fatal(err)
	}
	x, err := vkbench.Upload(ctx, dev, []float32{1, 2, 3, 4})
	if err != nil {
		log.Fatal(err)
	}
	y, err := vkbench.NewBuffer[float32](ctx, dev, 4)
	if err != nil {
		log.Fatal(err)
	}
	push := vkbench.Push(uint32(4), float32(10)) // n, a; a bare 10 packs an int, which Run refuses for a float
	if err := dev.Run(ctx, scale, vkbench.Groups(4, 64), push, x, y); err != nil {
		log.Fatal(err)
	}
	out := make([]float32, 4)
	if err := y.Read(ctx, out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(dev.Info().Name, out)
}
