package status

import (
	"context"
	"errors"
	"io/fs"
	"os"
)

// CodeOf returns the code of any error:
//
//   - nil is OK;
//   - a Code is itself, a *Status has its code, a Join has its code;
//   - an error that wraps others (Unwrap() error, as fmt.Errorf's %w
//     makes, or Unwrap() []error, as errors.Join makes) has the first code
//     found in them, depth first, as errors.As would find it;
//   - the standard library's errors map to the code that describes them:
//     context.Canceled is Cancelled; context.DeadlineExceeded and
//     os.ErrDeadlineExceeded are DeadlineExceeded; fs.ErrNotExist is
//     NotFound, fs.ErrExist AlreadyExists, fs.ErrPermission
//     PermissionDenied, fs.ErrInvalid InvalidArgument and
//     errors.ErrUnsupported Unimplemented, also when an error matches them
//     through its Is method (as syscall.ENOENT matches fs.ErrNotExist);
//   - any other error is Unknown.
//
// CodeOf allocates nothing and does not use reflection.
func CodeOf(err error) Code {
	if err == nil {
		return OK
	}
	if c, ok := codeOf(err); ok {
		return c
	}
	return Unknown
}

// codeOf walks err's chain for the first error that has a code.
func codeOf(err error) (Code, bool) {
	for {
		switch e := err.(type) {
		case Code:
			return e, true
		case *Status:
			return e.Code(), true
		case *joinError:
			return e.code, true
		case interface{ Unwrap() error }:
			err = e.Unwrap()
			if err == nil {
				return 0, false
			}
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				if inner == nil {
					continue
				}
				if c, ok := codeOf(inner); ok {
					return c, true
				}
			}
			return 0, false
		default:
			return wellKnownCode(err)
		}
	}
}

// wellKnown lists the standard library's errors that have a code.
var wellKnown = [...]struct {
	err  error
	code Code
}{
	{context.Canceled, Cancelled},
	{context.DeadlineExceeded, DeadlineExceeded},
	{os.ErrDeadlineExceeded, DeadlineExceeded},
	{fs.ErrNotExist, NotFound},
	{fs.ErrExist, AlreadyExists},
	{fs.ErrPermission, PermissionDenied},
	{fs.ErrInvalid, InvalidArgument},
	{errors.ErrUnsupported, Unimplemented},
}

// wellKnownCode returns the code of an error that wraps nothing, if it is
// or matches one of the wellKnown errors. The == is safe: an error of a
// type that cannot be compared never has the type of one of them.
func wellKnownCode(err error) (Code, bool) {
	x, hasIs := err.(interface{ Is(error) bool })
	for _, w := range wellKnown {
		if err == w.err || hasIs && x.Is(w.err) {
			return w.code, true
		}
	}
	return 0, false
}

// Message returns what err says without its code: the message of a
// *Status (without annotations or cause), the messages of a Join, "" for
// nil or a bare Code, and Error() for any other error.
func Message(err error) string {
	switch e := err.(type) {
	case nil, Code:
		return ""
	case *Status:
		return e.Message()
	case *joinError:
		return e.message()
	}
	return err.Error()
}
