//go:build unix

package glslc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// stopWhole starts cmd in a process group of its own, which the end of
// its context kills whole: the children of a wrapper script around the
// tool too, which would otherwise go on running, holding cmd's output
// open, and with it Wait.
func stopWhole(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); !errors.Is(err, syscall.ESRCH) {
			return err
		}
		return os.ErrProcessDone
	}
}
