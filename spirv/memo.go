package spirv

import "sync"

// modules remembers the modules Parse read last, by their code, so that a
// module checked by several layers on its way to a pipeline is read once.
// A key is a copy of the code (callers may reuse their slices).
var modules struct {
	mu     sync.Mutex
	byCode map[string]*Module
}

// memoSize bounds what is remembered: a program that builds endlessly many
// modules starts over rather than grow without end.
const memoSize = 512

func remembered(code []byte) (*Module, bool) {
	modules.mu.Lock()
	defer modules.mu.Unlock()
	m, ok := modules.byCode[string(code)]
	return m, ok
}

func remember(code []byte, m *Module) {
	modules.mu.Lock()
	defer modules.mu.Unlock()
	if modules.byCode == nil || len(modules.byCode) >= memoSize {
		modules.byCode = map[string]*Module{}
	}
	modules.byCode[string(code)] = m
}
