/* A device description from JSON ({"features": [...], "limits": {...}, "adapterInfo": {...}}), the shape
 * `wgk devices --json` prints for one adapter, so a real device can be replayed without a GPU. Every key is
 * checked: an unknown key or a value of the wrong type is an error at its file:line:column. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_pos.h"
#include "util/file_read.h"
#include "util/json_type.h"
#include "device/device_desc.h"
#include "device/device_json.h"

/* A device description is a few KiB; 16 MiB bounds what is read. */
#define DEVICE_DESC_MAX_BYTES ((size_t)16 << 20)

#define LIMIT64(name) \
  { #name, offsetof(device_limits, name), 8 }
#define LIMIT32(name) \
  { #name, offsetof(device_limits, name), 4 }
static const struct {
  const char *name;
  size_t offset;
  int size;
} limit_fields[] = {
    LIMIT64(maxStorageBufferBindingSize),
    LIMIT64(maxUniformBufferBindingSize),
    LIMIT64(maxBufferSize),
    LIMIT32(maxComputeWorkgroupStorageSize),
    LIMIT32(maxComputeInvocationsPerWorkgroup),
    LIMIT32(maxComputeWorkgroupSizeX),
    LIMIT32(maxComputeWorkgroupSizeY),
    LIMIT32(maxComputeWorkgroupSizeZ),
    LIMIT32(maxComputeWorkgroupsPerDimension),
    LIMIT32(maxStorageBuffersPerShaderStage),
    LIMIT32(maxUniformBuffersPerShaderStage),
    LIMIT32(maxBindGroups),
    LIMIT32(maxBindingsPerBindGroup),
    LIMIT32(minStorageBufferOffsetAlignment),
    LIMIT32(minUniformBufferOffsetAlignment),
};

/* WebGPU limits wgk does not plan with: accepted (a browser's adapter.limits has them) and ignored. */
static const char *const other_limits[] = {"maxTextureDimension1D",
                                           "maxTextureDimension2D",
                                           "maxTextureDimension3D",
                                           "maxTextureArrayLayers",
                                           "maxBindGroupsPlusVertexBuffers",
                                           "maxDynamicUniformBuffersPerPipelineLayout",
                                           "maxDynamicStorageBuffersPerPipelineLayout",
                                           "maxSampledTexturesPerShaderStage",
                                           "maxSamplersPerShaderStage",
                                           "maxStorageTexturesPerShaderStage",
                                           "maxVertexBuffers",
                                           "maxVertexAttributes",
                                           "maxVertexBufferArrayStride",
                                           "maxInterStageShaderVariables",
                                           "maxInterStageShaderComponents",
                                           "maxColorAttachments",
                                           "maxColorAttachmentBytesPerSample",
                                           "maxStorageBuffersInVertexStage",
                                           "maxStorageBuffersInFragmentStage",
                                           "maxStorageTexturesInVertexStage",
                                           "maxStorageTexturesInFragmentStage",
                                           "maxImmediateSize",
                                           NULL};

typedef struct reader {
  const char *source;            /* file name for messages */
  const util_manifest_jpos *idx; /* positions of the values; NULL when read from a json_t only */
  util_dynbuf path;              /* JSON path of the value being read */
  util_error *err;
} reader;

static size_t push_key(reader *r, const char *key) { return util_manifest_path_push_key(&r->path, key); }

static size_t push_index(reader *r, size_t i) { return util_manifest_path_push_index(&r->path, i); }

static void pop(reader *r, size_t mark) { util_manifest_path_pop(&r->path, mark); }

static wgk_status fail(reader *r, bool at_key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static wgk_status fail(reader *r, bool at_key, const char *fmt, ...) {
  const char *path = util_dynbuf_str(&r->path);
  va_list ap;
  va_start(ap, fmt);
  wgk_status st = util_error_atv(r->err, WGK_ERR_PARSE, util_manifest_jpos_pos(r->idx, r->source, path, at_key),
                                 r->path.len ? path : NULL, fmt, ap);
  va_end(ap);
  return st;
}

static wgk_status expect(reader *r, const json_t *j, bool ok, const char *want) {
  return ok ? WGK_OK : fail(r, false, "must be %s, not %s", want, util_json_type_name(j));
}

/* A non-negative integer no larger than max. */
static wgk_status read_uint(reader *r, const json_t *j, uint64_t max, uint64_t *out) {
  if (!json_is_integer(j) || json_integer_value(j) < 0 || (uint64_t)json_integer_value(j) > max) {
    char shown[64] = "";
    if (json_is_integer(j)) snprintf(shown, sizeof shown, " (%lld)", (long long)json_integer_value(j));
    if (json_is_real(j)) snprintf(shown, sizeof shown, " (%.17g)", json_real_value(j));
    return fail(r, false, "must be an integer in [0, %llu], not %s%s", (unsigned long long)max, util_json_type_name(j),
                shown);
  }
  *out = (uint64_t)json_integer_value(j);
  return WGK_OK;
}

static wgk_status read_string(reader *r, const json_t *j, char *dst, size_t size) {
  wgk_status st = expect(r, j, json_is_string(j), "a string");
  if (st == WGK_OK) snprintf(dst, size, "%s", json_string_value(j));
  return st;
}

static wgk_status read_limits(reader *r, const json_t *limits, device_desc *d) {
  wgk_status st = expect(r, limits, json_is_object(limits), "an object of limit name -> integer");
  const char *key;
  json_t *value;
  if (st == WGK_OK) json_object_foreach((json_t *)limits, key, value) {
      size_t mark = push_key(r, key);
      size_t i = 0, n = sizeof limit_fields / sizeof limit_fields[0];
      while (i < n && strcmp(limit_fields[i].name, key) != 0) i++;
      uint64_t v = 0;
      if (i == n) {
        size_t k = 0;
        while (other_limits[k] && strcmp(other_limits[k], key) != 0) k++;
        st = other_limits[k] ? read_uint(r, value, UINT64_MAX >> 1, &v)
                             : fail(r, true, "unknown limit '%s' (not a WebGPU limit)", key);
      } else {
        st = read_uint(r, value, limit_fields[i].size == 8 ? (UINT64_MAX >> 1) : UINT32_MAX, &v);
        bool alignment = strncmp(key, "min", 3) == 0;
        if (st == WGK_OK && alignment && (v == 0 || (v & (v - 1)) != 0))
          st = fail(r, false, "%s %llu is not a power of two", key, (unsigned long long)v);
        else if (st == WGK_OK && !alignment && v == 0)
          st = fail(r, false, "%s 0 leaves the device unable to run any kernel (a WebGPU device has at least 1)", key);
        char *slot = (char *)&d->limits + limit_fields[i].offset;
        if (st == WGK_OK && limit_fields[i].size == 8)
          memcpy(slot, &v, 8);
        else if (st == WGK_OK) {
          uint32_t w = (uint32_t)v;
          memcpy(slot, &w, 4);
        }
      }
      pop(r, mark);
      if (st != WGK_OK) return st;
    }
  if (d->limits.maxComputeWorkgroupsPerDimension > WGK_DISPATCH_FOLD_WIDTH)
    d->limits.maxComputeWorkgroupsPerDimension = WGK_DISPATCH_FOLD_WIDTH;
  return st;
}

static wgk_status read_features(reader *r, const json_t *features, device_desc *d) {
  wgk_status st = expect(r, features, json_is_array(features), "a list of feature names");
  for (size_t i = 0; st == WGK_OK && i < json_array_size(features); i++) {
    size_t mark = push_index(r, i);
    const json_t *f = json_array_get(features, i);
    st = expect(r, f, json_is_string(f), "a feature name (a string)");
    device_feature feature;
    if (st == WGK_OK && device_feature_from_name(json_string_value(f), &feature)) d->features |= 1u << feature;
    pop(r, mark); /* other WebGPU features are not planned with */
  }
  return st;
}

static wgk_status read_configs(reader *r, const json_t *list, device_desc *d) {
  wgk_status st = expect(r, list, json_is_array(list), "a list of subgroup matrix configurations");
  if (st == WGK_OK && json_array_size(list) > WGK_MAX_SUBGROUP_MATRIX_CONFIGS)
    return fail(r, false, "more than %d subgroup matrix configurations", WGK_MAX_SUBGROUP_MATRIX_CONFIGS);
  for (size_t i = 0; st == WGK_OK && i < json_array_size(list); i++) {
    size_t mark = push_index(r, i);
    const json_t *c = json_array_get(list, i);
    device_subgroup_matrix_config *out = &d->subgroupMatrixConfigs[i];
    st = expect(r, c, json_is_object(c), "an object {componentType, resultComponentType, M, N, K}");
    const char *key;
    json_t *v;
    if (st == WGK_OK) json_object_foreach((json_t *)c, key, v) {
        size_t m2 = push_key(r, key);
        uint64_t u = 0;
        if (strcmp(key, "componentType") == 0)
          st = read_string(r, v, out->componentType, sizeof out->componentType);
        else if (strcmp(key, "resultComponentType") == 0)
          st = read_string(r, v, out->resultComponentType, sizeof out->resultComponentType);
        else if (!strcmp(key, "M") || !strcmp(key, "N") || !strcmp(key, "K")) {
          st = read_uint(r, v, 1024, &u);
          *(key[0] == 'M' ? &out->M : key[0] == 'N' ? &out->N : &out->K) = (uint32_t)u;
        } else
          st = fail(r, true, "unknown key '%s' (known: componentType, resultComponentType, M, N, K)", key);
        pop(r, m2);
        if (st != WGK_OK) break;
      }
    pop(r, mark);
    if (st == WGK_OK) d->subgroupMatrixConfigCount = (uint32_t)i + 1;
  }
  return st;
}

/* adapterInfo keys, also accepted at the top level (`wgk devices --json` puts them there). */
static bool read_info_key(reader *r, const char *key, const json_t *v, device_desc *d, wgk_status *st) {
  uint64_t u = 0;
  if (!strcmp(key, "vendor"))
    *st = read_string(r, v, d->vendor, sizeof d->vendor);
  else if (!strcmp(key, "architecture"))
    *st = read_string(r, v, d->architecture, sizeof d->architecture);
  else if (!strcmp(key, "device"))
    *st = read_string(r, v, d->device, sizeof d->device);
  else if (!strcmp(key, "description"))
    *st = read_string(r, v, d->description, sizeof d->description);
  else if (!strcmp(key, "backend"))
    *st = read_string(r, v, d->backend, sizeof d->backend);
  else if (!strcmp(key, "adapterType"))
    *st = read_string(r, v, d->adapterType, sizeof d->adapterType);
  else if (!strcmp(key, "vendorId")) {
    *st = read_uint(r, v, UINT32_MAX, &u);
    d->vendorId = (uint32_t)u;
  } else if (!strcmp(key, "deviceId")) {
    *st = read_uint(r, v, UINT32_MAX, &u);
    d->deviceId = (uint32_t)u;
  } else if (!strcmp(key, "subgroupMinSize")) {
    *st = read_uint(r, v, 1024, &u);
    d->subgroupMinSize = (uint32_t)u;
  } else if (!strcmp(key, "subgroupMaxSize")) {
    *st = read_uint(r, v, 1024, &u);
    d->subgroupMaxSize = (uint32_t)u;
  } else if (!strcmp(key, "isFallbackAdapter")) {
    *st = expect(r, v, json_is_boolean(v), "a boolean");
    d->isFallbackAdapter = json_is_true(v);
  } else
    return false;
  return true;
}

#define KNOWN_TOP                                                                                         \
  "features, limits, adapterInfo, subgroupMatrixConfigs, index, vendor, vendorId, architecture, device, " \
  "deviceId, description, backend, adapterType, subgroupMinSize, subgroupMaxSize, isFallbackAdapter"

static wgk_status read_adapter(reader *r, const json_t *j, device_desc *d) {
  wgk_status st = expect(r, j, json_is_object(j), "an object (a device description)");
  const char *key;
  json_t *v;
  if (st == WGK_OK) json_object_foreach((json_t *)j, key, v) {
      size_t mark = push_key(r, key);
      uint64_t u = 0;
      if (!strcmp(key, "features"))
        st = read_features(r, v, d);
      else if (!strcmp(key, "limits"))
        st = read_limits(r, v, d);
      else if (!strcmp(key, "subgroupMatrixConfigs"))
        st = read_configs(r, v, d);
      else if (!strcmp(key, "index"))
        st = read_uint(r, v, UINT32_MAX, &u);
      else if (!strcmp(key, "adapterInfo")) {
        st = expect(r, v, json_is_object(v), "an object of adapter facts");
        const char *k2;
        json_t *v2;
        if (st == WGK_OK) json_object_foreach(v, k2, v2) {
            size_t m2 = push_key(r, k2);
            if (!read_info_key(r, k2, v2, d, &st))
              st = fail(r, true,
                        "unknown key '%s' (known: vendor, architecture, device, description, backend, adapterType, "
                        "vendorId, deviceId, subgroupMinSize, subgroupMaxSize, isFallbackAdapter)",
                        k2);
            pop(r, m2);
            if (st != WGK_OK) break;
          }
      } else if (!read_info_key(r, key, v, d, &st)) {
        st = fail(r, true, "unknown key '%s' (known: " KNOWN_TOP ")", key);
      }
      pop(r, mark);
      if (st != WGK_OK) return st;
    }
  if (st == WGK_OK && d->subgroupMinSize > d->subgroupMaxSize && d->subgroupMaxSize != 0)
    st = fail(r, false, "subgroupMinSize %u is larger than subgroupMaxSize %u", d->subgroupMinSize, d->subgroupMaxSize);
  return st;
}

static wgk_status read_root(reader *r, const json_t *j, device_desc *d) {
  if (!json_is_object(j))
    return fail(r, false, "a device description is a JSON object, not %s", util_json_type_name(j));
  const json_t *adapters = json_object_get(j, "adapters"); /* the whole `wgk devices --json`: its first adapter */
  if (!adapters) return read_adapter(r, j, d);
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)j, key, v) {
    if (strcmp(key, "adapters") == 0) continue;
    size_t mark = push_key(r, key);
    wgk_status st = fail(r, true, "unknown key '%s' next to \"adapters\" (known: adapters)", key);
    pop(r, mark);
    return st;
  }
  size_t mark = push_key(r, "adapters");
  wgk_status st = expect(r, adapters, json_is_array(adapters), "a list of adapters");
  if (st == WGK_OK && json_array_size(adapters) == 0) st = fail(r, false, "lists no adapter");
  pop(r, mark);
  if (st != WGK_OK) return st;
  mark = push_key(r, "adapters");
  push_index(r, 0);
  st = read_adapter(r, json_array_get(adapters, 0), d);
  pop(r, mark);
  return st;
}

static wgk_status read_with(const json_t *j, const char *source, const util_manifest_jpos *idx, device_desc *d,
                            util_error *err) {
  device_desc_defaults(d);
  reader r = {.source = source, .idx = idx, .err = err};
  util_dynbuf_init(&r.path, 4096);
  wgk_status st = read_root(&r, j, d);
  util_dynbuf_free(&r.path);
  if (st != WGK_OK) device_desc_defaults(d);
  return st;
}

wgk_status device_desc_from_json(const json_t *j, const char *source, device_desc *d, util_error *err) {
  return read_with(j, source, NULL, d, err);
}

wgk_status device_desc_from_text(const char *text, size_t len, const char *source, device_desc *d, util_error *err) {
  json_error_t jerr;
  json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!j) {
    device_desc_defaults(d);
    return util_error_at(err, WGK_ERR_PARSE, UTIL_POS(source, jerr), NULL, "%s", jerr.text);
  }
  util_manifest_jpos idx = {0};
  wgk_status st = util_manifest_jpos_build(text, len, &idx);
  if (st == WGK_ERR_OUT_OF_MEMORY)
    st = util_error_oom(err, source, NULL);
  else
    st = read_with(j, source, &idx, d, err);
  util_manifest_jpos_free(&idx);
  json_decref(j);
  return st;
}

/* Read through the one file reader: a FIFO or a device is refused, not waited on or read without end. */
wgk_status device_desc_load(const char *path, device_desc *d, util_error *err) {
  device_desc_defaults(d);
  unsigned char *text = NULL;
  size_t len = 0;
  wgk_status st = util_file_read_all(path, DEVICE_DESC_MAX_BYTES, &text, &len, err);
  if (st == WGK_OK) st = device_desc_from_text((const char *)text, len, path, d, err);
  free(text);
  return st;
}
