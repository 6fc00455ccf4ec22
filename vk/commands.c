//go:build cgo

// commands.c: buffers, pipelines, recording, submission, waiting and
// timestamps, each a thin layer over the Vulkan calls it names.

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkb.h"

// Submission and waiting.

VkResult vkb_submit(const vkb_device *d, VkCommandBuffer cb, uint64_t wait, uint64_t signal) {
	VKB_ROUTE(d->route);
	VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
	VkTimelineSemaphoreSubmitInfo ti = {
		.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		.waitSemaphoreValueCount = wait ? 1 : 0,
		.pWaitSemaphoreValues = &wait,
		.signalSemaphoreValueCount = 1,
		.pSignalSemaphoreValues = &signal,
	};
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.pNext = &ti,
		.waitSemaphoreCount = wait ? 1 : 0,
		.pWaitSemaphores = &d->timeline,
		.pWaitDstStageMask = &stage,
		.commandBufferCount = 1,
		.pCommandBuffers = &cb,
		.signalSemaphoreCount = 1,
		.pSignalSemaphores = &d->timeline,
	};
	return d->QueueSubmit(d->queue, 1, &si, VK_NULL_HANDLE);
}

static uint64_t vkb_now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

// vkb_wait waits, for at most timeout_ns, until the device's timeline
// reaches value. It first polls the counter for up to spin_ns (at most
// timeout_ns): a short
// submission ends long before a thread blocked in vkWaitSemaphores is
// woken (tens of microseconds on a discrete GPU), which is what CUDA's
// default synchronization also does. Then it blocks.
VkResult vkb_wait(const vkb_device *d, uint64_t value, uint64_t timeout_ns, uint64_t spin_ns) {
	VKB_ROUTE(d->route);
	uint64_t spin = spin_ns < timeout_ns ? spin_ns : timeout_ns;
	if (spin > 0) {
		uint64_t start = vkb_now_ns(), spent = 0;
		for (;;) {
			uint64_t v = 0;
			VkResult r = d->GetSemaphoreCounterValue(d->device, d->timeline, &v);
			if (r != VK_SUCCESS) {
				return r;
			}
			if (v >= value) {
				return VK_SUCCESS;
			}
			spent = vkb_now_ns() - start;
			if (spent >= spin) {
				break;
			}
		}
		timeout_ns -= spent < timeout_ns ? spent : timeout_ns;
	}
	return vkb_wait_timeline(d, d->timeline, value, timeout_ns);
}

vkb_counter_value vkb_counter(const vkb_device *d) {
	VKB_ROUTE(d->route);
	vkb_counter_value v = {0};
	v.result = d->GetSemaphoreCounterValue(d->device, d->timeline, &v.value);
	return v;
}

VkResult vkb_submit_timeline(const vkb_device *d, VkCommandBuffer cb, VkSemaphore s, uint64_t signal) {
	VKB_ROUTE(d->route);
	VkTimelineSemaphoreSubmitInfo ti = {
		.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		.signalSemaphoreValueCount = 1,
		.pSignalSemaphoreValues = &signal,
	};
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.pNext = &ti,
		.commandBufferCount = 1,
		.pCommandBuffers = &cb,
		.signalSemaphoreCount = 1,
		.pSignalSemaphores = &s,
	};
	return d->QueueSubmit(d->queue, 1, &si, VK_NULL_HANDLE);
}

VkResult vkb_wait_timeline(const vkb_device *d, VkSemaphore s, uint64_t value, uint64_t timeout_ns) {
	VKB_ROUTE(d->route);
	VkSemaphoreWaitInfo wi = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		.semaphoreCount = 1,
		.pSemaphores = &s,
		.pValues = &value,
	};
	return d->WaitSemaphores(d->device, &wi, timeout_ns);
}

// Pipeline cache.

VkResult vkb_create_pipeline_cache(const vkb_device *d, const void *data, size_t size, VkPipelineCache *out) {
	VKB_ROUTE(d->route);
	VkPipelineCacheCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
		.initialDataSize = size,
		.pInitialData = data,
	};
	return d->CreatePipelineCache(d->device, &ci, NULL, out);
}

