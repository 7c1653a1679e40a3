/* wgk extension of the seed format: a variant's `intermediates` (spec 2.1's scratch buffers) and the
 * bindings that name them. See docs/package-format.md. */
#include <string.h>

#include "manifest/reader.h"
#include "util/dtype.h"

static const char *const intermediate_keys[] = {"id", "dtype", "shape", "zeroInit", NULL};

/* Storage dtypes an intermediate may have: 32-bit words or float16 (no int64 projection, no widening). */
static bool scratch_dtype(const char *dt) {
  const wgk_dtype_info *d = wgk_dtype_info_named(dt);
  return d && d->scratch;
}

static wgk_status read_dtype(wgk_manifest_rd *rd, const json_t *obj, wgk_manifest_intermediate *it) {
  wgk_status st = wgk_manifest_get_string(rd, obj, "dtype", true, &it->dtype);
  if (st) return st;
  if (it->dtype[0] == '$') {
    if (wgk_manifest_find_type(rd->m, it->dtype + 1)) return WGK_OK;
    return wgk_manifest_fail_in(rd, "dtype", false, "type variable '%s' is not constrained in typeConstraints",
                                it->dtype + 1);
  }
  if (scratch_dtype(it->dtype)) return WGK_OK;
  return wgk_manifest_fail_in(rd, "dtype", false,
                              "intermediate dtype '%s' is not one of float32 float16 int32 uint32 "
                              "or a $typevar",
                              it->dtype);
}

/* shape: one expression giving a list, or a list of per-dim expressions (integers allowed). */
static wgk_status read_shape(wgk_manifest_rd *rd, const json_t *obj, wgk_manifest_intermediate *it) {
  const json_t *shape = json_object_get(obj, "shape");
  if (!shape) return wgk_manifest_fail(rd, "missing required key 'shape'");
  if (!json_is_array(shape)) return wgk_manifest_get_expr(rd, obj, "shape", true, &it->shape);
  size_t mark = wgk_manifest_push_key(rd, "shape");
  size_t n = json_array_size(shape);
  wgk_status st = WGK_OK;
  wgk_manifest_expr *dims = wgk_manifest_alloc(rd, n ? n : 1, sizeof *dims);
  if (!dims) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < n; i++) {
    size_t m2 = wgk_manifest_push_index(rd, i);
    st = wgk_manifest_read_expr(rd, json_array_get(shape, i), &dims[i]);
    wgk_manifest_pop(rd, m2);
  }
  wgk_manifest_pop(rd, mark);
  it->shape_is_list = true;
  it->dims = dims;
  it->n_dims = st ? 0 : n;
  return st;
}

static wgk_status read_one(wgk_manifest_rd *rd, const json_t *obj, wgk_manifest_intermediate *it) {
  it->pos = wgk_manifest_here(rd);
  wgk_status st = wgk_manifest_object(rd, obj, "an intermediate object", intermediate_keys);
  if (!st) st = wgk_manifest_get_string(rd, obj, "id", true, &it->id);
  if (!st && !*it->id) st = wgk_manifest_fail_in(rd, "id", false, "an intermediate id must not be empty");
  if (!st) st = read_dtype(rd, obj, it);
  if (!st) st = read_shape(rd, obj, it);
  if (!st) st = wgk_manifest_get_bool(rd, obj, "zeroInit", false, &it->zero_init);
  return st;
}

wgk_status wgk_manifest_seed_intermediates(wgk_manifest_rd *rd, const json_t *obj, wgk_manifest_variant *v) {
  const json_t *list = json_object_get(obj, "intermediates");
  if (!list) return WGK_OK;
  size_t mark = wgk_manifest_push_key(rd, "intermediates");
  wgk_status st = wgk_manifest_expect(rd, list, JSON_ARRAY, "a list of intermediates");
  size_t n = st ? 0 : json_array_size(list);
  wgk_manifest_intermediate *its = st ? NULL : wgk_manifest_alloc(rd, n ? n : 1, sizeof *its);
  if (!st && !its) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < n; i++) {
    size_t m2 = wgk_manifest_push_index(rd, i);
    st = read_one(rd, json_array_get(list, i), &its[i]);
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(its[j].id, its[i].id) == 0)
        st = wgk_manifest_fail_in(rd, "id", false, "duplicate intermediate id '%s' in variant '%s'", its[i].id, v->id);
    wgk_manifest_pop(rd, m2);
  }
  wgk_manifest_pop(rd, mark);
  v->intermediates = its;
  v->n_intermediates = st ? 0 : n;
  return st;
}

/* The WGSL scalar a literal logical dtype is stored as; NULL for a type variable. */
static const char *stored_as(const char *dtype) {
  if (dtype[0] == '$') return NULL;
  const char *w = wgk_dtype_storage_wgsl(dtype);
  return w ? w : "f32";
}

/* Every intermediate a pass binds is declared by its variant, with a matching element type. */
wgk_status wgk_manifest_seed_pass_intermediates(wgk_manifest_rd *rd, const wgk_manifest_pass *p,
                                                const wgk_manifest_variant *v) {
  const wgk_manifest_binding_set *set = p->bindings;
  for (size_t i = 0; i < set->n_bindings; i++) {
    const wgk_manifest_binding *b = &set->bindings[i];
    if (!b->intermediate) continue;
    const wgk_manifest_intermediate *it = wgk_manifest_find_intermediate(v, b->intermediate);
    if (!it)
      return wgk_manifest_fail_in(rd, "bindings", false,
                                  "binding set '%s' binds intermediate '%s', which variant '%s' "
                                  "does not declare",
                                  set->name, b->intermediate, v->id);
    const char *want = stored_as(it->dtype), *et = b->element_type;
    bool same = want ? strcmp(want, et) == 0 : strcmp(it->dtype, et) == 0;
    if (!same && (want || et[0] == '$'))
      return wgk_manifest_fail_in(rd, "bindings", false, "binding '%s' of set '%s' reads intermediate '%s' (%s) as %s",
                                  b->name, set->name, it->id, it->dtype, et);
  }
  return WGK_OK;
}
