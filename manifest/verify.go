package manifest

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"

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
	op := p.op
	m := kernels.Mismatches{What: op.name + "/" + op.cands[cand].Name}
	var checked int64
	for i, b := range op.bufs {
		if !b.checked() || b.expect == nil && p.want[i] == nil {
			continue
		}
		first, count := p.checks[cand][i][0], p.checks[cand][i][1]
		size := int64(b.typ.size)
		got, err := readRange(ctx, p.bufs[i], first*size, count*size)
		if err != nil {
			return status.Annotatef(err, "kernels: reading %s", b.name)
		}
		if b.expect != nil {
			err = compareExpected(&m, b, got, first, p.envs[cand])
		} else {
			compareElements(&m, b, got, p.want[i][first*size:(first+count)*size], first)
		}
		if err != nil {
			return err
		}
		checked += count
	}
	return m.Err(checked)
}

// compareElements adds to m every element of got that differs from want;
// got starts at element first of the buffer.
func compareElements(m *kernels.Mismatches, b *manifestBuffer, got, want []byte, first int64) {
	size := b.typ.size
	for i := 0; i+size <= len(got); i += size {
		g, w := got[i:i+size], want[i:i+size]
		if bytes.Equal(g, w) {
			continue
		}
		idx := first + int64(i/size)
		if b.typ.kind != floatKind {
			m.Add("%s[%d]: got %s, want %s (integers are compared exactly)", b.name, idx, b.typ.formatInt(g), b.typ.formatInt(w))
			continue
		}
		gf, wf := b.typ.decodeFloat(g), b.typ.decodeFloat(w)
		if math.IsNaN(gf) && math.IsNaN(wf) {
			continue
		}
		if tol := b.tol.of(wf); !(math.Abs(gf-wf) <= tol) {
			m.Add("%s[%d]: got %.9g, want %.9g (|difference| %.3g > tolerance %.3g)", b.name, idx, gf, wf, math.Abs(gf-wf), tol)
		}
	}
}

// compareExpected adds to m every element of got that is not the value
// b's "expect" gives it in env: integers wrap as the type does (a u32 sum
// is taken modulo 2³²), floats are compared within the tolerance. got
// starts at element first of the buffer.
func compareExpected(m *kernels.Mismatches, b *manifestBuffer, got []byte, first int64, env exprEnv) error {
	env = maps.Clone(env)
	size := b.typ.size
	want := make([]byte, size)
	for i := 0; i+size <= len(got); i += size {
		idx := first + int64(i/size)
		env["i"] = intValue(idx)
		v, err := b.expect.eval(env)
		if err != nil {
			return b.expect.errorf(status.InvalidArgument, fmt.Errorf("at i = %d: %v", idx, err))
		}
		g := got[i : i+size]
		if b.typ.kind != floatKind {
			putUint(want, uint64(v.i), size)
			if !bytes.Equal(g, want) {
				m.Add("%s[%d]: got %s, want %s (expect %q; integers are compared exactly)", b.name, idx, b.typ.formatInt(g), b.typ.formatInt(want), b.expect.src)
			}
			continue
		}
		gf, wf := b.typ.decodeFloat(g), v.float()
		if tol := b.tol.of(wf); !(math.Abs(gf-wf) <= tol) {
			m.Add("%s[%d]: got %.9g, want %.9g (expect %q; |difference| %.3g > tolerance %.3g)", b.name, idx, gf, wf, b.expect.src, math.Abs(gf-wf), tol)
		}
	}
	return nil
}
