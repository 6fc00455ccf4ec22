package manifest

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/vkbench/vkbench/internal/par"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// Verify checks the part of every checked buffer that the candidate is
// checked on: against the buffer's "expect", element by element, else
// against the reference's results; integers exactly, floats within the
// tolerance.
func (p *manifestProblem) Verify(ctx context.Context, cand int) error {
	if err := p.candidate(cand); err != nil {
		return err
	}
	if err := p.download(ctx); err != nil {
		return err
	}
	op := p.op
	m := kernels.Mismatches{What: op.name + "/" + op.cands[cand].Name}
	// What expected values see: the candidate's names and the inputs.
	env := maps.Clone(p.envs[cand])
	maps.Copy(env, p.host)
	var checked int64
	for i, b := range op.bufs {
		if !b.checked() || !b.expects() && p.want[i] == nil {
			continue
		}
		first, count := p.checks[cand][i][0], p.checks[cand][i][1]
		size := int64(b.typ.size)
		got, err := readRange(ctx, p.bufs[i], first*size, count*size)
		if err != nil {
			return status.Annotatef(err, "manifest: reading %s", b.name)
		}
		if !b.expects() {
			compareElements(&m, b, got, p.want[i], first)
		} else if err := compareExpected(&m, b, got, first, env); err != nil {
			return err
		}
		checked += count
	}
	return m.Err(checked)
}

// compareElements adds to m every element of got that differs from want,
// the whole buffer as another run computed it; got starts at element first
// of the buffer. The elements are checked as against a .npy file's.
func compareElements(m *kernels.Mismatches, b *manifestBuffer, got, want []byte, first int64) {
	ref := *b
	ref.expect, ref.expectNpy = nil, &hostArray{typ: b.typ, n: int64(len(want) / b.typ.size), data: want}
	_ = compareExpected(m, &ref, got, first, nil)
}

// compareExpected adds to m every element of got that is not the value
// b's "expect" gives it in env: integers wrap as the type does (a u32 sum
// is taken modulo 2³²), floats are compared within the tolerance. got
// starts at element first of the buffer. Parts of a large buffer are
// checked on every processor at once, and their differences reported in
// index order.
func compareExpected(m *kernels.Mismatches, b *manifestBuffer, got []byte, first int64, env exprEnv) error {
	size := b.typ.size
	n := len(got) / size
	var mu sync.Mutex
	parts := map[int]expectedPart{} // by first index
	par.Range(n, 1<<14, func(lo, hi int) {
		part := b.checkExpected(got[lo*size:hi*size], first+int64(lo), maps.Clone(env))
		mu.Lock()
		defer mu.Unlock()
		parts[lo] = part
	})
	for _, lo := range slices.Sorted(maps.Keys(parts)) {
		part := parts[lo]
		if part.err != nil {
			return part.err
		}
		m.Merge(&part.found)
	}
	return nil
}

// expectedPart is what checking a part of a buffer found: the elements
// that differ, or why an expected value could not be worked out.
type expectedPart struct {
	found kernels.Mismatches
	err   error
}

// checkExpected checks elements of b from index first, in env.
func (b *manifestBuffer) checkExpected(got []byte, first int64, env exprEnv) expectedPart {
	var part expectedPart
	size := b.typ.size
	want := make([]byte, size)
	for i := 0; i+size <= len(got); i += size {
		idx := first + int64(i/size)
		v, err := b.expected(idx, env)
		if err != nil {
			part.err = err
			return part
		}
		g := got[i : i+size]
		if b.typ.kind != floatKind {
			putUint(want, uint64(v.i), size)
			if !bytes.Equal(g, want) {
				part.found.Add(func() string {
					return fmt.Sprintf("%s[%d]: got %s, want %s (%sintegers are compared exactly)", b.name, idx, b.typ.formatInt(g), b.typ.formatInt(want), b.expectSource())
				})
			}
		} else if gf, wf := b.typ.decodeFloat(g), v.float(); !b.tol.accepts(gf, wf) {
			part.found.Add(func() string {
				return fmt.Sprintf("%s[%d]: got %.9g, want %.9g (%s|difference| %.3g > tolerance %.3g)", b.name, idx, gf, wf, b.expectSource(), math.Abs(gf-wf), b.tol.of(wf))
			})
		}
	}
	return part
}

// expected returns the value element idx of b must have: its .npy
// file's, or its expression's in env.
func (b *manifestBuffer) expected(idx int64, env exprEnv) (exprValue, error) {
	if b.expectNpy != nil {
		return b.expectNpy.at(idx), nil
	}
	env["i"] = intValue(idx)
	v, err := b.expect.eval(env)
	if err != nil {
		return v, b.expect.errorf(status.InvalidArgument, fmt.Errorf("at i = %d: %v", idx, err))
	}
	return v, nil
}

// expectSource says what b is checked against, for messages: "expect "
// and the expression, quoted, or the .npy file, then "; "; nothing for
// another run's results (compareElements).
func (b *manifestBuffer) expectSource() string {
	switch {
	case b.expect != nil:
		return "expect " + strconv.Quote(b.expect.src) + "; "
	case b.expectNpy.path != "":
		return "expect " + b.expectNpy.path + "; "
	}
	return ""
}
