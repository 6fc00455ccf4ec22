package catalogue

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/shaders"
	"github.com/vkbench/vkbench/status"
)

// problem is what every built-in Problem shares: the device, the size, the
// buffers, the candidates, and the counts of work.
type problem struct {
	op     string
	dev    hal.Device
	limits hal.Limits
	size   kernels.Size
	cands  []kernels.Candidate
	bufs   []kernels.Operand
	bytes  float64
	flops  float64
	// gridOf, push and binds are the one dispatch Record records
	// (dispatches sets them): every built-in problem's but reduce's,
	// which records passes of its own.
	gridOf func(kernels.Candidate) ([3]uint32, error)
	push   []byte
	binds  []hal.Buffer
	// check is the verify of the problem built on this one (prepare).
	check func(ctx context.Context, cand int, m *kernels.Mismatches) (int64, error)
	// readback is the host memory outputs are downloaded into, kept
	// between Verify calls; halves the floats of halves decoded from it.
	readback []uint32
	halves   []float32
	// digester and partials are what digest runs, made on its first call;
	// want and noDigest are digestMatches'.
	digester hal.Executable
	partials hal.Buffer
	want     *uint64
	noDigest bool
}

// checker is a built-in problem: verify is Verify's comparison of
// candidate cand's output with the reference, which adds what differs to
// m and returns how many values it compared.
type checker interface {
	kernels.Problem
	verify(ctx context.Context, cand int, m *kernels.Mismatches) (int64, error)
}

// prepare makes the problem of op at size on dev: it checks the size and
// the device, then calls fill, which builds the problem proper on base,
// allocates its buffers and uploads its inputs, or fails, releasing them.
func prepare(op kernels.Operation, dev hal.Device, size kernels.Size, fill func(base *problem) (checker, error)) (kernels.Problem, error) {
	if err := kernels.CheckSize(op.Name(), op.Dims(), size.Extents(), true); err != nil {
		return nil, err
	}
	if dev == nil {
		return nil, status.New(status.InvalidArgument, "catalogue: nil device")
	}
	base := &problem{op: op.Name(), dev: dev, limits: dev.Info().Limits, size: size, cands: op.Candidates()}
	p, err := fill(base)
	if err != nil {
		return nil, status.Join(err, base.Release())
	}
	base.check = p.verify
	return p, nil
}

func (p *problem) Size() kernels.Size         { return p.size }
func (p *problem) Bytes() float64             { return p.bytes }
func (p *problem) Flops() float64             { return p.flops }
func (p *problem) Buffers() []kernels.Operand { return append([]kernels.Operand(nil), p.bufs...) }

// Release frees every buffer, reporting every failure.
func (p *problem) Release() error {
	var errs []error
	for _, b := range p.bufs {
		errs = append(errs, b.Release())
	}
	for _, r := range []interface{ Release() error }{p.digester, p.partials} {
		if r != nil {
			errs = append(errs, r.Release())
		}
	}
	p.bufs, p.digester, p.partials, p.readback, p.halves = nil, nil, nil, nil, nil
	return status.Join(errs...)
}

// candidate returns candidate i, or InvalidArgument.
func (p *problem) candidate(i int) (kernels.Candidate, error) {
	if err := kernels.CheckCandidate(p.op, i, len(p.cands)); err != nil {
		return kernels.Candidate{}, err
	}
	return p.cands[i], nil
}

// bufferDesc is one buffer of a problem: its operand's name, role, type
// and length, and where the problem keeps it.
type bufferDesc struct {
	to   *hal.Buffer
	name string
	role kernels.Role
	dt   kernels.DType
	n    int64
}

// largestFit says, of a problem of one dimension whose buffer b is too
// large for limit bytes, the largest size whose b fits: b's length grows
// with the size.
func largestFit(size kernels.Size, b bufferDesc, limit uint64) string {
	if size.Len() != 1 || b.n < int64(size.Dim(0)) || b.dt.Bytes() == 0 {
		return ""
	}
	perElem := b.n / int64(size.Dim(0)) * int64(b.dt.Bytes())
	return fmt.Sprintf("; the largest size that fits is %d", int64(limit)/perElem)
}

