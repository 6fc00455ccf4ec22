//go:build cgo

package vk

/*
#include "vkb.h"
*/
import "C"

import (
	"context"

	"github.com/vkbench/vkbench/hal"
	"github.com/vkbench/vkbench/status"
)

var _ hal.Image = (*image)(nil)

// vkFormats are the VkFormats of hal's formats.
var vkFormats = [...]C.VkFormat{
	hal.R32Float:    C.VK_FORMAT_R32_SFLOAT,
	hal.RGBA32Float: C.VK_FORMAT_R32G32B32A32_SFLOAT,
	hal.RGBA8:       C.VK_FORMAT_R8G8B8A8_UNORM,
	hal.RGBA8SRGB:   C.VK_FORMAT_R8G8B8A8_SRGB,
	hal.R32Uint:     C.VK_FORMAT_R32_UINT,
}

// imageFormats asks the driver what it can do with optimal-tiling images
// of each format (vkGetPhysicalDeviceFormatProperties).
func imageFormats(in *C.vkb_instance, pd C.VkPhysicalDevice) hal.ImageFormats {
	var out hal.ImageFormats
	for _, f := range hal.Formats() {
		bits := uint32(C.vkb_format_features(in, pd, vkFormats[f]))
		var ff hal.FormatFeatures
		if bits&C.VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT != 0 {
			ff |= hal.FormatStorage
		}
		if bits&C.VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT != 0 {
			ff |= hal.FormatSampled
			if bits&C.VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT != 0 {
				ff |= hal.FormatLinearFilter
			}
		}
		// Copies to and from buffers are how images are filled and read.
		const transfer = C.VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | C.VK_FORMAT_FEATURE_TRANSFER_DST_BIT
		if bits&transfer != transfer {
			ff = 0
		}
		out[f] = ff
	}
	return out
}

// image is a 2D VkImage with a VkDeviceMemory and a VkImageView of its
// own, in VK_IMAGE_LAYOUT_GENERAL from its creation on (the package doc
// says why), which no command changes.
type image struct {
	desc   hal.ImageDesc
	handle C.VkImage
	view   C.VkImageView
	mem    C.VkDeviceMemory
	lifetime
}

func (d *device) CreateImage(desc hal.ImageDesc) (hal.Image, error) {
	const op = "CreateImage"
	img, err := create[*image](d, op, func() (resource, error) { return d.newImage(desc) })
	if err != nil {
		return nil, err
	}
	// The image is the device's from here: if the device is released
	// meanwhile, its Release destroys the image. Its first copy, on the
	// staging command buffer, moves it into the general layout and clears
	// it; the wait is bounded: the GPU clears an image as fast as it does
	// anything, and a lost device ends it.
	err = d.staging.chunks(context.Background(), op, d, img, nil, 1, true, func(cb C.VkCommandBuffer, _ C.VkBuffer, _, _ int) {
		C.vkb_cmd_image_init(d.c, cb, img.handle)
	})
	if err != nil {
		_ = img.Release()
		return nil, status.Annotatef(err, "vk: %s %q", op, desc.Label)
	}
	return img, nil
}

// checkImageDesc refuses a description the device cannot make: a format
// it lacks a feature of is hal.ErrUnsupported, naming both.
func (d *device) checkImageDesc(desc hal.ImageDesc) error {
	if !desc.Format.Valid() {
		return invalidArg("CreateImage", desc.Label, "unknown format %d", desc.Format)
	}
	if desc.Usage == 0 || desc.Usage&^(hal.ImageStorage|hal.ImageSampled) != 0 {
		return invalidArg("CreateImage", desc.Label, "usage %d is not storage, sampled or both", desc.Usage)
	}
	limit := int(d.info.Limits.MaxImageDimension2D)
	if desc.Width < 1 || desc.Height < 1 || desc.Width > limit || desc.Height > limit {
		return invalidArg("CreateImage", desc.Label, "%d×%d texels; the device allows 1 to %d in each dimension", desc.Width, desc.Height, limit)
	}
	have := d.info.ImageFormats.Of(desc.Format)
	if need := desc.Usage.Features(); !have.Has(need) {
		return status.Wrapf(hal.ErrUnsupported, status.OK, "vk: CreateImage %q: %s cannot make a %s image of format %s: the format lacks the %s feature (it has %s)",
			desc.Label, d.info.Name, desc.Usage, desc.Format, need&^have, have)
	}
	return nil
}

