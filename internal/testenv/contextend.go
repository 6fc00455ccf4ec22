package testenv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vkbench/vkbench/status"
)

// ContextEnd is the check of a call that must end when its context does,
// where without it the call would wait for something that does not come
// (a file's lock another process holds, a store that stopped answering).
type ContextEnd struct {
	// Within bounds the time from the context's end, as the test saw it,
	// to the call's return. Take a fraction of what the call would wait
	// without its context (the lock timeout, the store's call bound): far
	// above what a busy machine adds, and the check still fails a call
	// that waits that out. Counting from the end the test saw, not from
	// the call, leaves out how late a busy machine ran the context's own
	// timer.
	Within time.Duration
	// Late makes each call only once its context has ended.
	Late bool
	// Names is text the call's error must contain, where not "".
	Names string
}

// endsAfter is when a check's contexts end, after the call began.
const endsAfter = 200 * time.Millisecond

// Check calls call with a context cancelled 200 ms on, then with one whose
// deadline passes then, and wants each to return that context's error
// (errors.Is, and its code by status.CodeOf) within c.Within of the
// context's end. A call that returns later ends the test: each further
// one would wait as long.
func (c ContextEnd) Check(tb testing.TB, name string, call func(context.Context) error) {
	tb.Helper()
	for _, deadline := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		want := context.Canceled
		if deadline {
			ctx, cancel = context.WithTimeout(context.Background(), endsAfter)
			want = context.DeadlineExceeded
		} else {
			time.AfterFunc(endsAfter, cancel)
		}
		ended := make(chan time.Time, 1)
		context.AfterFunc(ctx, func() { ended <- time.Now() })
		if c.Late {
			<-ctx.Done()
		}
		err := call(ctx)
		returned := time.Now()
		cancel()
		took := returned.Sub(<-ended)
		tb.Logf("%s, %v: returned %v after the context's end", name, want, took.Round(time.Microsecond))
		if !errors.Is(err, want) || status.CodeOf(err) != status.CodeOf(want) || !strings.Contains(fmt.Sprint(err), c.Names) {
			tb.Errorf("%s: %v (code %v); want %v, of its code%s", name, err, status.CodeOf(err), want, naming(c.Names))
		}
		if took > c.Within {
			tb.Fatalf("%s returned %v after its context ended; want within %v", name, took.Round(time.Millisecond), c.Within)
		}
	}
}

func naming(s string) string {
	if s == "" {
		return ""
	}
	return ", naming " + s
}
