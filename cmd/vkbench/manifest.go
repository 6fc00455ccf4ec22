package main

import (
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/manifest"
)

// loadManifest loads the operations of a kernel manifest (see
// manifest.Load and testdata/manifests/README.md); none for "". A
// manifest that cannot be loaded is input for the user to fix, so its
// error, which names the file, the field and what is wrong, is a usage
// error (exit status 2).
func loadManifest(path string) ([]kernels.Operation, error) {
	if path == "" {
		return nil, nil
	}
	ops, err := manifest.Load(path)
	if err != nil {
		return nil, usageError{err}
	}
	return ops, nil
}
