/* wgk extension of the seed format: a variant's `intermediates` (spec 2.1's scratch buffers) and the
 * bindings that name them. See docs/package-format.md. */
#include <string.h>

#include "manifest/reader.h"
#include "util/dtype.h"

static const char *const intermediate_keys[] = {"id", "dtype", "shape", "zeroInit", NULL};

/* Storage dtypes an intermediate may have: 32-bit words or float16 (no int64 projection, no widening). */
static bool scratch_dtype(const char *dt) {
  const util_dtype_info *d = util_dtype_info_named(dt);
  return d && d->scratch;
}

static wgk_status read_dtype(manifest_rd *rd, const json_t *obj, manifest_intermediate *it) {
  wgk_status st = manifest_get_string(rd, obj, "dtype", true, &it->dtype);
  if (st) return st;
  if (it->dtype[0] == '$') {
    if (manifest_find_type(rd->m, it->dtype + 1)) return WGK_OK;
    return manifest_fail_in(rd, "dtype", false, "type variable '%s' is not constrained in typeConstraints",
                            it->dtype + 1);
  }
  if (scratch_dtype(it->dtype)) return WGK_OK;
  return manifest_fail_in(rd, "dtype", false,
                          "intermediate dtype '%s' is not one of float32 float16 int32 uint32 "
                          "or a $typevar",
                          it->dtype);
}

/* shape: one expression giving a list, or a list of per-dim expressions (integers allowed). */
static wgk_status read_shape(manifest_rd *rd, const json_t *obj, manifest_intermediate *it) {
  const json_t *shape = json_object_get(obj, "shape");
  if (!shape) return manifest_fail(rd, "missing required key 'shape'");
  if (!json_is_array(shape)) return manifest_get_expr(rd, obj, "shape", true, &it->shape);
  size_t mark = manifest_push_key(rd, "shape");
  size_t n = json_array_size(shape);
  wgk_status st = WGK_OK;
  manifest_expr *dims = manifest_alloc(rd, n ? n : 1, sizeof *dims);
  if (!dims) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < n; i++) {
    size_t m2 = manifest_push_index(rd, i);
    st = manifest_read_expr(rd, json_array_get(shape, i), &dims[i]);
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  it->shape_is_list = true;
  it->dims = dims;
  it->n_dims = st ? 0 : n;
  return st;
}

static wgk_status read_one(manifest_rd *rd, const json_t *obj, manifest_intermediate *it) {
  it->pos = manifest_here(rd);
  wgk_status st = manifest_object(rd, obj, "an intermediate object", intermediate_keys);
  if (!st) st = manifest_get_string(rd, obj, "id", true, &it->id);
  if (!st && !*it->id) st = manifest_fail_in(rd, "id", false, "an intermediate id must not be empty");
  if (!st) st = read_dtype(rd, obj, it);
  if (!st) st = read_shape(rd, obj, it);
  if (!st) st = manifest_get_bool(rd, obj, "zeroInit", false, &it->zero_init);
  return st;
}

wgk_status manifest_seed_intermediates(manifest_rd *rd, const json_t *obj, manifest_variant *v) {
  const json_t *list = json_object_get(obj, "intermediates");
  if (!list) return WGK_OK;
  size_t mark = manifest_push_key(rd, "intermediates");
  wgk_status st = manifest_expect(rd, list, JSON_ARRAY, "a list of intermediates");
  size_t n = st ? 0 : json_array_size(list);
  manifest_intermediate *its = st ? NULL : manifest_alloc(rd, n ? n : 1, sizeof *its);
  if (!st && !its) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < n; i++) {
    size_t m2 = manifest_push_index(rd, i);
    st = read_one(rd, json_array_get(list, i), &its[i]);
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(its[j].id, its[i].id) == 0)
        st = manifest_fail_in(rd, "id", false, "duplicate intermediate id '%s' in variant '%s'", its[i].id, v->id);
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  v->intermediates = its;
  v->n_intermediates = st ? 0 : n;
  return st;
}

/* The WGSL scalar a literal logical dtype is stored as; NULL for a type variable. */
static const char *stored_as(const char *dtype) {
  if (dtype[0] == '$') return NULL;
  const char *w = util_dtype_storage_wgsl(dtype);
  return w ? w : "f32";
}

/* Every intermediate a pass binds is declared by its variant, with a matching element type. */
wgk_status manifest_seed_pass_intermediates(manifest_rd *rd, const manifest_pass *p, const manifest_variant *v) {
  const manifest_binding_set *set = p->bindings;
  for (size_t i = 0; i < set->n_bindings; i++) {
    const manifest_binding *b = &set->bindings[i];
    if (!b->intermediate) continue;
    const manifest_intermediate *it = manifest_find_intermediate(v, b->intermediate);
    if (!it)
      return manifest_fail_in(rd, "bindings", false,
                              "binding set '%s' binds intermediate '%s', which variant '%s' "
                              "does not declare",
                              set->name, b->intermediate, v->id);
    const char *want = stored_as(it->dtype), *et = b->element_type;
    bool same = want ? strcmp(want, et) == 0 : strcmp(it->dtype, et) == 0;
    if (!same && (want || et[0] == '$'))
      return manifest_fail_in(rd, "bindings", false, "binding '%s' of set '%s' reads intermediate '%s' (%s) as %s",
                              b->name, set->name, it->id, it->dtype, et);
  }
  return WGK_OK;
}
