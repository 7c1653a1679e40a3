/* JSON <-> values (jansson), and the `device` scope entry. */
#include "expr/value_int.h"
#include "device/device_desc.h"
#include "device/device_json.h"

#include <jansson.h>
#include <math.h>
#include <ctype.h>
#include <string.h>

#define WGK_JSON_MAX_DEPTH 100 /* nesting of JSON turned into values */

static expr_value *from_json(const json_t *j, int depth, util_error *err);

/* A JSON array as a list; NULL with err set (an item's error, or out of memory). */
static expr_value *list_from_json(const json_t *j, int depth, util_error *err) {
  expr_value *v = expr_value_list();
  for (size_t i = 0; v && i < json_array_size(j); i++) {
    expr_value *item = from_json(json_array_get(j, i), depth + 1, err);
    if (!item) {
      expr_value_release(v);
      return NULL;
    }
    if (!expr_value_list_append(v, item)) {
      expr_value_release(v);
      v = NULL;
    }
  }
  if (!v) util_error_oom(err, NULL, NULL);
  return v;
}

/* A JSON object as a dict, keys in the object's order; NULL with err set. */
static expr_value *dict_from_json(const json_t *j, int depth, util_error *err) {
  expr_value *v = expr_value_dict();
  const char *key;
  json_t *item_j;
  json_object_foreach((json_t *)j, key, item_j) {
    if (!v) break;
    expr_value *item = from_json(item_j, depth + 1, err);
    if (!item) {
      expr_value_release(v);
      return NULL;
    }
    if (!expr_value_dict_set(v, key, item)) {
      expr_value_release(v);
      v = NULL;
    }
  }
  if (!v) util_error_oom(err, NULL, NULL);
  return v;
}

static expr_value *from_json(const json_t *j, int depth, util_error *err) {
  if (depth > WGK_JSON_MAX_DEPTH) {
    util_error_plain(err, WGK_ERR_LIMIT, "JSON nested too deeply (limit is %d)", WGK_JSON_MAX_DEPTH);
    return NULL;
  }
  expr_value *v = NULL;
  switch (json_typeof(j)) {
  case JSON_NULL:
    return expr_value_none();
  case JSON_TRUE:
    return expr_value_bool(true);
  case JSON_FALSE:
    return expr_value_bool(false);
  case JSON_INTEGER: {
    json_int_t i = json_integer_value(j);
    if (!expr_value_int_ok((int64_t)i)) { /* through a double, 2^53+1 would round to 2^53 and pass */
      util_error_plain(err, WGK_ERR_EVAL, "integer overflow past 2^53: %lld", (long long)i);
      return NULL;
    }
    return expr_int_checked((double)i, err);
  }
  case JSON_REAL: {
    double d = json_real_value(j);
    /* The oracle gets plain JS numbers: whole ones become integers. */
    if (d == floor(d) && fabs(d) <= (double)WGK_INT_EXACT_MAX) return expr_value_int((int64_t)d);
    v = expr_value_float(d);
    break;
  }
  case JSON_STRING:
    v = expr_value_string_n(json_string_value(j), json_string_length(j));
    break;
  case JSON_ARRAY:
    return list_from_json(j, depth, err);
  case JSON_OBJECT:
    return dict_from_json(j, depth, err);
  }
  if (!v) util_error_oom(err, NULL, NULL);
  return v;
}

expr_value *expr_value_from_json(const json_t *json, util_error *err) {
  if (!json) return expr_value_none();
  return from_json(json, 0, err);
}

json_t *expr_value_to_json(const expr_value *v) {
  switch (expr_value_kind_of(v)) {
  case WGK_VALUE_BOOL:
    return json_boolean(v->u.b);
  case WGK_VALUE_INT:
    return json_integer(v->u.i);
  case WGK_VALUE_FLOAT:
    return isfinite(v->u.d) ? json_real(v->u.d) : json_null();
  case WGK_VALUE_STRING:
    return json_stringn(v->u.str.s, v->u.str.len);
  case WGK_VALUE_LIST: {
    json_t *a = json_array();
    for (size_t i = 0; a && i < v->u.list.len; i++)
      if (json_array_append_new(a, expr_value_to_json(v->u.list.items[i])) != 0) {
        json_decref(a);
        a = NULL;
      }
    return a;
  }
  case WGK_VALUE_DICT: {
    json_t *o = json_object();
    for (size_t i = 0; o && i < v->u.dict.len; i++)
      if (json_object_set_new(o, v->u.dict.keys[i], expr_value_to_json(v->u.dict.vals[i])) != 0) {
        json_decref(o);
        o = NULL;
      }
    return o;
  }
  default:
    return json_null();
  }
}

