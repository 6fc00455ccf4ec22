//go:build cgo

// vkb.h declares the C side of package vk: the loader, the tables of
// Vulkan entry points resolved at run time, and the few operations that
// are simpler to do whole in C (those that build pNext chains or arrays
// of Vulkan structs). The Go side owns every decision; these functions
// only fill structs and call Vulkan.

#ifndef VKB_H
#define VKB_H

// Non-dispatchable handles become uint64_t rather than pointers: drivers
// hand out values that are not addresses, and Go must never keep such a
// value in a pointer-typed variable.
#define VK_USE_64_BIT_PTR_DEFINES 0
#define VK_NO_PROTOTYPES 1

#include <stddef.h>
#include <stdint.h>

#include "vulkan/vulkan_core.h"

// Definitions newer than the bundled headers (1.3.239), from the Vulkan
// registry: VK_KHR_cooperative_matrix (headers 1.3.255) and
// VK_KHR_shader_bfloat16 (1.4.311). VK_NV_cooperative_matrix is in 1.3.239.
#ifndef VK_KHR_cooperative_matrix
#define VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME "VK_KHR_cooperative_matrix"
typedef struct VkCooperativeMatrixPropertiesKHR {
	VkStructureType sType;
	void *pNext;
	uint32_t MSize;
	uint32_t NSize;
	uint32_t KSize;
	uint32_t AType; // VkComponentTypeKHR
	uint32_t BType;
	uint32_t CType;
	uint32_t ResultType;
	VkBool32 saturatingAccumulation;
	uint32_t scope; // VkScopeKHR
} VkCooperativeMatrixPropertiesKHR;
typedef struct VkPhysicalDeviceCooperativeMatrixFeaturesKHR {
	VkStructureType sType;
	void *pNext;
	VkBool32 cooperativeMatrix;
	VkBool32 cooperativeMatrixRobustBufferAccess;
} VkPhysicalDeviceCooperativeMatrixFeaturesKHR;
typedef VkResult(VKAPI_PTR *PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)(
	VkPhysicalDevice physicalDevice, uint32_t *pPropertyCount, VkCooperativeMatrixPropertiesKHR *pProperties);
#endif
#ifndef VK_KHR_shader_bfloat16
#define VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME "VK_KHR_shader_bfloat16"
typedef struct VkPhysicalDeviceShaderBfloat16FeaturesKHR {
	VkStructureType sType;
	void *pNext;
	VkBool32 shaderBFloat16Type;
	VkBool32 shaderBFloat16DotProduct;
	VkBool32 shaderBFloat16CooperativeMatrix;
} VkPhysicalDeviceShaderBfloat16FeaturesKHR;
#endif
#ifndef VK_NV_cooperative_matrix2
#define VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME "VK_NV_cooperative_matrix2"
typedef struct VkPhysicalDeviceCooperativeMatrix2FeaturesNV {
	VkStructureType sType;
	void *pNext;
	VkBool32 cooperativeMatrixWorkgroupScope;
	VkBool32 cooperativeMatrixFlexibleDimensions;
	VkBool32 cooperativeMatrixReductions;
	VkBool32 cooperativeMatrixConversions;
	VkBool32 cooperativeMatrixPerElementOperations;
	VkBool32 cooperativeMatrixTensorAddressing;
	VkBool32 cooperativeMatrixBlockLoads;
} VkPhysicalDeviceCooperativeMatrix2FeaturesNV;
typedef struct VkPhysicalDeviceCooperativeMatrix2PropertiesNV {
	VkStructureType sType;
	void *pNext;
	uint32_t cooperativeMatrixWorkgroupScopeMaxWorkgroupSize;
	uint32_t cooperativeMatrixFlexibleDimensionsMaxDimension;
	uint32_t cooperativeMatrixWorkgroupScopeReservedSharedMemory;
} VkPhysicalDeviceCooperativeMatrix2PropertiesNV;
typedef struct VkCooperativeMatrixFlexibleDimensionsPropertiesNV {
	VkStructureType sType;
	void *pNext;
	uint32_t MGranularity;
	uint32_t NGranularity;
	uint32_t KGranularity;
	uint32_t AType; // VkComponentTypeKHR
	uint32_t BType;
	uint32_t CType;
	uint32_t ResultType;
	VkBool32 saturatingAccumulation;
	uint32_t scope; // VkScopeKHR
	uint32_t workgroupInvocations;
} VkCooperativeMatrixFlexibleDimensionsPropertiesNV;
typedef VkResult(VKAPI_PTR *PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV)(
	VkPhysicalDevice physicalDevice, uint32_t *pPropertyCount, VkCooperativeMatrixFlexibleDimensionsPropertiesNV *pProperties);
