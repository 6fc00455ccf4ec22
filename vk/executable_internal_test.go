//go:build cgo

package vk

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// TestStageResources: a layout of each kind within its limit but one
// descriptor past the device's maxPerStageResources in all is refused as
// an invalid argument naming both figures, before any Vulkan object is
// made. Before, only the limits of each kind were checked, and lavapipe
// (32 storage buffers, 15 uniform buffers, 64 storage images, 32 sampled
// images, 128 resources) built the pipeline.
func TestStageResources(t *testing.T) {
	d := openDefault(t, false)
	code, err := os.ReadFile("testdata/empty.spv")
	if err != nil {
		t.Fatal(err)
	}
	want := d.pd.maxResources + 1
	var kinds []hal.BindingKind
	for k, limit := range d.pd.maxBindings {
		for range min(limit, want-uint32(len(kinds))) {
			kinds = append(kinds, hal.BindingKind(k))
		}
	}
	if uint32(len(kinds)) < want {
		t.Skipf("the limits of each kind (%v) sum to no more than maxPerStageResources (%d)", d.pd.maxBindings, d.pd.maxResources)
	}
	desc := hal.ExecutableDesc{Label: "past the stage", SPIRV: code, Bindings: len(kinds), BindingKinds: kinds}
	e, err := d.CreateExecutable(desc)
	if err == nil {
		release(t, e)
	}
	msg := fmt.Sprintf("%d descriptors in all; the device allows 0 to %d", want, d.pd.maxResources)
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), msg) {
		t.Fatalf("CreateExecutable of %d bindings = %v; want INVALID_ARGUMENT saying %q", len(kinds), err, msg)
	}
	desc.Bindings, desc.BindingKinds = len(kinds)-1, kinds[:len(kinds)-1]
	e, err = d.CreateExecutable(desc)
	if err != nil {
		t.Fatalf("CreateExecutable of %d bindings, as many as maxPerStageResources: %v", desc.Bindings, err)
	}
	release(t, e)
}
