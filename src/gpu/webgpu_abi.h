/*
 * Our own declaration of the part of webgpu.h that wgk uses, for the Dawn in libwebgpu_wrapper.so
 * (npm bun-webgpu-linux-x64 0.1.7, the webgpu.h of about April-May 2025). Only what we call.
 *
 * Why not the upstream header: the prebuilt library ships none, and the header changed shape
 * often in 2024-2025 (string views, callback infos, instance capabilities). Writing down exactly the
 * layout this binary expects, with a size/offset check per struct, turns a silent ABI mismatch into
 * a compile error. Facts come from the library's symbol table, the struct and enum tables in the
 * bun-webgpu 0.1.7 index.js, and runtime probes (tests/gpu/test_gpu_abi.c checks what Dawn writes).
 * x86-64 SysV (LP64) only.
 */
#ifndef WGK_GPU_WEBGPU_ABI_H
#define WGK_GPU_WEBGPU_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ---- handles ----------------------------------------------------------------------------- */
typedef struct WGPUInstanceImpl *WGPUInstance;
typedef struct WGPUAdapterImpl *WGPUAdapter;
typedef struct WGPUDeviceImpl *WGPUDevice;
typedef struct WGPUQueueImpl *WGPUQueue;
typedef struct WGPUBufferImpl *WGPUBuffer;
typedef struct WGPUShaderModuleImpl *WGPUShaderModule;
typedef struct WGPUBindGroupLayoutImpl *WGPUBindGroupLayout;
typedef struct WGPUBindGroupImpl *WGPUBindGroup;
typedef struct WGPUPipelineLayoutImpl *WGPUPipelineLayout;
typedef struct WGPUComputePipelineImpl *WGPUComputePipeline;
typedef struct WGPUCommandEncoderImpl *WGPUCommandEncoder;
typedef struct WGPUCommandBufferImpl *WGPUCommandBuffer;
typedef struct WGPUComputePassEncoderImpl *WGPUComputePassEncoder;
typedef struct WGPUQuerySetImpl *WGPUQuerySet;
typedef struct WGPUSurfaceImpl *WGPUSurface;

typedef uint32_t WGPUBool;
typedef uint64_t WGPUFlags;

#define WGPU_STRLEN SIZE_MAX
#define WGPU_WHOLE_SIZE UINT64_MAX
#define WGPU_QUERY_SET_INDEX_UNDEFINED UINT32_MAX

/* ---- enums (values as this build numbers them) -------------------------------------------- */
typedef enum WGPUSType {
  WGPUSType_ShaderSourceWGSL = 0x00000002,
  WGPUSType_DawnCacheDeviceDescriptor = 0x00050007, /* Dawn's numbering of this build: toggles are 0x0005000A */
  WGPUSType_DawnTogglesDescriptor = 0x0005000A,
  WGPUSType_AdapterPropertiesSubgroupMatrixConfigs = 0x0005003B,
  WGPUSType_Force32 = 0x7FFFFFFF
} WGPUSType;

typedef enum WGPUCallbackMode {
  WGPUCallbackMode_WaitAnyOnly = 1,
  WGPUCallbackMode_AllowProcessEvents = 2,
  WGPUCallbackMode_AllowSpontaneous = 3,
  WGPUCallbackMode_Force32 = 0x7FFFFFFF
} WGPUCallbackMode;

typedef enum WGPUStatus { WGPUStatus_Success = 1, WGPUStatus_Error = 2, WGPUStatus_Force32 = 0x7FFFFFFF } WGPUStatus;

/* Success=1, TimedOut=2; 3 and above mean the wait itself failed (unsupported timeout/count ...). */
typedef enum WGPUWaitStatus {
  WGPUWaitStatus_Success = 1,
  WGPUWaitStatus_TimedOut = 2,
  WGPUWaitStatus_UnsupportedTimeout = 3,
  WGPUWaitStatus_Force32 = 0x7FFFFFFF
} WGPUWaitStatus;

/* Shared by RequestAdapter (3 = Unavailable), RequestDevice, MapAsync (4 = Aborted), QueueWorkDone,
 * PopErrorScope and CompilationInfo: 1 is success everywhere, 2 is callback-cancelled. */
enum { WGPU_ASYNC_SUCCESS = 1, WGPU_ASYNC_CALLBACK_CANCELLED = 2 };
enum { WGPURequestAdapterStatus_Unavailable = 3 };