#endif
#define VKB_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV ((VkStructureType)1000593000)
#define VKB_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV ((VkStructureType)1000593001)
#define VKB_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV ((VkStructureType)1000593002)
#define VKB_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR ((VkStructureType)1000506000)
#define VKB_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR ((VkStructureType)1000506001)
#define VKB_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR ((VkStructureType)1000141000)
// The headers a validation layer must have been built with to know the
// structures of VK_KHR_cooperative_matrix and VK_KHR_shader_bfloat16: an
// older layer reports them as unknown in a pNext chain, so vk leaves them
// out under such a layer (see vkb_instance.layer_version).
#define VKB_HEADERS_COOPERATIVE_MATRIX_KHR VK_MAKE_API_VERSION(0, 1, 3, 255)
#define VKB_HEADERS_SHADER_BFLOAT16 VK_MAKE_API_VERSION(0, 1, 4, 311)
// VK_NV_cooperative_matrix2 came to the registry in late 2024; 1.3.300 is
// a bound on the safe side.
#define VKB_HEADERS_COOPERATIVE_MATRIX_2_NV VK_MAKE_API_VERSION(0, 1, 3, 300)

// Instance-level entry points, resolved with vkGetInstanceProcAddr.
#define VKB_INSTANCE_FUNCS(X)                 \
	X(DestroyInstance)                        \
	X(EnumeratePhysicalDevices)               \
	X(GetPhysicalDeviceProperties)            \
	X(GetPhysicalDeviceProperties2)           \
	X(GetPhysicalDeviceFeatures)              \
	X(GetPhysicalDeviceFeatures2)             \
	X(GetPhysicalDeviceQueueFamilyProperties) \
	X(GetPhysicalDeviceMemoryProperties)      \
	X(GetPhysicalDeviceFormatProperties)      \
	X(EnumerateDeviceExtensionProperties)     \
	X(CreateDevice)                           \
	X(GetDeviceProcAddr)

// Device-level entry points, resolved with vkGetDeviceProcAddr (Vulkan 1.2
// core names: vkbench opens only devices of 1.2 or later).
#define VKB_DEVICE_FUNCS(X)         \
	X(DestroyDevice)                \
	X(DeviceWaitIdle)               \
	X(GetDeviceQueue)               \
	X(QueueSubmit)                  \
	X(CreateSemaphore)              \
	X(DestroySemaphore)             \
	X(WaitSemaphores)               \
	X(GetSemaphoreCounterValue)     \
	X(CreateBuffer)                 \
	X(DestroyBuffer)                \
	X(GetBufferMemoryRequirements)  \
	X(AllocateMemory)               \
	X(FreeMemory)                   \
	X(BindBufferMemory)             \
	X(MapMemory)                    \
	X(CreateImage)                  \
	X(DestroyImage)                 \
	X(GetImageMemoryRequirements)   \
	X(BindImageMemory)              \
	X(CreateImageView)              \
	X(DestroyImageView)             \
	X(CreateSampler)                \
	X(DestroySampler)               \
	X(CmdCopyBufferToImage)         \
	X(CmdCopyImageToBuffer)         \
	X(CmdClearColorImage)           \
	X(CreateShaderModule)           \
	X(DestroyShaderModule)          \
	X(CreateDescriptorSetLayout)    \
	X(DestroyDescriptorSetLayout)   \
	X(CreatePipelineLayout)         \
	X(DestroyPipelineLayout)        \
	X(CreateComputePipelines)       \
	X(DestroyPipeline)              \
	X(CreatePipelineCache)          \
	X(DestroyPipelineCache)         \
	X(GetPipelineCacheData)         \
	X(CreateDescriptorPool)         \
	X(DestroyDescriptorPool)        \
	X(ResetDescriptorPool)          \
	X(AllocateDescriptorSets)       \
	X(UpdateDescriptorSets)         \
	X(CreateCommandPool)            \
	X(DestroyCommandPool)           \
	X(ResetCommandPool)             \
	X(AllocateCommandBuffers)       \
	X(BeginCommandBuffer)           \
	X(EndCommandBuffer)             \
	X(CmdBindPipeline)              \
	X(CmdBindDescriptorSets)        \
	X(CmdPushConstants)             \
	X(CmdDispatch)                  \
	X(CmdCopyBuffer)                \
	X(CmdFillBuffer)                \
	X(CmdPipelineBarrier)           \
	X(CmdResetQueryPool)            \
	X(CmdWriteTimestamp)            \
	X(CmdSetEvent)                  \
	X(CreateEvent)                  \
	X(DestroyEvent)                 \
	X(GetEventStatus)               \
	X(ResetEvent)                   \
	X(CreateQueryPool)              \
	X(DestroyQueryPool)             \
	X(ResetQueryPool)               \
	X(GetQueryPoolResults)

