/* Dawn opened on the context's thread, not linked: every WebGPU function wgk calls, reached through one table that
 * gpu_dawn_load fills (src/gpu/dawn.c). Linked, libwebgpu_wrapper.so (and libstdc++ with it) was mapped and
 * relocated before main in every process, ~8 ms of CPU on lavapipe's machine that no check could overlap and that
 * `wgk info` or `wgk explain` never needed; opened by the context's thread, it is part of making the instance and
 * runs beside `wgk run`'s checks. Include this after gpu/gpu.h in the .c files of src/gpu only: it turns each
 * wgpuX(...) call into a call through the table (a test or a caller calling Dawn directly links it and gets the same
 * library). */
#ifndef WGK_GPU_DAWN_H
#define WGK_GPU_DAWN_H

#include "gpu/webgpu_abi.h"
#include "util/error.h"

/* The functions, in one list: X(name) for each. */
#define GPU_DAWN_FUNCTIONS(X)                              \
  X(wgpuAdapterAddRef)                                     \
  X(wgpuAdapterGetFeatures)                                \
  X(wgpuAdapterGetInfo)                                    \
  X(wgpuAdapterGetInstance)                                \
  X(wgpuAdapterGetLimits)                                  \
  X(wgpuAdapterHasFeature)                                 \
  X(wgpuAdapterInfoFreeMembers)                            \
  X(wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers) \
  X(wgpuAdapterRelease)                                    \
  X(wgpuAdapterRequestDevice)                              \
  X(wgpuBindGroupLayoutRelease)                            \
  X(wgpuBindGroupRelease)                                  \
  X(wgpuBufferAddRef)                                      \
  X(wgpuBufferGetConstMappedRange)                         \
  X(wgpuBufferGetMappedRange)                              \
  X(wgpuBufferGetSize)                                     \
  X(wgpuBufferMapAsync)                                    \
  X(wgpuBufferRelease)                                     \
  X(wgpuBufferUnmap)                                       \
  X(wgpuCommandBufferRelease)                              \
  X(wgpuCommandEncoderBeginComputePass)                    \
  X(wgpuCommandEncoderClearBuffer)                         \
  X(wgpuCommandEncoderCopyBufferToBuffer)                  \
  X(wgpuCommandEncoderFinish)                              \
  X(wgpuCommandEncoderRelease)                             \
  X(wgpuCommandEncoderResolveQuerySet)                     \
  X(wgpuComputePassEncoderDispatchWorkgroups)              \
  X(wgpuComputePassEncoderEnd)                             \
  X(wgpuComputePassEncoderRelease)                         \
  X(wgpuComputePassEncoderSetBindGroup)                    \
  X(wgpuComputePassEncoderSetPipeline)                     \
  X(wgpuComputePipelineRelease)                            \
  X(wgpuCreateInstance)                                    \
  X(wgpuDeviceAddRef)                                      \
  X(wgpuDeviceCreateBindGroup)                             \
  X(wgpuDeviceCreateBindGroupLayout)                       \
  X(wgpuDeviceCreateBuffer)                                \
  X(wgpuDeviceCreateCommandEncoder)                        \
  X(wgpuDeviceCreateComputePipeline)                       \
  X(wgpuDeviceCreatePipelineLayout)                        \
  X(wgpuDeviceCreateQuerySet)                              \
  X(wgpuDeviceCreateShaderModule)                          \
  X(wgpuDeviceDestroy)                                     \
  X(wgpuDeviceGetAdapter)                                  \
  X(wgpuDeviceGetAdapterInfo)                              \
  X(wgpuDeviceGetFeatures)                                 \
  X(wgpuDeviceGetLimits)                                   \
  X(wgpuDeviceGetLostFuture)                               \
  X(wgpuDeviceGetQueue)                                    \
  X(wgpuDevicePopErrorScope)                               \
  X(wgpuDevicePushErrorScope)                              \
  X(wgpuDeviceRelease)                                     \
  X(wgpuDeviceSetLoggingCallback)                          \
  X(wgpuInstanceAddRef)                                    \
  X(wgpuInstanceProcessEvents)                             \
  X(wgpuInstanceRelease)                                   \
  X(wgpuInstanceRequestAdapter)                            \
  X(wgpuInstanceWaitAny)                                   \
  X(wgpuPipelineLayoutRelease)                             \
  X(wgpuQuerySetDestroy)                                   \
  X(wgpuQuerySetRelease)                                   \
  X(wgpuQueueOnSubmittedWorkDone)                          \
  X(wgpuQueueRelease)                                      \
  X(wgpuQueueSubmit)                                       \
  X(wgpuQueueWriteBuffer)                                  \
  X(wgpuShaderModuleGetCompilationInfo)                    \
  X(wgpuShaderModuleRelease)                               \
  X(wgpuSupportedFeaturesFreeMembers)

