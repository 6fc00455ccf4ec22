package hal

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/internal/enum"
)

// ComponentType is the element type of a cooperative matrix, with
// VkComponentTypeKHR's values (VK_NV_cooperative_matrix's
// VkComponentTypeNV has the same ones for the types both know).
type ComponentType uint32

// The component types vkbench names; others print as their number.
const (
	ComponentF16  ComponentType = 0
	ComponentF32  ComponentType = 1
	ComponentF64  ComponentType = 2
	ComponentS8   ComponentType = 3
	ComponentS16  ComponentType = 4
	ComponentS32  ComponentType = 5
	ComponentS64  ComponentType = 6
	ComponentU8   ComponentType = 7
	ComponentU16  ComponentType = 8
	ComponentU32  ComponentType = 9
	ComponentU64  ComponentType = 10
	ComponentBF16 ComponentType = 1000141000 // VK_COMPONENT_TYPE_BFLOAT16_KHR
	ComponentE4M3 ComponentType = 1000491002 // VK_COMPONENT_TYPE_FLOAT8_E4M3_EXT
	ComponentE5M2 ComponentType = 1000491003 // VK_COMPONENT_TYPE_FLOAT8_E5M2_EXT
)

var componentNames = map[ComponentType]string{
	ComponentF16: "f16", ComponentF32: "f32", ComponentF64: "f64",
	ComponentS8: "s8", ComponentS16: "s16", ComponentS32: "s32", ComponentS64: "s64",
	ComponentU8: "u8", ComponentU16: "u16", ComponentU32: "u32", ComponentU64: "u64",
	ComponentBF16: "bf16", ComponentE4M3: "e4m3", ComponentE5M2: "e5m2",
}

// String returns the type's short name ("f16", "s8", "bf16", ...), or
// "type(N)" for a value vkbench does not know.
func (t ComponentType) String() string {
	return cmp.Or(componentNames[t], fmt.Sprintf("type(%d)", uint32(t)))
}

// Scope is the set of invocations that share a cooperative matrix, with
// VkScopeKHR's values.
type Scope uint32

// The scopes of cooperative matrices.
const (
	ScopeDevice      Scope = 1
	ScopeWorkgroup   Scope = 2
	ScopeSubgroup    Scope = 3
	ScopeQueueFamily Scope = 5
)

// String returns "device", "workgroup", "subgroup", "queue-family" or
// "scope(N)".
func (s Scope) String() string { return enum.Name(s, scopeNames[:], "scope(%d)") }

var scopeNames = [...]string{ScopeDevice: "device", ScopeWorkgroup: "workgroup", ScopeSubgroup: "subgroup", ScopeQueueFamily: "queue-family"}

// MatrixAPI is the Vulkan extension through which a device offers
// cooperative matrices. A kernel's SPIR-V uses one of them (the
// CooperativeMatrixNV or the CooperativeMatrixKHR capability) and runs
// only with the shapes the device lists for that extension.
type MatrixAPI uint8

// The cooperative-matrix extensions.
const (
	// MatrixNV is VK_NV_cooperative_matrix (SPV_NV_cooperative_matrix).
	MatrixNV MatrixAPI = iota + 1
	// MatrixKHR is VK_KHR_cooperative_matrix (SPV_KHR_cooperative_matrix).
	MatrixKHR
	// MatrixNV2 is VK_NV_cooperative_matrix2 (SPV_NV_cooperative_matrix2):
	// KHR's matrices of any size that is a multiple of a granularity,
	// shared by a whole workgroup, loaded and stored through tensor
	// layouts. Its CooperativeMatrix entries are those granularities.
	MatrixNV2
)

// String returns "nv", "khr" or "nv2".
func (a MatrixAPI) String() string { return enum.Name(a, matrixAPINames[:], "api(%d)") }

var matrixAPINames = [...]string{MatrixNV: "nv", MatrixKHR: "khr", MatrixNV2: "nv2"}

// Extension returns the Vulkan extension's name, such as
// "VK_NV_cooperative_matrix".
func (a MatrixAPI) Extension() string { return enum.Name(a, matrixExtensions[:], a.String()) }

var matrixExtensions = [...]string{MatrixNV: "VK_NV_cooperative_matrix", MatrixKHR: "VK_KHR_cooperative_matrix", MatrixNV2: "VK_NV_cooperative_matrix2"}

// NV2Features are the features of VK_NV_cooperative_matrix2, of which a
// device may have some and not others.
type NV2Features uint8

// The features of VK_NV_cooperative_matrix2, with its feature structure's
// names.
const (
	NV2WorkgroupScope       NV2Features = 1 << iota // matrices of a whole workgroup
	NV2FlexibleDimensions                           // of any multiple of a listed granularity
	NV2Reductions                                   // SPIR-V CooperativeMatrixReductionsNV
	NV2Conversions                                  // CooperativeMatrixConversionsNV
	NV2PerElementOperations                         // CooperativeMatrixPerElementOperationsNV
	NV2TensorAddressing                             // CooperativeMatrixTensorAddressingNV, TensorAddressingNV
	NV2BlockLoads                                   // CooperativeMatrixBlockLoadsNV
)

var nv2FeatureNames = [...]string{
	"cooperativeMatrixWorkgroupScope", "cooperativeMatrixFlexibleDimensions", "cooperativeMatrixReductions",
	"cooperativeMatrixConversions", "cooperativeMatrixPerElementOperations", "cooperativeMatrixTensorAddressing",
	"cooperativeMatrixBlockLoads",
}