// alloc creates device-local buffers, in order, and adds them to the
// problem. Each one's size is a whole number of 32-bit words (halves come
// in pairs), which uploads, downloads and RecordPoison move. A buffer of
// 2³¹ elements or more is OutOfRange: the kernels use 32-bit indices, kept
// below 2³¹ so that index arithmetic past the end cannot wrap.
func (p *problem) alloc(bufs ...bufferDesc) error {
	for _, b := range bufs {
		if b.n >= 1<<31 {
			return status.Newf(status.OutOfRange, "catalogue: %s %v: %s has %d elements; the kernels index at most 2³¹-1", p.op, p.size, b.name, b.n)
		}
		size := (int64(b.dt.Bytes())*max(b.n, 1) + 3) &^ 3
		if uint64(size) > p.limits.MaxStorageBufferRange {
			return status.Newf(status.OutOfRange, "catalogue: %s %v: buffer %s needs %d bytes, past the device's maxStorageBufferRange of %d%s", p.op, p.size, b.name, size, p.limits.MaxStorageBufferRange, largestFit(p.size, b, p.limits.MaxStorageBufferRange))
		}
		buf, err := p.dev.CreateBuffer(hal.BufferDesc{Size: size, Memory: hal.DeviceLocal, Label: p.op + "." + b.name})
		if err != nil {
			return status.Annotatef(err, "catalogue: %s %v: allocating %s", p.op, p.size, b.name)
		}
		p.bufs = append(p.bufs, kernels.Operand{Buffer: buf, Name: b.name, Role: b.role, DType: b.dt, Len: b.n})
		*b.to = buf
	}
	return nil
}

// grid1D returns a grid of at least groups workgroups within the device's
// limits: all in x when they fit, otherwise folded into x and y with as
// few extra groups as possible. Kernels launched on it compute their group's
// linear index as y * numGroups.x + x and check it against their size.
func (p *problem) grid1D(groups uint64) ([3]uint32, error) {
	groups = max(groups, 1)
	maxX, maxY := uint64(p.limits.MaxWorkgroupCount[0]), uint64(p.limits.MaxWorkgroupCount[1])
	if maxX == 0 || maxY == 0 {
		return [3]uint32{}, status.Newf(status.FailedPrecondition, "catalogue: %s: device reports no workgroup count limit", p.op)
	}
	y := ceilDiv(groups, maxX)
	if y > maxY {
		return [3]uint32{}, status.Newf(status.OutOfRange, "catalogue: %s %v: %d workgroups do not fit the device's %d x %d", p.op, p.size, groups, maxX, maxY)
	}
	return [3]uint32{uint32(ceilDiv(groups, y)), uint32(y), 1}, nil
}

// grid2D returns the grid [x, y, 1], or OutOfRange past the device's limits.
func (p *problem) grid2D(x, y uint64) ([3]uint32, error) {
	l := p.limits.MaxWorkgroupCount
	if x > uint64(l[0]) || y > uint64(l[1]) {
		return [3]uint32{}, status.Newf(status.OutOfRange, "catalogue: %s %v: a grid of %d x %d workgroups is past the device's %d x %d", p.op, p.size, x, y, l[0], l[1])
	}
	return [3]uint32{uint32(max(x, 1)), uint32(max(y, 1)), 1}, nil
}

func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }

// streamGrid returns the grids a streaming kernel over n elements (copy,
// triad) dispatches, by its shape, the end of its shader's name: one
// invocation an element (_scalar); one a uvec4, and one past the last
// whole one for the tail (_vec4); U uvec4s an invocation (_vec4_unroll);
// U uvec4s a step of at most GROUPS groups striding over n (_gridstride).
func (p *problem) streamGrid(n uint64) func(kernels.Candidate) ([3]uint32, error) {
	return func(c kernels.Candidate) ([3]uint32, error) {
		wg := param(c, "WG")
		switch {
		case strings.HasSuffix(c.Shader, "_scalar"):
			return p.grid1D(ceilDiv(n, wg))
		case strings.HasSuffix(c.Shader, "_vec4"):
			return p.grid1D(ceilDiv(n/4+1, wg))
		case strings.HasSuffix(c.Shader, "_vec4_unroll"):
			return p.grid1D(ceilDiv(n/4, wg*param(c, "U")))
		case strings.HasSuffix(c.Shader, "_gridstride"):
			return p.grid1D(min(param(c, "GROUPS"), ceilDiv(n/4, wg*param(c, "U"))))
		}
		return [3]uint32{}, noGeometry(p.op, c)
	}
}