typedef struct gpu_dawn_api {
#define GPU_DAWN_MEMBER(f) __typeof__(f) *f;
  GPU_DAWN_FUNCTIONS(GPU_DAWN_MEMBER)
#undef GPU_DAWN_MEMBER
} gpu_dawn_api;

extern gpu_dawn_api gpu_dawn;

/* Opens Dawn and fills gpu_dawn, once per process (later calls return the first outcome); WGK_ERR_DEVICE and why
 * (no libwebgpu_wrapper.so where the program or libwgk looks: scripts/bootstrap.sh installs it; one of the
 * functions missing: another Dawn build than webgpu_abi.h describes). */
wgk_status gpu_dawn_load(util_error *err);
/* The file Dawn was opened from ("" before gpu_dawn_load succeeded): the pipeline cache is keyed by it. */
const char *gpu_dawn_path(void);

#ifndef GPU_DAWN_NO_REDIRECT
#define wgpuAdapterAddRef (gpu_dawn.wgpuAdapterAddRef)
#define wgpuAdapterGetFeatures (gpu_dawn.wgpuAdapterGetFeatures)
#define wgpuAdapterGetInfo (gpu_dawn.wgpuAdapterGetInfo)
#define wgpuAdapterGetInstance (gpu_dawn.wgpuAdapterGetInstance)
#define wgpuAdapterGetLimits (gpu_dawn.wgpuAdapterGetLimits)
#define wgpuAdapterHasFeature (gpu_dawn.wgpuAdapterHasFeature)
#define wgpuAdapterInfoFreeMembers (gpu_dawn.wgpuAdapterInfoFreeMembers)
#define wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers \
  (gpu_dawn.wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers)
