//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/spirv"
	"github.com/vkbench/vkbench/status"
)

// checkImageBinding checks binding i of a dispatch, a storage image or a
// sampled image of executable e, and fills the scratch arrays with it.
// The image's format must be the one the module declares of a storage
// image (reading or writing another is undefined), and a linear sampler
// needs a format the device filters linearly.
func (cb *commandBuffer) checkImageBinding(e *executable, i int, bd hal.Binding) error {
	const op = "Dispatch"
	kind := e.kinds[i]
	invalid := func(format string, args ...any) error {
		return status.Newf(status.InvalidArgument, "vk: Dispatch: binding %d (a %s of executable %q): "+format, append([]any{i, kind, e.label}, args...)...)
	}
	if bd.Buffer != nil {
		return invalid("has a buffer; an image binding takes an Image")
	}
	img, err := objectOf[*image](cb.d, op, "image of binding", i, bd.Image)
	if err != nil {
		return err
	}
	desc := img.desc
	cb.binds[i] = C.vkb_binding{view: img.view, _type: C.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE}
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
		return nil
	}
	if !desc.Usage.Has(hal.ImageSampled) {
		return invalid("image %q was created for %s use, not sampled", desc.Label, desc.Usage)
	}
	if bd.Sampler == nil {
		return invalid("has no sampler")
	}
	s, err := objectOf[*sampler](cb.d, op, "sampler of binding", i, bd.Sampler)
	if err != nil {
		return err
	}
	if s.desc.Filter == hal.Linear && !cb.d.info.ImageFormats.Of(desc.Format).Has(hal.FormatLinearFilter) {
		return status.Wrapf(hal.ErrUnsupported, status.OK, "vk: Dispatch: binding %d: sampler %q filters linearly, but %s cannot filter image %q's format %s linearly (it lacks the linear-filter feature)",
			i, s.desc.Label, cb.d.info.Name, desc.Label, desc.Format)
	}
	cb.binds[i]._type, cb.binds[i].sampler = C.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, s.handle
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
	return cb.record(op, func() error {
		bufWhat, imgWhat := "source", "destination"
		if !toImage {
			bufWhat, imgWhat = imgWhat, bufWhat
		}
		b, err := objectOf[*buffer](cb.d, op, bufWhat, -1, hb)
		if err != nil {
			return err
		}
		img, err := objectOf[*image](cb.d, op, imgWhat, -1, hi)
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
		if _, err := cb.use(op, b, img); err != nil {
			return err
		}
		C.vkb_cmd_copy_image(cb.d.c, cb.cb, b.handle, C.VkDeviceSize(offset), img.handle, C.uint32_t(img.desc.Width), 0, C.uint32_t(img.desc.Height), boolInt(toImage))
		cb.hostBarrier = cb.hostBarrier || !toImage && b.kind == hal.HostVisible
		return nil
	})
}