// noGeometry is the error of a candidate of op whose shader it cannot
// dispatch.
func noGeometry(op string, c kernels.Candidate) error {
	return status.Newf(status.Internal, "catalogue: %s: no geometry for shader %s", op, c.Shader)
}

// Refuse returns the UNIMPLEMENTED error of a candidate that does not
// apply at the problem's size (Candidate.Applies), as Record does, and nil
// for one that does (kernels.Refuser).
func (p *problem) Refuse(cand int) error {
	c, err := p.candidate(cand)
	if err != nil {
		return err
	}
	if c.Applies != nil && !c.Applies(p.size) {
		return status.Newf(status.Unimplemented, "catalogue: %s: does not apply at %s: %s", c.Name, p.size, c.AppliesWhere)
	}
	return nil
}

// dispatches sets the one dispatch of a candidate that Record records.
func (p *problem) dispatches(gridOf func(kernels.Candidate) ([3]uint32, error), push []byte, bufs ...hal.Buffer) {
	p.gridOf, p.push, p.binds = gridOf, push, bufs
}

// Record records the one dispatch of candidate cand that dispatches set.
func (p *problem) Record(cb hal.CommandBuffer, exe hal.Executable, cand int) error {
	if err := p.Refuse(cand); err != nil {
		return err
	}
	g, err := p.gridOf(p.cands[cand])
	if err != nil {
		return err
	}
	return dispatch(cb, exe, g, p.push, p.binds...)
}

// Verify compares candidate cand's output with the reference (check).
func (p *problem) Verify(ctx context.Context, cand int) error {
	c, err := p.candidate(cand)
	if err != nil {
		return err
	}
	m := kernels.Mismatches{What: p.op + "/" + c.Name}
	n, err := p.check(ctx, cand, &m)
	if err != nil {
		return err
	}
	return m.Err(n)
}

// dispatch records one dispatch of exe over grid with the buffers bound
// in order, whole.
func dispatch(cb hal.CommandBuffer, exe hal.Executable, grid [3]uint32, push []byte, bufs ...hal.Buffer) error {
	bindings := par.Map(bufs, func(b hal.Buffer) hal.Binding { return hal.Binding{Buffer: b} })
	return cb.Dispatch(hal.Dispatch{Executable: exe, Bindings: bindings, PushConstants: push, Groups: grid})
}

// pushConstants packs 32-bit values as the little-endian push-constant
// block of a kernel.
func pushConstants(values ...uint32) []byte {
	b, _ := binary.Append(nil, binary.LittleEndian, values) // a []uint32 always encodes
	return b
}

// asWords is the memory of v seen as words, without a copy.
func asWords[T uint32 | int32 | float32](v []T) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

// sameWords reports whether a and b hold the same words, compared as
// memory: a vectorized compare, faster than a loop of words.
func sameWords(a, b []uint32) bool { return bytes.Equal(kernels.WordBytes(a), kernels.WordBytes(b)) }

// download reads n 32-bit words from buf into the problem's readback
// memory, which the next download reuses: Verify calls of one problem do
// not overlap (they read the same output buffer), and a fresh gigabyte
// for every candidate cost more in page faults than the copy itself.
func (p *problem) download(ctx context.Context, buf hal.Buffer, n int64) ([]uint32, error) {
	if int64(cap(p.readback)) < n {
		p.readback = nil // let the old one go before the new one is made
		p.readback = make([]uint32, n)
	}
	out := p.readback[:n]
	return out, kernels.ReadWords(ctx, buf, out)
}

// digestGroups is how many workgroups a digest runs: enough to keep a
// large GPU busy, few enough that their partial sums read back at once.
const digestGroups = 1024

