package spirv

// Opcodes, decorations, storage classes and other enumerants, from the
// SPIR-V specification.
const (
	magic       = 0x07230203
	headerWords = 5

	opCapability            = 17
	opEntryPoint            = 15
	opExecutionMode         = 16
	opExecutionModeID       = 331
	opDecorate              = 71
	opMemberDecorate        = 72
	opTypeBool              = 20
	opTypeInt               = 21
	opTypeFloat             = 22
	opTypeVector            = 23
	opTypeMatrix            = 24
	opTypeArray             = 28
	opTypeRuntimeArray      = 29
	opTypeStruct            = 30
	opTypePointer           = 32
	opTypeImage             = 25
	opTypeSampler           = 26
	opTypeSampledImage      = 27
	opConstantTrue          = 41
	opConstantFalse         = 42
	opConstant              = 43
	opConstantComposite     = 44
	opSpecConstantTrue      = 48
	opSpecConstantFalse     = 49
	opSpecConstant          = 50
	opSpecConstantComposite = 51
	opFunction              = 54
	opFunctionEnd           = 56
	opVariable              = 59

	execModelGLCompute  = 5
	execModeLocalSize   = 17
	execModeLocalSizeID = 38

	decorationSpecID        = 1
	decorationBlock         = 2
	decorationBufferBlock   = 3
	decorationRowMajor      = 4
	decorationArrayStride   = 6
	decorationMatrixStride  = 7
	decorationBuiltIn       = 11
	decorationBinding       = 33
	decorationDescriptorSet = 34
	decorationOffset        = 35

	builtInWorkgroupSize = 25

	storageUniformConstant = 0
	storageUniform         = 2
	storageWorkgroup       = 4
	storagePushConstant    = 9
	storageStorageBuffer   = 12
)

// Capabilities that vkbench maps to device features.
const (
	CapFloat16                        = 9
	CapFloat64                        = 10
	CapInt64                          = 11
	CapInt16                          = 22
	CapInt8                           = 39
	CapStorageImageReadWithoutFormat  = 55
	CapStorageImageWriteWithoutFormat = 56
	CapGroupNonUniform                = 61
	CapGroupNonUniformQuad            = 68
	CapStorageBuffer16Bit             = 4433
	CapUniformStorage16Bit            = 4434
	CapStoragePushConstant16          = 4435
	CapStorageBuffer8Bit              = 4448
	CapUniformStorage8Bit             = 4449
	CapStoragePushConstant8           = 4450
	CapVulkanMemoryModel              = 5345
	CapCooperativeMatrixNV            = 5357
	CapCooperativeMatrixKHR           = 6022
	CapBFloat16TypeKHR                = 5116
	CapBFloat16CooperativeMatrixKHR   = 5118
	// SPV_NV_cooperative_matrix2's capabilities, each a feature of
	// VK_NV_cooperative_matrix2 (5430 to 5434), and SPV_NV_tensor_addressing's
	// tensor layouts.
	CapCooperativeMatrixReductionsNV           = 5430
	CapCooperativeMatrixConversionsNV          = 5431
	CapCooperativeMatrixPerElementOperationsNV = 5432
	CapCooperativeMatrixTensorAddressingNV     = 5433
	CapCooperativeMatrixBlockLoadsNV           = 5434
	CapTensorAddressingNV                      = 5439
)
