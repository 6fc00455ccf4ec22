package faulty

import (
	"context"

	"github.com/vkbench/vkbench/hal"
)

var (
	_ hal.Image   = (*image)(nil)
	_ hal.Sampler = (*sampler)(nil)
)

// image wraps a hal.Image.
type image struct {
	dev   *device
	inner hal.Image
}

// sampler wraps a hal.Sampler.
type sampler struct {
	dev   *device
	inner hal.Sampler
}

// unwrapImage returns the inner image of img if img is a wrapper, else
// img, so that a foreign image reaches the inner device as it is.
func unwrapImage(img hal.Image) hal.Image {
	if w, ok := img.(*image); ok {
		return w.inner
	}
	return img
}

// unwrapSampler returns the inner sampler of s if s is a wrapper, else s.
func unwrapSampler(s hal.Sampler) hal.Sampler {
	if w, ok := s.(*sampler); ok {
		return w.inner
	}
	return s
}

func (d *device) CreateImage(desc hal.ImageDesc) (hal.Image, error) {
	if err := d.enter(CreateImage); err != nil {
		return nil, err
	}
	img, err := d.inner.CreateImage(desc)
	if err != nil {
		return nil, err
	}
	return &image{dev: d, inner: img}, nil
}

func (d *device) CreateSampler(desc hal.SamplerDesc) (hal.Sampler, error) {
	if err := d.enter(CreateSampler); err != nil {
		return nil, err
	}
	s, err := d.inner.CreateSampler(desc)
	if err != nil {
		return nil, err
	}
	return &sampler{dev: d, inner: s}, nil
}

func (img *image) Desc() hal.ImageDesc { return img.inner.Desc() }

func (img *image) Write(ctx context.Context, data []byte) error {
	if err := img.dev.enter(ImageWrite); err != nil {
		return err
	}
	return img.inner.Write(ctx, data)
}

func (img *image) Read(ctx context.Context, dst []byte) error {
	if err := img.dev.enter(ImageRead); err != nil {
		return err
	}
	return img.inner.Read(ctx, dst)
}

func (img *image) Release() error {
	img.dev.plan.decide(Release, true)
	return img.inner.Release()
}

func (s *sampler) Desc() hal.SamplerDesc { return s.inner.Desc() }

func (s *sampler) Release() error {
	s.dev.plan.decide(Release, true)
	return s.inner.Release()
}

func (cb *commandBuffer) CopyBufferToImage(src hal.Buffer, srcOffset int64, dst hal.Image) error {
	if err := cb.enter(CopyBufferToImage); err != nil {
		return err
	}
	return cb.inner.CopyBufferToImage(unwrapBuffer(src), srcOffset, unwrapImage(dst))
}

func (cb *commandBuffer) CopyImageToBuffer(src hal.Image, dst hal.Buffer, dstOffset int64) error {
	if err := cb.enter(CopyImageToBuffer); err != nil {
		return err
	}
	return cb.inner.CopyImageToBuffer(unwrapImage(src), unwrapBuffer(dst), dstOffset)
}
