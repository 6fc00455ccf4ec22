//go:build cgo

package vk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCreateError checks the rule of a failed vkCreateInstance's message:
// it always names the call and its result, and says that no driver is
// installed, with the advice to install one, only when the loader has no
// driver manifest to read.
func TestCreateError(t *testing.T) {
	const advice = "mesa-vulkan-drivers"
	const none = "no Vulkan driver is installed"
	tests := []struct {
		name      string
		r         int32
		manifests []string
		want      []string // substrings of the message
		notWant   []string
	}{
		{"no driver", vkErrorIncompatible, nil,
			[]string{"vkCreateInstance", "VK_ERROR_INCOMPATIBLE_DRIVER", none, advice}, nil},
		{"a driver that refuses", vkErrorIncompatible, []string{"/usr/share/vulkan/icd.d/nvidia_icd.json"},
			[]string{"vkCreateInstance", "VK_ERROR_INCOMPATIBLE_DRIVER", "nvidia_icd.json", "refuse more instances"}, []string{none, advice}},
		{"many drivers", vkErrorIncompatible, []string{"a.json", "b.json", "c.json", "d.json", "e.json"},
			[]string{"a.json, b.json, c.json and 2 more"}, []string{none, advice}},
		{"another failure", vkErrorInitFailed, nil,
			[]string{"vkCreateInstance", "VK_ERROR_INITIALIZATION_FAILED"}, []string{none, advice}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := createError("vkCreateInstance", tt.r, tt.manifests).Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not say %q", msg, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(msg, w) {
					t.Errorf("message %q says %q", msg, w)
				}
			}
		})
	}
}

// TestDriverManifests checks the loader's search for driver manifests
// as driverManifests reproduces it: VK_DRIVER_FILES (or VK_ICD_FILENAMES)
// replaces the standard folders, VK_ADD_DRIVER_FILES adds to them, and
// files and folders of JSON files both count.
func TestDriverManifests(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := write("one.json")
	inDir := write("icds/two.json")
	write("icds/notes.txt")
	xdg := write("share/vulkan/icd.d/three.json")
	missing := filepath.Join(dir, "missing.json")

	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"files and folders", map[string]string{"VK_DRIVER_FILES": one + ":" + filepath.Join(dir, "icds")}, []string{inDir, one}},
		{"the older name", map[string]string{"VK_ICD_FILENAMES": one}, []string{one}},
		{"the newer name wins", map[string]string{"VK_DRIVER_FILES": inDir, "VK_ICD_FILENAMES": one}, []string{inDir}},
		{"nothing there", map[string]string{"VK_DRIVER_FILES": missing}, nil},
		{"added to one named", map[string]string{"VK_DRIVER_FILES": missing, "VK_ADD_DRIVER_FILES": one}, []string{one}},
		{"the standard folders", map[string]string{"XDG_DATA_DIRS": filepath.Join(dir, "share"), "XDG_DATA_HOME": dir,
			"XDG_CONFIG_DIRS": dir, "XDG_CONFIG_HOME": dir}, []string{xdg}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []string{"VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES"} {
				t.Setenv(v, "")
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			got := driverManifests()
			if tt.name == "the standard folders" {
				// /etc/vulkan/icd.d is always searched: keep what is ours.
				var ours []string
				for _, p := range got {
					if strings.HasPrefix(p, dir) {
						ours = append(ours, p)
					}
				}
				got = ours
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("driverManifests (-want +got):\n%s", d)
			}
		})
	}
}