// Names lists the Vulkan names of the features in f, in bit order.
func (f NV2Features) Names() []string { return flagNames(f, nv2FeatureNames[:]) }

// String joins the features' Vulkan names with "+", or says "none".
func (f NV2Features) String() string { return flagsString(f, nv2FeatureNames[:]) }

// CooperativeMatrix is one multiply-add a device's cooperative matrices
// do: Result (M×N) = A (M×K) · B (K×N) + C (M×N), with its component
// types, over the invocations of Scope (an entry of
// vkGetPhysicalDeviceCooperativeMatrixPropertiesNV or ...KHR). For
// MatrixNV2 (an entry of
// vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV),
// M, N and K are granularities: the device multiplies matrices of any
// multiples of them, in workgroups of Invocations (any size if 0).
type CooperativeMatrix struct {
	API                    MatrixAPI
	M, N, K                uint32
	A, B, C, Result        ComponentType
	SaturatingAccumulation bool // KHR and NV2 only: integer sums saturate
	Scope                  Scope
	Invocations            uint32 // NV2 only
}

// String writes the multiply-add as "16x16x16 f16*f16+f32=f32 subgroup
// (nv)", with "sat" after the result type for a saturating one and the
// invocations after the scope where they are set ("workgroup:256").
func (m CooperativeMatrix) String() string {
	sat := ""
	if m.SaturatingAccumulation {
		sat = " sat"
	}
	scope := m.Scope.String()
	if m.Invocations != 0 {
		scope += fmt.Sprintf(":%d", m.Invocations)
	}
	return fmt.Sprintf("%dx%dx%d %s*%s+%s=%s%s %s (%s)", m.M, m.N, m.K, m.A, m.B, m.C, m.Result, sat, scope, m.API)
}

// ParseCooperativeMatrix reads what String writes.
func ParseCooperativeMatrix(s string) (CooperativeMatrix, error) {
	bad := func(why string) (CooperativeMatrix, error) {
		return CooperativeMatrix{}, fmt.Errorf("hal: cooperative matrix %q: %s (want like \"16x16x16 f16*f16+f32=f32 subgroup (nv)\")", s, why)
	}
	f := strings.Fields(s)
	var m CooperativeMatrix
	if len(f) == 5 && f[2] == "sat" {
		m.SaturatingAccumulation = true
		f = append(f[:2], f[3:]...)
	}
	if len(f) != 4 {
		return bad("not four fields")
	}
	if _, err := fmt.Sscanf(f[0], "%dx%dx%d", &m.M, &m.N, &m.K); err != nil || fmt.Sprintf("%dx%dx%d", m.M, m.N, m.K) != f[0] {
		return bad("no MxNxK shape")
	}
	types := strings.FieldsFunc(f[1], func(r rune) bool { return r == '*' || r == '+' || r == '=' })
	if len(types) != 4 || strings.Count(f[1], "*") != 1 || strings.Count(f[1], "+") != 1 || strings.Count(f[1], "=") != 1 {
		return bad("no A*B+C=Result types")
	}
	for i, dst := range []*ComponentType{&m.A, &m.B, &m.C, &m.Result} {
		t, ok := parseName(types[i], slices.Collect(maps.Keys(componentNames))...)
		if !ok {
			return bad("unknown component type " + types[i])
		}
		*dst = t
	}
	scope, invocations, ok := strings.Cut(f[2], ":")
	if ok {
		if _, err := fmt.Sscanf(invocations, "%d", &m.Invocations); err != nil || fmt.Sprint(m.Invocations) != invocations || m.Invocations == 0 {
			return bad("bad invocations " + invocations)
		}
	}
	if m.Scope, ok = parseName(scope, ScopeDevice, ScopeWorkgroup, ScopeSubgroup, ScopeQueueFamily); !ok {
		return bad("unknown scope " + scope)
	}
	api, _ := strings.CutSuffix(strings.TrimPrefix(f[3], "("), ")")
	if m.API, ok = parseName(api, MatrixNV, MatrixKHR, MatrixNV2); !ok || "("+api+")" != f[3] {
		return bad("unknown extension " + f[3])
	}
	return m, nil
}

// MarshalText writes the multiply-add as String does, so that JSON shows
// it as people read it.
func (m CooperativeMatrix) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (m *CooperativeMatrix) UnmarshalText(b []byte) error {
	v, err := ParseCooperativeMatrix(string(b))
	if err == nil {
		*m = v
	}
	return err
}

// HasCooperativeMatrix reports whether the device lists the multiply-add
// m: every field equal or, for MatrixNV2, m's M, N and K multiples of a
// listed entry's granularities, in a workgroup of the entry's Invocations
// where it sets them.
func (d DeviceInfo) HasCooperativeMatrix(m CooperativeMatrix) bool {
	return slices.ContainsFunc(d.CooperativeMatrices, func(c CooperativeMatrix) bool {
		if m.API == MatrixNV2 && c.API == MatrixNV2 && c.M > 0 && c.N > 0 && c.K > 0 &&
			m.M%c.M == 0 && m.N%c.N == 0 && m.K%c.K == 0 &&
			(c.Invocations == 0 || c.Invocations == m.Invocations) {
			c.M, c.N, c.K, c.Invocations = m.M, m.N, m.K, m.Invocations
		}
		return c == m
	})
}
