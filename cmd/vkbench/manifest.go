package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/spf13/cobra"

	"github.com/vkbench/vkbench/catalogue"
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
	"github.com/vkbench/vkbench/status"
)

// loadManifest loads the operations of a kernel manifest (see
// manifest.Load and docs/manifest.md); none for "". A
// manifest that cannot be loaded is input for the user to fix, so its
// error, which names the file, the field and what is wrong, is a usage
// error (exit status 2). So is an operation named as a built-in one:
// the command puts both in one list of names, which package manifest,
// knowing nothing of the catalogue, cannot check.
//
// The files the manifest names (its modules, sources, .npy files) are
// added to f's named, which -o may not replace.
func (f *benchFlags) loadManifest(path string, opts manifest.Options) ([]kernels.Operation, error) {
	if path == "" {
		return nil, nil
	}
	ops, err := manifest.LoadWith(path, opts)
	for _, file := range manifest.Files(ops) {
		f.named = append(f.named, input{file, "which the manifest " + path + " names"})
	}
	if status.CodeOf(err) == status.Cancelled {
		return nil, err // interrupted: the command says so
	}
	if err != nil {
		return nil, usageError{err}
	}
	for _, op := range ops {
		if _, err := catalogue.Lookup(op.Name()); err == nil {
			return nil, usageError{status.Newf(status.InvalidArgument, "manifest: %s: operation %q has the name of a built-in operation; choose another", path, op.Name())}
		}
	}
	return ops, nil
}

// manyCompiles is the size of a batch of GLSL compiles (a manifest's
// candidates, as it is read) that is said on stderr as it starts:
// seconds of work, at the least, in which nothing else is printed.
const manyCompiles = 8

// compileNotes says what a manifest's GLSL compiles do, where they take
// long: a line on stderr as a batch of manyCompiles or more starts
// (unless --quiet). A search compiles each configuration of a space it
// evaluates on its compile threads, which its own progress covers.
type compileNotes struct {
	mu sync.Mutex
	w  io.Writer
}

// options are manifest.LoadWith's options for cmd, whose context stops
// the compiles.
func (n *compileNotes) options(cmd *cobra.Command, quiet bool) manifest.Options {
	if !quiet {
		n.w = cmd.ErrOrStderr()
	}
	return manifest.Options{Context: cmd.Context(), Progress: n.told}
}

func (n *compileNotes) told(p manifest.CompileProgress) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if p.Done == 0 && p.Total >= manyCompiles && n.w != nil {
		_, _ = fmt.Fprintf(n.w, "%s: compiling the GLSL of %d configurations, %d at a time (kept in %s, so later runs compile none of them again)\n", p.Op, p.Total, p.Workers, p.Dir) // a note; the work goes on without it
	}
}
