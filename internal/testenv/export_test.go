package testenv

import "sync"

// Announcing sends the lines Unavailable announces to f, each process's
// first skip again, until restore.
func Announcing(f func(string)) (restore func()) {
	old := announce
	announce, announced = f, sync.Once{}
	return func() { announce, announced = old, sync.Once{} }
}
