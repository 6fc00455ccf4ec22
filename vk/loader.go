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

// load opens libvulkan.so.1, once per process.
var load = sync.OnceValue(func() error {
	var msg [512]C.char
	if C.vkb_load(&msg[0], C.int(len(msg))) != 0 {
		return status.Newf(status.Unavailable, "vk: cannot load libvulkan.so.1: %s (install libvulkan1)", C.GoString(&msg[0]))
	}
	return nil
})
