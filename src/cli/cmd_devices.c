/* `wgk devices [--json]`: every WebGPU adapter with its facts, features and kernel limits. */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/say.h"
#include "gpu/gpu.h"

/* The limits of device_limits, by WebGPU name, for both output forms. */
static const struct {
  const char *name;
  size_t offset;
  bool wide; /* uint64_t, else uint32_t */
} limits_table[] = {
#define L64(f) \
  { #f, offsetof(device_limits, f), true }
#define L32(f) \
  { #f, offsetof(device_limits, f), false }
    L64(maxBufferSize),
    L64(maxStorageBufferBindingSize),
    L64(maxUniformBufferBindingSize),
    L32(maxComputeWorkgroupStorageSize),
    L32(maxComputeInvocationsPerWorkgroup),
    L32(maxComputeWorkgroupSizeX),
    L32(maxComputeWorkgroupSizeY),
    L32(maxComputeWorkgroupSizeZ),
    L32(maxComputeWorkgroupsPerDimension),
    L32(maxStorageBuffersPerShaderStage),
    L32(maxUniformBuffersPerShaderStage),
    L32(maxBindGroups),
    L32(maxBindingsPerBindGroup),
    L32(minStorageBufferOffsetAlignment),
    L32(minUniformBufferOffsetAlignment),
#undef L64
#undef L32
};

static uint64_t limit_value(const device_limits *l, size_t i) {
  const char *base = (const char *)l + limits_table[i].offset;
  if (limits_table[i].wide) {
    uint64_t v;
    memcpy(&v, base, sizeof v);
    return v;
  }
  uint32_t v;
  memcpy(&v, base, sizeof v);
  return v;
}

static void print_text(const device_desc *d, size_t index) {
  printf("adapter %zu: %s\n", index, d->device[0] ? d->device : "(unnamed)");
  printf("  vendor        %s (0x%04x)\n", d->vendor, d->vendorId);
  printf("  architecture  %s\n", d->architecture);
  printf("  description   %s\n", d->description);
  printf("  backend       %s\n", d->backend);
  printf("  type          %s (%s)\n", d->adapterType, strcmp(d->adapterType, "cpu") == 0 ? "CPU" : "GPU");
  printf("  subgroup size %u..%u\n", d->subgroupMinSize, d->subgroupMaxSize);
  printf("  features     ");
  for (int f = 0; f < WGK_FEATURE_COUNT; f++)
    if (device_has(d, (device_feature)f)) printf(" %s", device_feature_name((device_feature)f));
  printf("\n");
  for (uint32_t i = 0; i < d->subgroupMatrixConfigCount; i++) {
    const device_subgroup_matrix_config *c = &d->subgroupMatrixConfigs[i];
    printf("  subgroup matrix %s -> %s %ux%ux%u\n", c->componentType, c->resultComponentType, c->M, c->N, c->K);
  }
  printf("  limits\n");
  for (size_t i = 0; i < sizeof limits_table / sizeof limits_table[0]; i++)
    printf("    %-36s %llu\n", limits_table[i].name, (unsigned long long)limit_value(&d->limits, i));
}

json_t *cli_adapter_json(const device_desc *d, size_t index) {
  json_t *features = json_array(), *limits = json_object(), *configs = json_array();
  for (int f = 0; f < WGK_FEATURE_COUNT; f++)
    if (device_has(d, (device_feature)f))
      json_array_append_new(features, json_string(device_feature_name((device_feature)f)));
  for (size_t i = 0; i < sizeof limits_table / sizeof limits_table[0]; i++)
    json_object_set_new(limits, limits_table[i].name, json_integer((json_int_t)limit_value(&d->limits, i)));
  for (uint32_t i = 0; i < d->subgroupMatrixConfigCount; i++) {
    const device_subgroup_matrix_config *c = &d->subgroupMatrixConfigs[i];
    json_array_append_new(
        configs, json_pack("{s:s, s:s, s:i, s:i, s:i}", "componentType", c->componentType, "resultComponentType",
                           c->resultComponentType, "M", (int)c->M, "N", (int)c->N, "K", (int)c->K));
  }
  return json_pack("{s:I, s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:I, s:I, s:o, s:o, s:o}", "index",
                   (json_int_t)index, "vendor", d->vendor, "vendorId", (json_int_t)d->vendorId, "architecture",
                   d->architecture, "device", d->device, "description", d->description, "backend", d->backend,
                   "adapterType", d->adapterType, "deviceId", (json_int_t)d->deviceId, "isFallbackAdapter",
                   d->isFallbackAdapter, "subgroupMinSize", (json_int_t)d->subgroupMinSize, "subgroupMaxSize",
                   (json_int_t)d->subgroupMaxSize, "features", features, "limits", limits, "subgroupMatrixConfigs",
                   configs);
}

static int print_json(const device_desc *descs, size_t count) {
  json_t *list = json_array();
  for (size_t i = 0; i < count; i++) json_array_append_new(list, cli_adapter_json(&descs[i], i));
  return cli_print_json("devices", json_pack("{s:o}", "adapters", list), 0);
}

int cli_cmd_devices(int argc, char **argv) {
  bool as_json = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      as_json = true;
    } else {
      cli_say("wgk devices: %s '%s' (`wgk help devices`)\n",
              argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
      return 2;
    }
  }
  device_desc *descs = NULL;
  size_t count = 0;
  util_error err = {0};
  if (gpu_list_adapters(&descs, &count, &err) != WGK_OK) {
    char text[WGK_ERROR_MESSAGE_MAX + 64];
    util_error_format(&err, text, sizeof text);
    cli_say("wgk devices: %s\n", text);
    return 1;
  }
  int rc = 0;
  if (as_json)
    rc = print_json(descs, count);
  else
    for (size_t i = 0; i < count; i++) print_text(&descs[i], i);
  free(descs);
  return rc;
}
