/* What the device allows of each variant, decided once when the planner is made (the device is fixed for a
 * planner): spec 2.1 `requires` (the public loader's check, with the device's answer in every reason: features,
 * minimum limits, adapterInfo.subgroupMinSize, subgroupMatrixConfigs), then the buffer budget per shader stage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/requires.h"
#include "util/dynbuf.h"

/* The device's value of a limit: the scope's device.limits (every WebGPU limit, spec defaults filled in). */
static bool device_limit(const expr_value *device_value, const char *name, double *out) {
  const expr_value *limits = expr_value_dict_get(device_value, "limits");
  const expr_value *v = limits ? expr_value_dict_get(limits, name) : NULL;
  if (v && expr_value_is_number(v)) {
    *out = expr_value_as_float(v);
    return true;
  }
  return false;
}

static void config_text(const json_t *c, util_dynbuf *out) {
  const char *ct = json_string_value(json_object_get(c, "componentType"));
  const char *rt = json_string_value(json_object_get(c, "resultComponentType"));
  util_dynbuf_printf(out, "%s-%s-", ct ? ct : "*", rt ? rt : "*");
  const char *dims[] = {"M", "N", "K"};
  for (int i = 0; i < 3; i++) {
    const json_t *d = json_object_get(c, dims[i]);
    if (d)
      util_dynbuf_printf(out, "%s%" JSON_INTEGER_FORMAT, i ? "x" : "", json_integer_value(d));
    else
      util_dynbuf_printf(out, "%s*", i ? "x" : "");
  }
}

static bool config_matches(const json_t *want, const device_subgroup_matrix_config *have) {
  const char *ct = json_string_value(json_object_get(want, "componentType"));
  const char *rt = json_string_value(json_object_get(want, "resultComponentType"));
  const json_t *m = json_object_get(want, "M"), *n = json_object_get(want, "N"), *k = json_object_get(want, "K");
  return (!ct || strcmp(ct, have->componentType) == 0) && (!rt || strcmp(rt, have->resultComponentType) == 0) &&
         (!m || json_integer_value(m) == have->M) && (!n || json_integer_value(n) == have->N) &&
         (!k || json_integer_value(k) == have->K);
}

static void requires_reason(const device_desc *d, const expr_value *device_value, const manifest_requires *r,
                            util_dynbuf *why) {
  if (!r) return;
  for (size_t i = 0; i < r->n_features; i++) {
    device_feature f;
    if (!device_feature_from_name(r->features[i], &f) || !device_has(d, f)) {
      util_dynbuf_printf(why, "requires device.features.has(\"%s\") (the device does not have it)", r->features[i]);
      return;
    }
  }
  for (size_t i = 0; i < r->n_limits; i++) {
    double have = 0;
    if (!device_limit(device_value, r->limits[i].name, &have) || have < r->limits[i].min) {
      util_dynbuf_printf(why, "requires device.limits.%s >= %g (the device has %g)", r->limits[i].name,
                         r->limits[i].min, have);
      return;
    }
  }
  if (r->subgroup_min_size > 0) {
    if (d->subgroupMinSize == 0) {
      util_dynbuf_printf(why, "requires adapterInfo.subgroupMinSize >= %d (adapter does not report subgroup sizes)",
                         r->subgroup_min_size);
      return;
    }
    if ((int)d->subgroupMinSize < r->subgroup_min_size) {
      util_dynbuf_printf(why, "requires adapterInfo.subgroupMinSize >= %d (the device has %u)", r->subgroup_min_size,
                         d->subgroupMinSize);
      return;
    }
  }
  const json_t *cfgs = r->subgroup_matrix_configs;
  /* The loader checks the patterns against the adapter's list whenever the adapter reports one, an empty list
   * included (lavapipe's); Dawn always reports it, so wgk always checks (docs/loader-semantics.md rule 37). */
  if (cfgs && json_array_size(cfgs) > 0) {
    for (size_t i = 0; i < json_array_size(cfgs); i++)
      for (uint32_t k = 0; k < d->subgroupMatrixConfigCount && k < WGK_MAX_SUBGROUP_MATRIX_CONFIGS; k++)
        if (config_matches(json_array_get(cfgs, i), &d->subgroupMatrixConfigs[k])) return;
    util_dynbuf_append_str(why, "requires adapterInfo.subgroupMatrixConfigs to match one of [");
    for (size_t i = 0; i < json_array_size(cfgs); i++) {
      if (i) util_dynbuf_append_str(why, ", ");
      config_text(json_array_get(cfgs, i), why);
    }
    util_dynbuf_append_str(why, "] (device reports [");
    for (uint32_t k = 0; k < d->subgroupMatrixConfigCount && k < WGK_MAX_SUBGROUP_MATRIX_CONFIGS; k++) {
      const device_subgroup_matrix_config *c = &d->subgroupMatrixConfigs[k];
      util_dynbuf_printf(why, "%s%s-%s-%ux%ux%u", k ? ", " : "", c->componentType, c->resultComponentType, c->M, c->N,
                         c->K);
    }
    util_dynbuf_append_str(why, "])");
  }
}

/* The most storage and uniform bindings one pass of v has. */
static void storage_count(const manifest_variant *v, uint32_t *storage, uint32_t *uniform) {
  *storage = *uniform = 0;
  for (size_t i = 0; i < v->n_passes; i++) {
    uint32_t s = 0, u = 0;
    for (size_t b = 0; b < v->passes[i].bindings->n_bindings; b++)
      if (v->passes[i].bindings->bindings[b].buffer == WGK_BUFFER_UNIFORM)
        u++;
      else
        s++;
    if (s > *storage) *storage = s;
    if (u > *uniform) *uniform = u;
  }
}

static void device_reason(const device_desc *d, const expr_value *device_value, const manifest_variant *v,
                          util_dynbuf *why) {
  requires_reason(d, device_value, v->requires, why);
  if (why->len) return;
  uint32_t storage, uniform;
  storage_count(v, &storage, &uniform);
  const device_limits *lim = &d->limits;
  if (storage > lim->maxStorageBuffersPerShaderStage)
    util_dynbuf_printf(why, "needs %u storage buffers per stage, the device allows %u", storage,
                       lim->maxStorageBuffersPerShaderStage);
  else if (uniform > lim->maxUniformBuffersPerShaderStage)
    util_dynbuf_printf(why, "needs %u uniform buffers per stage, the device allows %u", uniform,
                       lim->maxUniformBuffersPerShaderStage);
}

char **plan_device_reasons(const manifest_model *m, const device_desc *d, const expr_value *device_value) {
  size_t n = m->n_variants;
  char **out = calloc(n ? n : 1, sizeof *out);
  for (size_t i = 0; out && i < n; i++) {
    util_dynbuf why;
    util_dynbuf_init(&why, 1 << 16);
    device_reason(d, device_value, &m->variants[i], &why);
    bool lost = why.failed && !why.over; /* a reason lost for memory is not "accepted" */
    if (!lost && why.len) lost = !(out[i] = strdup(util_dynbuf_str(&why)));
    util_dynbuf_free(&why);
    if (lost) {
      plan_device_reasons_free(out, i);
      return NULL;
    }
  }
  return out;
}

void plan_device_reasons_free(char **reasons, size_t n) {
  for (size_t i = 0; reasons && i < n; i++) free(reasons[i]);
  free(reasons);
}