VkResult vkb_pipeline_cache_data(const vkb_device *d, VkPipelineCache cache, size_t *size, void *data) {
	VKB_ROUTE(d->route);
	return d->GetPipelineCacheData(d->device, cache, size, data);
}

void vkb_destroy_pipeline_cache(const vkb_device *d, VkPipelineCache cache) {
	VKB_ROUTE(d->route);
	d->DestroyPipelineCache(d->device, cache, NULL);
}

// Buffers.

VkResult vkb_create_buffer(const vkb_device *d, VkDeviceSize size, VkBuffer *out, VkMemoryRequirements *req) {
	VKB_ROUTE(d->route);
	VkBufferCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
		         VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkResult r = d->CreateBuffer(d->device, &ci, NULL, out);
	if (r == VK_SUCCESS) {
		d->GetBufferMemoryRequirements(d->device, *out, req);
	}
	return r;
}

VkResult vkb_allocate(const vkb_device *d, VkDeviceSize size, uint32_t type, VkDeviceMemory *mem, const char **failed) {
	VKB_ROUTE(d->route);
	VkMemoryAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = size,
		.memoryTypeIndex = type,
	};
	VkResult r = d->AllocateMemory(d->device, &ai, NULL, mem);
	if (r != VK_SUCCESS) *failed = "vkAllocateMemory";
	return r;
}

VkResult vkb_bind_memory(const vkb_device *d, VkBuffer buf, VkDeviceSize size, uint32_t type, int map, VkDeviceMemory *mem,
	void **ptr, const char **failed) {
	VKB_ROUTE(d->route);
	VkResult r = vkb_allocate(d, size, type, mem, failed);
	if (r != VK_SUCCESS) return r;
	r = d->BindBufferMemory(d->device, buf, *mem, 0);
	if (r != VK_SUCCESS) {
		*failed = "vkBindBufferMemory";
	} else if (map) {
		r = d->MapMemory(d->device, *mem, 0, VK_WHOLE_SIZE, 0, ptr);
		if (r != VK_SUCCESS) *failed = "vkMapMemory";
	}
	if (r != VK_SUCCESS) {
		d->FreeMemory(d->device, *mem, NULL);
		*mem = VK_NULL_HANDLE;
	}
	return r;
}

void vkb_destroy_buffer(const vkb_device *d, VkBuffer buf, VkDeviceMemory mem) {
	VKB_ROUTE(d->route);
	d->DestroyBuffer(d->device, buf, NULL);
	if (mem != VK_NULL_HANDLE) d->FreeMemory(d->device, mem, NULL); // unmaps too
}

// Executables.

// create_set_layout makes the layout of a set of n bindings, of types[i]
// (all storage buffers when types is NULL).
static VkResult create_set_layout(const vkb_device *d, uint32_t n, const VkDescriptorType *types, VkDescriptorSetLayout *out,
	const char **failed) {
	VkDescriptorSetLayoutBinding *b = calloc(n + 1, sizeof *b);
	if (b == NULL) {
		*failed = "calloc";
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	for (uint32_t i = 0; i < n; i++) {
		b[i].binding = i;
		b[i].descriptorType = types != NULL ? types[i] : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
		b[i].descriptorCount = 1;
		b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
	}
	VkDescriptorSetLayoutCreateInfo lci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = n,
		.pBindings = b,
	};
	VkResult r = d->CreateDescriptorSetLayout(d->device, &lci, NULL, out);
	if (r != VK_SUCCESS) *failed = "vkCreateDescriptorSetLayout";
	free(b);
	return r;
}

