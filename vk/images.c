//go:build cgo

// Images and samplers.

#include "vkb.h"

static const VkImageSubresourceRange whole = {
	.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
	.levelCount = 1,
	.layerCount = 1,
};

uint32_t vkb_format_features(const vkb_instance *in, VkPhysicalDevice pd, VkFormat format) {
	VKB_ROUTE(in->route);
	VkFormatProperties p = {0};
	in->GetPhysicalDeviceFormatProperties(pd, format, &p);
	return p.optimalTilingFeatures;
}

VkResult vkb_create_image(const vkb_device *d, VkFormat format, uint32_t width, uint32_t height, VkImageUsageFlags usage,
	VkImage *out, VkMemoryRequirements *req) {
	VKB_ROUTE(d->route);
	VkImageCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = format,
		.extent = {width, height, 1},
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = usage | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	VkResult r = d->CreateImage(d->device, &ci, NULL, out);
	if (r == VK_SUCCESS) {
		d->GetImageMemoryRequirements(d->device, *out, req);
	}
	return r;
}

VkResult vkb_bind_image(const vkb_device *d, VkImage img, VkFormat format, VkDeviceSize size, uint32_t type, VkDeviceMemory *mem,
	VkImageView *view, const char **failed) {
	VKB_ROUTE(d->route);
	VkResult r = vkb_allocate(d, size, type, mem, failed);
	if (r != VK_SUCCESS) return r;
	r = d->BindImageMemory(d->device, img, *mem, 0);
	if (r != VK_SUCCESS) {
		*failed = "vkBindImageMemory";
	} else {
		VkImageViewCreateInfo vi = {
			.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
			.image = img,
			.viewType = VK_IMAGE_VIEW_TYPE_2D,
			.format = format,
			.subresourceRange = whole,
		};
		r = d->CreateImageView(d->device, &vi, NULL, view);
		if (r != VK_SUCCESS) *failed = "vkCreateImageView";
	}
	if (r != VK_SUCCESS) {
		d->FreeMemory(d->device, *mem, NULL);
		*mem = VK_NULL_HANDLE;
	}
	return r;
}

void vkb_destroy_image(const vkb_device *d, VkImage img, VkImageView view, VkDeviceMemory mem) {
	VKB_ROUTE(d->route);
	d->DestroyImageView(d->device, view, NULL);
	d->DestroyImage(d->device, img, NULL);
	if (mem != VK_NULL_HANDLE) d->FreeMemory(d->device, mem, NULL);
}

// transition records a barrier that moves img from layout from to layout
// to, ordering the accesses before it (src) before those after (dst).
static void transition(const vkb_device *d, VkCommandBuffer cb, VkImage img, VkImageLayout from, VkImageLayout to,
	VkAccessFlags src, VkAccessFlags dst, VkPipelineStageFlags src_stages, VkPipelineStageFlags dst_stages) {
	VkImageMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = src,
		.dstAccessMask = dst,
		.oldLayout = from,
		.newLayout = to,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = img,
		.subresourceRange = whole,
	};
	d->CmdPipelineBarrier(cb, src_stages, dst_stages, 0, 0, NULL, 0, NULL, 1, &b);
}

// Every access an image in the general layout may have had or will have,
// and the stages of them.
#define ANY_ACCESS                                                                                                    \
	(VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT)
#define ANY_STAGE (VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT)

void vkb_cmd_image_init(const vkb_device *d, VkCommandBuffer cb, VkImage img) {
	VKB_ROUTE(d->route);
	transition(d, cb, img, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
		VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
	VkClearColorValue zero = {0};
	d->CmdClearColorImage(cb, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &whole);
	transition(d, cb, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL, VK_ACCESS_TRANSFER_WRITE_BIT,
		ANY_ACCESS, VK_PIPELINE_STAGE_TRANSFER_BIT, ANY_STAGE);
}

// vkb_cmd_copy_image moves the image into the layout of the copy and back
// to the general one, ordering the copy after every earlier use of the
// image and before every later one: the layouts a copy is fastest (and
// the validation layer quiet) in.
void vkb_cmd_copy_image(const vkb_device *d, VkCommandBuffer cb, VkBuffer buf, VkDeviceSize offset, VkImage img, uint32_t width,
	uint32_t y, uint32_t rows, int to_image) {
	VKB_ROUTE(d->route);
	VkImageLayout layout = to_image ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	VkAccessFlags access = to_image ? VK_ACCESS_TRANSFER_WRITE_BIT : VK_ACCESS_TRANSFER_READ_BIT;
	transition(d, cb, img, VK_IMAGE_LAYOUT_GENERAL, layout, ANY_ACCESS, access, ANY_STAGE, VK_PIPELINE_STAGE_TRANSFER_BIT);
	VkBufferImageCopy region = {
		.bufferOffset = offset,
		.imageSubresource = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .layerCount = 1},
		.imageOffset = {0, (int32_t)y, 0},
		.imageExtent = {width, rows, 1},
	};
	if (to_image) {
		d->CmdCopyBufferToImage(cb, buf, img, layout, 1, &region);
	} else {
		d->CmdCopyImageToBuffer(cb, img, layout, buf, 1, &region);
	}
	transition(d, cb, img, layout, VK_IMAGE_LAYOUT_GENERAL, access, ANY_ACCESS, VK_PIPELINE_STAGE_TRANSFER_BIT, ANY_STAGE);
}

VkResult vkb_create_sampler(const vkb_device *d, int linear, int repeat, int unnormalized, VkSampler *out) {
	VKB_ROUTE(d->route);
	VkFilter filter = linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
	VkSamplerAddressMode mode = repeat ? VK_SAMPLER_ADDRESS_MODE_REPEAT : VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
	VkSamplerCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
		.magFilter = filter,
		.minFilter = filter,
		.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
		.addressModeU = mode,
		.addressModeV = mode,
		.addressModeW = mode,
		.maxLod = 0,
		.borderColor = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
		.unnormalizedCoordinates = unnormalized ? VK_TRUE : VK_FALSE,
	};
	return d->CreateSampler(d->device, &ci, NULL, out);
}

void vkb_destroy_sampler(const vkb_device *d, VkSampler s) {
	VKB_ROUTE(d->route);
	d->DestroySampler(d->device, s, NULL);
}
