package spirv

import (
	"cmp"
	"slices"
)

// Field is one scalar of a block laid out explicitly, and where it is.
type Field struct {
	// Offset is its byte offset in the block.
	Offset uint64
	// Scalar is its type; zero for a bool.
	Scalar Scalar
}

// maxFields bounds the scalars a block is taken apart into.
const maxFields = 1 << 12

// PushConstantFields returns the scalars of the push-constant block entry
// e uses (vectors, matrices, arrays and structs taken apart), in the order
// of their offsets, with the constants set as in spec. Nil where e uses no
// push constants; false where the layout cannot be worked out.
func (m *Module) PushConstantFields(e *Entry, spec map[uint32]uint32) ([]Field, bool) {
	blocks := m.blocks(e, storagePushConstant) // one at most
	if len(blocks) == 0 {
		return nil, true
	}
	w := fieldWalker{z: m.sizer(spec)}
	if !w.walk(blocks[0], 0, matrixLayout{}, 0) {
		return nil, false
	}
	slices.SortFunc(w.out, func(a, b Field) int { return cmp.Compare(a.Offset, b.Offset) })
	return w.out, true
}

// matrixLayout is how the matrices of a struct member are laid out: its
// MatrixStride and RowMajor decorations.
type matrixLayout struct {
	stride   uint64
	rowMajor bool
}

// fieldWalker takes a type apart into the scalars it holds.
type fieldWalker struct {
	z   *sizer
	out []Field
}

// walk appends the scalars of type id at byte offset off; mat is the
// layout of the matrices of the member it is in.
func (w *fieldWalker) walk(id uint32, off uint64, mat matrixLayout, depth int) bool {
	m := w.z.m
	t := m.types[id]
	if t == nil || depth > 16 || len(w.out) > maxFields {
		return false
	}
	switch t.op {
	case OpTypeBool, OpTypeInt, OpTypeFloat:
		w.out = append(w.out, Field{Offset: off, Scalar: t.scalar()})
		return true
	case OpTypeVector:
		s, ok := w.z.size(t.elem, 0)
		for i := range uint64(t.count) {
			ok = ok && w.walk(t.elem, off+i*s, mat, depth+1)
		}
		return ok
	case OpTypeMatrix:
		col := m.types[t.elem]
		if col == nil || mat.stride == 0 {
			return false
		}
		s, ok := w.z.size(col.elem, 0)
		for c := range uint64(t.count) {
			for r := range uint64(col.count) {
				at := off + c*mat.stride + r*s
				if mat.rowMajor {
					at = off + r*mat.stride + c*s
				}
				ok = ok && w.walk(col.elem, at, mat, depth+1)
			}
		}
		return ok
	case OpTypeArray:
		n, ok := w.z.value(t.count, 0)
		stride, has := m.decoration(id, noMember, decorationArrayStride)
		if !ok || !has || n > maxFields {
			return false
		}
		for i := range n {
			ok = ok && w.walk(t.elem, off+i*uint64(stride), mat, depth+1)
		}
		return ok
	case OpTypeStruct:
		for i, mt := range t.members {
			o, ok := m.decoration(id, uint32(i), decorationOffset)
			if !ok {
				return false
			}
			stride, _ := m.decoration(id, uint32(i), decorationMatrixStride)
			_, rowMajor := m.decoration(id, uint32(i), decorationRowMajor)
			if !w.walk(mt, off+uint64(o), matrixLayout{uint64(stride), rowMajor}, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
