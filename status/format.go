package status

import (
	"fmt"
	"io"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Error returns the status on one line, read as Go's wrapped errors are,
// the outermost first:
//
//	CODE: annotation: annotation: message: cause
//
// the newest (outermost) annotation first, the cause without the code it
// begins with where that is this status's, and each part left out when
// empty, so a status without a message reads "CODE: annotation".
func (st *Status) Error() string {
	b := []byte(st.code.String())
	for s := st; s.base != nil; s = s.base { // the notes, newest first
		if s.note != "" {
			b = append(append(b, ": "...), s.note...)
		}
	}
	if st.msg != "" {
		b = append(append(b, ": "...), st.msg...)
	}
	if st.cause != nil {
		// A cause that begins with this status's code (a status of the
		// same code, or one wrapped by fmt's %w) does not repeat it.
		b = append(append(b, ": "...), strings.TrimPrefix(st.cause.Error(), st.code.String()+": ")...)
	}
	return string(b)
}

// Format implements fmt.Formatter. %v and %s print Error(); %q quotes it,
// and other verbs and flags apply to it as to a string. %+v prints the
// detailed form, one part a line:
//
//	INTERNAL: compile failed
//	    at kernels/build.go:42
//	  while building pipeline "gemm"
//	    at kernels/build.go:77
//	  payload vk.Failure: {Result:-4 Call:vkQueueSubmit}
//	  stack:
//	    github.com/vkbench/vkbench/kernels.build
//	        kernels/build.go:42
//	  caused by: NOT_FOUND: shader missing
//	        at shaders/load.go:12
//
// Locations are the file's directory and name and the line. Annotations
// and payloads come in the order they were added; the stack appears in
// ModeStack only. The cause comes last, printed with %+v too and shifted
// right by four spaces.
func (st *Status) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('+') {
		io.WriteString(f, st.detail())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), st.Error())
}

// detail returns the %+v form.
func (st *Status) detail() string {
	var b strings.Builder
	b.WriteString(st.code.String())
	if st.msg != "" {
		b.WriteString(": " + st.msg)
	}
	writeAt(&b, st.pc)
	st.writeExtras(&b)
	if len(st.stack) > 0 {
		b.WriteString("\n  stack:")
		frames := runtime.CallersFrames(st.stack)
		for more := true; more; {
			var fr runtime.Frame
			fr, more = frames.Next()
			if fr.Function != "runtime.goexit" {
				fmt.Fprintf(&b, "\n    %s\n        %s", fr.Function, fileLine(fr))
			}
		}
	}
	if st.cause != nil {
		b.WriteString("\n  caused by: " + shift(fmt.Sprintf("%+v", st.cause), "    "))
	}
	return b.String()
}

// writeExtras writes the notes and payloads of st and of the statuses it
// extends, oldest first.
func (st *Status) writeExtras(b *strings.Builder) {
	if st.base != nil {
		st.base.writeExtras(b)
	}
	switch {
	case st.payload != nil:
		fmt.Fprintf(b, "\n  payload %T: %+v", st.payload, st.payload)
	case st.base != nil && st.note != "":
		b.WriteString("\n  " + st.note)
		writeAt(b, st.notePC)
	}
}

// writeAt writes the location of a program counter kept by capture, if
// there is one.
func writeAt(b *strings.Builder, pc uintptr) {
	if pc != 0 {
		fr, _ := runtime.CallersFrames([]uintptr{pc}).Next()
		b.WriteString("\n    at " + fileLine(fr))
	}
}

// Format implements fmt.Formatter as Status.Format does. %+v prints each
// joined error in its detailed form, numbered:
//
//	NOT_FOUND: 2 errors
//	  [1] NOT_FOUND: shader missing
//	        at shaders/load.go:12
//	  [2] INTERNAL: compile failed
func (j *joinError) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('+') {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d errors", j.code, len(j.errs))
		for i, err := range j.errs {
			label := "\n  [" + strconv.Itoa(i+1) + "] "
			b.WriteString(label)
			b.WriteString(shift(fmt.Sprintf("%+v", err), strings.Repeat(" ", len(label)-1)))
		}
		io.WriteString(f, b.String())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), j.Error())
}

// shift indents every line of s but the first by pad.
func shift(s, pad string) string {
	return strings.ReplaceAll(s, "\n", "\n"+pad)
}

// fileLine returns "dir/file.go:line": the last directory keeps names such
// as build.go apart across packages, and dropping the rest keeps the text
// the same on every machine.
func fileLine(fr runtime.Frame) string {
	if fr.File == "" {
		return "unknown"
	}
	return path.Join(path.Base(path.Dir(fr.File)), path.Base(fr.File)) + ":" + strconv.Itoa(fr.Line)
}

// TextForPeople returns an error's text (Error's) on one line, for a
// person to read: without the codes that begin its parts ("NOT_FOUND: "),
// and with the prefix of one of vkbench's packages ("vk: ") once where the
// chain repeats it. The rest of the text, and the order of its parts, stay
// as they are, a word another tool repeats ("warning: ") included:
//
//	running long: vk: device lost: a submission has run for 3s ...
//
// where Error reads "DATA_LOSS: running long: vk: device lost:
// DEADLINE_EXCEEDED: vk: a submission has run for 3s ...". Programs read
// the code with CodeOf and errors.Is, and Error's text stays as it is.
func TextForPeople(text string) string {
	parts := strings.Split(strings.Join(strings.Fields(text), " "), ": ")
	seen := map[string]bool{}
	kept := parts[:0]
	for i, p := range parts {
		if i == len(parts)-1 {
			kept = append(kept, p)
			break
		}
		// A joined error's part begins "[CODE: ": its code goes.
		if head, code, ok := strings.Cut(p, "["); ok && (head == "" || strings.HasSuffix(head, " ")) && isCode(code) {
			parts[i+1] = head + "[" + parts[i+1]
			continue
		}
		if isCode(p) || seen[p] {
			continue
		}
		seen[p] = slices.Contains(packagePrefixes, p)
		kept = append(kept, p)
	}
	return strings.Join(kept, ": ")
}

// packagePrefixes are what the messages of vkbench's own errors begin
// with: the names of its packages, or a path for one inside another
// ("store/redis"). TestPackagePrefixes keeps the list to what the code's
// messages say.
var packagePrefixes = []string{"autotune", "catalogue", "faulty", "glslc", "hal", "haltest", "kernels", "manifest", "redistest", "report",
	"results", "search", "shaders", "spirv", "status", "store", "store/redis", "telemetry", "vk", "vkbench"}

// isCode reports whether s is the name of a code.
func isCode(s string) bool {
	_, err := ParseCode(s)
	return err == nil
}
