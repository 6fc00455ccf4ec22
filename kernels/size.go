package kernels

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/status"
)

// MaxDims is the most dimensions an operation has: a Size holds at most
// this many extents.
const MaxDims = 4

// Size is a problem's extent in each of its operation's dimensions, in the
// order of Operation.Dims: at most MaxDims. It is a value, comparable with
// ==, so a tuner's map keys on it without allocating; the zero Size has no
// dimensions. Its text form is the extents joined by 'x', as
// "4096x4096x4096", in JSON too.
type Size struct {
	n       uint8
	extents [MaxDims]int
}

// SizeOf makes a Size of the given extents. More than MaxDims extents is
// a programming error and panics: sizes read from people go through
// ParseSize, which says so.
func SizeOf(extents ...int) Size {
	if len(extents) > MaxDims {
		// Dropping extents would give different sizes one key.
		panic("kernels: a size of more than MaxDims dimensions")
	}
	var s Size
	s.n = uint8(len(extents))
	copy(s.extents[:], extents)
	return s
}

// Len is the number of dimensions.
func (s Size) Len() int { return int(s.n) }

// Dim returns the extent of dimension i.
func (s Size) Dim(i int) int {
	if i >= int(s.n) {
		panic("kernels: size dimension out of range")
	}
	return s.extents[i]
}

// Extents returns the extents as a new slice.
func (s Size) Extents() []int { return slices.Clone(s.extents[:s.n]) }

// With returns s with dimension i's extent set to v.
func (s Size) With(i, v int) Size {
	if i >= int(s.n) {
		panic("kernels: size dimension out of range")
	}
	s.extents[i] = v
	return s
}

// Equal reports whether s and o are the same size, as == does; go-cmp
// compares Sizes with it.
func (s Size) Equal(o Size) bool { return s == o }

// String returns the extents joined by 'x', such as "4096x4096x4096".
func (s Size) String() string {
	b := make([]byte, 0, 8*int(s.n))
	for i, e := range s.extents[:s.n] {
		if i > 0 {
			b = append(b, 'x')
		}
		b = strconv.AppendInt(b, int64(e), 10)
	}
	return string(b)
}

// MarshalText writes String's form.
func (s Size) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads String's form; empty text is the zero Size.
func (s *Size) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*s = Size{}
		return nil
	}
	v, err := ParseSize(nil, string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSize reads a size for an operation with the given dimensions,
// written either as extents in order joined by 'x' ("67x45x33") or as
// NAME=extent pairs joined by ',' in any order ("K=33,M=67,N=45"); names
// are case-insensitive and every dimension must be given once. Extents
// take an optional binary suffix: 64Ki, 1Mi, 1Gi. With no dims (as for
// the size in a tune-cache key, whose operation is not at hand) it reads
// 1 to MaxDims extents joined by 'x'.
func ParseSize(dims []string, text string) (Size, error) {
	bad := func(format string, args ...any) (Size, error) {
		return Size{}, status.Newf(status.InvalidArgument, "kernels: size %q: "+format, append([]any{text}, args...)...)
	}
	if len(dims) > MaxDims {
		return bad("%d dimensions; an operation has at most %d", len(dims), MaxDims)
	}
	var size Size
	size.n = uint8(len(dims))
	if strings.Contains(text, "=") && len(dims) > 0 {
		// An extent is at least 1: 0 is one not given yet.
		for _, part := range strings.Split(text, ",") {
			name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
			if !ok {
				return bad("%q is not NAME=extent", part)
			}
			i := slices.IndexFunc(dims, func(d string) bool { return strings.EqualFold(d, strings.TrimSpace(name)) })
			if i < 0 {
				return bad("no dimension %q (dimensions: %s)", name, strings.Join(dims, ", "))
			}
			if size.extents[i] != 0 {
				return bad("dimension %s given twice", dims[i])
			}
			n, err := parseExtent(value)
			if err != nil {
				return bad("%s: %v", dims[i], err)
			}
			size.extents[i] = n
		}
		if i := slices.Index(size.extents[:len(dims)], 0); i >= 0 {
			return bad("dimension %s is missing", dims[i])
		}
		return size, nil
	}
	parts := strings.Split(text, "x")
	switch {
	case len(dims) == 0 && (text == "" || len(parts) > MaxDims):
		return bad("want 1 to %d extents joined by x", MaxDims)
	case len(dims) == 0:
		size.n = uint8(len(parts))
	case len(parts) != len(dims):
		return bad("%s for %s (%s)", count(len(parts), "extent"), count(len(dims), "dimension"), strings.Join(dims, "x"))
	}
	for i, p := range parts {
		n, err := parseExtent(p)
		if err != nil {
			name := strconv.Itoa(i)
			if i < len(dims) {
				name = dims[i]
			}
			return bad("%s: %v", name, err)
		}
		size.extents[i] = n
	}
	return size, nil
}

func parseExtent(text string) (int, error) {
	extent := strings.TrimSpace(text)
	s, mult := extent, 1
	for i, suffix := range []string{"Ki", "Mi", "Gi"} {
		if t, ok := strings.CutSuffix(s, suffix); ok {
			s, mult = t, 1<<(10*(i+1))
			break
		}
	}
	// Plain errors: ParseSize's message says what was wrong, once, under
	// its own INVALID_ARGUMENT.
	n, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(s, "-") {
		n = math.MaxInt // a positive integer too large for an int: too large below
	} else if err != nil || n < 1 {
		return 0, fmt.Errorf("extent %q is not a positive integer", extent)
	}
	if n > int(^uint32(0))/mult {
		return 0, fmt.Errorf("extent %q is too large (at most %d)", extent, ^uint32(0))
	}
	return n * mult, nil
}

// CheckSize checks that size has one extent per dimension (dims) of the
// operation called name, each at least 1 and, where index32, below 2³¹:
// the catalogue's and a manifest's kernels index with 32-bit integers,
// while a kernel of the vkbench package may index with 64 bits, so its
// extents are only positive. It allocates nothing for a size that fits.
func CheckSize(name string, dims []string, size []int, index32 bool) error {
	if len(dims) > MaxDims {
		return status.Newf(status.InvalidArgument, "kernels: %s has %d dimensions; an operation has at most %d", name, len(dims), MaxDims)
	}
	if len(size) != len(dims) {
		return status.Newf(status.InvalidArgument, "kernels: operation %q takes %s %v, not %d", name, count(len(dims), "dimension"), dims, len(size))
	}
	for i, n := range size {
		switch {
		case index32 && (n < 1 || n >= 1<<31):
			return status.Newf(status.InvalidArgument, "kernels: %s: dimension %s = %d is outside [1, 2³¹)", name, dims[i], n)
		case n < 1:
			return status.Newf(status.InvalidArgument, "kernels: %s: dimension %s = %d is not positive", name, dims[i], n)
		}
	}
	return nil
}

// count is n and the word, plural where n is not 1: "1 dimension", "2
// extents".
func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
