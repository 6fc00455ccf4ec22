package report_test

import (
	"testing"

	"github.com/vkbench/vkbench/report"
)

// TestReason: a row's reason keeps what went wrong and drops what leads
// it (codes, packages, the candidate, a manifest's place), in tables and
// charts alike; a message that is all substance stays whole.
func TestReason(t *testing.T) {
	for _, tc := range []struct{ msg, cand, want string }{
		{"UNIMPLEMENTED: kernels: gemm-x: needs 33 KiB of shared memory, device has 32 KiB", "gemm-x", "needs 33 KiB of shared memory, device has 32 KiB"},
		{"UNIMPLEMENTED: kernels: regblock-128x128x8-8x8-exact: does not apply at 67x45x33: its loads are unchecked", "regblock-128x128x8-8x8-exact", "does not apply at 67x45x33: its loads are unchecked"},
		{`UNIMPLEMENTED: manifest: testdata/manifests/kernels.json:148:21: operations[4].candidates[1].assert[0]: the device lavapipe (max_shared_memory=2048) fails the candidate's assert "4*K <= max_shared_memory" at size M=70,K=600; running rows-shared-wg128`, "rows-shared-wg128",
			`the device lavapipe (max_shared_memory=2048) fails the candidate's assert "4*K <= max_shared_memory" at size M=70,K=600; running rows-shared-wg128`},
		{"INTERNAL: kernels: gemm/vec4: 3 of 9 checked values wrong: C[0][0]: got 1, want 2", "vec4", "3 of 9 checked values wrong: C[0][0]: got 1, want 2"},
		{"the kernel wrote nothing", "vec4", "the kernel wrote nothing"},
		{"DEADLINE_EXCEEDED: Run: Wait: the GPU did not finish in 2s", "vec4", "Run: Wait: the GPU did not finish in 2s"},
	} {
		if got := report.Reason(tc.msg, tc.cand); got != tc.want {
			t.Errorf("Reason(%q, %q) = %q, want %q", tc.msg, tc.cand, got, tc.want)
		}
	}
}
