package catalogue

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"runtime"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/devtest"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// compareTransposedBefore is transpose's check as it was before
// compareTransposed: element by element in 64×64 blocks, reading a
// column of in for every row of out. It stays as the control of
// BenchmarkCompareTransposed and the oracle of TestCompareTransposed.
func compareTransposedBefore(got []uint32, src []float32, m, n int64, mm *kernels.Mismatches) {
	const block = 64
	bands := (n + block - 1) / block
	parallel(bands, block*m, mm, func(lo, hi int64, mm *kernels.Mismatches) {
		for jb := lo * block; jb < min(hi*block, n); jb += block {
			for ib := int64(0); ib < m; ib += block {
				for j := jb; j < min(jb+block, n); j++ {
					for i := ib; i < min(ib+block, m); i++ {
						want := src[i*n+j]
						if g := got[j*m+i]; g != math.Float32bits(want) {
							mm.Add(func() string {
								return fmt.Sprintf("out[%d][%d]: got %.9g (0x%08x), want in[%d][%d] = %.9g (exact)", j, i, math.Float32frombits(g), g, i, j, want)
							})
						}
					}
				}
			}
		}
	})
}

// transposed returns src (m×n) transposed, as words.
func transposed(src []float32, m, n int64) []uint32 {
	got := make([]uint32, m*n)
	for i := range m {
		for j := range n {
			got[j*m+i] = math.Float32bits(src[i*n+j])
		}
	}
	return got
}

