package status

import (
	"fmt"
	"slices"
	"strings"
)

// Join returns one error for several failures, such as those of candidates
// run side by side. Nil errors are dropped; if none is left Join returns
// nil, and if one is left it returns that one unchanged. Otherwise the
// result keeps every error, given back by its Unwrap() []error method, and
// the first code found among them as CodeOf finds it in any error that
// wraps several (Unknown if none has one).
//
// errors.Is and errors.As look into every joined error; CodeOf reports
// the joined code.
func Join(errs ...error) error {
	failed := func(err error) bool { return !isOK(err) }
	first := slices.IndexFunc(errs, failed)
	if first < 0 {
		return nil
	}
	errs = errs[first:]
	if !slices.ContainsFunc(errs[1:], failed) {
		return errs[0]
	}
	code := Unknown
	for _, err := range errs {
		// nil has no code, and OK is no failure's.
		if c, ok := codeOf(err); ok && c != OK {
			code = c
			break
		}
	}
	if CurrentMode() == ModeCode {
		return code
	}
	return &joinError{code: code, errs: slices.DeleteFunc(slices.Clone(errs), isOK)}
}

// joinError is what Join returns for two failures or more.
type joinError struct {
	code Code
	errs []error
}

// Error returns "CODE: n errors: [first] [second] …".
func (j *joinError) Error() string { return j.code.String() + ": " + j.message() }

// message is Error without the code.
func (j *joinError) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d errors:", len(j.errs))
	for _, err := range j.errs {
		fmt.Fprintf(&b, " [%s]", err.Error())
	}
	return b.String()
}

// Unwrap returns the joined errors, for errors.Is and errors.As.
func (j *joinError) Unwrap() []error { return j.errs }