#define VKB_FIELD(name) PFN_vk##name name;

// vkb_route is the route of the Vulkan call this thread is making, for
// the validation layer's messages, which the layer reports on the thread
// that makes the call, inside it: VKB_ROUTE(r), first in every vkb_
// function that works on an instance or a device, sets it to theirs for
// the rest of the function, and puts back what it was (0 outside any).
// Package vk (routes.go) says whom a route reaches.
extern _Thread_local uintptr_t vkb_route;
static inline void vkb_route_restore(uintptr_t *prev) { vkb_route = *prev; }
#define VKB_ROUTE(r) \
	uintptr_t vkb_prev_route __attribute__((cleanup(vkb_route_restore))) = vkb_route; \
	vkb_route = (r)

typedef struct vkb_instance {
	VkInstance instance;
	uint32_t api_version;
	// route is the route of the driver that created the instance.
	uintptr_t route;
	VkDebugUtilsMessengerEXT messenger;
	PFN_vkCreateDebugUtilsMessengerEXT CreateDebugUtilsMessengerEXT;
	PFN_vkDestroyDebugUtilsMessengerEXT DestroyDebugUtilsMessengerEXT;
	VKB_INSTANCE_FUNCS(VKB_FIELD)
	// Extension entry points, NULL when the loader has none.
	PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV GetPhysicalDeviceCooperativeMatrixPropertiesNV;
	PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR GetPhysicalDeviceCooperativeMatrixPropertiesKHR;
	PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV
		GetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV;
	// layer_version is the spec version of the validation layer, whose
	// patch is the headers it was built with; UINT32_MAX without
	// validation, when no layer has to know vk's structures.
	uint32_t layer_version;
} vkb_instance;

typedef struct vkb_device {
	VkDevice device;
	// route is the route of the driver that opened the device.
	uintptr_t route;
	VkQueue queue;
	uint32_t queue_family;
	// timeline is the device's one timeline semaphore: submission n
	// signals n, so its counter says how many submissions have finished.
	VkSemaphore timeline;
	VKB_DEVICE_FUNCS(VKB_FIELD)
	// exec_stats is set when VK_KHR_pipeline_executable_properties is
	// enabled: pipelines are created capturing the compiler's statistics.
	int exec_stats;
	PFN_vkGetPipelineExecutablePropertiesKHR GetPipelineExecutablePropertiesKHR;
	PFN_vkGetPipelineExecutableStatisticsKHR GetPipelineExecutableStatisticsKHR;
} vkb_device;

// vkb_coopmat is one cooperative-matrix multiply-add, from either
// extension (api: 1 NV, 2 KHR, 3 NV2's flexible dimensions, as
// hal.MatrixAPI; for NV2, m, n and k are granularities and invocations the
// workgroup size they hold for, 0 for any).
typedef struct vkb_coopmat {
	uint32_t api, m, n, k, a, b, c, result, saturating, scope, invocations;
} vkb_coopmat;

// VKB_MAX_COOPMAT bounds the shapes kept per device; NVIDIA's drivers list
// a few dozen.
#define VKB_MAX_COOPMAT 128