typedef enum WGPUBackendType {
  WGPUBackendType_Undefined = 0,
  WGPUBackendType_Null = 1,
  WGPUBackendType_WebGPU = 2,
  WGPUBackendType_D3D11 = 3,
  WGPUBackendType_D3D12 = 4,
  WGPUBackendType_Metal = 5,
  WGPUBackendType_Vulkan = 6,
  WGPUBackendType_OpenGL = 7,
  WGPUBackendType_OpenGLES = 8,
  WGPUBackendType_Force32 = 0x7FFFFFFF
} WGPUBackendType;

typedef enum WGPUAdapterType {
  WGPUAdapterType_DiscreteGPU = 1,
  WGPUAdapterType_IntegratedGPU = 2,
  WGPUAdapterType_CPU = 3,
  WGPUAdapterType_Unknown = 4,
  WGPUAdapterType_Force32 = 0x7FFFFFFF
} WGPUAdapterType;

typedef enum WGPUFeatureLevel { WGPUFeatureLevel_Core = 2, WGPUFeatureLevel_Force32 = 0x7FFFFFFF } WGPUFeatureLevel;

typedef enum WGPUPowerPreference {
  WGPUPowerPreference_Undefined = 0,
  WGPUPowerPreference_LowPower = 1,
  WGPUPowerPreference_HighPerformance = 2,
  WGPUPowerPreference_Force32 = 0x7FFFFFFF
} WGPUPowerPreference;

typedef enum WGPUFeatureName {
  WGPUFeatureName_TimestampQuery = 0x3,
  WGPUFeatureName_ShaderF16 = 0xA,
  WGPUFeatureName_Subgroups = 0x11,
  WGPUFeatureName_ChromiumExperimentalSubgroupMatrix = 0x50038,
  WGPUFeatureName_Force32 = 0x7FFFFFFF
} WGPUFeatureName;
/* This build has no subgroup-size-control feature (its feature table ends at 0x5003A, and
 * chromium-experimental-subgroup-size-control came to Dawn later), so wgk never reports it. */

typedef enum WGPUErrorFilter {
  WGPUErrorFilter_Validation = 1,
  WGPUErrorFilter_OutOfMemory = 2,
  WGPUErrorFilter_Internal = 3,
  WGPUErrorFilter_Force32 = 0x7FFFFFFF
} WGPUErrorFilter;

typedef enum WGPUErrorType {
  WGPUErrorType_NoError = 1,
  WGPUErrorType_Validation = 2,
  WGPUErrorType_OutOfMemory = 3,
  WGPUErrorType_Internal = 4,
  WGPUErrorType_Unknown = 5,
  WGPUErrorType_Force32 = 0x7FFFFFFF
} WGPUErrorType;

typedef enum WGPUDeviceLostReason {
  WGPUDeviceLostReason_Unknown = 1,
  WGPUDeviceLostReason_Destroyed = 2,
  WGPUDeviceLostReason_CallbackCancelled = 3,
  WGPUDeviceLostReason_FailedCreation = 4,
  WGPUDeviceLostReason_Force32 = 0x7FFFFFFF
} WGPUDeviceLostReason;

typedef enum WGPUCompilationMessageType {
  WGPUCompilationMessageType_Error = 1,
  WGPUCompilationMessageType_Warning = 2,
  WGPUCompilationMessageType_Info = 3,
  WGPUCompilationMessageType_Force32 = 0x7FFFFFFF
} WGPUCompilationMessageType;

typedef enum WGPULoggingType {
  WGPULoggingType_Verbose = 1,
  WGPULoggingType_Info = 2,
  WGPULoggingType_Warning = 3,
  WGPULoggingType_Error = 4,
  WGPULoggingType_Force32 = 0x7FFFFFFF
} WGPULoggingType;

typedef enum WGPUBufferBindingType {
  WGPUBufferBindingType_BindingNotUsed = 0,
  WGPUBufferBindingType_Uniform = 2,
  WGPUBufferBindingType_Storage = 3,
  WGPUBufferBindingType_ReadOnlyStorage = 4,
  WGPUBufferBindingType_Force32 = 0x7FFFFFFF
} WGPUBufferBindingType;

typedef enum WGPUQueryType { WGPUQueryType_Timestamp = 2, WGPUQueryType_Force32 = 0x7FFFFFFF } WGPUQueryType;

typedef enum WGPUSubgroupMatrixComponentType {
  WGPUSubgroupMatrixComponentType_F32 = 1,
  WGPUSubgroupMatrixComponentType_F16 = 2,
  WGPUSubgroupMatrixComponentType_U32 = 3,
  WGPUSubgroupMatrixComponentType_I32 = 4,
  WGPUSubgroupMatrixComponentType_U8 = 5,
  WGPUSubgroupMatrixComponentType_I8 = 6,
  WGPUSubgroupMatrixComponentType_Force32 = 0x7FFFFFFF
} WGPUSubgroupMatrixComponentType;

