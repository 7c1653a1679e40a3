/* A device description from JSON ({"features": [...], "limits": {...}, "adapterInfo": {...}}), the shape
 * `wgk devices --json` prints for one adapter, so a real device can be replayed without a GPU. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "device/device_desc.h"
#include "device/device_json.h"

#define LIMIT64(name) {#name, offsetof(wgk_device_limits, name), 8}
#define LIMIT32(name) {#name, offsetof(wgk_device_limits, name), 4}
static const struct { const char *name; size_t offset; int size; } limit_fields[] = {
    LIMIT64(maxStorageBufferBindingSize), LIMIT64(maxUniformBufferBindingSize), LIMIT64(maxBufferSize),
    LIMIT32(maxComputeWorkgroupStorageSize), LIMIT32(maxComputeInvocationsPerWorkgroup), LIMIT32(maxComputeWorkgroupSizeX),
    LIMIT32(maxComputeWorkgroupSizeY), LIMIT32(maxComputeWorkgroupSizeZ), LIMIT32(maxComputeWorkgroupsPerDimension),
    LIMIT32(maxStorageBuffersPerShaderStage), LIMIT32(maxUniformBuffersPerShaderStage), LIMIT32(maxBindGroups),
    LIMIT32(maxBindingsPerBindGroup), LIMIT32(minStorageBufferOffsetAlignment), LIMIT32(minUniformBufferOffsetAlignment),
};

static void copy_string(const json_t *obj, const char *key, char *dst, size_t size) {
  const char *s = json_string_value(json_object_get(obj, key));
  if (s) snprintf(dst, size, "%s", s);
}

static wgk_status read_limits(const json_t *limits, const char *source, wgk_device_desc *d, wgk_error *err) {
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)limits, key, value) {
    size_t i = 0;
    while (i < sizeof limit_fields / sizeof limit_fields[0] && strcmp(limit_fields[i].name, key) != 0) i++;
    if (i == sizeof limit_fields / sizeof limit_fields[0]) continue; /* limits wgk does not plan with */
    if (!json_is_integer(value) || json_integer_value(value) < 0)
      return wgk_error_set(err, WGK_ERR_PARSE, source, 0, 0, "limits", "limit %s must be a non-negative integer", key);
    char *slot = (char *)&d->limits + limit_fields[i].offset;
    uint64_t v = (uint64_t)json_integer_value(value);
    if (limit_fields[i].size == 8) memcpy(slot, &v, 8);
    else { uint32_t w = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; memcpy(slot, &w, 4); }
  }
  if (d->limits.maxComputeWorkgroupsPerDimension > WGK_DISPATCH_FOLD_WIDTH)
    d->limits.maxComputeWorkgroupsPerDimension = WGK_DISPATCH_FOLD_WIDTH;
  return WGK_OK;
}

wgk_status wgk_device_desc_from_json(const json_t *j, const char *source, wgk_device_desc *d, wgk_error *err) {
  wgk_device_desc_defaults(d);
  if (!json_is_object(j)) return wgk_error_set(err, WGK_ERR_PARSE, source, 0, 0, NULL, "a device description is a JSON object");
  const json_t *adapters = json_object_get(j, "adapters"); /* the whole `wgk devices --json`: its first adapter */
  if (json_is_array(adapters) && json_array_size(adapters) > 0) j = json_array_get(adapters, 0);
  const json_t *features = json_object_get(j, "features");
  if (features && !json_is_array(features))
    return wgk_error_set(err, WGK_ERR_PARSE, source, 0, 0, "features", "features must be a list of names");
  for (size_t i = 0; features && i < json_array_size(features); i++) {
    const char *name = json_string_value(json_array_get(features, i));
    wgk_feature f;
    if (name && wgk_feature_from_name(name, &f)) d->features |= 1u << f;
  }
  const json_t *limits = json_object_get(j, "limits");
  if (limits && json_is_object(limits) && read_limits(limits, source, d, err) != WGK_OK) return err->status;
  const json_t *info = json_object_get(j, "adapterInfo");
  if (!info) info = j; /* `wgk devices --json` puts adapter facts at the top level */
  copy_string(info, "vendor", d->vendor, sizeof d->vendor);
  copy_string(info, "architecture", d->architecture, sizeof d->architecture);
  copy_string(info, "device", d->device, sizeof d->device);
  copy_string(info, "description", d->description, sizeof d->description);
  copy_string(info, "backend", d->backend, sizeof d->backend);
  copy_string(info, "adapterType", d->adapterType, sizeof d->adapterType);
  const json_t *v;
  if ((v = json_object_get(info, "subgroupMinSize")) && json_is_integer(v)) d->subgroupMinSize = (uint32_t)json_integer_value(v);
  if ((v = json_object_get(info, "subgroupMaxSize")) && json_is_integer(v)) d->subgroupMaxSize = (uint32_t)json_integer_value(v);
  if ((v = json_object_get(info, "isFallbackAdapter")) && json_is_boolean(v)) d->isFallbackAdapter = json_is_true(v);
  return WGK_OK;
}

wgk_status wgk_device_desc_load(const char *path, wgk_device_desc *d, wgk_error *err) {
  json_error_t jerr;
  json_t *j = json_load_file(path, 0, &jerr);
  if (!j) return wgk_error_set(err, WGK_ERR_PARSE, path, jerr.line, jerr.column, NULL, "%s", jerr.text);
  wgk_status st = wgk_device_desc_from_json(j, path, d, err);
  json_decref(j);
  return st;
}
