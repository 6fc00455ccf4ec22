package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWrapWordsWhole: prose wrapped at a narrow terminal keeps each word
// whole: one longer than a line stands alone on its line, past the edge,
// and every other line fits. A Vulkan call's name was cut where the line
// ended ("vkCreateComput" and "ePipelines" at 20 columns).
func TestWrapWordsWhole(t *testing.T) {
	text := "vkbench: warning: run: vkCreateComputePipelines failed: VK_ERROR_OUT_OF_DEVICE_MEMORY on device 0; retry with --device 1"
	for _, width := range []int{20, 30} {
		for _, indent := range []string{"", "    "} {
			var b strings.Builder
			wrapAt(&b, width, indent, text)
			out := b.String()
			if got, want := strings.Fields(out), strings.Fields(text); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("width %d, indent %q: the words are not all there, whole and in order:\n%s", width, indent, out)
			}
			for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if n := utf8.RuneCountInString(line); pastEdge(line, width) {
					t.Errorf("width %d, indent %q: a line of %d columns that is not one long word: %q", width, indent, n, line)
				}
			}
		}
	}
}

// pastEdge reports whether line runs past width, but for a word alone on
// its line that is longer than any line, which prose leaves whole
// (wrapAt).
func pastEdge(line string, width int) bool {
	return utf8.RuneCountInString(line) > width && len(strings.Fields(line)) != 1
}
