package haltest

import (
	"math"
	"regexp"

	"github.com/google/go-cmp/cmp"
)

// hardwareRE is what DeviceInfo.Hardware promises: a path-safe name.
var hardwareRE = regexp.MustCompile(`^[a-z0-9._-]+$`)

// testInfo: the device describes itself sanely, the same way each time
// and for each logical device of the same physical device.
func testInfo(e *env) {
	info := e.dev.Info()
	if info.Name == "" {
		e.Error("Info().Name is empty")
	}
	if info.Backend == "" {
		e.Error("Info().Backend is empty")
	}
	hw := info.Hardware()
	if !hardwareRE.MatchString(hw) {
		e.Errorf("Info().Hardware() = %q, want only [a-z0-9._-]", hw)
	}
	if d := cmp.Diff(info, e.dev.Info()); d != "" {
		e.Errorf("Info() changed between two calls (-first +second):\n%s", d)
	}
	if d := cmp.Diff(info, e.other().dev.Info()); d != "" {
		e.Errorf("a second device from the same OpenFunc describes itself differently (-first +second):\n%s", d)
	}

	l := info.Limits
	for i := range 3 {
		if l.MaxWorkgroupSize[i] == 0 || l.MaxWorkgroupCount[i] == 0 {
			e.Errorf("Limits.MaxWorkgroupSize[%d] is %d and MaxWorkgroupCount[%d] %d, want both positive", i, l.MaxWorkgroupSize[i], i, l.MaxWorkgroupCount[i])
		}
	}
	if l.MaxWorkgroupInvocations == 0 {
		e.Error("Limits.MaxWorkgroupInvocations is 0")
	}
	// The suite's kernels push two words; Vulkan guarantees 128 bytes.
	if l.MaxPushConstantsSize < 8 {
		e.Errorf("Limits.MaxPushConstantsSize is %d, want at least 8", l.MaxPushConstantsSize)
	}
	if l.MaxStorageBufferRange == 0 {
		e.Error("Limits.MaxStorageBufferRange is 0")
	}
	if a := l.MinStorageBufferAlign; a == 0 || a&(a-1) != 0 {
		e.Errorf("Limits.MinStorageBufferAlign is %d, want a power of two", a)
	}
	if s := l.SubgroupSize; s&(s-1) != 0 {
		e.Errorf("Limits.SubgroupSize is %d, want 0 (unknown) or a power of two", s)
	}
	if l.TimestampValidBits > 64 {
		e.Errorf("Limits.TimestampValidBits is %d, more than 64", l.TimestampValidBits)
	}
	if l.TimestampValidBits > 0 {
		if p := l.TimestampPeriod; !(p > 0) || math.IsInf(p, 0) {
			e.Errorf("Limits.TimestampPeriod is %v with %d valid bits, want a positive, finite period", p, l.TimestampValidBits)
		}
	}

	if len(info.MemoryHeaps) == 0 {
		e.Error("Info().MemoryHeaps is empty")
	}
	for i, h := range info.MemoryHeaps {
		if h.Size == 0 {
			e.Errorf("MemoryHeaps[%d].Size is 0", i)
		}
	}
}
