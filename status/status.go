package status

import (
	"fmt"
	"runtime"
	"slices"
)

// Status is the rich form of an error: a code, a message, where it was
// made, the annotations added on its way up (each with its own location),
// the stack in ModeStack, typed payloads and a cause. How much of this is
// kept depends on the Mode in force when it was made.
//
// A Status never changes once made: Annotate and WithPayload return a new
// Status that shares the old one's parts, so a Status held in a package
// variable can be annotated by many goroutines at once, and
// errors.Is(annotated, original) still holds.
//
// Statuses are made by New, Newf, Wrap, Wrapf, Annotate and WithPayload,
// which return them as an error; errors.As recovers the *Status. The zero
// Status is not useful.
type Status struct {
	code  Code
	msg   string
	pc    uintptr // where the status was made; 0 when not known
	cause error
	stack []uintptr // ModeStack only

	// A Status made by Annotate or WithPayload is a copy of the one it
	// extends, base, with one note or one payload more. Earlier notes and
	// payloads are found by walking base, so extending costs one
	// allocation and never touches base.
	base    *Status
	note    string
	notePC  uintptr
	payload any
}

// maxStack bounds the frames kept in ModeStack.
const maxStack = 64

// capture returns the program counter of a caller and, in ModeStack, its
// stack. skip 0 is the function that calls capture, 1 its caller, and so
// on. Only program counters are kept: turning them into files and lines
// is left to formatting, which happens only if somebody looks.
func capture(m Mode, skip int) (pc uintptr, stack []uintptr) {
	if m == ModeStack {
		var buf [maxStack]uintptr
		n := runtime.Callers(skip+2, buf[:])
		if n == 0 {
			return 0, nil
		}
		return buf[0], slices.Clone(buf[:n])
	}
	var buf [1]uintptr
	if runtime.Callers(skip+2, buf[:]) == 0 {
		return 0, nil
	}
	return buf[0], nil
}

// build makes a root status with what mode m keeps of msg.
func build(m Mode, code Code, msg string, cause error, pc uintptr, stack []uintptr) *Status {
	if m < ModeMessages {
		msg = ""
	}
	return &Status{code: code, msg: msg, pc: pc, cause: cause, stack: stack}
}

// extend returns a copy of st with one note or payload more.
func (st *Status) extend(note string, notePC uintptr, payload any) *Status {
	x := *st
	x.base, x.note, x.notePC, x.payload = st, note, notePC, payload
	return &x
}

// isOK reports whether err means success: nil, or the code OK returned
// as an error by mistake.
func isOK(err error) bool { return err == nil || err == error(OK) }

// failureCode is CodeOf for an error that is not OK: a non-nil error that
// claims OK (such as a wrapped OK code) is Unknown, since no status may
// have the code OK.
func failureCode(err error) Code {
	if c := CodeOf(err); c != OK {
		return c
	}
	return Unknown
}

// New returns an error with the given code and message, made where New is
// called, that keeps what the current Mode keeps. The code OK gives nil.
func New(code Code, msg string) error {
	if code == OK {
		return nil
	}
	return made(CurrentMode(), code, msg, nil)
}

// Newf is New with a message formatted as fmt.Sprintf does. The message
// is formatted only in the modes that keep it.
func Newf(code Code, format string, args ...any) error {
	if code == OK {
		return nil
	}
	m := CurrentMode()
	return made(m, code, sprintf(m, format, args), nil)
}

// Wrap returns a new status with the given code and message whose cause
// is cause, for when an error of one kind makes the operation fail as
// another kind. A nil cause gives nil, so Wrap can be applied to any
// result. The code OK means "the cause's code", CodeOf(cause).
//
// To add context to an error without changing its code, use Annotate.
func Wrap(cause error, code Code, msg string) error {
	if isOK(cause) {
		return nil
	}
	return made(CurrentMode(), code, msg, cause)
}

// Wrapf is Wrap with a message formatted as fmt.Sprintf does.
func Wrapf(cause error, code Code, format string, args ...any) error {
	if isOK(cause) {
		return nil
	}
	m := CurrentMode()
	return made(m, code, sprintf(m, format, args), cause)
}

// made is New, Newf, Wrap and Wrapf once they have their mode and
// message: the bare code in ModeCode, else a status made where its
// caller's caller is. A code OK with a cause is the cause's.
func made(m Mode, code Code, msg string, cause error) error {
	if code == OK {
		code = failureCode(cause)
	}
	if m == ModeCode {
		return code
	}
	pc, stack := capture(m, 2)
	return build(m, code, msg, cause, pc, stack)
}