// create_sets makes the layouts of n sets, set s of counts[s] bindings of
// the next counts[s] types.
static VkResult create_sets(const vkb_device *d, uint32_t n, const uint32_t *counts, const VkDescriptorType *types, vkb_sets **out,
	const char **failed) {
	vkb_sets *s = calloc(1, sizeof *s);
	if (s == NULL || (s->counts = calloc(n, sizeof *s->counts)) == NULL || (s->layouts = calloc(n, sizeof *s->layouts)) == NULL) {
		free(s != NULL ? s->counts : NULL);
		free(s);
		*failed = "calloc";
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	*out = s;
	s->n = n;
	for (uint32_t i = 0; i < n; i++) {
		s->counts[i] = counts[i];
		VkResult r = create_set_layout(d, counts[i], types, &s->layouts[i], failed);
		if (r != VK_SUCCESS) return r;
		if (types != NULL) types += counts[i];
	}
	return VK_SUCCESS;
}

VkResult vkb_create_pipeline(const vkb_device *d, VkPipelineCache cache, const uint32_t *code, size_t size, const char *entry,
	uint32_t bindings, uint32_t nsets, const uint32_t *set_counts, const VkDescriptorType *types, uint32_t push_size, uint32_t nconst,
	const uint32_t *const_ids, const uint32_t *const_values, uint32_t subgroup_size, int full_subgroups, vkb_pipeline *out, vkb_sets **sets,
	const char **failed) {
	VKB_ROUTE(d->route);
	memset(out, 0, sizeof *out);
	VkShaderModuleCreateInfo mci = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = size,
		.pCode = code,
	};
	VkShaderModule module;
	VkResult r = d->CreateShaderModule(d->device, &mci, NULL, &module);
	if (r != VK_SUCCESS) {
		*failed = "vkCreateShaderModule";
		return r;
	}

	VkSpecializationMapEntry *entries = calloc(nconst + 1, sizeof *entries);
	if (entries == NULL) {
		*failed = "calloc";
		r = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto done;
	}
	if (nsets == 0) {
		r = create_set_layout(d, bindings, types, &out->set_layout, failed);
	} else {
		r = create_sets(d, nsets, set_counts, types, sets, failed);
	}
	if (r != VK_SUCCESS) goto done;

	VkPushConstantRange push = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = push_size};
	VkPipelineLayoutCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = nsets > 0 ? nsets : bindings > 0 ? 1 : 0,
		.pSetLayouts = nsets > 0 ? (*sets)->layouts : &out->set_layout,
		.pushConstantRangeCount = push_size > 0 ? 1 : 0,
		.pPushConstantRanges = &push,
	};
	r = d->CreatePipelineLayout(d->device, &pci, NULL, &out->layout);
	if (r != VK_SUCCESS) {
		*failed = "vkCreatePipelineLayout";
		goto done;
	}

	for (uint32_t i = 0; i < nconst; i++) {
		entries[i].constantID = const_ids[i];
		entries[i].offset = 4 * i;
		entries[i].size = 4;
	}
	VkSpecializationInfo spec = {
		.mapEntryCount = nconst,
		.pMapEntries = entries,
		.dataSize = 4 * (size_t)nconst,
		.pData = const_values,
	};
	VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
		.requiredSubgroupSize = subgroup_size,
	};
	VkComputePipelineCreateInfo cci = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.flags = d->exec_stats ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0,
		.stage =
			{
				.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
				.pNext = subgroup_size > 0 ? &required : NULL,
				.flags = full_subgroups ? VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT : 0,
				.stage = VK_SHADER_STAGE_COMPUTE_BIT,
				.module = module,
				.pName = entry,
				.pSpecializationInfo = nconst > 0 ? &spec : NULL,
			},
		.layout = out->layout,
	};
	r = d->CreateComputePipelines(d->device, cache, 1, &cci, NULL, &out->pipeline);
	if (r != VK_SUCCESS) {
		*failed = "vkCreateComputePipelines";
	}

done:
	free(entries);
	d->DestroyShaderModule(d->device, module, NULL);
	if (r != VK_SUCCESS) {
		vkb_destroy_pipeline(d, *out, nsets > 0 ? *sets : NULL);
		memset(out, 0, sizeof *out);
		if (nsets > 0) *sets = NULL;
	}
	return r;
}