typedef WGPUFlags WGPUBufferUsage;
#define WGPUBufferUsage_MapRead ((WGPUBufferUsage)0x1)
#define WGPUBufferUsage_MapWrite ((WGPUBufferUsage)0x2)
#define WGPUBufferUsage_CopySrc ((WGPUBufferUsage)0x4)
#define WGPUBufferUsage_CopyDst ((WGPUBufferUsage)0x8)
#define WGPUBufferUsage_Uniform ((WGPUBufferUsage)0x40)
#define WGPUBufferUsage_Storage ((WGPUBufferUsage)0x80)
#define WGPUBufferUsage_QueryResolve ((WGPUBufferUsage)0x200)
typedef WGPUFlags WGPUMapMode;
#define WGPUMapMode_Read ((WGPUMapMode)0x1)
#define WGPUMapMode_Write ((WGPUMapMode)0x2)
typedef WGPUFlags WGPUShaderStage;
#define WGPUShaderStage_Compute ((WGPUShaderStage)0x4)

/* ---- plain structs ----------------------------------------------------------------------- */
typedef struct WGPUStringView {
  const char *data; /* not NUL-terminated unless length == WGPU_STRLEN */
  size_t length;
} WGPUStringView;

typedef struct WGPUChainedStruct {
  const struct WGPUChainedStruct *next;
  WGPUSType sType;
} WGPUChainedStruct;

typedef struct WGPUChainedStructOut {
  struct WGPUChainedStructOut *next;
  WGPUSType sType;
} WGPUChainedStructOut;

typedef struct WGPUFuture {
  uint64_t id;
} WGPUFuture;

typedef struct WGPUFutureWaitInfo {
  WGPUFuture future;
  WGPUBool completed;
} WGPUFutureWaitInfo;

/* Instance descriptor of this era: capabilities inline (later headers use requiredFeatures). */
typedef struct WGPUInstanceCapabilities {
  WGPUChainedStructOut *nextInChain;
  WGPUBool timedWaitAnyEnable;
  size_t timedWaitAnyMaxCount;
} WGPUInstanceCapabilities;

typedef struct WGPUInstanceDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUInstanceCapabilities capabilities;
} WGPUInstanceDescriptor;

typedef struct WGPUDawnTogglesDescriptor {
  WGPUChainedStruct chain;
  size_t enabledToggleCount;
  const char *const *enabledToggles;
  size_t disabledToggleCount;
  const char *const *disabledToggles;
} WGPUDawnTogglesDescriptor;

/* Dawn's blob cache on the device descriptor (pipeline and compiled-shader blobs): Dawn asks load(key, NULL, 0)
 * for the size, then load(key, buf, size) for the bytes (the size returned; 0 = not cached). */
typedef size_t (*WGPUDawnLoadCacheDataFunction)(const void *key, size_t keySize, void *value, size_t valueSize,
                                                void *userdata);
typedef void (*WGPUDawnStoreCacheDataFunction)(const void *key, size_t keySize, const void *value, size_t valueSize,
                                               void *userdata);
typedef struct WGPUDawnCacheDeviceDescriptor {
  WGPUChainedStruct chain;
  WGPUStringView isolationKey;
  WGPUDawnLoadCacheDataFunction loadDataFunction;
  WGPUDawnStoreCacheDataFunction storeDataFunction;
  void *functionUserdata;
} WGPUDawnCacheDeviceDescriptor;

typedef struct WGPURequestAdapterOptions {
  const WGPUChainedStruct *nextInChain;
  WGPUFeatureLevel featureLevel;
  WGPUPowerPreference powerPreference;
  WGPUBool forceFallbackAdapter;
  WGPUBackendType backendType;
  WGPUSurface compatibleSurface;
} WGPURequestAdapterOptions;

typedef struct WGPUAdapterInfo {
  WGPUChainedStructOut *nextInChain;
  WGPUStringView vendor;
  WGPUStringView architecture;
  WGPUStringView device;
  WGPUStringView description;
  WGPUBackendType backendType;
  WGPUAdapterType adapterType;
  uint32_t vendorID;
  uint32_t deviceID;
  uint32_t subgroupMinSize;
  uint32_t subgroupMaxSize;
} WGPUAdapterInfo;

typedef struct WGPUSubgroupMatrixConfig {
  WGPUSubgroupMatrixComponentType componentType;
  WGPUSubgroupMatrixComponentType resultComponentType;
  uint32_t M, N, K;
} WGPUSubgroupMatrixConfig;

typedef struct WGPUAdapterPropertiesSubgroupMatrixConfigs {
  WGPUChainedStructOut chain;
  size_t configCount;
  const WGPUSubgroupMatrixConfig *configs;
} WGPUAdapterPropertiesSubgroupMatrixConfigs;