// vkb_pd_info is everything vk reads of a physical device. The pNext
// fields are cleared before vkb_query_physical_device returns.
typedef struct vkb_pd_info {
	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceFeatures features;
	VkPhysicalDeviceMemoryProperties memory;
	// Valid when chain12 is set (device and instance of Vulkan 1.2+).
	int chain12;
	VkPhysicalDeviceDriverProperties driver;
	VkPhysicalDeviceIDProperties id;
	VkPhysicalDeviceSubgroupProperties subgroup;
	VkPhysicalDeviceMaintenance3Properties maint3;
	VkPhysicalDeviceVulkan11Features f11;
	VkPhysicalDeviceVulkan12Features f12;
	// Valid when chain13 is set (device and instance of Vulkan 1.3+).
	int chain13;
	VkPhysicalDeviceMaintenance4Properties maint4;
	VkPhysicalDeviceVulkan13Features f13;
	// queue_family is the compute family vk uses, -1 if there is none;
	// timestamp_bits is its timestampValidBits.
	int32_t queue_family;
	uint32_t timestamp_bits;
	// exec_stats is set when the device has VK_KHR_pipeline_executable_properties
	// with its pipelineExecutableInfo feature.
	int exec_stats;
	// Device extensions vk reads or enables, set when the device has them
	// (and, for those newer than the validation layer, when it knows them).
	int ext_subgroup_size_control, ext_coopmat_nv, ext_coopmat_khr, ext_bfloat16, ext_coopmat2_nv;
	// Set for the extensions the device has that vk leaves off because
	// the validation layer is older than they are.
	int withheld_coopmat_khr, withheld_bfloat16, withheld_coopmat2_nv;
	// Valid when chain13 or ext_subgroup_size_control is set.
	VkPhysicalDeviceSubgroupSizeControlProperties sgsc;
	// Valid when the extension's flag is set.
	VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat_nv;
	VkPhysicalDeviceCooperativeMatrixFeaturesKHR coopmat_khr;
	VkPhysicalDeviceShaderBfloat16FeaturesKHR bfloat16;
	VkPhysicalDeviceCooperativeMatrix2FeaturesNV coopmat2_nv;
	VkPhysicalDeviceCooperativeMatrix2PropertiesNV coopmat2_nv_props;
	// coopmat are the multiply-adds of the extensions whose feature is on:
	// NV's first, then KHR's, then NV2's flexible dimensions; ncoopmat of
	// them.
	uint32_t ncoopmat;
	vkb_coopmat coopmat[VKB_MAX_COOPMAT];
} vkb_pd_info;

// Loader.
int vkb_load(char *err, int errlen);
void *vkb_get_instance_proc_addr(void);
uint32_t vkb_loader_version(void);
// vkb_find_layer reports whether the instance layer called layer is
// installed and, where version is not NULL, its spec version (0 if not).
VkResult vkb_find_layer(const char *layer, int *found, uint32_t *version);
VkResult vkb_has_instance_extension(const char *layer, const char *ext, int *found);

// Instance.
// vkb_create_instance creates an instance; package vk keeps it for the
// life of the process (see instance.go), so there is no destroying one.
VkResult vkb_create_instance(uint32_t api, int validation, uintptr_t route, vkb_instance **out, const char **failed);
VkResult vkb_physical_devices(const vkb_instance *in, uint32_t *count, VkPhysicalDevice *out);
void vkb_query_physical_device(const vkb_instance *in, VkPhysicalDevice pd, vkb_pd_info *info);
// vkb_test_cooperative_matrices fills info's multiply-adds from fixed NV
// and KHR properties, as vkb_query_physical_device would: test support.
void vkb_test_cooperative_matrices(vkb_pd_info *info);

// Device.
VkResult vkb_create_device(const vkb_instance *in, VkPhysicalDevice pd, const vkb_pd_info *info, uintptr_t route, vkb_device **out,
	const char **failed);
void vkb_destroy_device(vkb_device *d);
// vkb_wait_idle waits until the driver is done with every submission,
// its own bookkeeping after the signal included.
VkResult vkb_wait_idle(const vkb_device *d);
VkResult vkb_submit(const vkb_device *d, VkCommandBuffer cb, uint64_t wait, uint64_t signal);
VkResult vkb_wait(const vkb_device *d, uint64_t value, uint64_t timeout_ns, uint64_t spin_ns);
// vkb_counter returns the timeline's counter by value (result and
// counter), sparing Go a heap-allocated out-parameter on a hot path.
typedef struct vkb_counter_value {
	VkResult result;
	uint64_t value;
} vkb_counter_value;
vkb_counter_value vkb_counter(const vkb_device *d);
VkResult vkb_create_pipeline_cache(const vkb_device *d, const void *data, size_t size, VkPipelineCache *out);
VkResult vkb_pipeline_cache_data(const vkb_device *d, VkPipelineCache cache, size_t *size, void *data);
void vkb_destroy_pipeline_cache(const vkb_device *d, VkPipelineCache cache);

