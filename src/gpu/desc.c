/* Turning what Dawn says about an adapter or device into a device_desc (the planner's view). */
#include "gpu/gpu_internal.h"
#include "gpu/dawn.h"

#include <stdio.h>
#include <string.h>

WGPUFeatureName gpu_feature_code(device_feature f) {
  switch (f) {
  case WGK_FEATURE_SHADER_F16:
    return WGPUFeatureName_ShaderF16;
  case WGK_FEATURE_SUBGROUPS:
    return WGPUFeatureName_Subgroups;
  case WGK_FEATURE_SUBGROUP_SIZE_CONTROL:
    return (WGPUFeatureName)0; /* not in this Dawn */
  case WGK_FEATURE_SUBGROUP_MATRIX:
    return WGPUFeatureName_ChromiumExperimentalSubgroupMatrix;
  case WGK_FEATURE_TIMESTAMP_QUERY:
    return WGPUFeatureName_TimestampQuery;
  case WGK_FEATURE_COUNT:
    break;
  }
  return (WGPUFeatureName)0;
}

static const char *backend_name(WGPUBackendType b) {
  switch (b) {
  case WGPUBackendType_Null:
    return "null";
  case WGPUBackendType_WebGPU:
    return "webgpu";
  case WGPUBackendType_D3D11:
    return "d3d11";
  case WGPUBackendType_D3D12:
    return "d3d12";
  case WGPUBackendType_Metal:
    return "metal";
  case WGPUBackendType_Vulkan:
    return "vulkan";
  case WGPUBackendType_OpenGL:
    return "opengl";
  case WGPUBackendType_OpenGLES:
    return "opengles";
  default:
    return "unknown";
  }
}

static const char *adapter_type_name(WGPUAdapterType t) {
  switch (t) {
  case WGPUAdapterType_DiscreteGPU:
    return "discrete-gpu";
  case WGPUAdapterType_IntegratedGPU:
    return "integrated-gpu";
  case WGPUAdapterType_CPU:
    return "cpu";
  default:
    return "unknown";
  }
}

void gpu_desc_from_info(device_desc *d, const WGPUAdapterInfo *info) {
  gpu_sv_copy(d->vendor, sizeof d->vendor, info->vendor);
  gpu_sv_copy(d->architecture, sizeof d->architecture, info->architecture);
  gpu_sv_copy(d->device, sizeof d->device, info->device);
  gpu_sv_copy(d->description, sizeof d->description, info->description);
  snprintf(d->backend, sizeof d->backend, "%s", backend_name(info->backendType));
  snprintf(d->adapterType, sizeof d->adapterType, "%s", adapter_type_name(info->adapterType));
  d->vendorId = info->vendorID;
  d->deviceId = info->deviceID;
  d->subgroupMinSize = info->subgroupMinSize;
  d->subgroupMaxSize = info->subgroupMaxSize;
  d->isFallbackAdapter = info->adapterType == WGPUAdapterType_CPU;
}

void gpu_limits_init(WGPULimits *l) {
  memset(l, 0xFF, sizeof *l); /* UINT32_MAX / UINT64_MAX: the "undefined" limit */
  l->nextInChain = NULL;
}

static uint32_t u32_or(uint32_t v, uint32_t fallback) { return v == UINT32_MAX ? fallback : v; }

