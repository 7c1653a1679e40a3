/* The chosen variant's intermediates: dtype, shape (evaluated in the call scope) and bytes. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner_internal.h"
#include "util/dtype.h"

/* Bytes per element of a scratch buffer: float16 2, 32-bit words 4 (util/dtype.h). */
static double storage_bytes(const char *dtype) {
  const util_dtype_info *d = util_dtype_info_named(dtype);
  return d ? (double)d->storage_bytes : 4;
}

/* One dim: a non-negative integer. */
static bool dim_of(const expr_value *v, int64_t *out) {
  if (expr_value_kind_of(v) != WGK_VALUE_INT || expr_value_as_int(v) < 0) return false;
  *out = expr_value_as_int(v);
  return true;
}

static wgk_status bad_shape(plan_planner *p, const manifest_intermediate *it, const manifest_expr *e, util_error *err) {
  const manifest_pos *pos = e && e->text ? &e->pos : &it->pos;
  return plan_fail_at(err, WGK_ERR_CALL, p->m, pos, "intermediate %s: shape%s did not give %s", it->id,
                      e && e->text ? " expression" : "", "a list of at most 8 non-negative integers");
}

static wgk_status eval_shape(plan_planner *p, const manifest_intermediate *it, const expr_value *scope,
                             plan_intermediate *out, util_error *err) {
  if (it->shape_is_list) {
    if (it->n_dims > WGK_MAX_RANK) return bad_shape(p, it, NULL, err);
    out->rank = (int)it->n_dims;
    for (size_t d = 0; d < it->n_dims; d++) {
      expr_value *v = NULL;
      wgk_status st = plan_eval(p, &it->dims[d], scope, &v, err);
      if (st != WGK_OK) return st;
      bool ok = dim_of(v, &out->shape[d]);
      expr_value_release(v);
      if (!ok) return bad_shape(p, it, &it->dims[d], err);
    }
    return WGK_OK;
  }
  expr_value *v = NULL;
  wgk_status st = plan_eval(p, &it->shape, scope, &v, err);
  if (st != WGK_OK) return st;
  bool ok = expr_value_kind_of(v) == WGK_VALUE_LIST && expr_value_len(v) <= WGK_MAX_RANK;
  out->rank = ok ? (int)expr_value_len(v) : 0;
  for (int d = 0; ok && d < out->rank; d++) ok = dim_of(expr_value_list_at(v, (size_t)d), &out->shape[d]);
  expr_value_release(v);
  return ok ? WGK_OK : bad_shape(p, it, &it->shape, err);
}

static const char *logical_dtype(const expr_value *scope, const char *dtype) {
  if (dtype[0] != '$') return dtype;
  const expr_value *map = expr_value_dict_get(scope, "logicalDtypes");
  const expr_value *v = map ? expr_value_dict_get(map, dtype + 1) : NULL;
  return v ? expr_value_str(v) : NULL;
}

static wgk_status make_one(plan_planner *p, const manifest_intermediate *it, const expr_value *scope,
                           plan_intermediate *out, util_error *err) {
  out->source = it;
  /* spec 2.1: the public loader gives every intermediate a fresh buffer per call, which WebGPU zeroes, so a package
   * run there may rely on zeros without `zeroInit` (docs/loader-semantics.md rule 31); wgk reuses the buffer across
   * calls, so it clears every one, or a second call would start from the first call's values. */
  out->zero_init = it->zero_init || p->m->format == WGK_MANIFEST_SPEC21;
  out->dtype = logical_dtype(scope, it->dtype);
  if (!out->dtype)
    return plan_fail_at(err, WGK_ERR_CALL, p->m, &it->pos, "intermediate %s: type variable %s is not bound by the call",
                        it->id, it->dtype);
  wgk_status st = eval_shape(p, it, scope, out, err);
  if (st != WGK_OK) return st;
  double numel = 1;
  for (int d = 0; d < out->rank; d++) numel *= (double)out->shape[d];
  double bytes = ceil(numel * storage_bytes(out->dtype) / 4) * 4;
  if (bytes < 4) bytes = 4;
  const device_limits *lim = &p->device->limits;
  uint64_t max =
      lim->maxStorageBufferBindingSize < lim->maxBufferSize ? lim->maxStorageBufferBindingSize : lim->maxBufferSize;
  if (bytes > (double)max)
    return plan_fail_at(err, WGK_ERR_LIMIT, p->m, &it->pos,
                        "intermediate %s: %.0f bytes exceed the device's largest storage binding of %" PRIu64, it->id,
                        bytes, max);
  out->bytes = (uint64_t)bytes;
  return WGK_OK;
}

wgk_status plan_intermediates(plan_planner *p, plan_result *plan, util_error *err) {
  const manifest_variant *v = plan->variant;
  if (v->n_intermediates == 0) return WGK_OK;
  plan->intermediates = calloc(v->n_intermediates, sizeof *plan->intermediates);
  if (!plan->intermediates) return util_error_oom(err, NULL, "planning intermediates");
  for (size_t i = 0; i < v->n_intermediates; i++) {
    wgk_status st = make_one(p, &v->intermediates[i], plan->scope, &plan->intermediates[i], err);
    if (st != WGK_OK) return st;
    plan->n_intermediates = i + 1;
  }
  return WGK_OK;
}

/* The manifest loader has checked that every intermediate a pass binds is declared by its variant. */
void plan_bind_intermediates(plan_result *plan) {
  const manifest_variant *v = plan->variant;
  for (size_t i = 0; i < plan->n_passes; i++) {
    const manifest_binding_set *set = plan->passes[i].source->bindings;
    for (size_t b = 0; b < set->n_bindings; b++) {
      const manifest_intermediate *it = manifest_find_intermediate(v, set->bindings[b].intermediate);
      if (it) plan->passes[i].bindings[b].intermediate = (int)(it - v->intermediates);
    }
  }
}