// Buffers.
VkResult vkb_create_buffer(const vkb_device *d, VkDeviceSize size, VkBuffer *out, VkMemoryRequirements *req);
// vkb_allocate allocates size bytes of memory type type for a buffer or
// an image to bind; on failure *failed names the call.
VkResult vkb_allocate(const vkb_device *d, VkDeviceSize size, uint32_t type, VkDeviceMemory *mem, const char **failed);
VkResult vkb_bind_memory(const vkb_device *d, VkBuffer buf, VkDeviceSize size, uint32_t type, int map, VkDeviceMemory *mem, void **ptr, const char **failed);
void vkb_destroy_buffer(const vkb_device *d, VkBuffer buf, VkDeviceMemory mem);

// Images: 2D, one mip level and layer, optimal tiling, and after
// vkb_cmd_image_init in VK_IMAGE_LAYOUT_GENERAL between commands (a copy
// moves its image into the copy's layout and back), so that the global
// memory barriers of vkb_cmd_barrier order their uses as they do
// buffers'.
uint32_t vkb_format_features(const vkb_instance *in, VkPhysicalDevice pd, VkFormat format);
VkResult vkb_create_image(const vkb_device *d, VkFormat format, uint32_t width, uint32_t height, VkImageUsageFlags usage,
	VkImage *out, VkMemoryRequirements *req);
VkResult vkb_bind_image(const vkb_device *d, VkImage img, VkFormat format, VkDeviceSize size, uint32_t type, VkDeviceMemory *mem,
	VkImageView *view, const char **failed);
void vkb_destroy_image(const vkb_device *d, VkImage img, VkImageView view, VkDeviceMemory mem);
// vkb_cmd_image_init moves a new image from the undefined layout to the
// general one and clears it to zero.
void vkb_cmd_image_init(const vkb_device *d, VkCommandBuffer cb, VkImage img);
// vkb_cmd_copy_image copies rows [y, y+rows) of an image of width texels
// from (to_image) or to a buffer at offset, rows tightly packed.
void vkb_cmd_copy_image(const vkb_device *d, VkCommandBuffer cb, VkBuffer buf, VkDeviceSize offset, VkImage img, uint32_t width,
	uint32_t y, uint32_t rows, int to_image);
VkResult vkb_create_sampler(const vkb_device *d, int linear, int repeat, int unnormalized, VkSampler *out);
void vkb_destroy_sampler(const vkb_device *d, VkSampler s);

// Executables.
// vkb_sets are the layouts of a pipeline's descriptor sets when it has
// more than one: set s has counts[s] bindings (0 for an empty layout).
typedef struct vkb_sets {
	uint32_t n;
	uint32_t *counts;
	VkDescriptorSetLayout *layouts;
} vkb_sets;

// vkb_pipeline has set_layout for set 0 alone; a pipeline of several sets
// has their layouts in a vkb_sets beside it, set_layout VK_NULL_HANDLE.
typedef struct vkb_pipeline {
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkPipeline pipeline;
} vkb_pipeline;

// vkb_create_pipeline makes one set of bindings bindings when nsets is 0,
// and otherwise nsets sets of set_counts[s] bindings each, types listing
// set 0's first, their layouts in *sets.
VkResult vkb_create_pipeline(const vkb_device *d, VkPipelineCache cache, const uint32_t *code, size_t size, const char *entry,
	uint32_t bindings, uint32_t nsets, const uint32_t *set_counts, const VkDescriptorType *types, uint32_t push_size, uint32_t nconst, const uint32_t *const_ids, const uint32_t *const_values,
	uint32_t subgroup_size, int full_subgroups, vkb_pipeline *out, vkb_sets **sets, const char **failed);
// vkb_destroy_pipeline destroys p and its sets (NULL for none).
void vkb_destroy_pipeline(const vkb_device *d, vkb_pipeline p, vkb_sets *sets);
// vkb_pipeline_executables and vkb_pipeline_statistics are the two-call
// queries of VK_KHR_pipeline_executable_properties (d->exec_stats set).
VkResult vkb_pipeline_executables(const vkb_device *d, VkPipeline p, uint32_t *count, VkPipelineExecutablePropertiesKHR *out);
VkResult vkb_pipeline_statistics(const vkb_device *d, VkPipeline p, uint32_t executable, uint32_t *count, VkPipelineExecutableStatisticKHR *out);

