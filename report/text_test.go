package report_test

import (
	"strings"
	"testing"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/report"
	"github.com/vkbench/vkbench/telemetry"
)

// TestReason: a row's reason keeps what went wrong and drops what leads
// it (codes, packages, the candidate, a manifest's place), in tables and
// charts alike, and the codes further in (status.TextForPeople); a
// message that is all substance stays whole.
func TestReason(t *testing.T) {
	for _, tc := range []struct{ msg, cand, want string }{
		{"UNIMPLEMENTED: kernels: gemm-x: needs 33 KiB of shared memory, device has 32 KiB", "gemm-x", "needs 33 KiB of shared memory, device has 32 KiB"},
		{"UNIMPLEMENTED: kernels: regblock-128x128x8-8x8-exact: does not apply at 67x45x33: its loads are unchecked", "regblock-128x128x8-8x8-exact", "does not apply at 67x45x33: its loads are unchecked"},
		{`UNIMPLEMENTED: manifest: testdata/manifests/kernels.json:148:21: operations[4].candidates[1].assert[0]: the device lavapipe (max_shared_memory=2048) fails the candidate's assert "4*K <= max_shared_memory" at size M=70,K=600; running rows-shared-wg128`, "rows-shared-wg128",
			`the device lavapipe (max_shared_memory=2048) fails the candidate's assert "4*K <= max_shared_memory" at size M=70,K=600; running rows-shared-wg128`},
		{"INTERNAL: kernels: gemm/vec4: 3 of 9 checked values wrong: C[0][0]: got 1, want 2", "vec4", "3 of 9 checked values wrong: C[0][0]: got 1, want 2"},
		{`UNIMPLEMENTED: manifest: /tmp/TestPeak1/My Kernels/m.json:1:421: operations[0].candidates[0].assert[0]: the device fails it`, "long", "the device fails it"},
		{"the kernel wrote nothing", "vec4", "the kernel wrote nothing"},
		{"/tmp/kernels/k.glsl:3: error: '#error' : four is too many", "k", "/tmp/kernels/k.glsl:3: error: '#error' : four is too many"},
		{"DEADLINE_EXCEEDED: Run: Wait: the GPU did not finish in 2s", "vec4", "Run: Wait: the GPU did not finish in 2s"},
		// An operation's own failure, as peak's and run's rows say it: the
		// codes further in go too (they stayed, after the package).
		{"RESOURCE_EXHAUSTED: autotune: preparing copy/u32/100000000: OUT_OF_RANGE: catalogue: copy 100000000: buffer src needs 400000000 bytes", "",
			"preparing copy/u32/100000000: catalogue: copy 100000000: buffer src needs 400000000 bytes"},
	} {
		if got := report.Reason(tc.msg, tc.cand); got != tc.want {
			t.Errorf("Reason(%q, %q) = %q, want %q", tc.msg, tc.cand, got, tc.want)
		}
	}
}

// TestFlagText: every flag a result can carry is said in words, each its
// own (no two flags read alike, none reads as its token), "; " between
// them; a flag it does not know reads as it is.
func TestFlagText(t *testing.T) {
	flags := []string{autotune.FlagAbovePeakBandwidth, autotune.FlagAbovePeakFLOPs, autotune.FlagTimerDidNotTick,
		autotune.FlagBudgetSpent, autotune.FlagMaxSamples, autotune.FlagPeakOtherClock, autotune.FlagRemeasured,
		autotune.FlagDrift, autotune.FlagNotVerified, telemetry.FlagThrottled, telemetry.FlagClocksMoved}
	seen := map[string]bool{}
	for _, f := range flags {
		w := report.FlagText(f)
		if w == f || strings.Contains(w, "-") || seen[w] {
			t.Errorf("FlagText(%q) = %q: not words of its own", f, w)
		}
		seen[w] = true
	}
	if got, want := report.FlagText(autotune.FlagRemeasured, "new-flag"), "measured again after the speed drifted; new-flag"; got != want {
		t.Errorf("FlagText(remeasured, new) = %q, want %q", got, want)
	}
}