expr_value *expr_value_name_set(const char *const *names, size_t count) {
  expr_value *v = expr_value_list();
  if (!v) return NULL;
  v->is_set = true;
  for (size_t i = 0; i < count; i++)
    if (!expr_value_list_append(v, expr_value_string(names[i]))) {
      expr_value_release(v);
      return NULL;
    }
  return v;
}

static bool set_int(expr_value *d, const char *k, int64_t x) { return expr_value_dict_set(d, k, expr_value_int(x)); }

/* Every WebGPU limit with the spec's default (the public loader's table): device.limits has all of them,
 * the device's own values over these. */
static const struct {
  const char *name;
  int64_t value;
} limit_defaults[] = {{"maxTextureDimension1D", 8192},
                      {"maxTextureDimension2D", 8192},
                      {"maxTextureDimension3D", 2048},
                      {"maxTextureArrayLayers", 256},
                      {"maxBindGroups", 4},
                      {"maxBindGroupsPlusVertexBuffers", 24},
                      {"maxBindingsPerBindGroup", 1000},
                      {"maxDynamicUniformBuffersPerPipelineLayout", 8},
                      {"maxDynamicStorageBuffersPerPipelineLayout", 4},
                      {"maxSampledTexturesPerShaderStage", 16},
                      {"maxSamplersPerShaderStage", 16},
                      {"maxStorageBuffersPerShaderStage", 10},
                      {"maxStorageTexturesPerShaderStage", 4},
                      {"maxUniformBuffersPerShaderStage", 12},
                      {"maxUniformBufferBindingSize", 65536},
                      {"maxStorageBufferBindingSize", 134217728},
                      {"minUniformBufferOffsetAlignment", 256},
                      {"minStorageBufferOffsetAlignment", 256},
                      {"maxVertexBuffers", 8},
                      {"maxBufferSize", 268435456},
                      {"maxVertexAttributes", 16},
                      {"maxVertexBufferArrayStride", 2048},
                      {"maxInterStageShaderVariables", 16},
                      {"maxColorAttachments", 8},
                      {"maxColorAttachmentBytesPerSample", 32},
                      {"maxComputeInvocationsPerWorkgroup", 256},
                      {"maxComputeWorkgroupSizeX", 256},
                      {"maxComputeWorkgroupSizeY", 256},
                      {"maxComputeWorkgroupSizeZ", 64},
                      {"maxComputeWorkgroupStorageSize", 16384},
                      {"maxComputeWorkgroupsPerDimension", 65535},
                      {"maxImmediateSize", 0}};

/* The limits the device description models (src/device/device_desc.h): the reader's values; any other limit a
 * device file gives replaces the spec default. */
static bool limit_modelled(const char *name) {
  static const char *const modelled[] = {
      "maxStorageBufferBindingSize",     "maxUniformBufferBindingSize",       "maxBufferSize",
      "maxComputeWorkgroupStorageSize",  "maxComputeInvocationsPerWorkgroup", "maxComputeWorkgroupSizeX",
      "maxComputeWorkgroupSizeY",        "maxComputeWorkgroupSizeZ",          "maxComputeWorkgroupsPerDimension",
      "maxStorageBuffersPerShaderStage", "maxUniformBuffersPerShaderStage",   "maxBindGroups",
      "maxBindingsPerBindGroup",         "minStorageBufferOffsetAlignment",   "minUniformBufferOffsetAlignment"};
  for (size_t i = 0; i < sizeof modelled / sizeof modelled[0]; i++)
    if (strcmp(modelled[i], name) == 0) return true;
  return false;
}

static expr_value *limits_value(const device_limits *l) {
  expr_value *d = expr_value_dict();
  bool ok = d != NULL;
  for (size_t i = 0; ok && i < sizeof limit_defaults / sizeof limit_defaults[0]; i++)
    ok = expr_value_dict_set(d, limit_defaults[i].name, expr_value_int(limit_defaults[i].value));
#define LIMIT(name) ok = ok && set_int(d, #name, (int64_t)l->name)
  LIMIT(maxStorageBufferBindingSize);
  LIMIT(maxUniformBufferBindingSize);
  LIMIT(maxBufferSize);
  LIMIT(maxComputeWorkgroupStorageSize);
  LIMIT(maxComputeInvocationsPerWorkgroup);
  LIMIT(maxComputeWorkgroupSizeX);
  LIMIT(maxComputeWorkgroupSizeY);
  LIMIT(maxComputeWorkgroupSizeZ);
  LIMIT(maxComputeWorkgroupsPerDimension);
  LIMIT(maxStorageBuffersPerShaderStage);
  LIMIT(maxUniformBuffersPerShaderStage);
  LIMIT(maxBindGroups);
  LIMIT(maxBindingsPerBindGroup);
  LIMIT(minStorageBufferOffsetAlignment);
  LIMIT(minUniformBufferOffsetAlignment);
#undef LIMIT
  if (!ok) {
    expr_value_release(d);
    return NULL;
  }
  return d;
}

