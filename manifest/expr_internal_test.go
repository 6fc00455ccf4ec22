package manifest

import (
	"math"
	"strings"
	"testing"

	"github.com/vkbench/vkbench/kernels"
)

func testScope() exprScope {
	return exprScope{names: map[string]nameInfo{
		"N":    {kind: dimName, typ: intType, usesDims: true},
		"K":    {kind: dimName, typ: intType, usesDims: true},
		"WG":   {kind: paramName, typ: intType, usesParams: true},
		"half": {kind: letName, typ: floatType, usesDims: true},
		"pass": {kind: passName, typ: intType},
		"x":    {kind: bufferName, typ: floatType, usesDims: true},
	}}
}

// testArray is x: 10 float32s, 0.5 * index.
func testArray() *hostArray {
	a := &hostArray{typ: scalarTypes[0], n: 10, data: make([]byte, 40)}
	for i := range 10 {
		_ = a.typ.encode(a.data[4*i:], floatValue(0.5*float64(i)))
	}
	return a
}

func TestExprEval(t *testing.T) {
	env := exprEnv{"N": intValue(1000), "K": intValue(7), "WG": intValue(256), "half": floatValue(0.5), "pass": intValue(2),
		"x": {arr: testArray()}}
	tests := []struct {
		src  string
		want exprValue
	}{
		{"N", intValue(1000)},
		{"1 + 2 * 3", intValue(7)},
		{"(1 + 2) * 3", intValue(9)},
		{"N / 256", intValue(3)},
		{"N / 256.0", floatValue(1000.0 / 256)},
		{"-N / 256", intValue(-3)},
		{"N % 256", intValue(232)},
		{"div_up(N, WG)", intValue(4)},
		{"div_up(1024, WG)", intValue(4)},
		{"round_up(N, WG)", intValue(1024)},
		{"ceil(N / 256.0)", intValue(4)},
		{"floor(N * half)", intValue(500)},
		{"round(2.5)", intValue(3)},
		{"min(N, K, WG)", intValue(7)},
		{"max(N, 1.5)", floatValue(1000)},
		{"clamp(N, 1, 512)", intValue(512)},
		{"abs(-K)", intValue(7)},
		{"log2(N)", intValue(9)},
		{"pow(WG, pass + 1)", intValue(1 << 24)},
		{"pow(-1, 3)", intValue(-1)},
		{"pow(0, 0)", intValue(1)},
		{"1 << 10", intValue(1024)},
		{"N >> 3", intValue(125)},
		{"N % 4 == 0 && K > 3", intValue(1)},
		{"N < K || !(K != 7)", intValue(1)},
		{"select(K > 5, 1, 2.5)", floatValue(1)},
		{"select(0, N / 0, 2)", intValue(2)},
		{"K > 10 && N / 0", intValue(0)},
		{"0x10 + 1e3", floatValue(1016)},
		{"2.5", floatValue(2.5)},
		{"exp(0)", floatValue(1)},
		{"exp(half) * exp(half)", floatValue(math.Exp(0.5) * math.Exp(0.5))},
		{"log(1)", floatValue(0)},
		{"sqrt(K * 7)", floatValue(7)},
		{"sin(0) + cos(0)", floatValue(1)},
		{"tanh(0)", floatValue(0)},
		{"pow(2.0, 0.5)", floatValue(math.Sqrt2)},
		{"pow(half, 2)", floatValue(0.25)},
		{"x[K]", floatValue(3.5)},
		{"x[K - 7] + x[N / 1000] * 2", floatValue(1)},
		{"exp(x[2])", floatValue(math.E)},
	}
	for _, tt := range tests {
		e, err := parseExpr(tt.src, testScope())
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		got, err := e.eval(env)
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		if got != tt.want || e.typ != tt.want.typ {
			t.Errorf("%q = %v (%v, static %v), want %v (%v)", tt.src, got, got.typ, e.typ, tt.want, tt.want.typ)
		}
	}
}

