package status

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

func TestStatusFitsOneSizeClass(t *testing.T) {
	// Annotate copies a Status; keep it within the 128-byte size class.
	if size := unsafe.Sizeof(Status{}); size > 128 {
		t.Errorf("Status is %d bytes, want at most 128", size)
	}
}

func TestCaptureKeepsOnlyProgramCounters(t *testing.T) {
	pc, stack := capture(ModeLocation, 0)
	_, file, line, _ := runtime.Caller(0)
	if pc == 0 || stack != nil {
		t.Fatalf("capture(ModeLocation) = %#x, %v; want a pc and no stack", pc, stack)
	}
	want := "\n    at " + fileLine(runtime.Frame{File: file, Line: line - 1})
	var b strings.Builder
	if writeAt(&b, pc); b.String() != want {
		t.Errorf("writeAt wrote %q, want %q", b.String(), want)
	}

	pc2, stack := capture(ModeStack, 0)
	if pc2 == 0 || len(stack) < 2 || stack[0] != pc2 {
		t.Fatalf("capture(ModeStack) = %#x, %d frames; want the pc first", pc2, len(stack))
	}
	fr, _ := runtime.CallersFrames(stack).Next()
	if !strings.HasSuffix(fr.Function, "TestCaptureKeepsOnlyProgramCounters") {
		t.Errorf("first frame is %s, want the caller of capture", fr.Function)
	}
}

func TestExtendSharesTheBase(t *testing.T) {
	st := New(NotFound, "x").(*Status)
	a := st.extend("note", 1, nil)
	if a.base != st || a.msg != st.msg || a.pc != st.pc || a.code != st.code {
		t.Errorf("extend = %+v, want a copy of %+v on top of it", a, st)
	}
	p := a.extend("", 0, 42)
	if p.note != "" || p.payload != 42 || p.base != a {
		t.Errorf("extend with a payload = %+v", p)
	}
}

func TestFileLine(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"/work/main/status/format.go", "status/format.go:7"},
		{"github.com/vkbench/vkbench/status/format.go", "status/format.go:7"},
		{"status/format.go", "status/format.go:7"},
		{"format.go", "format.go:7"},
		{"", "unknown"},
	} {
		if got := fileLine(runtime.Frame{File: tt.file, Line: 7}); got != tt.want {
			t.Errorf("fileLine(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
}
