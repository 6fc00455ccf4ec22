// Package skipper is a package whose test and example need what is not
// here, for testenv's TestAnnounceThroughGoTest.
package skipper

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/vkbench/vkbench/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.SkipExamplesWithout(func() error { return errors.New("no widget here") })
	os.Exit(m.Run())
}

func TestNeedsAWidget(t *testing.T) { testenv.Unavailable(t, "no widget here") }

// Example fails wherever it runs, as one that needs a widget would here.
func Example() {
	fmt.Println("no widget")
	// Output: a widget
}
