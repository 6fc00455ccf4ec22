package autotune_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/results"
	"github.com/vkbench/vkbench/stats"
	"github.com/vkbench/vkbench/status"
)

// anySupported reports whether info can run a candidate of op.
func anySupported(op kernels.Operation, info hal.DeviceInfo) bool {
	for _, c := range op.Candidates() {
		if c.Supported(info) == nil {
			return true
		}
	}
	return false
}

// TestTuneBuiltins tunes every built-in operation at a small size and
// checks that the committed winner is the surviving candidate with the
// lowest median, that candidates that did not compute right never win, and
// that a second tuner answers from the file.
func TestTuneBuiltins(t *testing.T) {
	dev := devtest.Device(t)
	path := filepath.Join(t.TempDir(), "c.db")
	opts := quick
	opts.Budget = 500 * time.Millisecond
	opts.MaxSamples = 12
	tu := autotune.NewTuner(dev, newCache(t, path), opts)
	info := dev.Info()
	for _, op := range catalogue.Builtin() {
		t.Run(op.Name(), func(t *testing.T) {
			size := smallSize(op, info)
			e, err := tu.Tune(context.Background(), op, size, false)
			if !anySupported(op, info) {
				// No candidate runs here (cooperative matrices on lavapipe):
				// nothing can be tuned, and the tuner must say so.
				if code := status.CodeOf(err); code != status.FailedPrecondition {
					t.Fatalf("Tune of %s, which no candidate of runs here: %v (code %v), want FAILED_PRECONDITION", op.Name(), err, code)
				}
				t.Skipf("no candidate runs on %s: %v", info.Name, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			best, bestMedian := -1, 0.0
			for _, r := range e.Results {
				if r.Outcome != results.Measured {
					continue
				}
				if r.Stats == nil || r.Stats.Median <= 0 {
					t.Errorf("%s: %s without statistics", r.Name, r.Outcome)
					continue
				}
				if best < 0 || r.Stats.Median < bestMedian {
					best, bestMedian = r.Index, r.Stats.Median
				}
			}
			if e.Fastest != best {
				t.Errorf("committed %s (%d), but the lowest median is candidate %d", e.FastestName, e.Fastest, best)
			}
			if o := e.Results[e.Fastest].Outcome; o != results.Measured {
				t.Errorf("the winner's outcome is %s", o)
			}
			second := autotune.NewTuner(dev, newCache(t, path), opts)
			got, err := second.Stored(t.Context(), op, size)
			if err != nil || got == nil || got.Fastest != e.Fastest {
				t.Errorf("the file answers %v (%v); want the entry with %d", got, err, e.Fastest)
			}
		})
	}
}

// smallSize is a size quick to tune on a CPU device, not a multiple of
// anything.
func smallSize(op kernels.Operation, info hal.DeviceInfo) kernels.Size {
	switch len(op.Dims()) {
	case 1:
		if strings.HasPrefix(op.Name(), "peak") {
			return op.DefaultSize(info)
		}
		return kernels.SizeOf(30001)
	case 2:
		if strings.HasPrefix(op.Name(), "peak") {
			s := op.DefaultSize(info)
			return kernels.SizeOf(min(s.Dim(0), 4096), min(s.Dim(1), 256))
		}
		return kernels.SizeOf(131, 257)
	}
	return kernels.SizeOf(67, 45, 33)
}

// TestTuneManyProcesses runs 8 processes of this test binary that tune
// overlapping keys of one operation into one cache file at once. Afterwards
// every key is present exactly once, every process used the answer that is
// stored or one that it replaced by the commit rule, and the file passes
// bbolt's check.
func TestTuneManyProcesses(t *testing.T) {
	if os.Getenv("VKBENCH_TUNE_CHILD") != "" {
		tuneChild(t)
		return
	}
	if testing.Short() {
		t.Skip("8 processes of Vulkan tuning take a while on a CPU device")
	}
	// Fail here, not in 8 children, when there is no device.
	devtest.Device(t)
	path := filepath.Join(t.TempDir(), "shared.db")
	const procs = 8
	var wg sync.WaitGroup
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestTuneManyProcesses$")
			cmd.Env = append(os.Environ(), "VKBENCH_TUNE_CHILD="+strconv.Itoa(p), "VKBENCH_TUNE_CACHE="+path)
			outs[p], errs[p] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	answers := map[string]map[int]bool{} // by key, every answer a process used
	for p := range procs {
		if errs[p] != nil {
			t.Fatalf("process %d: %v\n%s", p, errs[p], outs[p])
		}
		seen := 0
		for _, line := range strings.Split(string(outs[p]), "\n") {
			rest, ok := strings.CutPrefix(line, "answer ")
			if !ok {
				continue
			}
			k, v, _ := strings.Cut(rest, "=")
			i, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("process %d: answer line %q", p, line)
			}
			seen++
			if answers[k] == nil {
				answers[k] = map[int]bool{}
			}
			answers[k][i] = true
		}
		if seen != len(childSizes) {
			t.Errorf("process %d reported %d answers, want %d:\n%s", p, seen, len(childSizes), outs[p])
		}
	}
	c := newCache(t, path)
	tables, err := c.Tables(t.Context())
	if err != nil || len(tables) != 1 {
		t.Fatalf("tables = %v, %v; want one", tables, err)
	}
	entries, err := autotune.Entries(t.Context(), c, tables[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(childSizes) {
		t.Errorf("%d entries for %d keys", len(entries), len(childSizes))
	}
	// Every process used the answer stored when it committed: the first
	// one, or one that replaced it by the commit rule (its winner beyond
	// the other's 95% interval in its own measurement, which a loaded
	// machine's noise can give). So processes differ only where the
	// stored answer shows itself clearly faster than the others used.
	for _, e := range entries {
		used := answers[e.Key]
		if !used[e.Fastest] {
			t.Errorf("%s: stored %d, which no process used (they used %v)", e.Key, e.Fastest, used)
			continue
		}
		w := e.Results[e.Fastest].Stats
		for i := range used {
			if i == e.Fastest {
				continue
			}
			if o := e.Results[i].Stats; w == nil || o == nil || !w.HasInterval() || !o.HasInterval() || !(w.Hi < o.Lo) {
				t.Errorf("%s: processes used %d and %d, and the stored answer %d is not clearly faster than %d (%+v against %+v)", e.Key, e.Fastest, i, e.Fastest, i, w, o)
			}
		}
	}
	checkBolt(t, path)
}

var childSizes = []int{1 << 10, 1 << 11, 1 << 12, 1 << 13}

func tuneChild(t *testing.T) {
	p, _ := strconv.Atoi(os.Getenv("VKBENCH_TUNE_CHILD"))
	dev := devtest.Device(t)
	opts := quick
	opts.Budget = 200 * time.Millisecond
	tu := autotune.NewTuner(dev, newCache(t, os.Getenv("VKBENCH_TUNE_CACHE")), opts)
	op := defaultScaleOp()
	for j := range childSizes {
		n := childSizes[(j+p)%len(childSizes)]
		i, err := tu.Fastest(context.Background(), op, kernels.SizeOf(n))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("answer %s=%d\n", tu.Key(op, kernels.SizeOf(n)), i)
	}
}

// TestMeasureInapplicable measures gemm's exact tiling beside a checked
// one: at a size not a multiple of its block it is unsupported, saying
// why, and neither built nor run (it would compute a wrong result); at a multiple it
// is measured and verified like any other.
func TestMeasureInapplicable(t *testing.T) {
	dev := devtest.Device(t)
	gemm, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	const exact, checked = "regblock-128x128x8-8x8-exact", "regblock-64x64x16-4x4"
	op, err := kernels.Subset(gemm, func(c kernels.Candidate) bool { return c.Name == exact || c.Name == checked })
	if err != nil {
		t.Fatal(err)
	}
	opts := quick
	opts.Budget = 300 * time.Millisecond
	opts.MaxSamples = stats.MinIntervalSamples
	for _, tc := range []struct {
		size kernels.Size
		want results.Outcome
	}{
		{kernels.SizeOf(67, 45, 33), results.Unsupported},
		{kernels.SizeOf(128, 256, 64), results.Measured},
	} {
		counted := &buildCounter{Device: dev}
		e, err := autotune.Measure(context.Background(), counted, op, tc.size, opts)
		if err != nil {
			t.Fatalf("%v: %v", tc.size, err)
		}
		// A candidate refused at the size is not even built.
		if built := counted.names(); slices.Contains(built, exact) != (tc.want == results.Measured) {
			t.Errorf("%v: pipelines built: %v (%s's only where it applies)", tc.size, built, exact)
		}
		for _, r := range e.Results {
			want := results.Measured
			if r.Name == exact {
				want = tc.want
			}
			got := r.Outcome
			if got == results.Dropped {
				got = results.Measured // verified, then outrun
			}
			if got != want {
				t.Errorf("%v: %s %s (%s), want %s", tc.size, r.Name, r.Outcome, r.Error, want)
			}
			if r.Name == exact && want == results.Unsupported && !strings.Contains(r.Error, "does not apply at 67x45x33") {
				t.Errorf("%v: %s's reason %q does not say that it does not apply at the size", tc.size, r.Name, r.Error)
			}
		}
	}
}

// TestSubsetsShareABucket tunes gemm, cut to a checked tiling and an exact
// one, at two sizes of one bucket: 256x256x256, where both apply, and
// 200x256x256, where only the checked one does. They share the key
// gemm/f32/256x256x256 with different candidates, and the file must keep
// both answers: each commit dropping the other (as for a changed candidate
// list) would make every process that asks about both tune again. An
// answer for another candidate list under the key is still dropped.
func TestSubsetsShareABucket(t *testing.T) {
	dev := devtest.Device(t)
	gemm, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	op, err := kernels.Subset(gemm, func(c kernels.Candidate) bool {
		return c.Name == "regblock-64x64x16-4x4" || c.Name == "regblock-128x128x8-8x8-exact"
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.db")
	opts := quick
	opts.Budget = 300 * time.Millisecond
	opts.MaxSamples = stats.MinIntervalSamples
	whole, part := kernels.SizeOf(256, 256, 256), kernels.SizeOf(200, 256, 256)
	tu := autotune.NewTuner(dev, newCache(t, path), opts)
	if k1, k2 := tu.Key(op, whole), tu.Key(op, part); k1 != k2 {
		t.Fatalf("keys %s and %s: the sizes are meant to share one", k1, k2)
	}
	for _, size := range []kernels.Size{whole, part} {
		if _, err := tu.Tune(context.Background(), op, size, false); err != nil {
			t.Fatalf("%v: %v", size, err)
		}
	}
	// A third list under the same key: the exact candidate alone.
	other, err := kernels.Subset(gemm, func(c kernels.Candidate) bool { return c.Name == "regblock-128x128x8-8x8-exact" })
	if err != nil {
		t.Fatal(err)
	}
	second := autotune.NewTuner(dev, newCache(t, path), opts)
	for _, size := range []kernels.Size{whole, part} {
		e, err := second.Stored(t.Context(), op, size)
		if err != nil || e == nil {
			t.Errorf("%v: the file holds %v (%v), want its answer", size, e, err)
			continue
		}
		if size.Dim(0) == 200 && e.Fastest != 0 {
			t.Errorf("%v: answer %d, want 0 (the only candidate that applies)", size, e.Fastest)
		}
	}
	if _, err := second.Tune(context.Background(), other, whole, false); err != nil {
		t.Fatal(err)
	}
	third := autotune.NewTuner(dev, newCache(t, path), opts)
	for _, size := range []kernels.Size{whole, part} {
		if e, err := third.Stored(t.Context(), op, size); err != nil || e != nil {
			t.Errorf("%v: after another list's answer under the key, the file still holds %v (%v)", size, e, err)
		}
	}
}

// TestFastestWrongDimensions asks for gemm, whose exact tilings have an
// Applies rule, at a size of one dimension: the rule must not index past
// the size (it panicked once), and the answer is Prepare's error naming
// the dimensions.
func TestFastestWrongDimensions(t *testing.T) {
	dev := devtest.Device(t)
	gemm, err := catalogue.Lookup("gemm")
	if err != nil {
		t.Fatal(err)
	}
	tu := autotune.NewTuner(dev, newCache(t, filepath.Join(t.TempDir(), "c.db")), quick)
	_, err = tu.Fastest(context.Background(), gemm, kernels.SizeOf(4096))
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "takes 3 dimensions [M N K], not 1") {
		t.Errorf("Fastest(gemm, 4096): %v, want INVALID_ARGUMENT naming the dimensions", err)
	}
}