static expr_value *adapter_value(const device_desc *desc) {
  expr_value *d = expr_value_dict();
  bool ok = d != NULL;
  /* as the loader hands adapterInfo to expressions: vendor and architecture lower-cased, subgroup sizes
   * only when the adapter reports them */
  char vendor[sizeof desc->vendor], arch[sizeof desc->architecture];
  for (size_t i = 0; i < sizeof vendor; i++) vendor[i] = (char)tolower((unsigned char)desc->vendor[i]);
  for (size_t i = 0; i < sizeof arch; i++) arch[i] = (char)tolower((unsigned char)desc->architecture[i]);
  vendor[sizeof vendor - 1] = arch[sizeof arch - 1] = '\0';
  ok = ok && expr_value_dict_set(d, "vendor", expr_value_string(vendor));
  ok = ok && expr_value_dict_set(d, "architecture", expr_value_string(arch));
  if (desc->subgroupMinSize) ok = ok && set_int(d, "subgroupMinSize", desc->subgroupMinSize);
  if (desc->subgroupMaxSize) ok = ok && set_int(d, "subgroupMaxSize", desc->subgroupMaxSize);
  ok = ok && expr_value_dict_set(d, "isFallbackAdapter", expr_value_bool(desc->isFallbackAdapter));
  expr_value *cfgs = ok ? expr_value_list() : NULL;
  for (uint32_t i = 0; cfgs && i < desc->subgroupMatrixConfigCount && i < WGK_MAX_SUBGROUP_MATRIX_CONFIGS; i++) {
    const device_subgroup_matrix_config *c = &desc->subgroupMatrixConfigs[i];
    expr_value *e = expr_value_dict();
    bool k = e && expr_value_dict_set(e, "componentType", expr_value_string(c->componentType)) &&
             expr_value_dict_set(e, "resultComponentType", expr_value_string(c->resultComponentType)) &&
             set_int(e, "M", c->M) && set_int(e, "N", c->N) && set_int(e, "K", c->K);
    if (!k) {
      expr_value_release(e);
      expr_value_release(cfgs);
      cfgs = NULL;
      break;
    }
    if (!expr_value_list_append(cfgs, e)) {
      expr_value_release(cfgs);
      cfgs = NULL;
    }
  }
  ok = ok && expr_value_dict_set(d, "subgroupMatrixConfigs", cfgs);
  if (!ok) {
    expr_value_release(d);
    return NULL;
  }
  return d;
}

expr_value *expr_value_device(const device_desc *desc) {
  const char *names[WGK_FEATURE_COUNT];
  size_t n = 0;
  for (int f = 0; f < WGK_FEATURE_COUNT; f++)
    if (device_has(desc, (device_feature)f)) names[n++] = device_feature_name((device_feature)f);
  device_limits limits = desc->limits;
  if (limits.maxComputeWorkgroupsPerDimension > WGK_DISPATCH_FOLD_WIDTH)
    limits.maxComputeWorkgroupsPerDimension = WGK_DISPATCH_FOLD_WIDTH;
  expr_value *d = expr_value_dict();
  bool ok = d && expr_value_dict_set(d, "features", expr_value_name_set(names, n)) &&
            expr_value_dict_set(d, "wgslLanguageFeatures", expr_value_name_set(NULL, 0)) &&
            expr_value_dict_set(d, "limits", limits_value(&limits)) &&
            expr_value_dict_set(d, "adapterInfo", adapter_value(desc));
  if (!ok) {
    expr_value_release(d);
    return NULL;
  }
  return d;
}

/* A JSON array's strings as a name set (other items skipped); NULL when out of memory. */
static expr_value *name_set_from_json(const json_t *names) {
  expr_value *set = expr_value_list();
  if (set) set->is_set = true;
  for (size_t i = 0; set && i < json_array_size(names); i++) {
    const char *name = json_string_value(json_array_get(names, i));
    if (name && !expr_value_list_append(set, expr_value_string(name))) {
      expr_value_release(set);
      set = NULL;
    }
  }
  return set;
}

