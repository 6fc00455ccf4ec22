package manifest

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/vkbench/vkbench/kernels"
)

// TestFloatCheckBothSides holds the float check of both ways a manifest
// checks a buffer (against the reference candidate's elements, and
// against "expect") to its tolerance from both sides: an error just
// inside passes, just outside fails, and NaN or an infinity passes only
// where the same is wanted. A check rewritten so that NaN slips through
// (|g−w| > tol where !(|g−w| <= tol) was meant) fails here.
func TestFloatCheckBothSides(t *testing.T) {
	f32, _ := lookupScalarType("f32")
	const tol = 1.0 / 1024
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		got, want float64
		pass      bool
	}{
		{1 + 0.99*tol, 1, true},
		{1 - 0.99*tol, 1, true},
		{1 + 1.01*tol, 1, false},
		{1 - 1.01*tol, 1, false},
		{-2 - 1.99*tol, -2, true}, // relative: the tolerance of -2 is twice that of 1
		{-2 - 2.01*tol, -2, false},
		{nan, 1, false},
		{1, nan, false},
		{nan, nan, true},
		{inf, inf, true},
		{-inf, -inf, true},
		{inf, 1, false},
		{1, inf, false},
		{-inf, inf, false},
		{math.MaxFloat32, inf, false},
	} {
		b := &manifestBuffer{name: "y", typ: f32, tol: tolerance{rel: tol}}
		got := make([]byte, 4)
		binary.LittleEndian.PutUint32(got, math.Float32bits(float32(c.got)))
		want := make([]byte, 4)
		binary.LittleEndian.PutUint32(want, math.Float32bits(float32(c.want)))
		what := fmt.Sprintf("got %v, want %v, tolerance %v relative", c.got, c.want, tol)

		m := kernels.Mismatches{What: "against the reference"}
		compareElements(&m, b, got, want, 0)
		if passed := m.Err(1) == nil; passed != c.pass {
			t.Errorf("against the reference: %s: passed %v, want %v (%v)", what, passed, c.pass, m.Err(1))
		}

		e, err := parseExpr("w", exprScope{names: map[string]nameInfo{"w": {kind: letName, typ: floatType}}})
		if err != nil {
			t.Fatal(err)
		}
		b.expect = &manifestExpr{expr: e}
		part := b.checkExpected(got, 0, exprEnv{"w": floatValue(float64(float32(c.want)))})
		if part.err != nil {
			t.Fatalf("expect: %s: %v", what, part.err)
		}
		if err := part.found.Err(1); (err == nil) != c.pass {
			t.Errorf("against expect: %s: passed %v, want %v (%v)", what, err == nil, c.pass, err)
		}
	}
}
