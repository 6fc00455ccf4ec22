package autotune

import (
	"encoding/hex"
	"slices"
	"strings"

	"github.com/vkbench/vkbench/internal/enum"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// Key identifies one tuning question: which candidate of an operation is
// fastest for this element type at this (bucketed) shape.
type Key struct {
	Op    string
	DType string
	Size  kernels.Size
}

// String returns "op/dtype/shape", the form stored in the cache and taken
// by ParseKey.
func (k Key) String() string { return k.Op + "/" + k.DType + "/" + k.Size.String() }

// ParseKey reads what Key.String writes.
func ParseKey(text string) (Key, error) {
	op, rest, ok1 := strings.Cut(text, "/")
	dtype, size, ok2 := strings.Cut(rest, "/")
	if !ok1 || !ok2 || op == "" || dtype == "" {
		return Key{}, status.Newf(status.InvalidArgument, "autotune: bad key %q: want operation/dtype/size, as gemm/f32/4096x4096x4096", text)
	}
	s, err := kernels.ParseSize(nil, size)
	if err != nil {
		return Key{}, status.Annotatef(err, "in key %q", text)
	}
	return Key{Op: op, DType: dtype, Size: s}, nil
}

// Level is a tuning level: how coarsely shapes are bucketed, so that one
// tune serves every shape of its bucket. Coarser levels tune less often.
type Level uint8

const (
	// Balanced buckets each dimension to a power of 2. It is the zero
	// value, so Options that do not set a level get it.
	Balanced Level = iota
	// Minimal buckets each dimension to a power of 4.
	Minimal
	// Extensive buckets each dimension to a power of 2 or 1.5 times one.
	Extensive
	// Full tunes every shape exactly as given.
	Full
)

var levelNames = [...]string{"balanced", "minimal", "extensive", "full"}

// String returns the level's name.
func (l Level) String() string { return enum.Name(l, levelNames[:], "level(%d)") }

// ParseLevel reads a level's name.
func ParseLevel(name string) (Level, error) {
	if i := slices.Index(levelNames[:], name); i >= 0 {
		return Level(i), nil
	}
	return 0, status.Newf(status.InvalidArgument, "autotune: unknown tuning level %q (want minimal, balanced, extensive or full)", name)
}

// Bucket rounds each dimension of s up to the level's next bucket
// boundary (Extensive: 1, 2, 3, 4, 6, 8, 12, ...). The result is the
// bucket's representative shape: tuning runs on it, so the answer does
// not depend on which shape of the bucket came first.
func (l Level) Bucket(s kernels.Size) kernels.Size {
	if l == Full {
		return s
	}
	for i := range s.Len() {
		s = s.With(i, l.bucketDim(s.Dim(i)))
	}
	return s
}

// bucketDim works in integers, so buckets are the same on every machine.
func (l Level) bucketDim(d int) int {
	if d <= 1 {
		return 1
	}
	p := 1
	for p < d {
		switch l {
		case Minimal:
			p *= 4
		case Extensive:
			// Between p = 2^k and 2^(k+1) lies 3·2^(k-1) = p + p/2.
			if half := p / 2; half > 0 && p+half >= d {
				return p + half
			}
			p *= 2
		default:
			p *= 2
		}
	}
	return p
}

// Checksum identifies a candidate list (kernels.Digest) in the cache's
// keys: change any candidate and answers tuned under the old list stop
// applying.
func Checksum(cands []kernels.Candidate) string {
	d := kernels.Digest(cands)
	return hex.EncodeToString(d[:16])
}
