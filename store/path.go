package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vkbench/vkbench/status"
)

// DefaultCachePath is the cache file in the user's cache folder
// ($XDG_CACHE_HOME, else ~/.cache, on Linux). A user who has none (HOME
// unset, as under some service managers and CI runners) gets a folder of
// their own in the temporary folder, vkbench-<uid>: Open creates it
// readable by its owner alone, and refuses one that another user owns or
// may write, rather than share answers (and a folder) between users.
func DefaultCachePath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(privateTempDir(), "autotune.db")
	}
	return filepath.Join(dir, "vkbench", "autotune.db")
}

// privateTempDir is the user's own folder in the temporary folder, for a
// user without a cache folder.
func privateTempDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("vkbench-%d", os.Getuid()))
}

// ensurePrivateDir makes dir, the user's own folder in the temporary
// folder, if it is missing (0700), and checks that it is the user's and
// that no one else may write it: in a folder every user shares, another
// could have made it first, to read or change the answers.
func ensurePrivateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return status.Wrapf(err, status.PermissionDenied, "store: creating the cache folder %s", dir)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return status.Wrapf(err, status.PermissionDenied, "store: the cache folder %s", dir)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !ownedByMe(fi) {
		return status.Newf(status.PermissionDenied, "store: the cache folder %s (used because the user has no cache folder: HOME is not set) is not a folder of this user's that only they can write (%v); set --cache FILE or $%s", dir, fi.Mode(), EnvCache)
	}
	return nil
}
