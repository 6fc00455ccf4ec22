//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package store

import "os"

// ownedByMe cannot tell owners apart here: the folder's permissions are
// checked alone.
func ownedByMe(os.FileInfo) bool { return true }
