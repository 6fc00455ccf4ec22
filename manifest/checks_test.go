package manifest_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/autotune"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
)

// TestManifestCandidateWork: "flops": "2*N*LOOP" uses each candidate's
// LOOP: the problem reports every candidate's work, and a measurement
// computes each candidate's GFLOP/s and GB/s from its own.
func TestManifestCandidateWork(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	op, cands := opNamed(t, loadTestManifest(t), "fma-loop")
	const n = 4096
	p, err := op.Prepare(ctx, dev, kernels.SizeOf(n), 1)
	if err != nil {
		t.Fatal(err)
	}
	type work struct{ Bytes, Flops float64 }
	var got, want []work
	w, ok := p.(kernels.CandidateWorker)
	if !ok {
		t.Fatalf("%T is not a kernels.CandidateWorker", p)
	}
	for i, c := range cands {
		b, f := w.CandidateWork(i)
		got = append(got, work{b, f})
		want = append(want, work{8 * n, float64(2 * n * c.Params["LOOP"])})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("work per candidate (-want +got):\n%s", diff)
	}
	// Without a reference, Bytes and Flops are the first candidate's.
	if got := (work{p.Bytes(), p.Flops()}); got != want[0] {
		t.Errorf("Bytes, Flops = %v, want %v", got, want[0])
	}
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	// A subset's candidates keep their own work.
	sub, err := kernels.Subset(op, func(c kernels.Candidate) bool { return c.Name == "loop256" })
	if err != nil {
		t.Fatal(err)
	}
	if p, err = sub.Prepare(ctx, dev, kernels.SizeOf(n), 1); err != nil {
		t.Fatal(err)
	}
	if b, f := p.(kernels.CandidateWorker).CandidateWork(0); (work{b, f}) != want[2] {
		t.Errorf("the subset's loop256: %v, want %v", work{b, f}, want[2])
	}
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	e, err := autotune.Measure(ctx, dev, op, kernels.SizeOf(n), quick)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range e.Results {
		if r.Stats == nil {
			t.Errorf("%s: %s %s, want measured", r.Name, r.Outcome, r.Error)
			continue
		}
		gbps, gflops := r.Rates()
		t.Logf("%s: %.3g GFLOP/s, %.3g GB/s", r.Name, gflops, gbps)
		if math.Abs(r.Flops-want[i].Flops) > 1e-9*want[i].Flops || math.Abs(r.Bytes-want[i].Bytes) > 1e-9*want[i].Bytes {
			t.Errorf("%s: %g flops and %g bytes a run, want %+v", r.Name, r.Flops, r.Bytes, want[i])
		}
	}
}

// TestManifestExpect: a single-candidate operation (sum-inplace) checked
// by an expected value instead of a reference candidate, on part of a
// buffer (the first element of an in-place reduction); an expected value
// that is wrong, or a range that takes in the partial sums, reports the
// element.
func TestManifestExpect(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	data, err := os.ReadFile(filepath.Join(manifestDir, "kernels.json"))
	if err != nil {
		t.Fatal(err)
	}
	const expect = `"check": {"first": 0, "count": 1}, "expect": "N * (N - 1) / 2"`
	if !strings.Contains(string(data), expect) {
		t.Fatalf("kernels.json has no %s", expect)
	}
	for _, tt := range []struct {
		name, expect string
		n            int
		says         string // "" for a pass
	}{
		{"as written", expect, 4097, ""},
		// 100000·99999/2 is past 2³²: the u32 sum wraps, and so does the
		// value it is checked against.
		{"wraps", expect, 100000, ""},
		{"wrong value", `"check": {"first": 0, "count": 1}, "expect": "N * (N - 1) / 2 + 1"`, 4097,
			`1 of 1 checked values wrong: x[0]: got 8390656, want 8390657 (expect "N * (N - 1) / 2 + 1"; integers are compared exactly)`},
		{"partial sums checked", `"check": {"first": 0, "count": 2}, "expect": "N * (N - 1) / 2"`, 4097,
			`1 of 2 checked values wrong: x[1]: got 1, want 8390656`},
		{"whole buffer", `"expect": "i"`, 4097, `64 of 4097 checked values wrong: x[0]: got 8390656, want 0`},
		// Checked in parts on every processor, reported in index order:
		// each of the 2¹⁴ level-one sums differs from its index.
		{"whole buffer, in parts", `"expect": "i"`, 1 << 20,
			`16384 of 1048576 checked values wrong: x[0]: got 4294443008, want 0 (expect "i"; integers are compared exactly); x[64]: got 6112, want 64`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ops, err := manifest.Parse([]byte(strings.Replace(string(data), expect, tt.expect, 1)), manifestDir)
			if err != nil {
				t.Fatal(err)
			}
			op, _ := opNamed(t, ops, "sum-inplace")
			err = kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(tt.n), 0, 1)
			switch {
			case tt.says == "" && err != nil:
				t.Error(err)
			case tt.says != "" && (!errors.Is(err, kernels.ErrWrongResult) || !strings.Contains(err.Error(), tt.says)):
				t.Errorf("got %v, want a wrong result saying %q", err, tt.says)
			}
		})
	}
}

// TestWritePastTheEnd: saxpy writing y of N elements into a buffer of N -
// 100 is a wrong candidate, its error naming the buffer; manifest buffers
// were allocated to their exact length, and it "verified". The same
// kernel with y of N elements verifies.
func TestWritePastTheEnd(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	text, err := os.ReadFile(filepath.Join(manifestDir, "kernels.json"))
	if err != nil {
		t.Fatal(err)
	}
	const y = `{"name": "y", "type": "f32", "len": "N", "binding": 1, "role": "inout"`
	if !strings.Contains(string(text), y) {
		t.Fatalf("kernels.json no longer declares saxpy's y as %s", y)
	}
	short, err := manifest.Parse([]byte(strings.Replace(string(text), y, strings.Replace(y, `"len": "N"`, `"len": "N - 100"`, 1), 1)), manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what  string
		ops   []kernels.Operation
		wrong bool
	}{
		{"y of its own length", loadTestManifest(t), false},
		{"y 100 elements short", short, true},
	} {
		op, cands := opNamed(t, c.ops, "saxpy")
		scalar := slices.IndexFunc(cands, func(c kernels.Candidate) bool { return c.Name == "scalar" })
		err := kernels.VerifyCandidate(ctx, dev, op, kernels.SizeOf(1000), scalar, 1)
		switch {
		case c.wrong && (!errors.Is(err, kernels.ErrWrongResult) || !strings.Contains(err.Error(), "wrote past the end of buffer y")):
			t.Errorf("saxpy, %s: %v, want a wrong result naming y", c.what, err)
		case !c.wrong && err != nil:
			t.Errorf("saxpy, %s: %v", c.what, err)
		}
	}
}
