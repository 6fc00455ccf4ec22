package main

import (
	"errors"

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
func loadManifest(path string) ([]kernels.Operation, error) {
	if path == "" {
		return nil, nil
	}
	ops, err := manifest.Load(path)
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

// manifestPath is --manifest's value. An empty one is refused when parsed,
// as --cache's is: a script that passes --manifest "$M" with M unset would
// measure every built-in operation instead of its own kernels.
type manifestPath string

func (p *manifestPath) String() string { return string(*p) }

// Type is pflag's name for the value in help, as for pflag.StringVar.
func (p *manifestPath) Type() string { return "string" }

func (p *manifestPath) Set(s string) error {
	if s == "" {
		return errors.New("want the path of a kernel manifest (JSON)")
	}
	*p = manifestPath(s)
	return nil
}
