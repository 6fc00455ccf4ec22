package manifest

// hostArray is a buffer's elements on the host: the initial contents of
// an input that an expected value reads (x[i]), or the values of a .npy
// file. data nil stands for n zeros, as when a manifest is read, before
// any contents exist.
type hostArray struct {
	typ  scalarType
	n    int64
	data []byte
	// path is the .npy file's, as the manifest writes it, for messages.
	path string
}

// at returns element i, which must be below n.
func (a *hostArray) at(i int64) exprValue {
	b := make([]byte, 8) // zeros, where there is no data
	if a.data != nil {
		b = a.data[i*int64(a.typ.size):]
	}
	if a.typ.kind == floatKind {
		return floatValue(a.typ.decodeFloat(b))
	}
	u := getUint(b, a.typ.size)
	if a.typ.kind == intKind {
		shift := 64 - 8*uint(a.typ.size)
		return intValue(int64(u<<shift) >> shift)
	}
	return intValue(int64(u))
}