// Command buffers.
VkResult vkb_create_command_buffer(const vkb_device *d, VkCommandPool *pool, VkCommandBuffer *cb, const char **failed);
void vkb_destroy_command_pool(const vkb_device *d, VkCommandPool pool);
// vkb_create_descriptor_pool makes a pool of sets sets, buffers storage
// buffers and images each of storage images, sampled images and uniform
// buffers.
VkResult vkb_create_descriptor_pool(const vkb_device *d, uint32_t sets, uint32_t buffers, uint32_t images, VkDescriptorPool *out);
void vkb_destroy_descriptor_pool(const vkb_device *d, VkDescriptorPool pool);
// vkb_call is a VkResult with the call that returned it, by value.
typedef struct vkb_call {
	VkResult result;
	const char *call;
} vkb_call;
vkb_call vkb_begin(const vkb_device *d, VkCommandPool pool, VkCommandBuffer cb, uint32_t npools, const VkDescriptorPool *pools);
VkResult vkb_end(const vkb_device *d, VkCommandBuffer cb, int host_barrier);
// vkb_binding is one binding of a dispatch: a buffer's range, or an
// image's view with, for a sampled image, its sampler.
typedef struct vkb_binding {
	VkDescriptorBufferInfo buffer;
	VkImageView view;
	VkSampler sampler;
	VkDescriptorType type;
} vkb_binding;
// vkb_cmd_dispatch records a dispatch of p with nbind bindings, at set 0
// when sets is NULL, else set by set as sets says. mixed is 0 when every
// binding is a storage buffer (type is then not read), 1 otherwise, and
// always for a pipeline of sets. With two build events, it first sets
// build[0], dispatches no workgroups, which makes a driver that builds a
// kernel at its first dispatch (lavapipe) build it there, and sets
// build[1].
VkResult vkb_cmd_dispatch(const vkb_device *d, VkCommandBuffer cb, VkDescriptorPool pool, vkb_pipeline p, const vkb_sets *sets,
	uint32_t nbind, const vkb_binding *binds, int mixed, const void *push, uint32_t push_size, const VkEvent *build, uint32_t x,
	uint32_t y, uint32_t z);
void vkb_cmd_copy(const vkb_device *d, VkCommandBuffer cb, VkBuffer src, VkDeviceSize src_offset, VkBuffer dst, VkDeviceSize dst_offset, VkDeviceSize size);
void vkb_cmd_fill(const vkb_device *d, VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size, uint32_t value);
void vkb_cmd_barrier(const vkb_device *d, VkCommandBuffer cb);
void vkb_cmd_timestamp(const vkb_device *d, VkCommandBuffer cb, VkQueryPool pool, uint32_t index);

// Events, set by vkb_cmd_dispatch. vkb_event_set returns VK_EVENT_SET,
// VK_EVENT_RESET or an error.
VkResult vkb_create_event(const vkb_device *d, VkEvent *out);
void vkb_destroy_event(const vkb_device *d, VkEvent e);
VkResult vkb_event_set(const vkb_device *d, VkEvent e);
void vkb_reset_events(const vkb_device *d, uint32_t n, const VkEvent *events);

// Timestamps.
VkResult vkb_create_query_pool(const vkb_device *d, uint32_t count, VkQueryPool *out);
void vkb_destroy_query_pool(const vkb_device *d, VkQueryPool pool);
VkResult vkb_query_results(const vkb_device *d, VkQueryPool pool, uint32_t first, uint32_t count, uint64_t *data);

// Test support: the timeline semaphore that a hand-written submission
// loop signals (see the RoundTrip benchmark).
VkResult vkb_create_timeline(const vkb_device *d, VkSemaphore *out);
void vkb_destroy_semaphore(const vkb_device *d, VkSemaphore s);
VkResult vkb_submit_timeline(const vkb_device *d, VkCommandBuffer cb, VkSemaphore s, uint64_t signal);
VkResult vkb_wait_timeline(const vkb_device *d, VkSemaphore s, uint64_t value, uint64_t timeout_ns);

// Test support: the next vkAllocateDescriptorSets of d (always 0), or
// every one (1), returns r without reaching the driver, through a wrapper
// of the driver's entry point (one device of the process at a time),
// which puts it back after a single failure. always -1 makes the wrapper
// reach the driver, from any thread.
void vkb_test_fail_allocation(vkb_device *d, VkResult r, int always);

#endif
