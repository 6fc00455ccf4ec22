package manifest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"codeberg.org/sbinet/npyio"
	"codeberg.org/sbinet/npyio/npy"
	"codeberg.org/sbinet/npyio/npy/float16"

	"github.com/vkbench/vkbench/status"
)

// npy reads the .npy file (NumPy's format) that n names, for buffer b:
// the initial contents of an input, or the values an output must have.
// Its elements, in C order, are b's, so its shape's product is the
// buffer's length at the sizes it is used at.
func (d *opDecoder) npy(n *jsonNode, b *manifestBuffer) (*hostArray, error) {
	p, err := d.src.str(n)
	if err != nil {
		return nil, err
	}
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(d.dir, p)
	}
	arr, err := readNpy(full)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fileError(err, "manifest: %s: reading %q", d.src.where(n), full)
		}
		return nil, d.src.errAt(n, "%s: %v", full, err)
	}
	if arr.typ.kind == floatKind && b.typ.kind != floatKind {
		return nil, d.src.errAt(n, "%s holds %s floats, and buffer %q holds integers (%s)", p, arr.typ.name, b.name, b.typ.name)
	}
	if b.typ.kind != floatKind {
		buf := make([]byte, 8)
		for i := range arr.n {
			if err := b.typ.encode(buf, arr.at(i)); err != nil {
				return nil, d.src.errAt(n, "%s, element %d: %v", p, i, err)
			}
		}
	}
	arr.path = p
	return arr, nil
}

// npyTypes are the element types of .npy files that manifests read, by
// NumPy's type string less its byte order.
var npyTypes = map[string]string{
	"f2": "f16", "f4": "f32", "f8": "f64", "i1": "i8", "u1": "u8", "i2": "i16", "u2": "u16",
	"i4": "i32", "u4": "u32", "i8": "i64", "u8": "u64",
}

// readNpy reads a whole .npy file.
func readNpy(path string) (*hostArray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	r, err := npyio.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("not a .npy file: %v", err)
	}
	h := r.Header.Descr
	typ := strings.Trim(h.Type, `'"`)
	name, ok := "", len(typ) == 3 && strings.ContainsRune("<>|=", rune(typ[0]))
	if ok {
		name, ok = npyTypes[typ[1:]]
	}
	if !ok {
		return nil, fmt.Errorf("holds elements of type %s; vkbench reads float16, float32, float64 and 8- to 64-bit integers (numpy's astype converts)", h.Type)
	}
	if h.Fortran && len(h.Shape) > 1 {
		return nil, status.New(status.InvalidArgument, "is in Fortran order; save it in C order (numpy.ascontiguousarray)")
	}
	t, _ := lookupScalarType(name)
	n := int64(1)
	for _, d := range h.Shape {
		n *= int64(d)
	}
	arr := &hostArray{typ: t, n: n, data: make([]byte, n*int64(t.size))}
	put := func(i int, u uint64) { putUint(arr.data[i*t.size:], u, t.size) }
	switch name {
	case "f16":
		err = readFloat16(r, n, func(i int, v float16.Num) { put(i, uint64(v.Uint16())) })
	case "f32":
		err = readInto(r, n, func(i int, v float32) { put(i, uint64(math.Float32bits(v))) })
	case "f64":
		err = readInto(r, n, func(i int, v float64) { put(i, math.Float64bits(v)) })
	case "i8":
		err = readInto(r, n, func(i int, v int8) { put(i, uint64(v)) })
	case "u8":
		err = readInto(r, n, func(i int, v uint8) { put(i, uint64(v)) })
	case "i16":
		err = readInto(r, n, func(i int, v int16) { put(i, uint64(v)) })
	case "u16":
		err = readInto(r, n, func(i int, v uint16) { put(i, uint64(v)) })
	case "i32":
		err = readInto(r, n, func(i int, v int32) { put(i, uint64(v)) })
	case "u32":
		err = readInto(r, n, func(i int, v uint32) { put(i, uint64(v)) })
	case "i64":
		err = readInto(r, n, func(i int, v int64) { put(i, uint64(v)) })
	default:
		err = readInto(r, n, func(i int, v uint64) { put(i, v) })
	}
	if err != nil {
		return nil, err
	}
	return arr, nil
}

// readInto reads n elements of r as T, giving each to put.
func readInto[T any](r *npyio.Reader, n int64, put func(int, T)) error {
	vs := make([]T, n)
	if err := r.Read(&vs); err != nil {
		return err
	}
	for i, v := range vs {
		put(i, v)
	}
	return nil
}

// readFloat16 reads n binary16 elements of r, giving each to put: npyio
// reads them only as a whole array.
func readFloat16(r *npyio.Reader, n int64, put func(int, float16.Num)) error {
	var a npy.Array
	if err := r.Read(&a); err != nil {
		return err
	}
	vs, _ := a.Data().([]float16.Num)
	if int64(len(vs)) != n {
		return fmt.Errorf("holds %d float16 elements, and its shape %v says %d", len(vs), a.Shape(), n)
	}
	for i, v := range vs {
		put(i, v)
	}
	return nil
}