// fmix is MurmurHash3's finalizer, as shaders/digest.comp has it.
func fmix(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// wordDigest is the digest of word v at index k, in two lanes, as
// shaders/digest.comp computes it: a buffer's digest is the sum of its
// words', each lane modulo 2^32. A word changed, or moved to another
// index, changes the sum but with a chance of 2^-64.
func wordDigest(v, k uint32) uint64 {
	a := fmix(v ^ fmix(k+0x9e3779b9))
	b := fmix((v+0x7f4a7c15)*0x9e3779b1 ^ fmix(k^0x85ebca77))
	return uint64(a) | uint64(b)<<32
}

// addDigests adds two digests lane by lane, modulo 2^32 each.
func addDigests(x, y uint64) uint64 {
	return uint64(uint32(x)+uint32(y)) | uint64(uint32(x>>32)+uint32(y>>32))<<32
}

// expectedDigest is the digest of n words of which word(i) is the i-th,
// computed on every processor: the host's side of digest.
func expectedDigest(n int64, word func(i int64) (v uint32, at int64)) uint64 {
	var mu sync.Mutex
	var sum uint64
	par.Range(int(n), 1<<16, func(lo, hi int) {
		var part uint64
		for i := lo; i < hi; i++ {
			v, at := word(int64(i))
			part = addDigests(part, wordDigest(v, uint32(at)))
		}
		mu.Lock()
		sum = addDigests(sum, part)
		mu.Unlock()
	})
	return sum
}

// digestMatches reports whether buf's first n words, the problem's
// output, have the digest the host expects (worked out once, from word(i):
// the i-th word of the expected output and its index there): a Verify's
// fast path, which reads no output back. False, or an error that leaves
// the device and ctx working (after which noDigest), sends the Verify to
// compare every word, the authority the digest only spares.
func (p *problem) digestMatches(ctx context.Context, buf hal.Buffer, n int64, word func(i int64) (uint32, int64)) (bool, error) {
	if p.noDigest {
		return false, nil
	}
	got, err := p.digest(ctx, buf, n)
	if err != nil {
		if ctx.Err() != nil || p.dev.Err() != nil {
			return false, err
		}
		p.noDigest = true
		return false, nil
	}
	if p.want == nil {
		want := expectedDigest(n, word)
		p.want = &want
	}
	return got == *p.want, nil
}

// digest returns the digest of buf's first n words, computed on the
// device (shaders/digest.comp), reading back only its partial sums.
func (p *problem) digest(ctx context.Context, buf hal.Buffer, n int64) (uint64, error) {
	if p.digester == nil {
		exe, err := p.dev.CreateExecutable(hal.ExecutableDesc{Label: p.op + ".digest", SPIRV: shaders.MustGet("digest"), Bindings: 2, PushConstantSize: 4})
		if err != nil {
			return 0, status.Annotatef(err, "catalogue: %s: building the digest", p.op)
		}
		p.digester = exe
	}
	if p.partials == nil {
		b, err := p.dev.CreateBuffer(hal.BufferDesc{Size: 8 * digestGroups, Memory: hal.DeviceLocal, Label: p.op + ".digest"})
		if err != nil {
			return 0, status.Annotatef(err, "catalogue: %s: allocating the digest", p.op)
		}
		p.partials = b
	}
	groups := uint32(min(digestGroups, max(1, ceilDiv(uint64(n), 128))))
	err := kernels.Execute(ctx, p.dev, func(cb hal.CommandBuffer) error {
		return cb.Dispatch(hal.Dispatch{Executable: p.digester, PushConstants: pushConstants(uint32(n)), Groups: [3]uint32{groups, 1, 1},
			Bindings: []hal.Binding{{Buffer: buf, Size: 4 * n}, {Buffer: p.partials, Size: 8 * int64(groups)}}})
	})
	if err != nil {
		return 0, status.Annotatef(err, "catalogue: %s: computing the digest", p.op)
	}
	raw := make([]byte, 8*groups)
	if err := p.partials.Read(ctx, 0, raw); err != nil {
		return 0, status.Annotatef(err, "catalogue: %s: reading the digest", p.op)
	}
	var sum uint64
	for i := 0; i < len(raw); i += 8 {
		sum = addDigests(sum, binary.LittleEndian.Uint64(raw[i:]))
	}
	return sum, nil
}

// downloadFloats reads n values of type dt from buf as floats, as
// download does: F32, or F16 and BF16 packed two to a word.
func (p *problem) downloadFloats(ctx context.Context, buf hal.Buffer, n int64, dt kernels.DType) ([]float32, error) {
	if dt == kernels.F32 {
		w, err := p.download(ctx, buf, n)
		// The same bits, seen as floats, without a second gigabyte.
		return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(w))), len(w)), err
	}
	w, err := p.download(ctx, buf, (n+1)/2)
	if err != nil {
		return nil, err
	}
	if int64(cap(p.halves)) < n {
		p.halves = nil
		p.halves = make([]float32, n)
	}
	out, f := p.halves[:n], format16Of(dt)
	par.Range(int(n), 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = f.to(uint16(w[i/2] >> (16 * (i % 2))))
		}
	})
	return out, nil
}