// sprintf formats a message in the modes that keep it, and returns ""
// in the others, so that they pay nothing for it.
func sprintf(m Mode, format string, args []any) string {
	if m < ModeMessages {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// Annotate adds msg to err as it goes up the stack, with the location of
// the call, and keeps err's code; it is IREE_RETURN_IF_ERROR's message.
// Annotate(nil, msg) is nil, so a caller writes
//
//	return status.Annotate(compile(src), "while building the pipeline")
//
// Annotating a *Status returns a new *Status with one note more, in one
// allocation; an empty msg adds nothing. Annotating any other error (a
// bare Code, an error from another package) makes a *Status whose code is
// CodeOf(err), whose message is msg and whose cause is err (a bare code
// is not kept as a cause: the status carries it already).
//
// Annotations are kept in ModeMessages and ModeStack. In ModeLocation an
// error that is not yet a *Status becomes one, with the location of the
// call and no message; in ModeCode err is returned as it is.
func Annotate(err error, msg string) error {
	if isOK(err) {
		return nil
	}
	return annotate(CurrentMode(), err, msg, nil)
}

// Annotatef is Annotate with a message formatted as fmt.Sprintf does. The
// message is formatted only when it is kept.
func Annotatef(err error, format string, args ...any) error {
	if isOK(err) {
		return nil
	}
	m := CurrentMode()
	return annotate(m, err, sprintf(m, format, args), nil)
}

// annotate is Annotate, Annotatef and WithPayload once they have their
// message or payload p; the note's location is its caller's caller.
func annotate(m Mode, err error, msg string, p any) error {
	if m == ModeCode {
		return err
	}
	if st, ok := err.(*Status); ok && st != nil {
		switch {
		case p != nil:
			return st.extend("", 0, p)
		case m < ModeMessages || msg == "":
			return err
		}
		pc, _ := capture(ModeLocation, 2)
		return st.extend(msg, pc, nil)
	}
	pc, stack := capture(m, 2)
	st := build(m, failureCode(err), msg, foreignCause(err), pc, stack)
	st.payload = p
	return st
}

// foreignCause returns what a status made from err keeps as its cause:
// err itself, unless err is a bare code, which adds nothing.
func foreignCause(err error) error {
	if _, ok := err.(Code); ok {
		return nil
	}
	return err
}

// WithPayload attaches p to err for programs to read back with Payload:
// for example the raw VkResult and the name of the Vulkan call that
// failed. WithPayload(nil, p) is nil and a nil p adds nothing. An err that
// is not a *Status becomes one, as with Annotate.
func WithPayload(err error, p any) error {
	if isOK(err) {
		return nil
	}
	if p == nil {
		return err
	}
	return annotate(CurrentMode(), err, "", p)
}

// Payload returns the payload of type T attached to err or to an error
// that err wraps, the most recently attached first, walking err's chain
// as errors.As does. T may be an interface type.
func Payload[T any](err error) (T, bool) {
	switch e := err.(type) {
	case *Status:
		for s := e; s != nil; s = s.base {
			if v, ok := s.payload.(T); ok {
				return v, true
			}
		}
		return Payload[T](e.cause)
	case interface{ Unwrap() error }:
		return Payload[T](e.Unwrap())
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			if v, ok := Payload[T](inner); ok {
				return v, true
			}
		}
	}
	var zero T
	return zero, false
}

// Code returns the status's code; a nil *Status reports OK.
func (st *Status) Code() Code {
	if st == nil {
		return OK
	}
	return st.code
}

// Message returns the message the status was made with, without its code,
// annotations or cause; it is empty in the modes that drop messages.
func (st *Status) Message() string {
	if st == nil {
		return ""
	}
	return st.msg
}

// Unwrap returns the cause given to Wrap, or the error that Annotate or
// WithPayload turned into a status; nil if there is none.
func (st *Status) Unwrap() error { return st.cause }

// Is makes errors.Is match a status against its code
// (errors.Is(err, status.NotFound)), against the context errors its code
// stands for (see Code.Is), and against any status it was annotated from.
func (st *Status) Is(target error) bool {
	switch t := target.(type) {
	case Code:
		return st.code == t
	case *Status:
		for s := st; s != nil; s = s.base {
			if s == t {
				return true
			}
		}
		return false
	}
	return st.code.Is(target)
}
