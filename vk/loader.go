//go:build cgo

package vk

/*
#cgo CFLAGS: -I${SRCDIR}/include -O2
#cgo LDFLAGS: -ldl
#include "vkb.h"
*/
import "C"

import (
	"sync"

	"github.com/vkbench/vkbench/status"
)

var (
	loadOnce sync.Once
	loadErr  error
)

// load opens libvulkan.so.1, once per process.
func load() error {
	loadOnce.Do(func() {
		var msg [512]C.char
		if C.vkb_load(&msg[0], C.int(len(msg))) != 0 {
			loadErr = status.Newf(status.Unavailable, "vk: cannot load libvulkan.so.1: %s (install libvulkan1)", C.GoString(&msg[0]))
		}
	})
	return loadErr
}
