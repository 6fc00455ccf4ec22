//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package store

import (
	"context"
	"os"
)

// canRelock is false where flock(2) is missing: the file is then opened
// for every read (bbolt takes and releases its own lock), and a damaged
// file is moved aside after checking it is still the one found damaged.
const canRelock = false

func unlockFile(*os.File) error { return nil }

// lockFile leaves the wait to bolt.Open, bounded by its timeout alone.
func lockFile(context.Context, *os.File, bool) error { return nil }

// ownedByMe cannot tell owners apart here: the folder's permissions are
// checked alone.
func ownedByMe(os.FileInfo) bool { return true }

// processGone cannot tell here: no process counts as gone, and a dead
// holder's lock is waited for until it expires.
func processGone(int) bool { return false }

// pidNamespace is "": no namespaces are told apart here.
func pidNamespace() string { return "" }
