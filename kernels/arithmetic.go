package kernels

import "github.com/vkbench/vkbench/internal/enum"

// Arithmetic says which of a device's arithmetic rates bounds an
// operation's flops, for percent of peak: the FMA units of its DType
// (VectorArithmetic), or its matrix units (tensor cores) at one of their
// precisions, each measured by a peak-coopmat operation.
type Arithmetic uint8

const (
	// VectorArithmetic is the FMA units of the operation's DType
	// (peak-fma-f32, peak-fma-f16, peak-mad-i32).
	VectorArithmetic Arithmetic = iota
	// MatrixF16 is the matrix units with fp16 inputs and fp32 sums
	// (peak-coopmat-f16).
	MatrixF16
	// MatrixF16Acc is the matrix units with fp16 inputs and sums
	// (peak-coopmat-f16acc).
	MatrixF16Acc
	// MatrixS8 is the matrix units with int8 inputs and int32 sums
	// (peak-coopmat-s8).
	MatrixS8
	// MatrixBF16 is the matrix units with bfloat16 inputs and fp32 sums
	// (peak-coopmat-bf16).
	MatrixBF16
)

// String returns "vector", "matrix-f16", "matrix-f16acc", "matrix-s8" or
// "matrix-bf16".
func (a Arithmetic) String() string { return enum.Name(a, arithmeticNames[:], "vector") }

var arithmeticNames = [...]string{"vector", "matrix-f16", "matrix-f16acc", "matrix-s8", "matrix-bf16"}

// ArithmeticOf returns the arithmetic op's flops run on: what op says if
// it implements interface{ Arithmetic() Arithmetic }, else
// VectorArithmetic.
func ArithmeticOf(op Operation) Arithmetic {
	if a, ok := op.(interface{ Arithmetic() Arithmetic }); ok {
		return a.Arithmetic()
	}
	return VectorArithmetic
}
