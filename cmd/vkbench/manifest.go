package main

import (
	"github.com/vkbench/vkbench/kernels"
	"github.com/vkbench/vkbench/status"
)

// loadManifest loads the operations of a kernel manifest; none for "".
func loadManifest(path string) ([]kernels.Operation, error) {
	if path == "" {
		return nil, nil
	}
	return nil, usageError{status.Newf(status.Unimplemented, "--manifest %s: kernel manifests are not supported yet", path)}
}