VkResult vkb_pipeline_executables(const vkb_device *d, VkPipeline p, uint32_t *count, VkPipelineExecutablePropertiesKHR *out) {
	VKB_ROUTE(d->route);
	VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = p};
	if (out != NULL) {
		for (uint32_t i = 0; i < *count; i++) {
			out[i] = (VkPipelineExecutablePropertiesKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR};
		}
	}
	return d->GetPipelineExecutablePropertiesKHR(d->device, &pi, count, out);
}

VkResult vkb_pipeline_statistics(const vkb_device *d, VkPipeline p, uint32_t executable, uint32_t *count, VkPipelineExecutableStatisticKHR *out) {
	VKB_ROUTE(d->route);
	VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = p, .executableIndex = executable};
	if (out != NULL) {
		for (uint32_t i = 0; i < *count; i++) {
			out[i] = (VkPipelineExecutableStatisticKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
		}
	}
	return d->GetPipelineExecutableStatisticsKHR(d->device, &ei, count, out);
}

void vkb_destroy_pipeline(const vkb_device *d, vkb_pipeline p, vkb_sets *sets) {
	VKB_ROUTE(d->route);
	// Destroying VK_NULL_HANDLE is a no-op.
	d->DestroyPipeline(d->device, p.pipeline, NULL);
	d->DestroyPipelineLayout(d->device, p.layout, NULL);
	d->DestroyDescriptorSetLayout(d->device, p.set_layout, NULL);
	if (sets != NULL) {
		for (uint32_t i = 0; i < sets->n; i++) {
			d->DestroyDescriptorSetLayout(d->device, sets->layouts[i], NULL);
		}
		free(sets->layouts);
		free(sets->counts);
		free(sets);
	}
}

// write_set writes the nbind bindings of set: with one write when they
// are all storage buffers (mixed 0), consecutive and alike, so that the
// update rolls over from one binding to the next; else one write per
// binding.
static void write_set(const vkb_device *d, VkDescriptorSet set, uint32_t nbind, const vkb_binding *b, int mixed) {
	VkDescriptorBufferInfo info[nbind];
	VkDescriptorImageInfo images[nbind];
	VkWriteDescriptorSet w[nbind];
	for (uint32_t i = 0; i < nbind; i++) {
		info[i] = b[i].buffer;
	}
	if (!mixed) {
		w[0] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = set,
			.descriptorCount = nbind,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = info,
		};
		d->UpdateDescriptorSets(d->device, 1, w, 0, NULL);
		return;
	}
	for (uint32_t i = 0; i < nbind; i++) {
		VkDescriptorType type = b[i].type;
		w[i] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = set,
			.dstBinding = i,
			.descriptorCount = 1,
			.descriptorType = type,
		};
		if (type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER) {
			w[i].pBufferInfo = &info[i];
			continue;
		}
		images[i] = (VkDescriptorImageInfo){
			.sampler = type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER ? b[i].sampler : VK_NULL_HANDLE,
			.imageView = b[i].view,
			.imageLayout = VK_IMAGE_LAYOUT_GENERAL,
		};
		w[i].pImageInfo = &images[i];
	}
	d->UpdateDescriptorSets(d->device, nbind, w, 0, NULL);
}

// Command buffers.

VkResult vkb_create_command_buffer(const vkb_device *d, VkCommandPool *pool, VkCommandBuffer *cb, const char **failed) {
	VKB_ROUTE(d->route);
	VkCommandPoolCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.queueFamilyIndex = d->queue_family,
	};
	VkResult r = d->CreateCommandPool(d->device, &pci, NULL, pool);
	if (r != VK_SUCCESS) {
		*failed = "vkCreateCommandPool";
		return r;
	}
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = *pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	r = d->AllocateCommandBuffers(d->device, &ai, cb);
	if (r != VK_SUCCESS) {
		*failed = "vkAllocateCommandBuffers";
		d->DestroyCommandPool(d->device, *pool, NULL);
		*pool = VK_NULL_HANDLE;
	}
	return r;
}

void vkb_destroy_command_pool(const vkb_device *d, VkCommandPool pool) {
	VKB_ROUTE(d->route);
	d->DestroyCommandPool(d->device, pool, NULL);
}

