package haltest

import (
	"fmt"
	"math"
	"regexp"
	"slices"

	"github.com/google/go-cmp/cmp"
)

// hardwareRE is what DeviceInfo.Hardware promises: a path-safe name.
var hardwareRE = regexp.MustCompile(`^[a-z0-9._-]+$`)

func testInfo(e *env) {
	info := e.dev.Info()
	if d := cmp.Diff(info, e.dev.Info()); d != "" {
		e.Errorf("Info() changed between two calls (-first +second):\n%s", d)
	}
	if d := cmp.Diff(info, e.other().dev.Info()); d != "" {
		e.Errorf("a second device from the same OpenFunc describes itself differently (-first +second):\n%s", d)
	}
	l, hw := info.Limits, info.Hardware()
	for _, c := range []struct {
		bad  bool
		what string
	}{
		{info.Name == "", "Info().Name is empty"},
		{info.Backend == "", "Info().Backend is empty"},
		{!hardwareRE.MatchString(hw), fmt.Sprintf("Info().Hardware() = %q, want only [a-z0-9._-]", hw)},
		{slices.Contains(l.MaxWorkgroupSize[:], 0), fmt.Sprintf("Limits.MaxWorkgroupSize is %v, want no 0", l.MaxWorkgroupSize)},
		{slices.Contains(l.MaxWorkgroupCount[:], 0), fmt.Sprintf("Limits.MaxWorkgroupCount is %v, want no 0", l.MaxWorkgroupCount)},
		{l.MaxWorkgroupInvocations == 0, "Limits.MaxWorkgroupInvocations is 0"},
		// The suite's kernels push two words; Vulkan guarantees 128 bytes.
		{l.MaxPushConstantsSize < 8, fmt.Sprintf("Limits.MaxPushConstantsSize is %d, want at least 8", l.MaxPushConstantsSize)},
		{l.MaxStorageBufferRange == 0, "Limits.MaxStorageBufferRange is 0"},
		{l.MinStorageBufferAlign == 0 || l.MinStorageBufferAlign&(l.MinStorageBufferAlign-1) != 0,
			fmt.Sprintf("Limits.MinStorageBufferAlign is %d, want a power of two", l.MinStorageBufferAlign)},
		{l.SubgroupSize&(l.SubgroupSize-1) != 0, fmt.Sprintf("Limits.SubgroupSize is %d, want 0 (unknown) or a power of two", l.SubgroupSize)},
		{l.TimestampValidBits > 64, fmt.Sprintf("Limits.TimestampValidBits is %d, more than 64", l.TimestampValidBits)},
		{l.TimestampValidBits > 0 && (!(l.TimestampPeriod > 0) || math.IsInf(l.TimestampPeriod, 0)),
			fmt.Sprintf("Limits.TimestampPeriod is %v with %d valid bits, want a positive, finite period", l.TimestampPeriod, l.TimestampValidBits)},
		{len(info.MemoryHeaps) == 0, "Info().MemoryHeaps is empty"},
	} {
		if c.bad {
			e.Error(c.what)
		}
	}
	for i, h := range info.MemoryHeaps {
		if h.Size == 0 {
			e.Errorf("MemoryHeaps[%d].Size is 0", i)
		}
	}
}
