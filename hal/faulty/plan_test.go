package faulty_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vkbench/vkbench/hal/faulty"
)

// TestCalls checks that every call has a name, and that Calls lists every
// call a rule can make fail.
func TestCalls(t *testing.T) {
	var names []string
	for _, c := range faulty.Calls() {
		names = append(names, c.String())
	}
	want := []string{
		"Open", "CreateBuffer", "CreateExecutable", "CreateCommandBuffer", "CreateTimestampPool",
		"Submit", "PipelineCacheData", "BufferWrite", "BufferRead",
		"Begin", "Dispatch", "Copy", "Fill", "Barrier", "Timestamp", "End",
		"Wait", "Poll", "Elapsed", "Ticks",
		"CreateImage", "CreateSampler", "ImageWrite", "ImageRead", "CopyBufferToImage", "CopyImageToBuffer",
	}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("Calls() (-want +got):\n%s", d)
	}
	if got := faulty.Release.String(); got != "Release" {
		t.Errorf("Release.String() = %q", got)
	}
	if got := faulty.Call(200).String(); got != "Call(200)" {
		t.Errorf("Call(200).String() = %q", got)
	}
}

// TestBadRules checks that Add refuses the rules that cannot be.
func TestBadRules(t *testing.T) {
	for _, r := range []faulty.Rule{
		{},                  // never fires
		{Nth: -1},           // negative
		{Rate: 1.5},         // not a probability
		{Rate: -0.1},        // not a probability
		{Nth: 1, Effect: 9}, // unknown effect
		{Nth: 1, Calls: []faulty.Call{faulty.Release}},
		{Nth: 1, Calls: []faulty.Call{faulty.None}},
		{Nth: 1, Calls: []faulty.Call{faulty.Wait}, Effect: faulty.FailAsync},
		{Nth: 1, Effect: faulty.Corrupt}, // Corrupt is for BufferRead
		{Nth: 1, Calls: []faulty.Call{faulty.ImageRead}, Effect: faulty.Corrupt},
		{Rate: 1, Calls: []faulty.Call{faulty.Wait}, Effect: faulty.Slow, Factor: 2},     // Slow is for Elapsed
		{Rate: 1, Calls: []faulty.Call{faulty.Elapsed}, Effect: faulty.Slow},             // no factor
		{Rate: 1, Calls: []faulty.Call{faulty.Elapsed}, Effect: faulty.Slow, Factor: -1}, // negative
	} {
		t.Run(fmt.Sprintf("%+v", r), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Add(%+v) did not panic", r)
				}
			}()
			faulty.NewPlan().Add(r)
		})
	}
}
