#include "device/device_desc.h"

#include <stdio.h>
#include <string.h>

static const char *const feature_names[WGK_FEATURE_COUNT] = {
    [WGK_FEATURE_SHADER_F16] = "shader-f16",
    [WGK_FEATURE_SUBGROUPS] = "subgroups",
    [WGK_FEATURE_SUBGROUP_SIZE_CONTROL] = "subgroup-size-control",
    [WGK_FEATURE_SUBGROUP_MATRIX] = "chromium-experimental-subgroup-matrix",
    [WGK_FEATURE_TIMESTAMP_QUERY] = "timestamp-query",
};

const char *device_feature_name(device_feature f) {
  return (unsigned)f < WGK_FEATURE_COUNT ? feature_names[f] : "unknown";
}

bool device_feature_from_name(const char *name, device_feature *out) {
  for (int i = 0; i < WGK_FEATURE_COUNT; i++) {
    if (strcmp(name, feature_names[i]) == 0) {
      *out = (device_feature)i;
      return true;
    }
  }
  static const struct {
    const char *alias;
    device_feature f;
  } aliases[] = {
      {"subgroup-matrix", WGK_FEATURE_SUBGROUP_MATRIX},
      {"chromium-experimental-subgroup-size-control", WGK_FEATURE_SUBGROUP_SIZE_CONTROL},
  };
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
    if (strcmp(name, aliases[i].alias) == 0) {
      *out = aliases[i].f;
      return true;
    }
  }
  return false;
}

wgk_status device_features_parse(const char *list, const char *what, uint32_t *mask, util_error *err) {
  *mask = 0;
  for (const char *p = list; p && *p;) {
    while (*p == ' ' || *p == '\t' || *p == ',') p++;
    const char *end = p;
    while (*end && *end != ',') end++;
    size_t n = (size_t)(end - p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    if (n) {
      char name[64];
      device_feature f;
      if (n >= sizeof name || (memcpy(name, p, n), name[n] = '\0', !device_feature_from_name(name, &f))) {
        *mask = 0;
        return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, NULL, what,
                             "unknown feature \"%.*s\"; expected one of shader-f16, subgroups, subgroup-size-control, "
                             "chromium-experimental-subgroup-matrix, timestamp-query",
                             (int)(n > 64 ? 64 : n), p);
      }
      *mask |= 1u << (unsigned)f;
    }
    p = end;
  }
  return WGK_OK;
}

void device_desc_defaults(device_desc *d) {
  memset(d, 0, sizeof *d);
  d->limits = (device_limits){
      .maxStorageBufferBindingSize = 134217728,
      .maxUniformBufferBindingSize = 65536,
      .maxBufferSize = 268435456,
      .maxComputeWorkgroupStorageSize = 16384,
      .maxComputeInvocationsPerWorkgroup = 256,
      .maxComputeWorkgroupSizeX = 256,
      .maxComputeWorkgroupSizeY = 256,
      .maxComputeWorkgroupSizeZ = 64,
      .maxComputeWorkgroupsPerDimension = WGK_DISPATCH_FOLD_WIDTH,
      .maxStorageBuffersPerShaderStage = 8,
      .maxUniformBuffersPerShaderStage = 12,
      .maxBindGroups = 4,
      .maxBindingsPerBindGroup = 1000,
      .minStorageBufferOffsetAlignment = 256,
      .minUniformBufferOffsetAlignment = 256,
  };
  strcpy(d->backend, "null");
  strcpy(d->adapterType, "unknown");
}
