package store

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// TestDeadHere: only a token of this host and process namespace whose
// process id is no process's names a dead holder; a live process, another
// host, another namespace and a token that does not say are waited for.
func TestDeadHere(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no process is told dead here")
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	// A process that has exited and been reaped: its id is no process's
	// (until reused, which a test this short does not meet).
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid
	ns := ""
	if n := pidNamespace(); n != "" {
		ns = " " + n
	}
	token := func(host string, pid int, ns string) string { return fmt.Sprintf("%s pid %d #00ff%s", host, pid, ns) }
	for _, c := range []struct {
		name, token string
		want        bool
	}{
		{"dead-here", token(host, dead, ns), true},
		{"alive", token(host, os.Getppid(), ns), false},
		{"this-process", newToken(), false},
		{"another-host", token(host+"-other", dead, ns), false},
		{"another-namespace", token(host, dead, " pid:[1]"), false},
		{"no-holder-said", "an older vkbench's token", false},
		{"process-group", token(host, 0, ns), false},
	} {
		if got := deadHere(c.token); got != c.want {
			t.Errorf("%s: deadHere(%q) = %v, want %v", c.name, c.token, got, c.want)
		}
	}
	if ns != "" {
		// An older vkbench's token says no namespace: it may be another
		// container's process that shares this host's name.
		if deadHere(token(host, dead, "")) {
			t.Errorf("a token without a namespace, of a dead process id, was taken for a dead holder here")
		}
	}
}
