package catalogue

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
)

// TestTolerancesFromBothSides holds each built-in operation's check to the
// tolerance its Verify states, written here again from that statement, not
// from the code: an output element just inside it (the float32 nearest the
// bound on the inside) passes, the next one out fails, on both sides of the
// exact value; an operation compared exactly fails on one bit. A check made
// looser (triad's 2⁻²³ made 2⁻¹⁰) or tighter fails here.
func TestTolerancesFromBothSides(t *testing.T) {
	ctx := context.Background()
	dev := devtest.Device(t)
	exact := func(p kernels.Problem, _ int) (hal.Buffer, int64, float64, float64) {
		for _, b := range p.Buffers() {
			if b.Role == kernels.Output {
				return b.Buffer, 3, 0, -1
			}
		}
		return nil, 0, 0, -1
	}
	for _, c := range []struct {
		op   string
		size kernels.Size
		// spec returns the output element checked (its buffer and index),
		// its exact value and its tolerance as Verify's comment states
		// them; a tolerance below 0 means compared exactly.
		spec func(p kernels.Problem, cand int) (buf hal.Buffer, index int64, want, tol float64)
	}{
		{"triad", kernels.SizeOf(1000), func(p kernels.Problem, _ int) (hal.Buffer, int64, float64, float64) {
			// eps32 · (|b| + |s·c|), plus the smallest normal float.
			tp := p.(*triadProblem)
			const i = 7
			b, sc := float64(tp.b[i]), float64(tp.s)*float64(tp.c[i])
			return tp.bufA, i, b + sc, 0x1p-23*(math.Abs(b)+math.Abs(sc)) + 0x1p-126
		}},
		{"reduce", kernels.SizeOf(1000), func(p kernels.Problem, cand int) (hal.Buffer, int64, float64, float64) {
			// eps32 · h · Σ|x|, h the height of the candidate's tree.
			rp := p.(*reduceProblem)
			return rp.out, 0, rp.sum, 0x1p-23*rp.heights[cand]*rp.abs + 0x1p-126
		}},
		{"gemm", kernels.SizeOf(16, 24, 64), func(p kernels.Problem, _ int) (hal.Buffer, int64, float64, float64) {
			// u · min(K, 10·√K) · Σₖ|A[i][k]·B[k][j]|, u = 2⁻²⁴, plus the
			// smallest normal float.
			gp := p.(*gemmProblem)
			const i, j = 3, 5
			var want, mag float64
			for k := range gp.k {
				prod := float64(gp.a[i*gp.k+k]) * float64(gp.b[k*gp.n+j])
				want += prod
				mag += math.Abs(prod)
			}
			k := float64(gp.k)
			return gp.bufC, i*gp.n + j, want, 0x1p-24*min(k, 10*math.Sqrt(k))*mag + 0x1p-126
		}},
		{"copy", kernels.SizeOf(4096), exact},
		{"transpose", kernels.SizeOf(33, 65), exact},
		{"peak-fma-f32", kernels.SizeOf(1000, 37), exact},
		{"peak-fma-f16", kernels.SizeOf(1001, 37), exact},
		{"peak-mad-i32", kernels.SizeOf(999, 37), exact},
	} {
		t.Run(c.op, func(t *testing.T) {
			op, err := Lookup(c.op)
			if err != nil {
				t.Fatal(err)
			}
			cand := -1
			for i, cd := range op.Candidates() {
				if cd.Supported(dev.Info()) == nil && (cd.Applies == nil || cd.Applies(c.size)) {
					cand = i
					break
				}
			}
			if cand < 0 {
				t.Fatalf("no candidate of %s runs on %s at %v", c.op, dev.Info().Name, c.size)
			}
			p, err := op.Prepare(ctx, dev, c.size, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := p.Release(); err != nil {
					t.Error(err)
				}
			}()
			exe, err := dev.CreateExecutable(op.Candidates()[cand].Executable())
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := exe.Release(); err != nil {
					t.Error(err)
				}
			}()
			if err := kernels.Run(ctx, dev, p, exe, cand); err != nil {
				t.Fatal(err)
			}
			if err := kernels.Check(ctx, p, cand); err != nil {
				t.Fatalf("the candidate's own result: %v", err)
			}
			buf, index, want, tol := c.spec(p, cand)
			verify := func(what string, word []byte, off int64, pass bool) {
				t.Helper()
				if err := buf.Write(ctx, off, word); err != nil {
					t.Fatal(err)
				}
				err := p.Verify(ctx, cand)
				switch {
				case pass && err != nil:
					t.Errorf("%s: %v, want it to pass", what, err)
				case !pass && !errors.Is(err, kernels.ErrWrongResult):
					t.Errorf("%s: %v, want a wrong result", what, err)
				}
			}
			if tol < 0 {
				size := int64(4)
				for _, b := range p.Buffers() {
					if b.Buffer == buf && b.DType.Bytes() > 0 {
						size = int64(b.DType.Bytes())
					}
				}
				word := make([]byte, size)
				if err := buf.Read(ctx, index*size, word); err != nil {
					t.Fatal(err)
				}
				orig := append([]byte(nil), word...)
				word[0] ^= 1
				verify("one bit off", word, index*size, false)
				verify("as it was", orig, index*size, true)
				return
			}
			for _, dir := range []float64{1, -1} {
				in, out := edge(want, tol, dir)
				verify(fmt.Sprintf("%.9g, %.3g from %.9g (tolerance %.3g)", in, float64(in)-want, want, tol), f32bytes(in), index*4, true)
				verify(fmt.Sprintf("%.9g, %.3g from %.9g (tolerance %.3g)", out, float64(out)-want, want, tol), f32bytes(out), index*4, false)
			}
		})
	}
}

// edge returns the float32 farthest from want in direction dir that is
// still within tol of it, and the next float32 beyond.
func edge(want, tol, dir float64) (in, out float32) {
	away, toward := float32(math.Inf(int(dir))), float32(want)
	in = float32(want + dir*tol)
	for math.Abs(float64(in)-want) > tol {
		in = math.Nextafter32(in, toward)
	}
	for math.Abs(float64(math.Nextafter32(in, away))-want) <= tol {
		in = math.Nextafter32(in, away)
	}
	return in, math.Nextafter32(in, away)
}

func f32bytes(f float32) []byte { return binary.LittleEndian.AppendUint32(nil, math.Float32bits(f)) }
