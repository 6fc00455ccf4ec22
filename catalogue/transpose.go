package catalogue

import (
	"context"
	"fmt"
	"math"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/kernels"
)

// transposeOp is "transpose": out (N×M) = inᵀ for in M×N, row-major
// floats. Bytes: 8MN.
type transposeOp struct{ opInfo }

func newTranspose() *transposeOp {
	naive := func(x, y uint32) kernels.Candidate {
		return candidate("transpose_naive", fmt.Sprintf("naive-%dx%d", x, y), 2, 8, [3]uint32{x, y, 1},
			map[string]int{"TX": int(x), "TY": int(y)}, kernels.Requirements{}, x, y)
	}
	tiled := func(tile, rows uint32) kernels.Candidate {
		return candidate("transpose_tiled", fmt.Sprintf("tiled-%dx%d-rows%d", tile, tile, rows), 2, 8, [3]uint32{tile, rows, 1},
			map[string]int{"TILE": int(tile), "ROWS": int(rows)}, kernels.Requirements{}, tile, rows)
	}
	// tiledVec4: TPW TILE×TILE tiles, one after the other, moved by
	// (TILE/4)×ROWS invocations in 16-byte loads and stores.
	tiledVec4 := func(tile, rows, tpw uint32) kernels.Candidate {
		name := fmt.Sprintf("tiled-vec4-%dx%d-rows%d", tile, tile, rows)
		if tpw > 1 {
			name += fmt.Sprintf("-x%d", tpw)
		}
		return candidate("transpose_tiled_vec4", name, 2, 8, [3]uint32{tile / 4, rows, 1},
			map[string]int{"TILE": int(tile), "ROWS": int(rows), "TPW": int(tpw)}, kernels.Requirements{}, tile/4, rows, tpw)
	}
	// down is c with its tiles given to the workgroups down in's columns.
	down := func(c kernels.Candidate) kernels.Candidate { return variant(c, "-down", "DOWN", 3, 1) }
	// block4: a 4×4 block an invocation, BX×BY invocations a workgroup,
	// no shared memory.
	block4 := func(bx, by uint32) kernels.Candidate {
		return candidate("transpose_block4", fmt.Sprintf("block4-%dx%d", bx, by), 2, 8, [3]uint32{bx, by, 1},
			map[string]int{"BX": int(bx), "BY": int(by)}, kernels.Requirements{}, bx, by)
	}
	return &transposeOp{opInfo{
		name: "transpose", dtype: kernels.F32, dims: []string{"M", "N"},
		summary: "out (N×M) = transpose of in (M×N), fp32: strided memory bandwidth",
		cands: []kernels.Candidate{
			naive(16, 16), naive(32, 8),
			tiled(32, 8), tiled(32, 16), tiled(64, 8),
			tiledVec4(32, 16, 1), tiledVec4(32, 32, 1), tiledVec4(64, 16, 1), tiledVec4(64, 32, 1),
			tiledVec4(32, 8, 4), tiledVec4(32, 16, 4), tiledVec4(32, 32, 8),
			block4(4, 8), block4(8, 16),
			down(tiledVec4(32, 16, 1)), down(tiledVec4(32, 8, 1)), down(tiledVec4(32, 8, 4)),
		},
	}}
}

// DefaultSize is 16384×16384 (1 GiB each way) on a discrete GPU,
// 4096×4096 on an integrated one and 1024×1024 on a CPU.
func (*transposeOp) DefaultSize(info hal.DeviceInfo) kernels.Size {
	side := pick(info, [3]int64{1 << 10, 1 << 12, 1 << 14}, 2, func(s int64) int64 { return 4 * s * s })
	return kernels.SizeOf(int(side), int(side))
}

type transposeProblem struct {
	*problem
	m, n    int64
	src     []float32
	in, out hal.Buffer
}

func (op *transposeOp) Prepare(ctx context.Context, dev hal.Device, size kernels.Size, seed uint64) (kernels.Problem, error) {
	return prepare(op, dev, size, func(base *problem) (checker, error) {
		m, n := int64(size.Dim(0)), int64(size.Dim(1))
		p := &transposeProblem{problem: base, m: m, n: n}
		p.bytes = 8 * float64(m*n)
		if err := p.alloc(bufferDesc{&p.in, "in", kernels.Input, kernels.F32, m * n}, bufferDesc{&p.out, "out", kernels.Output, kernels.F32, m * n}); err != nil {
			return nil, err
		}
		p.dispatches(p.grid, pushConstants(uint32(m), uint32(n)), p.in, p.out)
		p.src = randomSigned(seed, 0, m*n)
		return p, kernels.WriteWords(ctx, p.in, p.src)
	})
}

