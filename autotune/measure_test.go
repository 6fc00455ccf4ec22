package autotune_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
)

// TestMeasureRefusesTooFewSamples: options whose MinSamples cannot give a
// 95% interval are refused before anything is measured.
func TestMeasureRefusesTooFewSamples(t *testing.T) {
	dev := devtest.Device(t)
	for _, n := range []int{1, 3, stats.MinIntervalSamples - 1} {
		opts := quick
		opts.MinSamples = n
		e, err := autotune.Measure(context.Background(), dev, defaultScaleOp(), kernels.SizeOf(1<<10), opts)
		if status.CodeOf(err) != status.InvalidArgument || e != nil || !strings.Contains(err.Error(), "95% confidence interval") {
			t.Errorf("MinSamples %d: entry %v, error %v; want INVALID_ARGUMENT saying why", n, e, err)
		}
	}
}
