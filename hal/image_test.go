package hal_test

import (
	"testing"

	"github.com/vkbench/vkbench/hal"
)

func TestImageUsageFeatures(t *testing.T) {
	for u, want := range map[hal.ImageUsage]hal.FormatFeatures{
		0:                                   0,
		hal.ImageStorage:                    hal.FormatStorage,
		hal.ImageSampled:                    hal.FormatSampled,
		hal.ImageStorage | hal.ImageSampled: hal.FormatStorage | hal.FormatSampled,
		hal.ImageStorage | 1<<7:             hal.FormatStorage,
	} {
		if got := u.Features(); got != want {
			t.Errorf("%s.Features() = %s, want %s", u, got, want)
		}
	}
}
