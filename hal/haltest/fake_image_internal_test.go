package haltest

import (
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

// The fake device makes no images: it checks a description as a backend
// must, then refuses it as unsupported, as a device whose ImageFormats
// are all empty does.

func (d *fakeDevice) CreateImage(desc hal.ImageDesc) (hal.Image, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	if !desc.Format.Valid() || desc.Width < 1 || desc.Height < 1 || desc.Usage == 0 {
		return nil, invalid("fake: CreateImage %+v", desc)
	}
	return nil, status.Wrapf(hal.ErrUnsupported, status.OK, "fake: no %s image of format %s: the format lacks the %s feature (it has none)", desc.Usage, desc.Format, desc.Usage.Features())
}

func (d *fakeDevice) CreateSampler(desc hal.SamplerDesc) (hal.Sampler, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	if desc.Unnormalized && desc.Address != hal.ClampToEdge {
		return nil, invalid("fake: CreateSampler %+v", desc)
	}
	return nil, status.Wrap(hal.ErrUnsupported, status.OK, "fake: no samplers")
}

func (cb *fakeCommandBuffer) CopyBufferToImage(hal.Buffer, int64, hal.Image) error {
	if err := cb.recording(); err != nil {
		return err
	}
	return invalid("fake: no images")
}

func (cb *fakeCommandBuffer) CopyImageToBuffer(hal.Image, hal.Buffer, int64) error {
	if err := cb.recording(); err != nil {
		return err
	}
	return invalid("fake: no images")
}