typedef struct WGPUSupportedFeatures {
  size_t featureCount;
  const WGPUFeatureName *features;
} WGPUSupportedFeatures;

typedef struct WGPULimits {
  WGPUChainedStructOut *nextInChain;
  uint32_t maxTextureDimension1D;
  uint32_t maxTextureDimension2D;
  uint32_t maxTextureDimension3D;
  uint32_t maxTextureArrayLayers;
  uint32_t maxBindGroups;
  uint32_t maxBindGroupsPlusVertexBuffers;
  uint32_t maxBindingsPerBindGroup;
  uint32_t maxDynamicUniformBuffersPerPipelineLayout;
  uint32_t maxDynamicStorageBuffersPerPipelineLayout;
  uint32_t maxSampledTexturesPerShaderStage;
  uint32_t maxSamplersPerShaderStage;
  uint32_t maxStorageBuffersPerShaderStage;
  uint32_t maxStorageTexturesPerShaderStage;
  uint32_t maxUniformBuffersPerShaderStage;
  uint64_t maxUniformBufferBindingSize;
  uint64_t maxStorageBufferBindingSize;
  uint32_t minUniformBufferOffsetAlignment;
  uint32_t minStorageBufferOffsetAlignment;
  uint32_t maxVertexBuffers;
  uint64_t maxBufferSize;
  uint32_t maxVertexAttributes;
  uint32_t maxVertexBufferArrayStride;
  uint32_t maxInterStageShaderVariables;
  uint32_t maxColorAttachments;
  uint32_t maxColorAttachmentBytesPerSample;
  uint32_t maxComputeWorkgroupStorageSize;
  uint32_t maxComputeInvocationsPerWorkgroup;
  uint32_t maxComputeWorkgroupSizeX;
  uint32_t maxComputeWorkgroupSizeY;
  uint32_t maxComputeWorkgroupSizeZ;
  uint32_t maxComputeWorkgroupsPerDimension;
  uint32_t maxImmediateSize;
  uint32_t maxStorageBuffersInVertexStage;
  uint32_t maxStorageTexturesInVertexStage;
  uint32_t maxStorageBuffersInFragmentStage;
  uint32_t maxStorageTexturesInFragmentStage;
} WGPULimits;

/* ---- callbacks and their info structs ---------------------------------------------------- */
typedef void (*WGPURequestAdapterCallback)(uint32_t status, WGPUAdapter adapter, WGPUStringView message,
                                           void *userdata1, void *userdata2);
typedef void (*WGPURequestDeviceCallback)(uint32_t status, WGPUDevice device, WGPUStringView message, void *userdata1,
                                          void *userdata2);
typedef void (*WGPUDeviceLostCallback)(const WGPUDevice *device, WGPUDeviceLostReason reason, WGPUStringView message,
                                       void *userdata1, void *userdata2);
typedef void (*WGPUUncapturedErrorCallback)(const WGPUDevice *device, WGPUErrorType type, WGPUStringView message,
                                            void *userdata1, void *userdata2);
/* With a message in this build (bun-webgpu's table omits it; a probe shows userdata1 after the view). */
typedef void (*WGPUQueueWorkDoneCallback)(uint32_t status, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUBufferMapCallback)(uint32_t status, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUPopErrorScopeCallback)(uint32_t status, WGPUErrorType type, WGPUStringView message, void *userdata1,
                                          void *userdata2);
struct WGPUCompilationInfo;
typedef void (*WGPUCompilationInfoCallback)(uint32_t status, const struct WGPUCompilationInfo *info, void *userdata1,
                                            void *userdata2);
typedef void (*WGPULoggingCallback)(WGPULoggingType type, WGPUStringView message, void *userdata1, void *userdata2);

/* Every asynchronous call takes this shape, only the callback type differs. */
#define WGK_WGPU_CALLBACK_INFO(Name, Callback) \
  typedef struct Name {                        \
    const WGPUChainedStruct *nextInChain;      \
    WGPUCallbackMode mode;                     \
    Callback callback;                         \
    void *userdata1;                           \
    void *userdata2;                           \
  } Name