// randomBlock is how many values one generator of a parallel fill makes.
const randomBlock = 1 << 16

// randomFill fills n values, block by block on every processor: block b
// draws from its own generator, seeded from seed, stream and b, so the
// values depend only on those, not on the number of processors.
func randomFill[T any](seed, stream uint64, n int64, draw func(*rand.Rand) T) []T {
	x := make([]T, n)
	blocks := int((n + randomBlock - 1) / randomBlock)
	spreadBlocks(blocks, func(b int) {
		r := rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15*uint64(b+1), 0x9e3779b97f4a7c15^stream))
		for i := int64(b) * randomBlock; i < min(int64(b+1)*randomBlock, n); i++ {
			x[i] = draw(r)
		}
	})
	return x
}

// spreadBlocks runs fn for every block index in [0, blocks), the blocks
// shared among the processors.
func spreadBlocks(blocks int, fn func(b int)) {
	par.Range(blocks, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			fn(b)
		}
	})
}

// randomSigned returns n floats uniform in [-1, 1), each with a random
// mantissa: incompressible, and of mixed signs so that sums cancel.
func randomSigned(seed, stream uint64, n int64) []float32 {
	return randomFill(seed, stream, n, func(r *rand.Rand) float32 { return float32(2*r.Float64() - 1) })
}

// randomWords returns n uniformly random 32-bit words.
func randomWords(seed, stream uint64, n int64) []uint32 {
	return randomFill(seed, stream, n, func(r *rand.Rand) uint32 { return r.Uint32() })
}

// eps32 is the spacing of float32 numbers at 1 (2⁻²³), twice the unit
// roundoff: one float32 rounding changes a value v by at most eps32/2 · |v|.
const eps32 = 0x1p-23

// minNormal32 is the smallest normal float32. Tolerances add it so that a
// device that flushes denormal results to zero is not called wrong.
const minNormal32 = 0x1p-126

// within reports whether got is within tol of want; NaN never is.
func within(got float32, want, tol float64) bool {
	return math.Abs(float64(got)-want) <= tol
}

// parallel checks [0, n) in chunks on every processor at once, each with
// a Mismatches of its own, merged into m in range order (Merge). unit is
// how many elements one index stands for (a block's, for blocks). Checking
// a gigabyte of output one element at a time took seconds per candidate,
// most of a tune's time.
func parallel(n, unit int64, m *kernels.Mismatches, fn func(lo, hi int64, m *kernels.Mismatches)) {
	if n*max(unit, 1) < 1<<16 {
		fn(0, n, m)
		return
	}
	var mu sync.Mutex
	parts := map[int]*kernels.Mismatches{} // by the start of their range
	par.Range(int(n), 1, func(lo, hi int) {
		part := &kernels.Mismatches{What: m.What}
		fn(int64(lo), int64(hi), part)
		mu.Lock()
		defer mu.Unlock()
		parts[lo] = part
	})
	for _, lo := range slices.Sorted(maps.Keys(parts)) {
		m.Merge(parts[lo])
	}
}
