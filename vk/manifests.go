//go:build cgo

package vk

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// driverManifests lists the driver manifests (ICD JSON files) the Vulkan
// loader reads on Linux, as its documentation (LoaderDriverInterface.md)
// describes the search: the files and folders of VK_DRIVER_FILES (or the
// older VK_ICD_FILENAMES) instead of the standard folders when set, those
// of VK_ADD_DRIVER_FILES in any case, and otherwise vulkan/icd.d under
// the XDG configuration and data folders and /etc. It says whether a
// driver is installed at all, for the message of a failed
// vkCreateInstance; what the loader then makes of each manifest only the
// loader knows.
func driverManifests() []string {
	var places []string
	split := func(v string) {
		for _, p := range filepath.SplitList(v) {
			if p != "" {
				places = append(places, p)
			}
		}
	}
	split(os.Getenv("VK_ADD_DRIVER_FILES"))
	if v := cmp.Or(os.Getenv("VK_DRIVER_FILES"), os.Getenv("VK_ICD_FILENAMES")); v != "" {
		split(v)
	} else {
		home, _ := os.UserHomeDir()
		dirs := func(env, def string) []string { return filepath.SplitList(cmp.Or(os.Getenv(env), def)) }
		roots := slices.Concat(dirs("XDG_CONFIG_HOME", filepath.Join(home, ".config")), dirs("XDG_CONFIG_DIRS", "/etc/xdg"), []string{"/etc"},
			dirs("XDG_DATA_HOME", filepath.Join(home, ".local/share")), dirs("XDG_DATA_DIRS", "/usr/local/share:/usr/share"))
		for _, r := range roots {
			if r != "" {
				places = append(places, filepath.Join(r, "vulkan", "icd.d"))
			}
		}
	}
	var found []string
	for _, p := range places {
		st, err := os.Stat(p)
		switch {
		case err != nil:
		case st.IsDir():
			files, _ := filepath.Glob(filepath.Join(p, "*.json"))
			found = append(found, files...)
		default:
			found = append(found, p)
		}
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// listed names at most n of items, and how many more there are.
func listed(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
