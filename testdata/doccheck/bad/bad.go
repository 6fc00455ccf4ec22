package bad

const Bare = 1

// Grouped constants are documented by their group's comment.
const (
	GroupedA = 1
	GroupedB = 2
)
const (
	Ungrouped2 = 2
	Ungrouped3 = 3 // A line comment documents it.
)

var Naked int

type T struct {
	Exposed int
	hidden  int
}

type I interface{ Do() }

func F() {}

func NewT() *T { return nil }

func (T) M() {}

type G[E any] struct{}

func (G[E]) Get() {}

// H is documented.
type H int

func (H) unexported() {}

type Alias = H

type unexported struct{}

// Exported methods of unexported types are not API.
func (unexported) Method() {}
