//go:build cgo

package vk

/*
#cgo CFLAGS: -I${SRCDIR}/include -O2
#cgo LDFLAGS: -ldl
#include "vkb.h"
*/
import "C"

import (
	"context"
	"log/slog"
	"runtime/cgo"
	"sync"

	"github.com/vkbench/vkbench/hal"
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

// messageSink receives the messages of one instance's debug messenger.
type messageSink struct {
	onMessage func(hal.Message)
	logger    *slog.Logger
}

// The validation layer calls vkbGoMessage, from whatever thread made the
// Vulkan call it checks, with a cgo.Handle of a *messageSink.
//
//export vkbGoMessage
func vkbGoMessage(sink C.uintptr_t, severity C.int, id, text *C.char) {
	s := cgo.Handle(sink).Value().(*messageSink)
	m := hal.Message{Severity: severityName(severity), ID: C.GoString(id), Text: C.GoString(text)}
	if s.onMessage != nil {
		s.onMessage(m)
		return
	}
	level := slog.LevelWarn
	if m.Severity == "error" {
		level = slog.LevelError
	}
	s.logger.Log(context.Background(), level, "vk: "+m.Text, "id", m.ID, "severity", m.Severity)
}

func severityName(s C.int) string {
	switch {
	case s >= C.VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT:
		return "error"
	case s >= C.VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT:
		return "warning"
	case s >= C.VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT:
		return "info"
	}
	return "verbose"
}
