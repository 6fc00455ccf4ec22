package status

import (
	"sync/atomic"

	"github.com/vkbench/vkbench/internal/enum"
)

// Mode says how much of a failure the package keeps, as IREE_STATUS_MODE
// does for IREE. Each mode keeps what the one before it keeps, and more.
// Whatever the mode, returning nil or a bare Code costs nothing.
type Mode int

// The keep levels, from cheapest to richest.
const (
	// ModeCode keeps only the code. New, Newf, Wrap, Wrapf and Join return
	// a bare Code and allocate nothing; Annotate and WithPayload return
	// their error unchanged. Messages, locations, causes and payloads are
	// dropped.
	ModeCode Mode = iota
	// ModeLocation keeps the code, the source location where the status
	// was made, its cause and its payloads. Messages and annotations are
	// dropped.
	ModeLocation
	// ModeMessages keeps, in addition, the messages and the annotations
	// with their own locations. It is the default.
	ModeMessages
	// ModeStack keeps, in addition, the stack of calls where each status
	// was made.
	ModeStack
)

// String returns the mode's name: "code", "location", "messages" or
// "stack".
func (m Mode) String() string { return enum.Name(m, modeNames[:], "Mode(%d)") }

var modeNames = [...]string{ModeCode: "code", ModeLocation: "location", ModeMessages: "messages", ModeStack: "stack"}

// mode holds the current Mode. It is read on every status made, so it is
// one atomic load; init sets the default.
var mode atomic.Int32

func init() { mode.Store(int32(ModeMessages)) }

// SetMode sets how much later statuses keep, for the whole process, and
// returns the mode it replaces, so that a test can write
//
//	defer status.SetMode(status.SetMode(status.ModeCode))
//
// Statuses made before the change keep what they have. SetMode is safe to
// call at any time from any goroutine; it panics if m is not one of the
// modes above.
func SetMode(m Mode) Mode {
	if m < ModeCode || m > ModeStack {
		panic("status: SetMode of unknown " + m.String())
	}
	return Mode(mode.Swap(int32(m)))
}

// CurrentMode returns the mode set by SetMode, ModeMessages by default.
func CurrentMode() Mode { return Mode(mode.Load()) }