VkResult vkb_create_descriptor_pool(const vkb_device *d, uint32_t sets, uint32_t buffers, uint32_t images, VkDescriptorPool *out) {
	VKB_ROUTE(d->route);
	VkDescriptorPoolSize sizes[] = {
		{.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = buffers},
		{.type = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, .descriptorCount = images},
		{.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, .descriptorCount = images},
		{.type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .descriptorCount = images},
	};
	VkDescriptorPoolCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = sets,
		.poolSizeCount = 4,
		.pPoolSizes = sizes,
	};
	return d->CreateDescriptorPool(d->device, &ci, NULL, out);
}

void vkb_destroy_descriptor_pool(const vkb_device *d, VkDescriptorPool pool) {
	VKB_ROUTE(d->route);
	d->DestroyDescriptorPool(d->device, pool, NULL);
}

vkb_call vkb_begin(const vkb_device *d, VkCommandPool pool, VkCommandBuffer cb, uint32_t npools, const VkDescriptorPool *pools) {
	VKB_ROUTE(d->route);
	for (uint32_t i = 0; i < npools; i++) {
		d->ResetDescriptorPool(d->device, pools[i], 0); // always VK_SUCCESS
	}
	vkb_call c = {d->ResetCommandPool(d->device, pool, 0), "vkResetCommandPool"};
	if (c.result != VK_SUCCESS) return c;
	VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	c.result = d->BeginCommandBuffer(cb, &bi);
	c.call = "vkBeginCommandBuffer";
	return c;
}

VkResult vkb_end(const vkb_device *d, VkCommandBuffer cb, int host_barrier) {
	VKB_ROUTE(d->route);
	if (host_barrier) {
		// Fences and semaphores make device writes available to the
		// device only; the host reads mapped memory after the fence, so
		// make the writes visible to it.
		VkMemoryBarrier mb = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
		};
		d->CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
			VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
	}
	return d->EndCommandBuffer(cb);
}

// vkb_cmd_dispatch allocates and writes every set before it records
// anything, so that a full pool (which the caller grows and retries)
// records nothing.
VkResult vkb_cmd_dispatch(const vkb_device *d, VkCommandBuffer cb, VkDescriptorPool pool, vkb_pipeline p, const vkb_sets *sets,
	uint32_t nbind, const vkb_binding *binds, int mixed, const void *push, uint32_t push_size, const VkEvent *build, uint32_t x,
	uint32_t y, uint32_t z) {
	VKB_ROUTE(d->route);
	uint32_t n = sets != NULL ? sets->n : nbind > 0;
	if (n > 0) {
		VkDescriptorSet ds[n];
		VkDescriptorSetAllocateInfo ai = {
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
			.descriptorPool = pool,
			.descriptorSetCount = n,
			.pSetLayouts = sets != NULL ? sets->layouts : &p.set_layout,
		};
		VkResult r = d->AllocateDescriptorSets(d->device, &ai, ds);
		if (r != VK_SUCCESS) return r;
		if (sets == NULL) {
			write_set(d, ds[0], nbind, binds, mixed);
		}
		for (uint32_t s = 0, first = 0; sets != NULL && s < n; s++) {
			uint32_t k = sets->counts[s];
			if (k == 0) continue;
			write_set(d, ds[s], k, binds + first, 1);
			first += k;
		}
		d->CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, n, ds, 0, NULL);
	}
	d->CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
	if (push_size > 0) {
		d->CmdPushConstants(cb, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
	}
	if (build != NULL) {
		d->CmdSetEvent(cb, build[0], VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
		d->CmdDispatch(cb, 0, 0, 0);
		d->CmdSetEvent(cb, build[1], VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
	}
	d->CmdDispatch(cb, x, y, z);
	return VK_SUCCESS;
}

void vkb_cmd_copy(const vkb_device *d, VkCommandBuffer cb, VkBuffer src, VkDeviceSize src_offset, VkBuffer dst,
	VkDeviceSize dst_offset, VkDeviceSize size) {
	VKB_ROUTE(d->route);
	VkBufferCopy region = {.srcOffset = src_offset, .dstOffset = dst_offset, .size = size};
	d->CmdCopyBuffer(cb, src, dst, 1, &region);
}

void vkb_cmd_fill(const vkb_device *d, VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size, uint32_t value) {
	VKB_ROUTE(d->route);
	d->CmdFillBuffer(cb, dst, offset, size, value);
}

void vkb_cmd_barrier(const vkb_device *d, VkCommandBuffer cb) {
	VKB_ROUTE(d->route);
	VkMemoryBarrier mb = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
			VK_ACCESS_TRANSFER_WRITE_BIT,
	};
	VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
	d->CmdPipelineBarrier(cb, stages, stages, 0, 1, &mb, 0, NULL, 0, NULL);
}

void vkb_cmd_timestamp(const vkb_device *d, VkCommandBuffer cb, VkQueryPool pool, uint32_t index) {
	VKB_ROUTE(d->route);
	d->CmdResetQueryPool(cb, pool, index, 1);
	d->CmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, index);
}

