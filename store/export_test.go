package store

import "time"

// FileBackend is the bbolt file at path as a Backend, for the
// conformance suite (storetest), which an internal test cannot import.
func FileBackend(path string, warn func(format string, args ...any)) Backend {
	return newBoltFile(path, 5*time.Second, warn)
}