// BenchmarkCompareTransposed compares a correct 16384×16384 transpose, 1
// GiB each way as an H200's tune checks it, the way transpose's Verify
// does now and did before, on every processor.
func BenchmarkCompareTransposed(b *testing.B) {
	const m, n = 16384, 16384
	src := randomSigned(1, 0, m*n)
	got := transposed(src, m, n)
	for _, c := range []struct {
		name    string
		compare func([]uint32, []float32, int64, int64, *kernels.Mismatches)
	}{{"before", compareTransposedBefore}, {"now", compareTransposed}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(8 * m * n)
			for b.Loop() {
				mm := kernels.Mismatches{What: "bench"}
				c.compare(got, src, m, n, &mm)
				if err := mm.Err(m * n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// compensatedSumBefore is reduce's reference sum as it was before
// compensatedSum, verbatim: one core, one pass. The control of
// BenchmarkCompensatedSum.
func compensatedSumBefore(x []float32) (float64, float64) {
	var sum, comp, abs float64
	for _, v := range x {
		f := float64(v)
		t := sum + f
		if math.Abs(sum) >= math.Abs(f) {
			comp += (sum - t) + f
		} else {
			comp += (f - t) + sum
		}
		sum = t
		abs += math.Abs(f)
	}
	return sum + comp, abs
}

// BenchmarkCompensatedSum sums 2²⁸ floats, reduce's size on an H200, the
// way its Prepare does now and did before.
func BenchmarkCompensatedSum(b *testing.B) {
	x := randomSigned(1, 0, 1<<28)
	for _, c := range []struct {
		name string
		sum  func([]float32) (float64, float64)
	}{{"before", compensatedSumBefore}, {"now", compensatedSum}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(4 << 28)
			for b.Loop() {
				c.sum(x)
			}
		})
	}
}

// TestCompareTransposed holds compareTransposed to the check it replaced,
// message for message: at a size of partial blocks, several bands to each
// processor and more than one strip, with wrong words in the first and
// the last block (the last processor's share), on either side of a
// strip's end, NaNs of other bits, zeros of the other sign, and every
// word wrong.
func TestCompareTransposed(t *testing.T) {
	const m, n = 70, 2*transposeStrip + 52
	nan := math.Float32frombits(0x7fc00000)
	for _, c := range []struct {
		name  string
		wrong bool
		edit  func(src []float32, got []uint32)
	}{
		{"right", false, func([]float32, []uint32) {}},
		{"the same NaN", false, func(src []float32, got []uint32) { src[5*n+9], got[9*m+5] = nan, 0x7fc00000 }},
		{"last word", true, func(_ []float32, got []uint32) { got[m*n-1] ^= 1 }},
		{"first word", true, func(_ []float32, got []uint32) { got[0] ^= 1 << 31 }},
		{"around a strip's end", true, func(_ []float32, got []uint32) {
			got[(transposeStrip-1)*m+m-1]++
			got[transposeStrip*m]++
		}},
		{"another NaN", true, func(src []float32, got []uint32) { src[3*n+2000], got[2000*m+3] = nan, 0x7fc00001 }},
		{"an infinity", true, func(src []float32, got []uint32) {
			src[69*n+1], got[1*m+69] = float32(math.Inf(1)), math.Float32bits(float32(math.Inf(-1)))
		}},
		{"minus zero", true, func(src []float32, got []uint32) { src[n+1], got[m+1] = 0, 0x80000000 }},
		{"every word", true, func(_ []float32, got []uint32) {
			for i := range got {
				got[i] = kernels.Poison
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := randomSigned(3, 0, m*n)
			got := transposed(src, m, n)
			c.edit(src, got)
			now, before := kernels.Mismatches{What: "t"}, kernels.Mismatches{What: "t"}
			compareTransposed(got, src, m, n, &now)
			compareTransposedBefore(got, src, m, n, &before)
			errNow, errBefore := now.Err(m*n), before.Err(m*n)
			if (errNow != nil) != c.wrong {
				t.Errorf("Err = %v, want wrong %v", errNow, c.wrong)
			}
			if fmt.Sprint(errNow) != fmt.Sprint(errBefore) {
				t.Errorf("Err = %v\nbefore: %v", errNow, errBefore)
			}
		})
	}
}

// TestCompensatedSum checks the sum against the exact one and that the
// number of processors does not change a bit of it.
func TestCompensatedSum(t *testing.T) {
	x := randomSigned(5, 0, 7*randomBlock+13)
	exact, abs := new(big.Float).SetPrec(2000), 0.0
	for _, v := range x {
		exact.Add(exact, big.NewFloat(float64(v)))
		abs += math.Abs(float64(v))
	}
	want, _ := exact.Float64()
	prev := runtime.GOMAXPROCS(1)
	sum1, abs1 := compensatedSum(x)
	runtime.GOMAXPROCS(4)
	sum4, abs4 := compensatedSum(x)
	runtime.GOMAXPROCS(prev)
	if sum1 != sum4 || abs1 != abs4 {
		t.Errorf("one processor: %v, %v; four: %v, %v", sum1, abs1, sum4, abs4)
	}
	if math.Abs(sum1-want) > 0x1p-50*math.Abs(want) || math.Abs(abs1-abs) > 0x1p-40*abs {
		t.Errorf("compensatedSum = %v, %v; want %v, %v", sum1, abs1, want, abs)
	}
}

// TestOutputDigest: the device's digest of a buffer (shaders/digest.comp) is
// the host's (expectedDigest) for lengths below, at and past a
// workgroup's and a grid's worth of words; a changed bit, two words
// swapped, and the same words at transposed indices each change it.
func TestOutputDigest(t *testing.T) {
	dev := devtest.Device(t)
	p := &problem{op: "digest-test", dev: dev, limits: dev.Info().Limits}
	defer func() {
		if err := p.Release(); err != nil {
			t.Error(err)
		}
	}()
	rng := kernels.NewRand(7, 0)
	for _, n := range []int64{1, 255, 256, 257, 256*digestGroups + 5, 1<<20 + 3} {
		words := make([]uint32, n)
		for i := range words {
			words[i] = rng.Uint32()
		}
		buf, err := dev.CreateBuffer(hal.BufferDesc{Size: 4*n + 64, Memory: hal.DeviceLocal, Label: "digest-test"})
		if err != nil {
			t.Fatal(err)
		}
		if err := kernels.WriteWords(context.Background(), buf, words); err != nil {
			t.Fatal(err)
		}
		got, err := p.digest(context.Background(), buf, n)
		if err != nil {
			t.Fatal(err)
		}
		if want := expectedDigest(n, func(i int64) (uint32, int64) { return words[i], i }); got != want {
			t.Errorf("%d words: the device's digest is %#x, the host's %#x", n, got, want)
		}
		if err := buf.Release(); err != nil {
			t.Error(err)
		}
	}

	base := expectedDigest(1000, func(i int64) (uint32, int64) { return uint32(i), i })
	for name, word := range map[string]func(i int64) (uint32, int64){
		"one bit of one word": func(i int64) (uint32, int64) {
			if i == 500 {
				return uint32(i) ^ 1<<17, i
			}
			return uint32(i), i
		},
		"two words swapped": func(i int64) (uint32, int64) {
			switch i {
			case 3:
				return 9, i
			case 9:
				return 3, i
			}
			return uint32(i), i
		},
		"every word at a transposed index": func(i int64) (uint32, int64) { return uint32(i), i%40*25 + i/40 },
	} {
		if expectedDigest(1000, word) == base {
			t.Errorf("%s: the digest did not change", name)
		}
	}
}

// TestVerifyByDigest: a right result of copy and of transpose is passed
// by its digest alone, nothing read back; a Verify whose context has
// ended is Cancelled, not a wrong result, and does not give the digest
// up; a wrong one (the output left as the poison put there) is read
// back, and its wrong elements named.
func TestVerifyByDigest(t *testing.T) {
	dev := devtest.Device(t)
	ctx := context.Background()
	for _, c := range []struct {
		op   string
		size kernels.Size
	}{
		{"copy", kernels.SizeOf(1<<16 + 3)},
		{"transpose", kernels.SizeOf(96, 160)},
	} {
		op, err := Lookup(c.op)
		if err != nil {
			t.Fatal(err)
		}
		prob, err := op.Prepare(ctx, dev, c.size, 1)
		if err != nil {
			t.Fatal(err)
		}
		var base *problem
		switch p := prob.(type) {
		case *copyProblem:
			base = p.problem
		case *transposeProblem:
			base = p.problem
		}
		exe := firstExecutable(t, dev, op, prob)
		if err := kernels.Run(ctx, dev, prob, exe, 0); err != nil {
			t.Fatal(err)
		}
		if err := prob.Verify(ctx, 0); err != nil || base.readback != nil {
			t.Errorf("%s, right: %v, read back %v; want passed by its digest, nothing read back", c.op, err, base.readback != nil)
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if err := prob.Verify(cancelled, 0); status.CodeOf(err) != status.Cancelled || base.noDigest {
			t.Errorf("%s, cancelled: %v (%v), digest given up %v; want Cancelled, the digest kept for later", c.op, err, status.CodeOf(err), base.noDigest)
		}
		if err := kernels.Execute(ctx, dev, func(cb hal.CommandBuffer) error { return kernels.RecordPoison(cb, prob) }); err != nil {
			t.Fatal(err)
		}
		if err := prob.Verify(ctx, 0); !errors.Is(err, kernels.ErrWrongResult) || base.readback == nil {
			t.Errorf("%s, poisoned: %v; want a wrong result, read back to say so", c.op, err)
		}
		if err := prob.Release(); err != nil {
			t.Error(err)
		}
	}
}

// firstExecutable builds op's first candidate as it runs prob on dev,
// released at the test's end.
func firstExecutable(t *testing.T, dev hal.Device, op kernels.Operation, prob kernels.Problem) hal.Executable {
	t.Helper()
	cand, err := kernels.CandidateAt(prob, op.Candidates()[0], 0, dev.Info())
	if err != nil {
		t.Fatal(err)
	}
	exe, err := dev.CreateExecutable(cand.Executable())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := exe.Release(); err != nil {
			t.Error(err)
		}
	})
	return exe
}

// noDigestDevice is the test device with a digest that cannot be built.
type noDigestDevice struct {
	hal.Device
	tries int
}

func (d *noDigestDevice) CreateExecutable(desc hal.ExecutableDesc) (hal.Executable, error) {
	if strings.HasSuffix(desc.Label, ".digest") {
		d.tries++
		return nil, status.New(status.Unimplemented, "test: no digest here")
	}
	return d.Device.CreateExecutable(desc)
}

// TestVerifyWithoutDigest: where the digest cannot be built on a device
// that works, a right copy is still verified, by reading it back, and the
// digest is tried once, not again for every candidate.
func TestVerifyWithoutDigest(t *testing.T) {
	ctx := context.Background()
	dev := &noDigestDevice{Device: devtest.Device(t)}
	op, err := Lookup("copy")
	if err != nil {
		t.Fatal(err)
	}
	prob, err := op.Prepare(ctx, dev, kernels.SizeOf(4099), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := prob.Release(); err != nil {
			t.Error(err)
		}
	}()
	exe := firstExecutable(t, dev, op, prob)
	for range 3 {
		if err := kernels.Run(ctx, dev, prob, exe, 0); err != nil {
			t.Fatal(err)
		}
		if err := prob.Verify(ctx, 0); err != nil {
			t.Fatalf("a right copy without a digest: %v; want it verified by reading it back", err)
		}
	}
	if p := prob.(*copyProblem); dev.tries != 1 || p.readback == nil {
		t.Errorf("the digest was tried %d times, the output read back %v; want once, and read back", dev.tries, p.readback != nil)
	}
}