func (p *transposeProblem) grid(c kernels.Candidate) ([3]uint32, error) {
	m, n := uint64(p.m), uint64(p.n)
	switch c.Shader {
	case "transpose_naive":
		return p.grid2D(ceilDiv(n, param(c, "TX")), ceilDiv(m, param(c, "TY")))
	case "transpose_tiled":
		tile := param(c, "TILE")
		return p.grid2D(ceilDiv(n, tile), ceilDiv(m, tile))
	case "transpose_block4":
		return p.grid2D(ceilDiv(ceilDiv(n, 4), param(c, "BX")), ceilDiv(ceilDiv(m, 4), param(c, "BY")))
	case "transpose_tiled_vec4":
		tile := param(c, "TILE")
		cols, rows := ceilDiv(n, tile), ceilDiv(ceilDiv(m, tile), param(c, "TPW"))
		if c.Params["DOWN"] == 1 {
			cols, rows = rows, cols
		}
		return p.grid2D(cols, rows)
	}
	return [3]uint32{}, noGeometry("transpose", c)
}

// verify compares every element exactly, a transpose rounds nothing: by
// digest first (see the package doc).
func (p *transposeProblem) verify(ctx context.Context, _ int, m *kernels.Mismatches) (int64, error) {
	// Output word j*m+i is src's word i*n+j.
	same, err := p.digestMatches(ctx, p.out, p.m*p.n, func(k int64) (uint32, int64) {
		return math.Float32bits(p.src[k]), k%p.n*p.m + k/p.n
	})
	if same || err != nil {
		return p.m * p.n, err
	}
	got, err := p.download(ctx, p.out, p.m*p.n)
	if err != nil {
		return 0, err
	}
	compareTransposed(got, p.src, p.m, p.n, m)
	return p.m * p.n, nil
}

// transposeBlock is the side of the blocks the check compares, 64×64
// words (16 KiB, in a core's first-level cache); transposeStrip is how
// many of got's rows it takes at once, 1024: a 4 KiB page of each of
// src's rows.
const transposeBlock, transposeStrip = 64, 1024

// compareTransposed adds to mm every word of got (n×m) that is not the
// same bits as its element of srcᵀ (src m×n), in parallel over bands of
// transposeBlock rows of got. A band with no difference (every band,
// nearly always) is passed by transposedEqual; one with a difference is
// walked element by element in 64×64 blocks to say which.
func compareTransposed(got []uint32, src []float32, m, n int64, mm *kernels.Mismatches) {
	const b = transposeBlock
	parallel((n+b-1)/b, b*m, mm, func(lo, hi int64, mm *kernels.Mismatches) {
		if transposedEqual(got, src, m, n, lo*b, min(hi*b, n)) {
			return
		}
		for jb := lo * b; jb < min(hi*b, n); jb += b {
			for ib := int64(0); ib < m; ib += b {
				for j := jb; j < min(jb+b, n); j++ {
					for i := ib; i < min(ib+b, m); i++ {
						if g, want := got[j*m+i], src[i*n+j]; g != math.Float32bits(want) {
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

// transposedEqual reports whether rows [j0, j1) of got are srcᵀ's, bit
// for bit. It reads a block's rows of src along into a tile, transposed
// there, and compares got's rows with the tile's; strip by strip, so
// that every page of src it reads is read whole before it moves on.
// Reading a column of src directly, as the check did, takes one word
// from each row, rows a power of two apart: in the same few cache sets,
// each on a page of its own (BenchmarkCompareTransposed).
func transposedEqual(got []uint32, src []float32, m, n, j0, j1 int64) bool {
	const b = transposeBlock
	var tile [b * b]uint32 // tile[j*b+i] is src[ib+i][jb+j]
	for sj := j0; sj < j1; sj += transposeStrip {
		for ib := int64(0); ib < m; ib += b {
			bm := min(b, m-ib)
			for jb := sj; jb < min(sj+transposeStrip, j1); jb += b {
				bn := min(b, j1-jb)
				for i := range bm {
					for j, v := range src[(ib+i)*n+jb:][:bn] {
						tile[int64(j)*b+i] = math.Float32bits(v)
					}
				}
				for j := range bn {
					if !sameWords(got[(jb+j)*m+ib:][:bm], tile[j*b:][:bm]) {
						return false
					}
				}
			}
		}
	}
	return true
}
