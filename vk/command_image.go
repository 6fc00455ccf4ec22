//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"strconv"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// imageOf returns the *image of this device behind hi; what names it in
// errors.
func (cb *commandBuffer) imageOf(op, what string, hi hal.Image) (*image, error) {
	img, ok := hi.(*image)
	if !ok || img == nil {
		if hi == nil {
			return nil, status.Newf(status.InvalidArgument, "vk: %s: %s has no image", op, what)
		}
		return nil, foreign(op, what)
	}
	if img.d != cb.d {
		return nil, foreign(op, what)
	}
	if img.released.Load() {
		return nil, released(op, what+" "+quote(img.desc.Label))
	}
	return img, nil
}

// checkImageBinding checks binding i of a dispatch, a storage image or a
// sampled image of executable e, and fills the scratch arrays with it.
// The image's format must be the one the module declares of a storage
// image (reading or writing another is undefined), and a linear sampler
// needs a format the device filters linearly.
func (cb *commandBuffer) checkImageBinding(e *executable, i int, bd hal.Binding) error {
	const op = "Dispatch"
	kind := e.kinds[i]
	what := "binding " + strconv.Itoa(i)
	invalid := func(format string, args ...any) error {
		return status.Newf(status.InvalidArgument, "vk: Dispatch: binding %d (a %s of executable %q): "+format, append([]any{i, kind, e.label}, args...)...)
	}
	if bd.Buffer != nil {
		return invalid("has a buffer; an image binding takes an Image")
	}
	img, err := cb.imageOf(op, what, bd.Image)
	if err != nil {
		return err
	}
	desc := img.desc
	cb.bufs[i], cb.offsets[i], cb.ranges[i] = 0, 0, 0
	cb.views[i], cb.samplers[i] = img.view, 0
	cb.scratch = append(cb.scratch, img)
	if kind == hal.StorageImageBinding {
		if !desc.Usage.Has(hal.ImageStorage) {
			return invalid("image %q was created for %s use, not storage", desc.Label, desc.Usage)
		}
		if bd.Sampler != nil {
			return invalid("has a sampler; a storage image takes none")
		}
		if declared := e.formats[i]; declared != spirv.Unknown && declared.String() != desc.Format.String() {
			return invalid("image %q is %s, but the module declares %s", desc.Label, desc.Format, declared)
		}
		cb.types[i] = C.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
		return nil
	}
	if !desc.Usage.Has(hal.ImageSampled) {
		return invalid("image %q was created for %s use, not sampled", desc.Label, desc.Usage)
	}
	s, ok := bd.Sampler.(*sampler)
	switch {
	case bd.Sampler == nil:
		return invalid("has no sampler")
	case !ok || s == nil || s.d != cb.d:
		return foreign(op, what+" sampler")
	case s.released.Load():
		return released(op, what+" sampler "+quote(s.desc.Label))
	}
	if s.desc.Filter == hal.Linear && !cb.d.info.ImageFormats.Of(desc.Format).Has(hal.FormatLinearFilter) {
		return status.Wrapf(hal.ErrUnsupported, status.OK, "vk: Dispatch: binding %d: sampler %q filters linearly, but %s cannot filter image %q's format %s linearly (it lacks the linear-filter feature)",
			i, s.desc.Label, cb.d.info.Name, desc.Label, desc.Format)
	}
	cb.types[i], cb.samplers[i] = C.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, s.handle
	cb.scratch = append(cb.scratch, s)
	return nil
}

func (cb *commandBuffer) CopyBufferToImage(src hal.Buffer, srcOffset int64, dst hal.Image) error {
	return cb.copyImage("CopyBufferToImage", src, srcOffset, dst, true)
}

func (cb *commandBuffer) CopyImageToBuffer(src hal.Image, dst hal.Buffer, dstOffset int64) error {
	return cb.copyImage("CopyImageToBuffer", dst, dstOffset, src, false)
}

// copyImage records a copy of the whole image hi from (toImage) or to
// the buffer hb at offset.
func (cb *commandBuffer) copyImage(op string, hb hal.Buffer, offset int64, hi hal.Image, toImage bool) error {
	if err := cb.recording(op); err != nil {
		return err
	}
	defer cb.leave()
	bufWhat, imgWhat := "source", "destination"
	if !toImage {
		bufWhat, imgWhat = imgWhat, bufWhat
	}
	b, err := cb.bufferOf(op, bufWhat, 0, hb)
	if err != nil {
		return err
	}
	img, err := cb.imageOf(op, imgWhat, hi)
	if err != nil {
		return err
	}
	// vkCmdCopyBufferToImage wants the offset a multiple of the texel
	// size, and of 4.
	if align := int64(max(4, img.desc.Format.TexelBytes())); offset%align != 0 {
		return status.Newf(status.InvalidArgument, "vk: %s: offset %d is not a multiple of %d, as image %q's format %s needs", op, offset, align, img.desc.Label, img.desc.Format)
	}
	if err := b.span(op, offset, img.desc.Bytes()); err != nil {
		return err
	}
	if err := cb.use(op, b, img); err != nil {
		return err
	}
	C.vkb_cmd_copy_image(cb.d.c, cb.cb, b.handle, C.VkDeviceSize(offset), img.handle, C.uint32_t(img.desc.Width), 0, C.uint32_t(img.desc.Height), boolInt(toImage))
	cb.hostBarrier = cb.hostBarrier || !toImage && b.kind == hal.HostVisible
	return nil
}
