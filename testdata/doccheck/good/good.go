// Package good has a doc comment on everything exported.
package good

// Grouped constants are documented by their group's comment.
const (
	A = 1
	B = 2
)

// T is documented.
type T struct {
	// Field is documented.
	Field int
	Other int // Other has a line comment.
}

// M is documented.
func (T) M() {}