WGK_WGPU_CALLBACK_INFO(WGPURequestAdapterCallbackInfo, WGPURequestAdapterCallback);
WGK_WGPU_CALLBACK_INFO(WGPURequestDeviceCallbackInfo, WGPURequestDeviceCallback);
WGK_WGPU_CALLBACK_INFO(WGPUDeviceLostCallbackInfo, WGPUDeviceLostCallback);
WGK_WGPU_CALLBACK_INFO(WGPUQueueWorkDoneCallbackInfo, WGPUQueueWorkDoneCallback);
WGK_WGPU_CALLBACK_INFO(WGPUBufferMapCallbackInfo, WGPUBufferMapCallback);
WGK_WGPU_CALLBACK_INFO(WGPUPopErrorScopeCallbackInfo, WGPUPopErrorScopeCallback);
WGK_WGPU_CALLBACK_INFO(WGPUCompilationInfoCallbackInfo, WGPUCompilationInfoCallback);
#undef WGK_WGPU_CALLBACK_INFO

/* These two have no mode: they are called whenever the event happens. */
typedef struct WGPUUncapturedErrorCallbackInfo {
  const WGPUChainedStruct *nextInChain;
  WGPUUncapturedErrorCallback callback;
  void *userdata1;
  void *userdata2;
} WGPUUncapturedErrorCallbackInfo;

typedef struct WGPULoggingCallbackInfo {
  const WGPUChainedStruct *nextInChain;
  WGPULoggingCallback callback;
  void *userdata1;
  void *userdata2;
} WGPULoggingCallbackInfo;

/* ---- descriptors ------------------------------------------------------------------------- */
typedef struct WGPUQueueDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUQueueDescriptor;

typedef struct WGPUDeviceDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t requiredFeatureCount;
  const WGPUFeatureName *requiredFeatures;
  const WGPULimits *requiredLimits;
  WGPUQueueDescriptor defaultQueue;
  WGPUDeviceLostCallbackInfo deviceLostCallbackInfo;
  WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
} WGPUDeviceDescriptor;

typedef struct WGPUBufferDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUBufferUsage usage;
  uint64_t size;
  WGPUBool mappedAtCreation;
} WGPUBufferDescriptor;

typedef struct WGPUShaderModuleDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUShaderModuleDescriptor;

typedef struct WGPUShaderSourceWGSL {
  WGPUChainedStruct chain;
  WGPUStringView code;
} WGPUShaderSourceWGSL;

typedef struct WGPUCompilationMessage {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView message;
  WGPUCompilationMessageType type;
  uint64_t lineNum; /* 1-based, 0 when unknown */
  uint64_t linePos; /* 1-based byte position in the line */
  uint64_t offset;
  uint64_t length;
} WGPUCompilationMessage;

typedef struct WGPUCompilationInfo {
  const WGPUChainedStruct *nextInChain;
  size_t messageCount;
  const WGPUCompilationMessage *messages;
} WGPUCompilationInfo;

typedef struct WGPUBufferBindingLayout {
  const WGPUChainedStruct *nextInChain;
  WGPUBufferBindingType type;
  WGPUBool hasDynamicOffset;
  uint64_t minBindingSize;
} WGPUBufferBindingLayout;

/* Zeroed, each of these means "binding not used". */
typedef struct WGPUSamplerBindingLayout {
  const WGPUChainedStruct *nextInChain;
  uint32_t type;
} WGPUSamplerBindingLayout;

typedef struct WGPUTextureBindingLayout {
  const WGPUChainedStruct *nextInChain;
  uint32_t sampleType;
  uint32_t viewDimension;
  WGPUBool multisampled;
} WGPUTextureBindingLayout;

typedef struct WGPUStorageTextureBindingLayout {
  const WGPUChainedStruct *nextInChain;
  uint32_t access;
  uint32_t format;
  uint32_t viewDimension;
} WGPUStorageTextureBindingLayout;

typedef struct WGPUBindGroupLayoutEntry {
  const WGPUChainedStruct *nextInChain;
  uint32_t binding;
  WGPUShaderStage visibility;
  uint32_t bindingArraySize; /* 0: not an array */
  WGPUBufferBindingLayout buffer;
  WGPUSamplerBindingLayout sampler;
  WGPUTextureBindingLayout texture;
  WGPUStorageTextureBindingLayout storageTexture;
} WGPUBindGroupLayoutEntry;

typedef struct WGPUBindGroupLayoutDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t entryCount;
  const WGPUBindGroupLayoutEntry *entries;
} WGPUBindGroupLayoutDescriptor;

typedef struct WGPUBindGroupEntry {
  const WGPUChainedStruct *nextInChain;
  uint32_t binding;
  WGPUBuffer buffer;
  uint64_t offset;
  uint64_t size;
  void *sampler;
  void *textureView;
} WGPUBindGroupEntry;

typedef struct WGPUBindGroupDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUBindGroupLayout layout;
  size_t entryCount;
  const WGPUBindGroupEntry *entries;
} WGPUBindGroupDescriptor;

typedef struct WGPUPipelineLayoutDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t bindGroupLayoutCount;
  const WGPUBindGroupLayout *bindGroupLayouts;
  uint32_t immediateSize;
} WGPUPipelineLayoutDescriptor;

typedef struct WGPUComputeState {
  const WGPUChainedStruct *nextInChain;
  WGPUShaderModule module;
  WGPUStringView entryPoint;
  size_t constantCount;
  const void *constants;
} WGPUComputeState;

typedef struct WGPUComputePipelineDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUPipelineLayout layout;
  WGPUComputeState compute;
} WGPUComputePipelineDescriptor;

typedef struct WGPUCommandEncoderDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUCommandEncoderDescriptor;

typedef struct WGPUCommandBufferDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUCommandBufferDescriptor;

typedef struct WGPUPassTimestampWrites {
  const WGPUChainedStruct *nextInChain;
  WGPUQuerySet querySet;
  uint32_t beginningOfPassWriteIndex;
  uint32_t endOfPassWriteIndex;
} WGPUPassTimestampWrites;

typedef struct WGPUComputePassDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  const WGPUPassTimestampWrites *timestampWrites;
} WGPUComputePassDescriptor;

typedef struct WGPUQuerySetDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUQueryType type;
  uint32_t count;
} WGPUQuerySetDescriptor;

/* ---- layout checks ----------------------------------------------------------------------- */
#define WGK_ABI_SIZE(T, n) _Static_assert(sizeof(T) == (n), "size of " #T)
#define WGK_ABI_AT(T, f, n) _Static_assert(offsetof(T, f) == (n), "offset of " #T "." #f)
WGK_ABI_SIZE(WGPUStringView, 16);
WGK_ABI_SIZE(WGPUChainedStruct, 16);
WGK_ABI_SIZE(WGPUFutureWaitInfo, 16);
WGK_ABI_SIZE(WGPUInstanceCapabilities, 24);
WGK_ABI_SIZE(WGPUInstanceDescriptor, 32);
WGK_ABI_SIZE(WGPUDawnTogglesDescriptor, 48);
WGK_ABI_SIZE(WGPURequestAdapterOptions, 32);
WGK_ABI_AT(WGPURequestAdapterOptions, backendType, 20);
WGK_ABI_SIZE(WGPUAdapterInfo, 96);
WGK_ABI_AT(WGPUAdapterInfo, backendType, 72);
WGK_ABI_AT(WGPUAdapterInfo, subgroupMaxSize, 92);
WGK_ABI_SIZE(WGPUSubgroupMatrixConfig, 20);
WGK_ABI_SIZE(WGPUAdapterPropertiesSubgroupMatrixConfigs, 32);
WGK_ABI_SIZE(WGPUSupportedFeatures, 16);
WGK_ABI_AT(WGPULimits, maxUniformBufferBindingSize, 64);
WGK_ABI_AT(WGPULimits, maxBufferSize, 96);
WGK_ABI_AT(WGPULimits, maxComputeWorkgroupsPerDimension, 144);
WGK_ABI_AT(WGPULimits, maxImmediateSize, 148);
WGK_ABI_SIZE(WGPULimits, 168);
WGK_ABI_SIZE(WGPURequestAdapterCallbackInfo, 40);
WGK_ABI_SIZE(WGPUUncapturedErrorCallbackInfo, 32);
WGK_ABI_AT(WGPUDeviceDescriptor, requiredLimits, 40);
WGK_ABI_SIZE(WGPUDawnCacheDeviceDescriptor, 56);
WGK_ABI_AT(WGPUDawnCacheDeviceDescriptor, isolationKey, 16);
WGK_ABI_AT(WGPUDawnCacheDeviceDescriptor, loadDataFunction, 32);
WGK_ABI_AT(WGPUDawnCacheDeviceDescriptor, functionUserdata, 48);
WGK_ABI_AT(WGPUDeviceDescriptor, deviceLostCallbackInfo, 72);
WGK_ABI_AT(WGPUDeviceDescriptor, uncapturedErrorCallbackInfo, 112);
WGK_ABI_SIZE(WGPUDeviceDescriptor, 144);
WGK_ABI_SIZE(WGPUBufferDescriptor, 48);
WGK_ABI_SIZE(WGPUShaderSourceWGSL, 32);
WGK_ABI_AT(WGPUCompilationMessage, lineNum, 32);
WGK_ABI_SIZE(WGPUCompilationMessage, 64);
WGK_ABI_SIZE(WGPUCompilationInfo, 24);
WGK_ABI_SIZE(WGPUBufferBindingLayout, 24);
WGK_ABI_AT(WGPUBindGroupLayoutEntry, visibility, 16);
WGK_ABI_AT(WGPUBindGroupLayoutEntry, buffer, 32);
WGK_ABI_AT(WGPUBindGroupLayoutEntry, storageTexture, 96);
WGK_ABI_SIZE(WGPUBindGroupLayoutEntry, 120);
WGK_ABI_SIZE(WGPUBindGroupLayoutDescriptor, 40);
WGK_ABI_SIZE(WGPUBindGroupEntry, 56);
WGK_ABI_SIZE(WGPUBindGroupDescriptor, 48);
WGK_ABI_SIZE(WGPUPipelineLayoutDescriptor, 48);
WGK_ABI_SIZE(WGPUComputeState, 48);
WGK_ABI_AT(WGPUComputePipelineDescriptor, compute, 32);
WGK_ABI_SIZE(WGPUComputePipelineDescriptor, 80);
WGK_ABI_SIZE(WGPUPassTimestampWrites, 24);
WGK_ABI_SIZE(WGPUComputePassDescriptor, 32);
WGK_ABI_SIZE(WGPUQuerySetDescriptor, 32);
#undef WGK_ABI_SIZE
#undef WGK_ABI_AT

