package testenv

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer that several goroutines (a logger called
// from the driver's threads, a child process's output) may write while a
// test reads it. The zero SyncBuffer is empty and ready to use.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
