/*
 * A description of a WebGPU device, as planning needs it: features, limits and adapter facts.
 * The GPU layer fills one from a real adapter; tests and `wgk explain --device FILE.json` build one
 * by hand, so planning never needs a GPU.
 */
#ifndef WGK_DEVICE_DEVICE_DESC_H
#define WGK_DEVICE_DEVICE_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* The most workgroups per dimension wgk plans with: larger dispatches fold into x = min(N, this),
 * y = ceilDiv(N, this), and a device's maxComputeWorkgroupsPerDimension is clamped to it. Templates see it
 * as DISPATCH_FOLD_WIDTH. */
#define WGK_DISPATCH_FOLD_WIDTH 65535u

/* The features wgk knows by name (WebGPU spelling). Bit i of device_desc.features is feature i. */
typedef enum device_feature {
  WGK_FEATURE_SHADER_F16 = 0,        /* "shader-f16" */
  WGK_FEATURE_SUBGROUPS,             /* "subgroups" */
  WGK_FEATURE_SUBGROUP_SIZE_CONTROL, /* "subgroup-size-control" (Dawn: chromium-experimental-subgroup-size-control) */
  WGK_FEATURE_SUBGROUP_MATRIX,       /* "chromium-experimental-subgroup-matrix" */
  WGK_FEATURE_TIMESTAMP_QUERY,       /* "timestamp-query" */
  WGK_FEATURE_COUNT
} device_feature;

/* The limits that matter for compute kernels, WebGPU names. */
typedef struct device_limits {
  uint64_t maxStorageBufferBindingSize;
  uint64_t maxUniformBufferBindingSize;
  uint64_t maxBufferSize;
  uint32_t maxComputeWorkgroupStorageSize;
  uint32_t maxComputeInvocationsPerWorkgroup;
  uint32_t maxComputeWorkgroupSizeX;
  uint32_t maxComputeWorkgroupSizeY;
  uint32_t maxComputeWorkgroupSizeZ;
  uint32_t maxComputeWorkgroupsPerDimension; /* clamped to WGK_DISPATCH_FOLD_WIDTH for planning */
  uint32_t maxStorageBuffersPerShaderStage;
  uint32_t maxUniformBuffersPerShaderStage;
  uint32_t maxBindGroups;
  uint32_t maxBindingsPerBindGroup;
  uint32_t minStorageBufferOffsetAlignment;
  uint32_t minUniformBufferOffsetAlignment;
} device_limits;

typedef struct device_subgroup_matrix_config {
  char componentType[8]; /* "f16", "f32", "i8", "u8", "i32", "u32" */
  char resultComponentType[8];
  uint32_t M, N, K;
} device_subgroup_matrix_config;

#define WGK_MAX_SUBGROUP_MATRIX_CONFIGS 16

typedef struct device_desc {
  uint32_t features; /* bit set of device_feature */
  device_limits limits;
  char vendor[64]; /* adapter info */
  char architecture[64];
  char device[128];
  char description[256];
  char backend[16];     /* "vulkan", "null" ... */
  char adapterType[16]; /* "discrete-gpu", "integrated-gpu", "cpu", "unknown" */
  uint32_t vendorId, deviceId;
  uint32_t subgroupMinSize, subgroupMaxSize;
  bool isFallbackAdapter;
  uint32_t subgroupMatrixConfigCount;
  device_subgroup_matrix_config subgroupMatrixConfigs[WGK_MAX_SUBGROUP_MATRIX_CONFIGS];
  /* A caller's WGPUDevice (wgk_context_options.wgpu_device): a feature its adapter has but the device lacks was
   * left out when the caller created it, and errors say so (else they blame the adapter). */
  bool callerDevice;
  uint32_t adapterFeatures; /* bit set of device_feature: what the device's adapter offers */
} device_desc;

/* Feature name <-> enum. Names accepted: the WebGPU name and Dawn's alias ("subgroup-matrix" too). */
const char *device_feature_name(device_feature f);
bool device_feature_from_name(const char *name, device_feature *out);

/* The features a comma list names ("shader-f16,subgroups"; blanks around names and empty items ignored), as a
 * bit set in *mask. An unknown name: WGK_ERR_INVALID_ARGUMENT in err at path `what` (the option or environment
 * variable that gave the list), naming it and the names known, *mask 0. NULL list: 0. */
wgk_status device_features_parse(const char *list, const char *what, uint32_t *mask, util_error *err);

/* The environment variable that hides device features from wgk (WGK_DISABLE_FEATURES=shader-f16,...): they are
 * neither requested from the adapter nor seen by planning (f16Ok, device.features), explain or test `requires`. */
#define WGK_DISABLE_FEATURES_ENV "WGK_DISABLE_FEATURES"

/* The WebGPU spec's default limits (what a device without a description gets). */
void device_desc_defaults(device_desc *desc);

static inline bool device_has(const device_desc *d, device_feature f) { return (d->features >> (unsigned)f) & 1u; }

#endif
