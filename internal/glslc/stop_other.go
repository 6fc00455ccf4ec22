//go:build !unix

package glslc

import "os/exec"

// stopWhole leaves cmd as exec.CommandContext makes it: the end of its
// context kills the tool's process alone.
func stopWhole(*exec.Cmd) {}