func TestExprErrors(t *testing.T) {
	env := exprEnv{"N": intValue(1000), "K": intValue(0), "WG": intValue(256), "half": floatValue(0.5), "pass": intValue(0),
		"x": {arr: testArray()}}
	tests := []struct {
		src, want string
	}{
		{"sqrt(K - 1)", "sqrt: not a number"},
		{"log(-half)", "log: not a number"},
		{"x + 1", "x is a buffer: read an element of it as x[index]"},
		{"N[0]", "N is not a buffer"},
		{"x[half]", "the index of x is a float"},
		{"x[N]", "x[1000] is outside the buffer's 10 elements"},
		{"x[0", "missing ']'"},
		{"", "at column 1: empty expression"},
		{"N +", "at column 4: expression ends where a value should be"},
		{"(N", "at column 3: missing ')' to close the '(' at column 1"},
		{"N)", `at column 2: unexpected ")"`},
		{"M", `at column 1: unknown name "M"`},
		{"NN", `unknown name "NN" (did you mean N?)`},
		{"mn(N, K)", `unknown function "mn" (did you mean min?)`},
		{"min(N)", "min takes at least 2 arguments, got 1"},
		{"div_up(N)", "div_up takes 2 arguments, got 1"},
		{"min", "min is a function"},
		{"ceil(N / 256)", "use div_up"},
		{"div_up(N, half)", "argument 2 of div_up is a float"},
		{"N % 2.0", "% takes integers"},
		{"12abc", "malformed number"},
		{"99999999999999999999", "does not fit 64 bits"},
		{"N $ 2", `unexpected "$ 2"`},
		{"N / K", "at column 3: division by zero in 1000 / 0"},
		{"N % K", "division by zero"},
		{"N * 9223372036854775807", "integer overflow"},
		{"1 << 63", "outside [0, 62]"},
		{"div_up(N, K)", "divisor 0 is not positive"},
		{"log2(K)", "0 is not positive"},
		{"pow(2, 64)", "integer overflow"},
		{"ceil(1e300)", "does not fit a 64-bit integer"},
		{strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "nested too deeply"},
		{strings.Repeat("-", 300) + "1", "nested too deeply"},
	}
	for _, tt := range tests {
		e, err := parseExpr(tt.src, testScope())
		if err == nil {
			_, err = e.eval(env)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want an error containing %q", tt.src, err, tt.want)
		}
	}
}

func TestExprForbiddenNames(t *testing.T) {
	scope := testScope()
	scope.forbid = func(info nameInfo) string {
		if info.kind == dimName {
			return "it is a dimension"
		}
		return ""
	}
	_, err := parseExpr("WG * N", scope)
	if err == nil || !strings.Contains(err.Error(), "at column 6: N cannot be used here: it is a dimension") {
		t.Errorf("got %v", err)
	}
	e, err := parseExpr("WG * 2 + half", testScope())
	if err != nil {
		t.Fatal(err)
	}
	if !e.usesParams || !e.usesDims || e.typ != floatType {
		t.Errorf("uses params %v, dims %v, type %v", e.usesParams, e.usesDims, e.typ)
	}
}

// TestF16 encodes and decodes f16 elements: rounded to the nearest
// binary16, ties to even (internal/half's tests cover the conversion).
func TestF16(t *testing.T) {
	f16, _ := lookupScalarType("f16")
	b := make([]byte, 2)
	for _, tt := range []struct {
		v    float64
		bits uint16
		back float64
	}{{1 + 0x3p-11, 0x3c02, 1 + 0x1p-9}, {-2, 0xc000, -2}, {65520, 0x7c00, math.Inf(1)}} {
		if err := f16.encode(b, floatValue(tt.v)); err != nil || getUint(b, 2) != uint64(tt.bits) {
			t.Errorf("f16 %g: %#04x, %v; want %#04x", tt.v, getUint(b, 2), err, tt.bits)
		}
		if got := f16.decodeFloat(b); got != tt.back {
			t.Errorf("f16 %#04x decodes to %g, want %g", tt.bits, got, tt.back)
		}
	}
	if err := f16.encode(b, floatValue(math.NaN())); err != nil || !math.IsNaN(f16.decodeFloat(b)) {
		t.Errorf("NaN: %v, decodes to %g", err, f16.decodeFloat(b))
	}
}

// TestBF16 encodes and decodes bf16 elements: float32's upper half,
// rounded to the nearest, ties to even; not binary16.
func TestBF16(t *testing.T) {
	bf16, ok := lookupScalarType("bf16")
	if !ok || bf16.size != 2 || bf16.dtype() != kernels.BF16 {
		t.Fatalf("bf16: %+v, %v; dtype %v", bf16, ok, bf16.dtype())
	}
	b := make([]byte, 2)
	for _, tt := range []struct {
		v    float64
		bits uint16
		back float64
	}{{1 + 0x3p-8, 0x3f82, 1 + 0x1p-6}, {-2, 0xc000, -2}, {65520, 0x4780, 65536}, {1e38, 0x7e96, 0x1.2cp126}} {
		if err := bf16.encode(b, floatValue(tt.v)); err != nil || getUint(b, 2) != uint64(tt.bits) {
			t.Errorf("bf16 %g: %#04x, %v; want %#04x", tt.v, getUint(b, 2), err, tt.bits)
		}
		if got := bf16.decodeFloat(b); got != tt.back {
			t.Errorf("bf16 %#04x decodes to %g, want %g", tt.bits, got, tt.back)
		}
	}
	if tol := defaultTolerances["bf16"]; tol.rel <= defaultTolerances["f16"].rel {
		t.Errorf("bf16's default tolerance %+v is no looser than f16's", tol)
	}
}

func TestScalarEncode(t *testing.T) {
	u8, _ := lookupScalarType("u8")
	i16, _ := lookupScalarType("i16")
	b := make([]byte, 8)
	if err := u8.encode(b, intValue(256)); err == nil {
		t.Error("256 fits a u8")
	}
	if err := i16.encode(b, intValue(-32768)); err != nil || i16.formatInt(b) != "-32768" {
		t.Errorf("i16 -32768: %v, %s", err, i16.formatInt(b))
	}
	if err := u8.encode(b, floatValue(1)); err == nil {
		t.Error("a float encodes as a u8")
	}
}