// newImage checks desc and creates the image, its memory and its view.
// The gate must be held.
func (d *device) newImage(desc hal.ImageDesc) (*image, error) {
	const op = "CreateImage"
	if err := d.checkImageDesc(desc); err != nil {
		return nil, err
	}
	img := &image{lifetime: lifetime{d: d}, desc: desc}
	var usage C.VkImageUsageFlags
	if desc.Usage.Has(hal.ImageStorage) {
		usage |= C.VK_IMAGE_USAGE_STORAGE_BIT
	}
	if desc.Usage.Has(hal.ImageSampled) {
		usage |= C.VK_IMAGE_USAGE_SAMPLED_BIT
	}
	format := vkFormats[desc.Format]
	var req C.VkMemoryRequirements
	if r := C.vkb_create_image(d.c, format, C.uint32_t(desc.Width), C.uint32_t(desc.Height), usage, &img.handle, &req); r != C.VK_SUCCESS {
		return nil, status.Annotatef(d.result("vkCreateImage", r), "vk: %s %q", op, desc.Label)
	}
	mdesc := hal.BufferDesc{Size: int64(req.size), Memory: hal.DeviceLocal, Label: desc.Label}
	if err := d.fits(op, mdesc, uint64(req.size), uint32(req.memoryTypeBits)); err != nil {
		img.destroy()
		return nil, err
	}
	typ, err := d.memoryType(op, mdesc, uint64(req.size), uint32(req.memoryTypeBits))
	if err != nil {
		img.destroy()
		return nil, err
	}
	var failed *C.char
	if r := C.vkb_bind_image(d.c, img.handle, format, req.size, C.uint32_t(typ), &img.mem, &img.view, &failed); r != C.VK_SUCCESS {
		img.destroy()
		return nil, status.Annotatef(d.result(C.GoString(failed), r), "vk: %s %q", op, desc.Label)
	}
	return img, nil
}

// destroy frees the view, the image and its memory; a handle not made
// yet is VK_NULL_HANDLE, which Vulkan ignores.
func (img *image) destroy() {
	C.vkb_destroy_image(img.d.c, img.handle, img.view, img.mem)
}

func (img *image) Desc() hal.ImageDesc { return img.desc }

func (img *image) Write(ctx context.Context, data []byte) error {
	return img.transfer(ctx, "Image.Write", data, true)
}

func (img *image) Read(ctx context.Context, dst []byte) error {
	return img.transfer(ctx, "Image.Read", dst, false)
}

// transfer is Write (toDevice) and Read: whole rows at a time through the
// staging buffer, each copy holding the image until the GPU is done with
// it, as a buffer's staged transfer does.
func (img *image) transfer(ctx context.Context, op string, data []byte, toDevice bool) error {
	d := img.d
	if err := d.hold(img, op); err != nil {
		return err
	}
	defer d.drop(img)
	if n := img.desc.Bytes(); int64(len(data)) != n {
		return status.Newf(status.InvalidArgument, "vk: %s: %d bytes for image %q of %d×%d %s texels, which has %d", op, len(data), img.desc.Label, img.desc.Width, img.desc.Height, img.desc.Format, n)
	}
	if err := ctx.Err(); err != nil {
		return ctxError(op, err)
	}
	row := img.desc.Width * img.desc.Format.TexelBytes()
	return d.staging.chunks(ctx, op, d, img, data, max(1, stagingChunk/row)*row, toDevice, func(cb C.VkCommandBuffer, staging C.VkBuffer, at, n int) {
		C.vkb_cmd_copy_image(d.c, cb, staging, 0, img.handle, C.uint32_t(img.desc.Width), C.uint32_t(at/row), C.uint32_t(n/row), boolInt(toDevice))
	})
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