void gpu_desc_from_limits(device_desc *d, const WGPULimits *l) {
  device_limits *o = &d->limits;
  o->maxStorageBufferBindingSize = l->maxStorageBufferBindingSize;
  o->maxUniformBufferBindingSize = l->maxUniformBufferBindingSize;
  o->maxBufferSize = l->maxBufferSize;
  o->maxComputeWorkgroupStorageSize = l->maxComputeWorkgroupStorageSize;
  o->maxComputeInvocationsPerWorkgroup = l->maxComputeInvocationsPerWorkgroup;
  o->maxComputeWorkgroupSizeX = l->maxComputeWorkgroupSizeX;
  o->maxComputeWorkgroupSizeY = l->maxComputeWorkgroupSizeY;
  o->maxComputeWorkgroupSizeZ = l->maxComputeWorkgroupSizeZ;
  o->maxComputeWorkgroupsPerDimension = u32_or(l->maxComputeWorkgroupsPerDimension, WGK_DISPATCH_FOLD_WIDTH);
  o->maxStorageBuffersPerShaderStage = l->maxStorageBuffersPerShaderStage;
  o->maxUniformBuffersPerShaderStage = l->maxUniformBuffersPerShaderStage;
  o->maxBindGroups = l->maxBindGroups;
  o->maxBindingsPerBindGroup = l->maxBindingsPerBindGroup;
  o->minStorageBufferOffsetAlignment = l->minStorageBufferOffsetAlignment;
  o->minUniformBufferOffsetAlignment = l->minUniformBufferOffsetAlignment;
}

void gpu_desc_from_features(device_desc *d, const WGPUSupportedFeatures *features) {
  d->features = 0;
  for (int f = 0; f < WGK_FEATURE_COUNT; f++) {
    WGPUFeatureName code = gpu_feature_code((device_feature)f);
    for (size_t i = 0; code && i < features->featureCount; i++)
      if (features->features[i] == code) d->features |= 1u << f;
  }
}

static const char *component_name(WGPUSubgroupMatrixComponentType t) {
  switch (t) {
  case WGPUSubgroupMatrixComponentType_F32:
    return "f32";
  case WGPUSubgroupMatrixComponentType_F16:
    return "f16";
  case WGPUSubgroupMatrixComponentType_U32:
    return "u32";
  case WGPUSubgroupMatrixComponentType_I32:
    return "i32";
  case WGPUSubgroupMatrixComponentType_U8:
    return "u8";
  case WGPUSubgroupMatrixComponentType_I8:
    return "i8";
  default:
    return "?";
  }
}

static void desc_matrix_configs(device_desc *d, const WGPUAdapterPropertiesSubgroupMatrixConfigs *m) {
  size_t n = m->configCount < WGK_MAX_SUBGROUP_MATRIX_CONFIGS ? m->configCount : WGK_MAX_SUBGROUP_MATRIX_CONFIGS;
  for (size_t i = 0; i < n; i++) {
    device_subgroup_matrix_config *c = &d->subgroupMatrixConfigs[i];
    snprintf(c->componentType, sizeof c->componentType, "%s", component_name(m->configs[i].componentType));
    snprintf(c->resultComponentType, sizeof c->resultComponentType, "%s",
             component_name(m->configs[i].resultComponentType));
    c->M = m->configs[i].M;
    c->N = m->configs[i].N;
    c->K = m->configs[i].K;
  }
  d->subgroupMatrixConfigCount = (uint32_t)n;
}

void gpu_desc_from_adapter(device_desc *d, WGPUAdapter adapter) {
  device_desc_defaults(d);
  WGPUSupportedFeatures features = {0};
  wgpuAdapterGetFeatures(adapter, &features);
  gpu_desc_from_features(d, &features);
  wgpuSupportedFeaturesFreeMembers(features);

  /* The matrix configurations ride on GetInfo, which fails when asked for them without the feature. */
  WGPUAdapterPropertiesSubgroupMatrixConfigs matrix = {
      {NULL, WGPUSType_AdapterPropertiesSubgroupMatrixConfigs}, 0, NULL};
  WGPUAdapterInfo info = {0};
  bool with_matrix = device_has(d, WGK_FEATURE_SUBGROUP_MATRIX);
  if (with_matrix) info.nextInChain = &matrix.chain;
  if (wgpuAdapterGetInfo(adapter, &info) == WGPUStatus_Success) {
    gpu_desc_from_info(d, &info);
    if (with_matrix) desc_matrix_configs(d, &matrix);
    wgpuAdapterInfoFreeMembers(info);
    if (with_matrix) wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers(matrix);
  }
  WGPULimits limits;
  gpu_limits_init(&limits);
  if (wgpuAdapterGetLimits(adapter, &limits) == WGPUStatus_Success) gpu_desc_from_limits(d, &limits);
}
