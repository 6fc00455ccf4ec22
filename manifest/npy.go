package manifest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"codeberg.org/sbinet/npyio"

	"github.com/vkbench/vkbench/status"
)

// npy reads the .npy file (NumPy's format) that n names, for buffer b:
// the initial contents of an input, or the values an output must have.
// Its elements, in C order, are b's, so its shape's product is the
// buffer's length at the sizes it is used at.
func (d *opDecoder) npy(n *jsonNode, b *manifestBuffer) (*hostArray, error) {
	p, full := d.path(n, "a .npy file")
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
	if b.typ == unorm8 && arr.typ.name == "u8" {
		arr.typ = unorm8 // a picture's bytes, as NumPy holds them: b is b/255
	}
	if b.typ.kind != floatKind || b.typ == unorm8 {
		buf := make([]byte, 8)
		for i := range arr.n {
			if err := b.typ.encode(buf, arr.at(i)); err != nil {
				return nil, d.src.errAt(n, "%s, element %d: %v", p, i, err)
			}
		}
	}
	arr.path = p
	sum := sha256.Sum256(arr.data)
	d.op.npy = append(append(d.op.npy, arr.typ.name...), sum[:]...)
	return arr, nil
}

// npyTypes are the element types of .npy files that manifests read, by
// NumPy's type string less its byte order.
var npyTypes = map[string]string{
	"f2": "f16", "f4": "f32", "f8": "f64", "i1": "i8", "u1": "u8", "i2": "i16", "u2": "u16",
	"i4": "i32", "u4": "u32", "i8": "i64", "u8": "u64",
}

// readNpy reads a whole .npy file. npyio reads the header; the elements
// that follow it are read as they lie, since a hostArray's bytes are the
// same little-endian elements, swapped where the file is big-endian.
func readNpy(path string) (*hostArray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	r, err := newNpyReader(f)
	if err != nil {
		return nil, fmt.Errorf("not a .npy file: %v", err)
	}
	h := r.Header.Descr
	typ := strings.Trim(h.Type, `'"`)
	// A byte order, then a type.
	name, ok := npyTypes[strings.TrimLeft(typ, "<>|=")]
	if !ok || len(typ) != 3 {
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
	if _, err := io.ReadFull(f, arr.data); err != nil {
		return nil, fmt.Errorf("holds fewer than the %d elements its shape %v says", n, h.Shape)
	}
	if typ[0] == '>' {
		for i := 0; i < len(arr.data); i += t.size {
			slices.Reverse(arr.data[i : i+t.size])
		}
	}
	return arr, nil
}

// newNpyReader is npyio.NewReader, whose header parser panics where the
// header has no closing newline (one cut short among them): that panic
// is the file's fault, and an error.
func newNpyReader(f io.Reader) (r *npyio.Reader, err error) {
	defer func() {
		if recover() != nil {
			r, err = nil, errors.New("its header is cut short or has no closing newline")
		}
	}()
	return npyio.NewReader(f)
}
