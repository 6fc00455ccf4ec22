package catalogue

import (
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// FittedTwins returns, for the built-in operation op, an operation whose
// candidates are the fitted twins (see fitted) of op's candidates that
// info cannot run for want of shared memory or workgroup size, or nil if
// there are none; and the names of such candidates that have no twin.
// Candidates a device lacks a feature for are neither.
func FittedTwins(op kernels.Operation, info hal.DeviceInfo) (kernels.Operation, []string) {
	// What info would run with limits no device has: the candidates
	// that are merely too large.
	roomy := info
	roomy.Limits.MaxSharedMemory = 1 << 30
	roomy.Limits.MaxWorkgroupInvocations = 1 << 30
	roomy.Limits.MaxWorkgroupSize = [3]uint32{1 << 30, 1 << 30, 1 << 30}
	var twins []kernels.Candidate
	var missing []string
	for _, c := range op.Candidates() {
		if c.Supported(info) == nil || c.Supported(roomy) != nil {
			continue
		}
		if twin, ok := fitted(c, info); ok {
			twins = append(twins, twin)
		} else {
			missing = append(missing, c.Name)
		}
	}
	if len(twins) == 0 {
		return nil, missing
	}
	// Only the register-blocked GEMMs have twins.
	switch op.(type) {
	case *gemmF16Op:
		return gemmF16Of(twins), missing
	case *gemmBF16Op:
		return gemmBF16Of(twins), missing
	}
	return gemmOf(twins), missing
}
