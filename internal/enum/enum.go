// Package enum names the values of enumerations: the one rule behind the
// String methods of the module's named constants.
package enum

import (
	"fmt"
	"strings"
)

// Name returns the name names gives v. For a value past names, or one it
// leaves out (""), it returns unknown, with v's number in place of a %d
// where unknown has one ("role(%d)" reads "role(7)"), so that the number
// is formatted only for a value without a name.
func Name[T ~uint8 | ~uint32 | ~int](v T, names []string, unknown string) string {
	if v >= 0 && uint64(v) < uint64(len(names)) && names[v] != "" {
		return names[v]
	}
	if strings.Contains(unknown, "%d") {
		return fmt.Sprintf(unknown, int64(v))
	}
	return unknown
}
