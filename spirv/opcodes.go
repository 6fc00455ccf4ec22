package spirv

// Opcodes, decorations, storage classes and other enumerants, from the
// SPIR-V specification.
const (
	magic       = 0x07230203
	headerWords = 5

	execModelGLCompute  = 5
	execModeLocalSize   = 17
	execModeLocalSizeID = 38

	decorationSpecID        = 1
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

// Op is an instruction's opcode.
type Op uint16

// Opcodes this package and its users read or write, from the SPIR-V
// specification.
const (
	OpExtension                Op = 10
	OpExtInstImport            Op = 11
	OpExtInst                  Op = 12
	OpMemoryModel              Op = 14
	OpEntryPoint               Op = 15
	OpExecutionMode            Op = 16
	OpCapability               Op = 17
	OpTypeVoid                 Op = 19
	OpTypeBool                 Op = 20
	OpTypeInt                  Op = 21
	OpTypeFloat                Op = 22
	OpTypeVector               Op = 23
	OpTypeMatrix               Op = 24
	OpTypeImage                Op = 25
	OpTypeSampler              Op = 26
	OpTypeSampledImage         Op = 27
	OpTypeArray                Op = 28
	OpTypeRuntimeArray         Op = 29
	OpTypeStruct               Op = 30
	OpTypePointer              Op = 32
	OpTypeForwardPointer       Op = 39
	OpConstantTrue             Op = 41
	OpConstantFalse            Op = 42
	OpConstant                 Op = 43
	OpConstantComposite        Op = 44
	OpSpecConstantTrue         Op = 48
	OpSpecConstantFalse        Op = 49
	OpSpecConstant             Op = 50
	OpSpecConstantComposite    Op = 51
	OpSpecConstantOp           Op = 52
	OpFunction                 Op = 54
	OpFunctionEnd              Op = 56
	OpVariable                 Op = 59
	OpDecorate                 Op = 71
	OpMemberDecorate           Op = 72
	OpCompositeExtract         Op = 81
	OpUConvert                 Op = 113
	OpSConvert                 Op = 114
	OpSNegate                  Op = 126
	OpFNegate                  Op = 127
	OpIAdd                     Op = 128
	OpFAdd                     Op = 129
	OpISub                     Op = 130
	OpFSub                     Op = 131
	OpIMul                     Op = 132
	OpFMul                     Op = 133
	OpUDiv                     Op = 134
	OpSDiv                     Op = 135
	OpFDiv                     Op = 136
	OpUMod                     Op = 137
	OpSRem                     Op = 138
	OpSMod                     Op = 139
	OpFRem                     Op = 140
	OpFMod                     Op = 141
	OpVectorTimesScalar        Op = 142
	OpDot                      Op = 148
	OpIsNan                    Op = 156
	OpUnordered                Op = 163
	OpLogicalEqual             Op = 164
	OpLogicalNotEqual          Op = 165
	OpLogicalOr                Op = 166
	OpLogicalAnd               Op = 167
	OpLogicalNot               Op = 168
	OpSelect                   Op = 169
	OpIEqual                   Op = 170
	OpINotEqual                Op = 171
	OpUGreaterThan             Op = 172
	OpSGreaterThan             Op = 173
	OpUGreaterThanEqual        Op = 174
	OpSGreaterThanEqual        Op = 175
	OpULessThan                Op = 176
	OpSLessThan                Op = 177
	OpULessThanEqual           Op = 178
	OpSLessThanEqual           Op = 179
	OpFOrdEqual                Op = 180
	OpFUnordGreaterThanEqual   Op = 191
	OpShiftRightLogical        Op = 194
	OpShiftRightArithmetic     Op = 195
	OpShiftLeftLogical         Op = 196
	OpBitwiseOr                Op = 197
	OpBitwiseXor               Op = 198
	OpBitwiseAnd               Op = 199
	OpNot                      Op = 200
	OpExecutionModeID          Op = 331
	OpTypeCooperativeMatrixKHR Op = 4456
)