// Events.

VkResult vkb_create_event(const vkb_device *d, VkEvent *out) {
	VKB_ROUTE(d->route);
	VkEventCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
	return d->CreateEvent(d->device, &ci, NULL, out);
}

void vkb_destroy_event(const vkb_device *d, VkEvent e) {
	VKB_ROUTE(d->route);
	d->DestroyEvent(d->device, e, NULL);
}

VkResult vkb_event_set(const vkb_device *d, VkEvent e) {
	VKB_ROUTE(d->route);
	return d->GetEventStatus(d->device, e);
}

void vkb_reset_events(const vkb_device *d, uint32_t n, const VkEvent *events) {
	VKB_ROUTE(d->route);
	for (uint32_t i = 0; i < n; i++) {
		// Fails only out of memory: the event then reads set early, and
		// the build counts.
		d->ResetEvent(d->device, events[i]);
	}
}

// Timestamps.

VkResult vkb_create_query_pool(const vkb_device *d, uint32_t count, VkQueryPool *out) {
	VKB_ROUTE(d->route);
	VkQueryPoolCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = count,
	};
	VkResult r = d->CreateQueryPool(d->device, &ci, NULL, out);
	if (r == VK_SUCCESS) {
		// Reset on the host, so that a slot never written reads as
		// unavailable rather than undefined.
		d->ResetQueryPool(d->device, *out, 0, count);
	}
	return r;
}

void vkb_destroy_query_pool(const vkb_device *d, VkQueryPool pool) {
	VKB_ROUTE(d->route);
	d->DestroyQueryPool(d->device, pool, NULL);
}

VkResult vkb_query_results(const vkb_device *d, VkQueryPool pool, uint32_t first, uint32_t count, uint64_t *data) {
	VKB_ROUTE(d->route);
	return d->GetQueryPoolResults(d->device, pool, first, count, (size_t)count * 2 * sizeof(uint64_t), data,
		2 * sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
}

// Test support.

static vkb_device *failing_device;
static PFN_vkAllocateDescriptorSets failing_real;
static VkResult failing_result;
static int failing_always;

static VkResult VKAPI_PTR failing_allocate(VkDevice device, const VkDescriptorSetAllocateInfo *ai, VkDescriptorSet *out) {
	int always = __atomic_load_n(&failing_always, __ATOMIC_ACQUIRE);
	if (always < 0) return failing_real(device, ai, out);
	if (always == 0) failing_device->AllocateDescriptorSets = failing_real;
	return failing_result;
}

void vkb_test_fail_allocation(vkb_device *d, VkResult r, int always) {
	if (always >= 0) {
		if (d->AllocateDescriptorSets != failing_allocate) failing_real = d->AllocateDescriptorSets;
		failing_device = d;
		failing_result = r;
		d->AllocateDescriptorSets = failing_allocate;
	}
	__atomic_store_n(&failing_always, always, __ATOMIC_RELEASE);
}
