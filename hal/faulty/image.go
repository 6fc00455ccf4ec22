package faulty

import (
	"context"

	"github.com/vkbench/vkbench/hal"
)

type image struct{ wrapped[hal.Image] }

type sampler struct{ wrapped[hal.Sampler] }

func (d *device) CreateImage(desc hal.ImageDesc) (hal.Image, error) {
	return create(d, CreateImage, func() (hal.Image, error) { return d.inner.CreateImage(desc) },
		func(w wrapped[hal.Image]) hal.Image { return &image{w} })
}

func (d *device) CreateSampler(desc hal.SamplerDesc) (hal.Sampler, error) {
	return create(d, CreateSampler, func() (hal.Sampler, error) { return d.inner.CreateSampler(desc) },
		func(w wrapped[hal.Sampler]) hal.Sampler { return &sampler{w} })
}

func (img *image) Desc() hal.ImageDesc { return img.inner.Desc() }

func (img *image) Write(ctx context.Context, data []byte) error {
	return img.dev.forward(ImageWrite, func() error { return img.inner.Write(ctx, data) })
}

func (img *image) Read(ctx context.Context, dst []byte) error {
	return img.dev.forward(ImageRead, func() error { return img.inner.Read(ctx, dst) })
}

func (s *sampler) Desc() hal.SamplerDesc { return s.inner.Desc() }

func (cb *commandBuffer) CopyBufferToImage(src hal.Buffer, srcOffset int64, dst hal.Image) error {
	return cb.forward(CopyBufferToImage, func() error { return cb.inner.CopyBufferToImage(unwrap(src), srcOffset, unwrap(dst)) })
}

func (cb *commandBuffer) CopyImageToBuffer(src hal.Image, dst hal.Buffer, dstOffset int64) error {
	return cb.forward(CopyImageToBuffer, func() error { return cb.inner.CopyImageToBuffer(unwrap(src), unwrap(dst), dstOffset) })
}
