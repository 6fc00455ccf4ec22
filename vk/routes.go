//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/vkbench/vkbench/hal"
)

// Whose is a validation message?
//
// Every driver opened with validation shares the process's one validating
// instance (instance.go), and so its debug messenger, but each asked for
// its own OnMessage or Logger. A driver gets a route, a number; every
// device it opens, and the instance it creates, carry it in C, and every
// vkb_ function that works on them sets the calling thread's route to
// theirs while it runs (VKB_ROUTE in vkb.h). The validation layer reports
// a call's misuse from inside the call, on the thread that makes it, so
// the messenger's callback reads the route of the call that caused the
// message and hands it here.
//
// A message with no live route (made on a thread of the driver's own, by
// a call vk did not make, or for a driver since released) goes to every
// driver that has validation on, so that none is lost; with none, to
// slog.Default().

// messageSink receives the messages of one driver.
type messageSink struct {
	onMessage func(hal.Message)
	logger    *slog.Logger
}

var routes = struct {
	mu    sync.RWMutex
	last  uintptr
	sinks map[uintptr]*messageSink
}{sinks: map[uintptr]*messageSink{}}

// addRoute registers a sink and returns its route, never 0.
func addRoute(s *messageSink) uintptr {
	routes.mu.Lock()
	defer routes.mu.Unlock()
	routes.last++
	routes.sinks[routes.last] = s
	return routes.last
}

// removeRoute forgets a route; its messages go to everyone after this.
func removeRoute(route uintptr) {
	routes.mu.Lock()
	delete(routes.sinks, route)
	routes.mu.Unlock()
}

// The messenger's callback calls vkbGoMessage, on the thread that made
// the Vulkan call, with the route of that call (0 for none).
//
//export vkbGoMessage
func vkbGoMessage(route C.uintptr_t, severity C.int, id, text *C.char) {
	m := hal.Message{Severity: severityName(severity), ID: C.GoString(id), Text: C.GoString(text)}
	routes.mu.RLock()
	sinks := []*messageSink{routes.sinks[uintptr(route)]}
	if sinks[0] == nil {
		sinks = slices.Collect(maps.Values(routes.sinks))
	}
	routes.mu.RUnlock()
	if len(sinks) == 0 {
		sinks = []*messageSink{{logger: slog.Default()}}
	}
	for _, s := range sinks {
		s.deliver(m)
	}
}

func (s *messageSink) deliver(m hal.Message) {
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
