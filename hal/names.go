package hal

import (
	"cmp"
	"fmt"
	"strings"
)

// parseName returns the one of values whose String is s.
func parseName[T fmt.Stringer](s string, values ...T) (T, bool) {
	for _, v := range values {
		if v.String() == s {
			return v, true
		}
	}
	var none T
	return none, false
}

// flagNames lists the names of the bits set in f, in bit order: names[i]
// names bit i.
func flagNames[F ~uint8 | ~uint32](f F, names []string) []string {
	out := []string{}
	for i, name := range names {
		if f&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

// flagsString joins the names of the bits set in f with "+", or says
// "none": the String of a set of flags.
func flagsString[F ~uint8 | ~uint32](f F, names []string) string {
	return cmp.Or(strings.Join(flagNames(f, names), "+"), "none")
}
