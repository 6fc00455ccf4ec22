package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vkbench/vkbench/store"
)

// commandPaths lists every command of the tree, as the words that name it
// ("cache show"), the root as "".
func commandPaths(cmd *cobra.Command, prefix []string) [][]string {
	out := [][]string{prefix}
	for _, c := range cmd.Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		out = append(out, commandPaths(c, append(append([]string(nil), prefix...), c.Name()))...)
	}
	return out
}

// TestHelp checks every command's help: "vkbench help CMD" and "vkbench CMD
// --help" say the same, exit 0, and match the golden file, which a person
// has read; every flag is described; every command is listed by its parent.
func TestHelp(t *testing.T) {
	root := newRoot()
	for _, path := range commandPaths(root, nil) {
		name := "help-" + strings.Join(append([]string{"vkbench"}, path...), "-")
		t.Run(name, func(t *testing.T) {
			viaFlag := mustRun(t, 0, append(append([]string(nil), path...), "--help")...)
			viaHelp := mustRun(t, 0, append([]string{"help"}, path...)...)
			if viaFlag.stdout != viaHelp.stdout {
				t.Errorf("--help and help differ:\n%s\n---\n%s", viaFlag.stdout, viaHelp.stdout)
			}
			if viaFlag.stderr != "" || viaHelp.stderr != "" {
				t.Errorf("help wrote to stderr: %q %q", viaFlag.stderr, viaHelp.stderr)
			}
			help := viaFlag.stdout
			cmd, _, err := root.Find(path)
			if err != nil {
				t.Fatal(err)
			}
			if cmd.Short == "" {
				t.Errorf("%s has no short description", cmd.CommandPath())
			}
			cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
				if f.Hidden {
					return
				}
				if !strings.Contains(help, "--"+f.Name) || f.Usage == "" {
					t.Errorf("flag --%s is not described", f.Name)
				}
			})
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && !strings.Contains(help, "  "+sub.Name()+" ") {
					t.Errorf("subcommand %s is not listed", sub.Name())
				}
			}
			golden(t, name, strings.ReplaceAll(help, store.DefaultCachePath(), "<default cache>"))
		})
	}
}

// TestHelpNoArgs: vkbench alone shows the help, with status 0.
func TestHelpNoArgs(t *testing.T) {
	r := mustRun(t, 0)
	h := mustRun(t, 0, "--help")
	if r.stdout != h.stdout {
		t.Errorf("vkbench alone and vkbench --help differ")
	}
	r = mustRun(t, 0, "--version")
	if r.stdout != "vkbench version "+version+"\n" {
		t.Errorf("--version says %q", r.stdout)
	}
}
