//go:build cgo

// loader.c: loading libvulkan.so.1, the instance (with validation and its
// messenger), what a physical device is, and opening a logical device.

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "vkb.h"
#include "_cgo_export.h"

static PFN_vkGetInstanceProcAddr gipa;

int vkb_load(char *err, int errlen) {
	void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		const char *e = dlerror();
		strncpy(err, e ? e : "dlopen failed", errlen - 1);
		err[errlen - 1] = 0;
		return -1;
	}
	gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
	if (gipa == NULL) {
		strncpy(err, "libvulkan.so.1 has no vkGetInstanceProcAddr", errlen - 1);
		err[errlen - 1] = 0;
		return -1;
	}
	// lib stays open for the life of the process.
	return 0;
}

void *vkb_get_instance_proc_addr(void) { return (void *)gipa; }

uint32_t vkb_loader_version(void) {
	PFN_vkEnumerateInstanceVersion f = (PFN_vkEnumerateInstanceVersion)gipa(NULL, "vkEnumerateInstanceVersion");
	uint32_t v = VK_API_VERSION_1_0;
	if (f != NULL && f(&v) != VK_SUCCESS) {
		v = VK_API_VERSION_1_0;
	}
	return v;
}

VkResult vkb_has_layer(const char *layer, int *found) {
	PFN_vkEnumerateInstanceLayerProperties f =
		(PFN_vkEnumerateInstanceLayerProperties)gipa(NULL, "vkEnumerateInstanceLayerProperties");
	*found = 0;
	uint32_t n = 0;
	VkResult r = f(&n, NULL);
	if (r != VK_SUCCESS) return r;
	VkLayerProperties *props = calloc(n + 1, sizeof *props);
	if (props == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
	r = f(&n, props);
	if (r >= 0) {
		r = VK_SUCCESS;
		for (uint32_t i = 0; i < n; i++) {
			if (strcmp(props[i].layerName, layer) == 0) *found = 1;
		}
	}
	free(props);
	return r;
}

VkResult vkb_has_instance_extension(const char *layer, const char *ext, int *found) {
	PFN_vkEnumerateInstanceExtensionProperties f =
		(PFN_vkEnumerateInstanceExtensionProperties)gipa(NULL, "vkEnumerateInstanceExtensionProperties");
	*found = 0;
	uint32_t n = 0;
	VkResult r = f(layer, &n, NULL);
	if (r != VK_SUCCESS) return r;
	VkExtensionProperties *props = calloc(n + 1, sizeof *props);
	if (props == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
	r = f(layer, &n, props);
	if (r >= 0) {
		r = VK_SUCCESS;
		for (uint32_t i = 0; i < n; i++) {
			if (strcmp(props[i].extensionName, ext) == 0) *found = 1;
		}
	}
	free(props);
	return r;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
	VkDebugUtilsMessageTypeFlagsEXT types, const VkDebugUtilsMessengerCallbackDataEXT *data, void *sink) {
	(void)types;
	vkbGoMessage((uintptr_t)sink, (int)severity, (char *)data->pMessageIdName, (char *)data->pMessage);
	return VK_FALSE;
}

static void messenger_info(VkDebugUtilsMessengerCreateInfoEXT *mi, uintptr_t sink) {
	memset(mi, 0, sizeof *mi);
	mi->sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
	mi->messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
	mi->messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
		VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
	mi->pfnUserCallback = debug_callback;
	mi->pUserData = (void *)sink;
}

VkResult vkb_create_instance(uint32_t api, int validation, uintptr_t sink, vkb_instance **out, const char **failed) {
	*out = NULL;
	vkb_instance *in = calloc(1, sizeof *in);
	if (in == NULL) {
		*failed = "calloc";
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "vkbench",
		.pEngineName = "vkbench",
		.apiVersion = api,
	};
	const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
	const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
	VkDebugUtilsMessengerCreateInfoEXT mi;
	messenger_info(&mi, sink);
	VkInstanceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	if (validation) {
		// The messenger in pNext also hears vkCreateInstance and
		// vkDestroyInstance themselves.
		ci.pNext = &mi;
		ci.enabledLayerCount = 1;
		ci.ppEnabledLayerNames = layers;
		ci.enabledExtensionCount = 1;
		ci.ppEnabledExtensionNames = exts;
	}
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
	VkResult r = create(&ci, NULL, &in->instance);
	if (r != VK_SUCCESS) {
		free(in);
		*failed = "vkCreateInstance";
		return r;
	}
	in->api_version = api;
#define VKB_LOAD_INSTANCE(name) in->name = (PFN_vk##name)gipa(in->instance, "vk" #name);
	VKB_INSTANCE_FUNCS(VKB_LOAD_INSTANCE)
#undef VKB_LOAD_INSTANCE
	if (validation) {
		in->CreateDebugUtilsMessengerEXT =
			(PFN_vkCreateDebugUtilsMessengerEXT)gipa(in->instance, "vkCreateDebugUtilsMessengerEXT");
		in->DestroyDebugUtilsMessengerEXT =
			(PFN_vkDestroyDebugUtilsMessengerEXT)gipa(in->instance, "vkDestroyDebugUtilsMessengerEXT");
		r = in->CreateDebugUtilsMessengerEXT(in->instance, &mi, NULL, &in->messenger);
		if (r != VK_SUCCESS) {
			in->DestroyInstance(in->instance, NULL);
			free(in);
			*failed = "vkCreateDebugUtilsMessengerEXT";
			return r;
		}
	}
	*out = in;
	return VK_SUCCESS;
}

void vkb_destroy_instance(vkb_instance *in) {
	if (in->messenger != VK_NULL_HANDLE) {
		in->DestroyDebugUtilsMessengerEXT(in->instance, in->messenger, NULL);
	}
	in->DestroyInstance(in->instance, NULL);
	free(in);
}

VkResult vkb_physical_devices(const vkb_instance *in, uint32_t *count, VkPhysicalDevice *out) {
	return in->EnumeratePhysicalDevices(in->instance, count, out);
}

void vkb_query_physical_device(const vkb_instance *in, VkPhysicalDevice pd, vkb_pd_info *info) {
	memset(info, 0, sizeof *info);
	in->GetPhysicalDeviceProperties(pd, &info->props);
	in->GetPhysicalDeviceFeatures(pd, &info->features);
	in->GetPhysicalDeviceMemoryProperties(pd, &info->memory);

	uint32_t api = info->props.apiVersion < in->api_version ? info->props.apiVersion : in->api_version;
	if (VK_API_VERSION_MINOR(api) >= 2 || VK_API_VERSION_MAJOR(api) > 1) {
		info->chain12 = 1;
		info->chain13 = VK_API_VERSION_MINOR(api) >= 3 || VK_API_VERSION_MAJOR(api) > 1;

		VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
		info->driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
		info->id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
		info->subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
		info->maint3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
		info->maint4.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES;
		p2.pNext = &info->driver;
		info->driver.pNext = &info->id;
		info->id.pNext = &info->subgroup;
		info->subgroup.pNext = &info->maint3;
		if (info->chain13) info->maint3.pNext = &info->maint4;
		in->GetPhysicalDeviceProperties2(pd, &p2);

		VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
		info->f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
		info->f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
		info->f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
		f2.pNext = &info->f11;
		info->f11.pNext = &info->f12;
		if (info->chain13) info->f12.pNext = &info->f13;
		in->GetPhysicalDeviceFeatures2(pd, &f2);

		info->driver.pNext = info->id.pNext = info->subgroup.pNext = NULL;
		info->maint3.pNext = info->maint4.pNext = NULL;
		info->f11.pNext = info->f12.pNext = info->f13.pNext = NULL;
	}

	// Compiler statistics (VK_KHR_pipeline_executable_properties), when the
	// device has the extension and its feature.
	uint32_t next = 0;
	if (info->chain12 && in->EnumerateDeviceExtensionProperties(pd, NULL, &next, NULL) == VK_SUCCESS && next > 0) {
		VkExtensionProperties *ext = calloc(next, sizeof *ext);
		if (ext != NULL && in->EnumerateDeviceExtensionProperties(pd, NULL, &next, ext) >= VK_SUCCESS) {
			for (uint32_t i = 0; i < next; i++) {
				if (strcmp(ext[i].extensionName, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) == 0) {
					VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pe = {
						.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
					VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &pe};
					in->GetPhysicalDeviceFeatures2(pd, &f2);
					info->exec_stats = pe.pipelineExecutableInfo == VK_TRUE;
					break;
				}
			}
		}
		free(ext);
	}

	// The compute queue: the first family with compute and timestamps,
	// else the first with compute.
	info->queue_family = -1;
	uint32_t n = 0;
	in->GetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
	VkQueueFamilyProperties *qf = calloc(n + 1, sizeof *qf);
	if (qf == NULL) return;
	in->GetPhysicalDeviceQueueFamilyProperties(pd, &n, qf);
	for (int pass = 0; pass < 2 && info->queue_family < 0; pass++) {
		for (uint32_t i = 0; i < n; i++) {
			if ((qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && qf[i].queueCount > 0 &&
				(pass == 1 || qf[i].timestampValidBits > 0)) {
				info->queue_family = (int32_t)i;
				info->timestamp_bits = qf[i].timestampValidBits;
				break;
			}
		}
	}
	free(qf);
}

VkResult vkb_create_device(const vkb_instance *in, VkPhysicalDevice pd, const vkb_pd_info *info, vkb_device **out,
	const char **failed) {
	*out = NULL;
	vkb_device *d = calloc(1, sizeof *d);
	if (d == NULL) {
		*failed = "calloc";
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}

	// Enable what vk needs (timeline semaphores, host query reset) and
	// every optional shader feature the device has.
	VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
	f13.subgroupSizeControl = info->f13.subgroupSizeControl;
	f13.computeFullSubgroups = info->f13.computeFullSubgroups;
	// LocalSizeId (SPIR-V 1.6's way of sizing workgroups by constants)
	// needs maintenance4.
	f13.maintenance4 = info->f13.maintenance4;
	f13.shaderIntegerDotProduct = info->f13.shaderIntegerDotProduct;
	VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
	f12.timelineSemaphore = VK_TRUE;
	f12.hostQueryReset = VK_TRUE;
	f12.shaderFloat16 = info->f12.shaderFloat16;
	f12.shaderInt8 = info->f12.shaderInt8;
	f12.storageBuffer8BitAccess = info->f12.storageBuffer8BitAccess;
	f12.shaderSubgroupExtendedTypes = info->f12.shaderSubgroupExtendedTypes;
	f12.uniformAndStorageBuffer8BitAccess = info->f12.uniformAndStorageBuffer8BitAccess;
	f12.storagePushConstant8 = info->f12.storagePushConstant8;
	f12.vulkanMemoryModel = info->f12.vulkanMemoryModel;
	f12.vulkanMemoryModelDeviceScope = info->f12.vulkanMemoryModelDeviceScope;
	if (info->chain13) f12.pNext = &f13;
	VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, .pNext = &f12};
	f11.storageBuffer16BitAccess = info->f11.storageBuffer16BitAccess;
	f11.uniformAndStorageBuffer16BitAccess = info->f11.uniformAndStorageBuffer16BitAccess;
	f11.storagePushConstant16 = info->f11.storagePushConstant16;
	VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f11};
	f2.features.shaderInt16 = info->features.shaderInt16;
	f2.features.shaderInt64 = info->features.shaderInt64;
	f2.features.shaderFloat64 = info->features.shaderFloat64;

	VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pe = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
	const char *exts[1];
	uint32_t next = 0;
	if (info->exec_stats) {
		pe.pipelineExecutableInfo = VK_TRUE;
		pe.pNext = f2.pNext;
		f2.pNext = &pe;
		exts[next++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
	}

	float priority = 1.0f;
	VkDeviceQueueCreateInfo qci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = (uint32_t)info->queue_family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	VkDeviceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = &f2,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qci,
		.enabledExtensionCount = next,
		.ppEnabledExtensionNames = next > 0 ? exts : NULL,
	};
	VkResult r = in->CreateDevice(pd, &ci, NULL, &d->device);
	if (r != VK_SUCCESS) {
		free(d);
		*failed = "vkCreateDevice";
		return r;
	}
#define VKB_LOAD_DEVICE(name) d->name = (PFN_vk##name)in->GetDeviceProcAddr(d->device, "vk" #name);
	VKB_DEVICE_FUNCS(VKB_LOAD_DEVICE)
#undef VKB_LOAD_DEVICE
	if (info->exec_stats) {
		d->GetPipelineExecutablePropertiesKHR = (PFN_vkGetPipelineExecutablePropertiesKHR)in->GetDeviceProcAddr(
			d->device, "vkGetPipelineExecutablePropertiesKHR");
		d->GetPipelineExecutableStatisticsKHR = (PFN_vkGetPipelineExecutableStatisticsKHR)in->GetDeviceProcAddr(
			d->device, "vkGetPipelineExecutableStatisticsKHR");
		d->exec_stats = d->GetPipelineExecutablePropertiesKHR != NULL && d->GetPipelineExecutableStatisticsKHR != NULL;
	}
	d->queue_family = (uint32_t)info->queue_family;
	d->GetDeviceQueue(d->device, d->queue_family, 0, &d->queue);

	r = vkb_create_timeline(d, &d->timeline);
	if (r != VK_SUCCESS) {
		d->DestroyDevice(d->device, NULL);
		free(d);
		*failed = "vkCreateSemaphore";
		return r;
	}
	*out = d;
	return VK_SUCCESS;
}

void vkb_destroy_device(vkb_device *d) {
	d->DestroySemaphore(d->device, d->timeline, NULL);
	d->DestroyDevice(d->device, NULL);
	free(d);
}

VkResult vkb_create_timeline(const vkb_device *d, VkSemaphore *out) {
	VkSemaphoreTypeCreateInfo ti = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
		.initialValue = 0,
	};
	VkSemaphoreCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
	return d->CreateSemaphore(d->device, &ci, NULL, out);
}

void vkb_destroy_semaphore(const vkb_device *d, VkSemaphore s) { d->DestroySemaphore(d->device, s, NULL); }
