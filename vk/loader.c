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

VkResult vkb_find_layer(const char *layer, int *found, uint32_t *version) {
	PFN_vkEnumerateInstanceLayerProperties f =
		(PFN_vkEnumerateInstanceLayerProperties)gipa(NULL, "vkEnumerateInstanceLayerProperties");
	*found = 0;
	if (version != NULL) *version = 0;
	uint32_t n = 0;
	VkResult r = f(&n, NULL);
	if (r != VK_SUCCESS) return r;
	VkLayerProperties *props = calloc(n + 1, sizeof *props);
	if (props == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
	r = f(&n, props);
	if (r >= 0) {
		r = VK_SUCCESS;
		for (uint32_t i = 0; i < n; i++) {
			if (strcmp(props[i].layerName, layer) == 0) {
				*found = 1;
				if (version != NULL) *version = props[i].specVersion;
			}
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

_Thread_local uintptr_t vkb_route;

// debug_callback hands a message to Go with the route of the call that
// made it: the validation layer reports a call's misuse on the thread
// that makes the call, inside it.
static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
	VkDebugUtilsMessageTypeFlagsEXT types, const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
	(void)types;
	(void)user;
	vkbGoMessage(vkb_route, (int)severity, (char *)data->pMessageIdName, (char *)data->pMessage);
	return VK_FALSE;
}

static void messenger_info(VkDebugUtilsMessengerCreateInfoEXT *mi) {
	memset(mi, 0, sizeof *mi);
	mi->sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
	mi->messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
	mi->messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
		VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
	mi->pfnUserCallback = debug_callback;
}

VkResult vkb_create_instance(uint32_t api, int validation, uintptr_t route, vkb_instance **out, const char **failed) {
	VKB_ROUTE(route);
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
	messenger_info(&mi);
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
	in->route = route;
#define VKB_LOAD_INSTANCE(name) in->name = (PFN_vk##name)gipa(in->instance, "vk" #name);
	VKB_INSTANCE_FUNCS(VKB_LOAD_INSTANCE)
#undef VKB_LOAD_INSTANCE
	in->GetPhysicalDeviceCooperativeMatrixPropertiesNV = (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)gipa(
		in->instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV");
	in->GetPhysicalDeviceCooperativeMatrixPropertiesKHR = (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)gipa(
		in->instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
	in->GetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV =
		(PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV)gipa(
			in->instance, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV");
	in->layer_version = UINT32_MAX;
	if (validation) {
		int found;
		vkb_find_layer(layers[0], &found, &in->layer_version); // 0 if it cannot be listed
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

VkResult vkb_physical_devices(const vkb_instance *in, uint32_t *count, VkPhysicalDevice *out) {
	VKB_ROUTE(in->route);
	return in->EnumeratePhysicalDevices(in->instance, count, out);
}

// device_extensions sets info's flags for the device extensions vk reads
// or enables, and says whether the device has
// VK_KHR_pipeline_executable_properties. Extensions whose structures the
// validation layer does not know are left unset: the layer would report
// every structure of theirs in a pNext chain.
static int device_extensions(const vkb_instance *in, VkPhysicalDevice pd, vkb_pd_info *info) {
	int exec = 0;
	uint32_t next = 0;
	if (in->EnumerateDeviceExtensionProperties(pd, NULL, &next, NULL) != VK_SUCCESS || next == 0) return 0;
	VkExtensionProperties *ext = calloc(next, sizeof *ext);
	if (ext == NULL) return 0;
	if (in->EnumerateDeviceExtensionProperties(pd, NULL, &next, ext) >= VK_SUCCESS) {
		for (uint32_t i = 0; i < next; i++) {
			const char *name = ext[i].extensionName;
			if (strcmp(name, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) == 0) {
				exec = 1;
			} else if (strcmp(name, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME) == 0) {
				info->ext_subgroup_size_control = 1;
			} else if (strcmp(name, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0) {
				info->ext_coopmat_nv = in->GetPhysicalDeviceCooperativeMatrixPropertiesNV != NULL;
			} else if (strcmp(name, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0) {
				info->withheld_coopmat_khr = in->layer_version < VKB_HEADERS_COOPERATIVE_MATRIX_KHR;
				info->ext_coopmat_khr =
					in->GetPhysicalDeviceCooperativeMatrixPropertiesKHR != NULL && !info->withheld_coopmat_khr;
			} else if (strcmp(name, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME) == 0) {
				info->withheld_coopmat2_nv = in->layer_version < VKB_HEADERS_COOPERATIVE_MATRIX_2_NV;
				info->ext_coopmat2_nv = in->GetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV != NULL &&
					!info->withheld_coopmat2_nv;
			} else if (strcmp(name, VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME) == 0) {
				info->withheld_bfloat16 = in->layer_version < VKB_HEADERS_SHADER_BFLOAT16;
				info->ext_bfloat16 = !info->withheld_bfloat16;
			}
		}
	}
	free(ext);
	return exec;
}

static void add_coopmat(vkb_pd_info *info, uint32_t api, uint32_t m, uint32_t n, uint32_t k, uint32_t a, uint32_t b,
	uint32_t c, uint32_t result, uint32_t saturating, uint32_t scope, uint32_t invocations) {
	if (info->ncoopmat >= VKB_MAX_COOPMAT) return;
	vkb_coopmat cm = {api, m, n, k, a, b, c, result, saturating != 0, scope, invocations};
	info->coopmat[info->ncoopmat++] = cm;
}

static void add_coopmat_nv(vkb_pd_info *info, const VkCooperativeMatrixPropertiesNV *p, uint32_t n) {
	for (uint32_t i = 0; i < n; i++) {
		add_coopmat(info, 1, p[i].MSize, p[i].NSize, p[i].KSize, p[i].AType, p[i].BType, p[i].CType, p[i].DType, 0,
			p[i].scope, 0);
	}
}

static void add_coopmat_khr(vkb_pd_info *info, const VkCooperativeMatrixPropertiesKHR *p, uint32_t n) {
	for (uint32_t i = 0; i < n; i++) {
		add_coopmat(info, 2, p[i].MSize, p[i].NSize, p[i].KSize, p[i].AType, p[i].BType, p[i].CType, p[i].ResultType,
			p[i].saturatingAccumulation, p[i].scope, 0);
	}
}

static void add_coopmat2_nv(vkb_pd_info *info, const VkCooperativeMatrixFlexibleDimensionsPropertiesNV *p, uint32_t n) {
	for (uint32_t i = 0; i < n; i++) {
		add_coopmat(info, 3, p[i].MGranularity, p[i].NGranularity, p[i].KGranularity, p[i].AType, p[i].BType, p[i].CType,
			p[i].ResultType, p[i].saturatingAccumulation, p[i].scope, p[i].workgroupInvocations);
	}
}

// cooperative_matrices lists the multiply-adds of each cooperative-matrix
// extension whose feature the device has.
static void cooperative_matrices(const vkb_instance *in, VkPhysicalDevice pd, vkb_pd_info *info) {
	// LIST calls the two-call enumeration get for properties of type T
	// (structure type stype) when the extension's feature is on, and
	// hands them to add.
#define LIST(on, T, stype, get, add)                                                 \
	do {                                                                             \
		uint32_t n = 0;                                                              \
		if (!(on) || in->get(pd, &n, NULL) != VK_SUCCESS || n == 0) break;           \
		T *p = calloc(n, sizeof *p);                                                 \
		if (p == NULL) break;                                                        \
		for (uint32_t i = 0; i < n; i++) p[i].sType = (stype);                      \
		if (in->get(pd, &n, p) >= VK_SUCCESS) add(info, p, n);                       \
		free(p);                                                                     \
	} while (0)
	LIST(info->ext_coopmat_nv && info->coopmat_nv.cooperativeMatrix, VkCooperativeMatrixPropertiesNV,
		VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV, GetPhysicalDeviceCooperativeMatrixPropertiesNV, add_coopmat_nv);
	LIST(info->ext_coopmat_khr && info->coopmat_khr.cooperativeMatrix, VkCooperativeMatrixPropertiesKHR,
		VKB_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR, GetPhysicalDeviceCooperativeMatrixPropertiesKHR, add_coopmat_khr);
	LIST(info->ext_coopmat2_nv && info->coopmat2_nv.cooperativeMatrixFlexibleDimensions,
		VkCooperativeMatrixFlexibleDimensionsPropertiesNV, VKB_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV,
		GetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV, add_coopmat2_nv);
#undef LIST
}

void vkb_test_cooperative_matrices(vkb_pd_info *info) {
	VkCooperativeMatrixPropertiesNV nv[2] = {
		{.MSize = 16, .NSize = 8, .KSize = 16, .AType = VK_COMPONENT_TYPE_FLOAT16_NV, .BType = VK_COMPONENT_TYPE_FLOAT16_NV,
			.CType = VK_COMPONENT_TYPE_FLOAT32_NV, .DType = VK_COMPONENT_TYPE_FLOAT32_NV, .scope = VK_SCOPE_SUBGROUP_NV},
		{.MSize = 8, .NSize = 8, .KSize = 32, .AType = VK_COMPONENT_TYPE_UINT8_NV, .BType = VK_COMPONENT_TYPE_SINT8_NV,
			.CType = VK_COMPONENT_TYPE_SINT32_NV, .DType = VK_COMPONENT_TYPE_UINT32_NV, .scope = VK_SCOPE_WORKGROUP_NV},
	};
	VkCooperativeMatrixPropertiesKHR khr[1] = {
		{.MSize = 32, .NSize = 16, .KSize = 64, .AType = 1000141000, .BType = 1000141000, .CType = 1, .ResultType = 0,
			.saturatingAccumulation = VK_TRUE, .scope = 3},
	};
	VkCooperativeMatrixFlexibleDimensionsPropertiesNV flex[1] = {
		{.MGranularity = 32, .NGranularity = 16, .KGranularity = 16, .AType = 0, .BType = 0, .CType = 1, .ResultType = 1,
			.scope = 2, .workgroupInvocations = 128},
	};
	memset(info, 0, sizeof *info);
	add_coopmat_nv(info, nv, 2);
	add_coopmat_khr(info, khr, 1);
	add_coopmat2_nv(info, flex, 1);
}

// VKB_LINK appends structure s to the pNext chain whose last pNext is *tail.
#define VKB_LINK(tail, s)       \
	do {                        \
		*(tail) = &(s);         \
		(tail) = &(s).pNext;    \
	} while (0)

void vkb_query_physical_device(const vkb_instance *in, VkPhysicalDevice pd, vkb_pd_info *info) {
	VKB_ROUTE(in->route);
	memset(info, 0, sizeof *info);
	in->GetPhysicalDeviceProperties(pd, &info->props);
	in->GetPhysicalDeviceFeatures(pd, &info->features);
	in->GetPhysicalDeviceMemoryProperties(pd, &info->memory);

	uint32_t api = info->props.apiVersion < in->api_version ? info->props.apiVersion : in->api_version;
	if (VK_API_VERSION_MINOR(api) >= 2 || VK_API_VERSION_MAJOR(api) > 1) {
		info->chain12 = 1;
		info->chain13 = VK_API_VERSION_MINOR(api) >= 3 || VK_API_VERSION_MAJOR(api) > 1;

		int exec = device_extensions(in, pd, info);

		VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
		void **tail = &p2.pNext;
		info->driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
		info->id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
		info->subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
		info->maint3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
		info->maint4.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES;
		info->sgsc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES;
		VKB_LINK(tail, info->driver);
		VKB_LINK(tail, info->id);
		VKB_LINK(tail, info->subgroup);
		VKB_LINK(tail, info->maint3);
		if (info->chain13) VKB_LINK(tail, info->maint4);
		if (info->chain13 || info->ext_subgroup_size_control) VKB_LINK(tail, info->sgsc);
		info->coopmat2_nv_props.sType = VKB_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV;
		if (info->ext_coopmat2_nv) VKB_LINK(tail, info->coopmat2_nv_props);
		in->GetPhysicalDeviceProperties2(pd, &p2);

		VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
		tail = &f2.pNext;
		VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pe = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
		info->f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
		info->f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
		info->f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
		info->coopmat_nv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
		info->coopmat_khr.sType = VKB_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR;
		info->bfloat16.sType = VKB_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR;
		info->coopmat2_nv.sType = VKB_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV;
		VKB_LINK(tail, info->f11);
		VKB_LINK(tail, info->f12);
		if (info->chain13) VKB_LINK(tail, info->f13);
		if (exec) VKB_LINK(tail, pe);
		if (info->ext_coopmat_nv) VKB_LINK(tail, info->coopmat_nv);
		if (info->ext_coopmat_khr) VKB_LINK(tail, info->coopmat_khr);
		if (info->ext_bfloat16) VKB_LINK(tail, info->bfloat16);
		if (info->ext_coopmat2_nv) VKB_LINK(tail, info->coopmat2_nv);
		in->GetPhysicalDeviceFeatures2(pd, &f2);
		// Compiler statistics (VK_KHR_pipeline_executable_properties),
		// when the device has the extension and its feature.
		info->exec_stats = exec && pe.pipelineExecutableInfo == VK_TRUE;

		info->driver.pNext = info->id.pNext = info->subgroup.pNext = NULL;
		info->maint3.pNext = info->maint4.pNext = info->sgsc.pNext = NULL;
		info->f11.pNext = info->f12.pNext = info->f13.pNext = NULL;
		info->coopmat_nv.pNext = info->coopmat_khr.pNext = info->bfloat16.pNext = NULL;
		info->coopmat2_nv.pNext = info->coopmat2_nv_props.pNext = NULL;

		cooperative_matrices(in, pd, info);
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

VkResult vkb_create_device(const vkb_instance *in, VkPhysicalDevice pd, const vkb_pd_info *info, uintptr_t route, vkb_device **out,
	const char **failed) {
	VKB_ROUTE(route);
	*out = NULL;
	vkb_device *d = calloc(1, sizeof *d);
	if (d == NULL) {
		*failed = "calloc";
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	d->route = route;

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
	f2.features.shaderStorageImageReadWithoutFormat = info->features.shaderStorageImageReadWithoutFormat;
	f2.features.shaderStorageImageWriteWithoutFormat = info->features.shaderStorageImageWriteWithoutFormat;

	// Optional extensions, each with its feature structure.
	void **tail = &f12.pNext;
	if (info->chain13) tail = &f13.pNext;
	const char *exts[5];
	uint32_t next = 0;
	VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pe = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
	if (info->exec_stats) {
		pe.pipelineExecutableInfo = VK_TRUE;
		VKB_LINK(tail, pe);
		exts[next++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
	}
	VkPhysicalDeviceCooperativeMatrixFeaturesNV cmnv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
	if (info->ext_coopmat_nv && info->coopmat_nv.cooperativeMatrix) {
		cmnv.cooperativeMatrix = VK_TRUE;
		VKB_LINK(tail, cmnv);
		exts[next++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
	}
	VkPhysicalDeviceCooperativeMatrixFeaturesKHR cmkhr = {.sType = VKB_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
	if (info->ext_coopmat_khr && info->coopmat_khr.cooperativeMatrix) {
		cmkhr.cooperativeMatrix = VK_TRUE;
		VKB_LINK(tail, cmkhr);
		exts[next++] = VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
	}
	VkPhysicalDeviceShaderBfloat16FeaturesKHR bf16 = {.sType = VKB_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR};
	if (info->ext_bfloat16 && info->bfloat16.shaderBFloat16Type) {
		bf16.shaderBFloat16Type = VK_TRUE;
		bf16.shaderBFloat16DotProduct = info->bfloat16.shaderBFloat16DotProduct;
		// Cooperative matrices of bfloat16 need the extension's own
		// cooperativeMatrix feature as well.
		bf16.shaderBFloat16CooperativeMatrix = info->bfloat16.shaderBFloat16CooperativeMatrix && cmkhr.cooperativeMatrix;
		VKB_LINK(tail, bf16);
		exts[next++] = VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME;
	}
	// VK_NV_cooperative_matrix2 builds on VK_KHR_cooperative_matrix's
	// types: every feature the device has, with those.
	VkPhysicalDeviceCooperativeMatrix2FeaturesNV cm2 = info->coopmat2_nv;
	cm2.pNext = NULL;
	if (info->ext_coopmat2_nv && cmkhr.cooperativeMatrix) {
		VKB_LINK(tail, cm2);
		exts[next++] = VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME;
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

VkResult vkb_wait_idle(const vkb_device *d) {
	VKB_ROUTE(d->route);
	return d->DeviceWaitIdle(d->device);
}

void vkb_destroy_device(vkb_device *d) {
	VKB_ROUTE(d->route);
	d->DestroySemaphore(d->device, d->timeline, NULL);
	d->DestroyDevice(d->device, NULL);
	free(d);
}

VkResult vkb_create_timeline(const vkb_device *d, VkSemaphore *out) {
	VKB_ROUTE(d->route);
	VkSemaphoreTypeCreateInfo ti = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
		.initialValue = 0,
	};
	VkSemaphoreCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
	return d->CreateSemaphore(d->device, &ci, NULL, out);
}

void vkb_destroy_semaphore(const vkb_device *d, VkSemaphore s) {
	VKB_ROUTE(d->route);
	d->DestroySemaphore(d->device, s, NULL);
}