/* ---- functions --------------------------------------------------------------------------- */
WGPUInstance wgpuCreateInstance(const WGPUInstanceDescriptor *descriptor);
WGPUStatus wgpuGetInstanceCapabilities(WGPUInstanceCapabilities *capabilities);
void wgpuInstanceAddRef(WGPUInstance instance);
void wgpuInstanceRelease(WGPUInstance instance);
WGPUFuture wgpuInstanceRequestAdapter(WGPUInstance instance, const WGPURequestAdapterOptions *options,
                                      WGPURequestAdapterCallbackInfo callbackInfo);
WGPUWaitStatus wgpuInstanceWaitAny(WGPUInstance instance, size_t futureCount, WGPUFutureWaitInfo *futures,
                                   uint64_t timeoutNS);
void wgpuInstanceProcessEvents(WGPUInstance instance);

void wgpuAdapterAddRef(WGPUAdapter adapter);
void wgpuAdapterRelease(WGPUAdapter adapter);
WGPUStatus wgpuAdapterGetInfo(WGPUAdapter adapter, WGPUAdapterInfo *info);
void wgpuAdapterInfoFreeMembers(WGPUAdapterInfo info);
void wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers(WGPUAdapterPropertiesSubgroupMatrixConfigs value);
WGPUStatus wgpuAdapterGetLimits(WGPUAdapter adapter, WGPULimits *limits);
void wgpuAdapterGetFeatures(WGPUAdapter adapter, WGPUSupportedFeatures *features);
WGPUBool wgpuAdapterHasFeature(WGPUAdapter adapter, WGPUFeatureName feature);
void wgpuSupportedFeaturesFreeMembers(WGPUSupportedFeatures features);
WGPUFuture wgpuAdapterRequestDevice(WGPUAdapter adapter, const WGPUDeviceDescriptor *descriptor,
                                    WGPURequestDeviceCallbackInfo callbackInfo);
WGPUInstance wgpuAdapterGetInstance(WGPUAdapter adapter);

void wgpuDeviceAddRef(WGPUDevice device);
void wgpuDeviceRelease(WGPUDevice device);
void wgpuDeviceDestroy(WGPUDevice device);
WGPUFuture wgpuDeviceGetLostFuture(WGPUDevice device);
WGPUAdapter wgpuDeviceGetAdapter(WGPUDevice device);
WGPUStatus wgpuDeviceGetAdapterInfo(WGPUDevice device, WGPUAdapterInfo *info);
WGPUStatus wgpuDeviceGetLimits(WGPUDevice device, WGPULimits *limits);
void wgpuDeviceGetFeatures(WGPUDevice device, WGPUSupportedFeatures *features);
WGPUBool wgpuDeviceHasFeature(WGPUDevice device, WGPUFeatureName feature);
WGPUQueue wgpuDeviceGetQueue(WGPUDevice device);
void wgpuDevicePushErrorScope(WGPUDevice device, WGPUErrorFilter filter);
WGPUFuture wgpuDevicePopErrorScope(WGPUDevice device, WGPUPopErrorScopeCallbackInfo callbackInfo);
void wgpuDeviceSetLoggingCallback(WGPUDevice device, WGPULoggingCallbackInfo callbackInfo);
WGPUBuffer wgpuDeviceCreateBuffer(WGPUDevice device, const WGPUBufferDescriptor *descriptor);
WGPUShaderModule wgpuDeviceCreateShaderModule(WGPUDevice device, const WGPUShaderModuleDescriptor *descriptor);
WGPUBindGroupLayout wgpuDeviceCreateBindGroupLayout(WGPUDevice device, const WGPUBindGroupLayoutDescriptor *descriptor);
WGPUBindGroup wgpuDeviceCreateBindGroup(WGPUDevice device, const WGPUBindGroupDescriptor *descriptor);
WGPUPipelineLayout wgpuDeviceCreatePipelineLayout(WGPUDevice device, const WGPUPipelineLayoutDescriptor *descriptor);
WGPUComputePipeline wgpuDeviceCreateComputePipeline(WGPUDevice device, const WGPUComputePipelineDescriptor *descriptor);
WGPUCommandEncoder wgpuDeviceCreateCommandEncoder(WGPUDevice device, const WGPUCommandEncoderDescriptor *descriptor);
WGPUQuerySet wgpuDeviceCreateQuerySet(WGPUDevice device, const WGPUQuerySetDescriptor *descriptor);