/* Adds to target (device.limits or device.adapterInfo) each entry of obj, as given, that the reader did not
 * take (the reader's own values, vendor and architecture lower-cased and the fold width clamped, stay).
 * false with err set. */
static bool add_extra_facts(expr_value *target, bool is_limit, const json_t *obj, util_error *err) {
  const char *key;
  json_t *item;
  if (!json_is_object(obj)) return true;
  json_object_foreach((json_t *)obj, key, item) {
    if (is_limit ? limit_modelled(key) : expr_value_dict_get(target, key) != NULL) continue; /* the reader's */
    expr_value *v = expr_value_from_json(item, err);
    if (!v) return false;
    if (!expr_value_dict_set(target, key, v)) {
      util_error_oom(err, NULL, NULL);
      return false;
    }
  }
  return true;
}

/* JSON form: the device layer's reader (src/device/device_json.c, the one reader of device JSON) checks it and
 * gives the limits and adapter facts wgk models over the spec defaults; features keep every name given (also
 * ones wgk does not know, spelled as given), and limits or adapter facts the description does not model are
 * kept as given, so a template may ask for any of them. */
expr_value *expr_value_device_from_json(const json_t *json, util_error *err) {
  device_desc desc;
  if (device_desc_from_json(json, NULL, &desc, err) != WGK_OK) return NULL;
  expr_value *dev = expr_value_device(&desc);
  json_t *features = json_object_get(json, "features");
  bool ok = dev != NULL;
  if (ok && json_is_array(features)) ok = expr_value_dict_set(dev, "features", name_set_from_json(features));
  if (!ok) {
    expr_value_release(dev);
    util_error_oom(err, NULL, NULL);
    return NULL;
  }
  expr_value *limits = (expr_value *)expr_value_dict_get(dev, "limits");
  expr_value *info = (expr_value *)expr_value_dict_get(dev, "adapterInfo");
  if (!add_extra_facts(limits, true, json_object_get(json, "limits"), err) ||
      !add_extra_facts(info, false, json_object_get(json, "adapterInfo"), err)) {
    expr_value_release(dev);
    return NULL;
  }
  return dev;
}

/* The value of one entry; *skip when an EXPR_ENTRY_GIVEN entry has neither a given value nor a default. */
static expr_value *entry_value(const expr_entry *e, bool *skip, util_error *err) {
  const expr_value *given = NULL;
  *skip = false;
  switch (e->kind) {
  case EXPR_ENTRY_DICT:
    return expr_value_dict();
  case EXPR_ENTRY_VALUE:
    return e->value ? expr_value_ref(e->value) : expr_value_dict();
  case EXPR_ENTRY_INT:
    return expr_value_int(e->i);
  case EXPR_ENTRY_BOOL:
    return expr_value_bool(e->i != 0);
  case EXPR_ENTRY_STRING:
    return expr_value_string(e->s);
  case EXPR_ENTRY_INTS:
    return expr_value_int_list(e->ints, (size_t)e->i);
  case EXPR_ENTRY_GIVEN:
    given = e->value ? expr_value_dict_get(e->value, e->name) : NULL;
    if (given) return expr_value_ref(given);
    *skip = !e->json;
    return e->json ? expr_value_from_json(e->json, err) : NULL;
  case EXPR_ENTRY_HAS_KEY:
    return expr_value_bool(e->value && expr_value_dict_get(e->value, e->s));
  }
  return NULL;
}

bool expr_value_dict_add(expr_value *d, const expr_entry *entries, size_t n, util_error *err) {
  for (size_t i = 0; i < n; i++) {
    const expr_entry *e = &entries[i];
    bool skip;
    expr_value *v = entry_value(e, &skip, err);
    if (skip) continue;
    expr_value *into = d;
    if (v && e->group) {
      into = (expr_value *)expr_value_dict_get(d, e->group);
      if (!into && expr_value_dict_set(d, e->group, expr_value_dict()))
        into = (expr_value *)expr_value_dict_get(d, e->group);
    }
    if (!v || !expr_value_dict_set(into, e->name, v)) return false; /* dict_set releases v when it fails */
  }
  return true;
}

expr_value *expr_value_dict_build(const expr_entry *entries, size_t n, util_error *err) {
  expr_value *d = expr_value_dict();
  if (d && !expr_value_dict_add(d, entries, n, err)) {
    expr_value_release(d);
    return NULL;
  }
  return d;
}
