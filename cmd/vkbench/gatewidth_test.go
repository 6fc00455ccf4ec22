package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/vkbench/vkbench/results"
)

// gateFits checks a gate's table, out, written at width: every line
// within it, each row's figures whole on a line of their own or of the
// row's (but for a row with none), and its verdict after the end of its
// name.
func gateFits(t *testing.T, what string, out string, width int, tab gateTable) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > width {
			t.Errorf("%s at %d columns: a line of %d: %q", what, width, n, line)
		}
	}
	for _, r := range tab.rows {
		quoted := make([]string, len(r.cells))
		for i, c := range r.cells {
			quoted[i] = regexp.QuoteMeta(c)
		}
		figures := regexp.MustCompile(`(?m)(^|\s)` + strings.Join(quoted, `\s+`) + `(\s|$)`)
		if strings.Trim(strings.Join(r.cells, ""), "-") != "" && !figures.MatchString(out) {
			t.Errorf("%s at %d columns: %s's figures %q are not whole on a line:\n%s", what, width, r.name, r.cells, out)
		}
		tail := path.Base(r.name)
		tail = tail[max(0, len(tail)-8):]
		if !regexp.MustCompile(`(?m)` + regexp.QuoteMeta(tail) + `\s+(\S.*\s+)?` + regexp.QuoteMeta(r.verdict) + `( \[\d+\])?$`).MatchString(out) {
			t.Errorf("%s at %d columns: no verdict %q after …%s:\n%s", what, width, r.verdict, tail, out)
		}
	}
}

// TestGateTablesNarrow: the gates' tables fit a terminal of 50 or 60
// columns, as the other tables do: a row whose name, cut as far as it
// goes, leaves no room for its figures and verdict is two lines, its
// name and verdict, then its figures, whole, never cut. Their rows
// needed 70 to 82 columns and ran past the edge. On 120 a row is still
// one line.
func TestGateTablesNarrow(t *testing.T) {
	dir := t.TempDir()
	withProbe := func(name string, medians string) string {
		data, err := os.ReadFile(compareData(name))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(data), `"mode": "hot",`, `"mode": "hot", "probe": {"name": "copy/u32/1048576/vec4-wg256", "round_medians_s": [`+medians+`]},`, 1)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := withProbe("base.json", "1e-5, 1.01e-5, 0.99e-5, 1.005e-5, 0.995e-5")
	cur := withProbe("slower.json", "1.02e-5, 1.015e-5, 1.025e-5, 1.01e-5, 1.03e-5")
	rep, err := compareFiles([]string{base}, []string{cur}, results.DefaultCompareOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, cols := range []int{50, 60, 120} {
		out, code := onTerminal(t, uint16(cols), "compare", base, cur)
		if code != exitRegression {
			t.Errorf("compare at %d columns: exit status %d, want %d\n%s", cols, code, exitRegression, out)
		}
		gateFits(t, "compare", out, cols, compareTable(rep))
		if oneLine := strings.Contains(out, "  vec4     100.00µs  110.00µs  +10.00%  +7.63%    <0.001  5+5     slower\n"); oneLine != (cols == 120) {
			t.Errorf("compare at %d columns: a row in one line %v, want %v:\n%s", cols, oneLine, cols == 120, out)
		}
	}
	data, err := os.ReadFile(cliData("ab-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	ab, err := results.ParseAB(data)
	if err != nil {
		t.Fatal(err)
	}
	ab.AddUnpaired("chain/f32/2048/wg1024", "chain", "wg1024", results.OnlyInNew)
	for _, cols := range []int{50, 60, 120} {
		var b bytes.Buffer
		if err := writeAB(&b, "table", ab, tableWidth(cols)); err != nil {
			t.Fatal(err)
		}
		gateFits(t, "ab", b.String(), cols, abTable(ab))
	}
}

// onTerminalStderr runs the command with its stderr a pseudo-terminal of
// cols columns, its output a pipe.
func onTerminalStderr(t *testing.T, cols uint16, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer func() { _ = master.Close() }()
	if err := pty.Setsize(tty, &pty.Winsize{Rows: 50, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	shown := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(master) // until the terminal closes
		shown <- data
	}()
	var out bytes.Buffer
	code = execute(context.Background(), args, &out, tty)
	if err := tty.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String(), strings.ReplaceAll(string(<-shown), "\r\n", "\n"), code
}

// TestUnclearWarningWidth: what a gate could not decide, said on stderr,
// is wrapped at the terminal's width, as the report is at its own: it
// was wrapped at 100 columns whatever the terminal.
func TestUnclearWarningWidth(t *testing.T) {
	for _, onUnclear := range []string{results.UnclearWarns, results.UnclearFails} {
		_, stderr, _ := onTerminalStderr(t, 50, "compare", "--on-unclear", onUnclear, compareData("noisy-base.json"), compareData("noisy-new.json"))
		if !strings.Contains(stderr, "unclear") || strings.Count(stderr, "\n") < 3 {
			t.Errorf("--on-unclear %s: stderr says nothing unclear, or in under 3 lines:\n%s", onUnclear, stderr)
		}
		for _, line := range strings.Split(stderr, "\n") {
			if n := utf8.RuneCountInString(line); n > 50 && !strings.HasPrefix(line, "vkbench: 1 benchmark") {
				t.Errorf("--on-unclear %s: a line of %d columns on a terminal of 50: %q", onUnclear, n, line)
			}
		}
	}
}