void wgpuQueueAddRef(WGPUQueue queue);
void wgpuQueueRelease(WGPUQueue queue);
void wgpuQueueWriteBuffer(WGPUQueue queue, WGPUBuffer buffer, uint64_t bufferOffset, const void *data, size_t size);
void wgpuQueueSubmit(WGPUQueue queue, size_t commandCount, const WGPUCommandBuffer *commands);
WGPUFuture wgpuQueueOnSubmittedWorkDone(WGPUQueue queue, WGPUQueueWorkDoneCallbackInfo callbackInfo);

void wgpuBufferAddRef(WGPUBuffer buffer);
void wgpuBufferRelease(WGPUBuffer buffer);
void wgpuBufferDestroy(WGPUBuffer buffer);
uint64_t wgpuBufferGetSize(WGPUBuffer buffer);
WGPUFuture wgpuBufferMapAsync(WGPUBuffer buffer, WGPUMapMode mode, size_t offset, size_t size,
                              WGPUBufferMapCallbackInfo callbackInfo);
const void *wgpuBufferGetConstMappedRange(WGPUBuffer buffer, size_t offset, size_t size);
void *wgpuBufferGetMappedRange(WGPUBuffer buffer, size_t offset, size_t size);
void wgpuBufferUnmap(WGPUBuffer buffer);

void wgpuShaderModuleRelease(WGPUShaderModule shaderModule);
WGPUFuture wgpuShaderModuleGetCompilationInfo(WGPUShaderModule shaderModule,
                                              WGPUCompilationInfoCallbackInfo callbackInfo);
void wgpuBindGroupLayoutRelease(WGPUBindGroupLayout bindGroupLayout);
void wgpuBindGroupRelease(WGPUBindGroup bindGroup);
void wgpuPipelineLayoutRelease(WGPUPipelineLayout pipelineLayout);
void wgpuComputePipelineRelease(WGPUComputePipeline computePipeline);

WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(WGPUCommandEncoder encoder,
                                                          const WGPUComputePassDescriptor *descriptor);
void wgpuCommandEncoderClearBuffer(WGPUCommandEncoder encoder, WGPUBuffer buffer, uint64_t offset, uint64_t size);
void wgpuCommandEncoderCopyBufferToBuffer(WGPUCommandEncoder encoder, WGPUBuffer source, uint64_t sourceOffset,
                                          WGPUBuffer destination, uint64_t destinationOffset, uint64_t size);
void wgpuCommandEncoderResolveQuerySet(WGPUCommandEncoder encoder, WGPUQuerySet querySet, uint32_t firstQuery,
                                       uint32_t queryCount, WGPUBuffer destination, uint64_t destinationOffset);
WGPUCommandBuffer wgpuCommandEncoderFinish(WGPUCommandEncoder encoder, const WGPUCommandBufferDescriptor *descriptor);
void wgpuCommandEncoderRelease(WGPUCommandEncoder encoder);
void wgpuCommandBufferRelease(WGPUCommandBuffer commandBuffer);

void wgpuComputePassEncoderSetPipeline(WGPUComputePassEncoder pass, WGPUComputePipeline pipeline);
void wgpuComputePassEncoderSetBindGroup(WGPUComputePassEncoder pass, uint32_t groupIndex, WGPUBindGroup group,
                                        size_t dynamicOffsetCount, const uint32_t *dynamicOffsets);
void wgpuComputePassEncoderDispatchWorkgroups(WGPUComputePassEncoder pass, uint32_t x, uint32_t y, uint32_t z);
void wgpuComputePassEncoderEnd(WGPUComputePassEncoder pass);
void wgpuComputePassEncoderRelease(WGPUComputePassEncoder pass);

void wgpuQuerySetDestroy(WGPUQuerySet querySet);
void wgpuQuerySetRelease(WGPUQuerySet querySet);

#endif