#define wgpuAdapterRelease (gpu_dawn.wgpuAdapterRelease)
#define wgpuAdapterRequestDevice (gpu_dawn.wgpuAdapterRequestDevice)
#define wgpuBindGroupLayoutRelease (gpu_dawn.wgpuBindGroupLayoutRelease)
#define wgpuBindGroupRelease (gpu_dawn.wgpuBindGroupRelease)
#define wgpuBufferAddRef (gpu_dawn.wgpuBufferAddRef)
#define wgpuBufferGetConstMappedRange (gpu_dawn.wgpuBufferGetConstMappedRange)
#define wgpuBufferGetMappedRange (gpu_dawn.wgpuBufferGetMappedRange)
#define wgpuBufferGetSize (gpu_dawn.wgpuBufferGetSize)
#define wgpuBufferMapAsync (gpu_dawn.wgpuBufferMapAsync)
#define wgpuBufferRelease (gpu_dawn.wgpuBufferRelease)
#define wgpuBufferUnmap (gpu_dawn.wgpuBufferUnmap)
#define wgpuCommandBufferRelease (gpu_dawn.wgpuCommandBufferRelease)
#define wgpuCommandEncoderBeginComputePass (gpu_dawn.wgpuCommandEncoderBeginComputePass)
#define wgpuCommandEncoderClearBuffer (gpu_dawn.wgpuCommandEncoderClearBuffer)
#define wgpuCommandEncoderCopyBufferToBuffer (gpu_dawn.wgpuCommandEncoderCopyBufferToBuffer)
#define wgpuCommandEncoderFinish (gpu_dawn.wgpuCommandEncoderFinish)
#define wgpuCommandEncoderRelease (gpu_dawn.wgpuCommandEncoderRelease)
#define wgpuCommandEncoderResolveQuerySet (gpu_dawn.wgpuCommandEncoderResolveQuerySet)
#define wgpuComputePassEncoderDispatchWorkgroups (gpu_dawn.wgpuComputePassEncoderDispatchWorkgroups)
#define wgpuComputePassEncoderEnd (gpu_dawn.wgpuComputePassEncoderEnd)
#define wgpuComputePassEncoderRelease (gpu_dawn.wgpuComputePassEncoderRelease)
#define wgpuComputePassEncoderSetBindGroup (gpu_dawn.wgpuComputePassEncoderSetBindGroup)
#define wgpuComputePassEncoderSetPipeline (gpu_dawn.wgpuComputePassEncoderSetPipeline)
#define wgpuComputePipelineRelease (gpu_dawn.wgpuComputePipelineRelease)
#define wgpuCreateInstance (gpu_dawn.wgpuCreateInstance)
#define wgpuDeviceAddRef (gpu_dawn.wgpuDeviceAddRef)
#define wgpuDeviceCreateBindGroup (gpu_dawn.wgpuDeviceCreateBindGroup)
#define wgpuDeviceCreateBindGroupLayout (gpu_dawn.wgpuDeviceCreateBindGroupLayout)
#define wgpuDeviceCreateBuffer (gpu_dawn.wgpuDeviceCreateBuffer)
#define wgpuDeviceCreateCommandEncoder (gpu_dawn.wgpuDeviceCreateCommandEncoder)
#define wgpuDeviceCreateComputePipeline (gpu_dawn.wgpuDeviceCreateComputePipeline)
#define wgpuDeviceCreatePipelineLayout (gpu_dawn.wgpuDeviceCreatePipelineLayout)
#define wgpuDeviceCreateQuerySet (gpu_dawn.wgpuDeviceCreateQuerySet)
#define wgpuDeviceCreateShaderModule (gpu_dawn.wgpuDeviceCreateShaderModule)
#define wgpuDeviceDestroy (gpu_dawn.wgpuDeviceDestroy)
#define wgpuDeviceGetAdapter (gpu_dawn.wgpuDeviceGetAdapter)
#define wgpuDeviceGetAdapterInfo (gpu_dawn.wgpuDeviceGetAdapterInfo)
#define wgpuDeviceGetFeatures (gpu_dawn.wgpuDeviceGetFeatures)
#define wgpuDeviceGetLimits (gpu_dawn.wgpuDeviceGetLimits)
#define wgpuDeviceGetLostFuture (gpu_dawn.wgpuDeviceGetLostFuture)
#define wgpuDeviceGetQueue (gpu_dawn.wgpuDeviceGetQueue)
#define wgpuDevicePopErrorScope (gpu_dawn.wgpuDevicePopErrorScope)
#define wgpuDevicePushErrorScope (gpu_dawn.wgpuDevicePushErrorScope)
#define wgpuDeviceRelease (gpu_dawn.wgpuDeviceRelease)
#define wgpuDeviceSetLoggingCallback (gpu_dawn.wgpuDeviceSetLoggingCallback)
#define wgpuInstanceAddRef (gpu_dawn.wgpuInstanceAddRef)
#define wgpuInstanceProcessEvents (gpu_dawn.wgpuInstanceProcessEvents)
#define wgpuInstanceRelease (gpu_dawn.wgpuInstanceRelease)
#define wgpuInstanceRequestAdapter (gpu_dawn.wgpuInstanceRequestAdapter)
#define wgpuInstanceWaitAny (gpu_dawn.wgpuInstanceWaitAny)
#define wgpuPipelineLayoutRelease (gpu_dawn.wgpuPipelineLayoutRelease)
#define wgpuQuerySetDestroy (gpu_dawn.wgpuQuerySetDestroy)
#define wgpuQuerySetRelease (gpu_dawn.wgpuQuerySetRelease)
#define wgpuQueueOnSubmittedWorkDone (gpu_dawn.wgpuQueueOnSubmittedWorkDone)
#define wgpuQueueRelease (gpu_dawn.wgpuQueueRelease)
#define wgpuQueueSubmit (gpu_dawn.wgpuQueueSubmit)
#define wgpuQueueWriteBuffer (gpu_dawn.wgpuQueueWriteBuffer)
#define wgpuShaderModuleGetCompilationInfo (gpu_dawn.wgpuShaderModuleGetCompilationInfo)
#define wgpuShaderModuleRelease (gpu_dawn.wgpuShaderModuleRelease)
#define wgpuSupportedFeaturesFreeMembers (gpu_dawn.wgpuSupportedFeaturesFreeMembers)
#endif

#endif
