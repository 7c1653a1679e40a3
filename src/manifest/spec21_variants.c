/* Manifest spec 2.1 variants: id, priority, when (the manifest's clauses first), demoteWhen, supersededBy,
 * requires (merged with the manifest's), tunables, derive, intermediates, and the pass sequence with
 * repeat groups; passes with shader, derive, bindings, the three dispatch forms, profile,
 * subgroupCollectivesWidth, submitAfter and viewAlias. Families are expanded first (spec21_family.c). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "manifest/reader.h"
#include "util/strindex.h"

static const char *const variant_keys[] = {"id",         "description",   "priority", "when",
                                           "demoteWhen", "supersededBy",  "requires", "tunables",
                                           "derive",     "intermediates", "passes",   NULL};
static const char *const pass_keys[] = {"id",          "name",      "shader",  "derive",
                                        "bindings",    "dispatch",  "profile", "subgroupCollectivesWidth",
                                        "submitAfter", "viewAlias", NULL};

/* The loader's stable id: [A-Za-z0-9][A-Za-z0-9_]* */
static bool stable_id(const char *id) {
  if (!id || !isalnum((unsigned char)id[0])) return false;
  for (const char *c = id; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_') return false;
  return true;
}

typedef struct spec21_ctx {
  const manifest_expr *when; /* manifest `when`, prepended to every variant's */
  size_t n_when;
  const manifest_requires *req; /* manifest `requires` */
} spec21_ctx;

static wgk_status unknown_key(manifest_rd *rd, const json_t *obj, const char *const *allowed, const char *what,
                              const char *(*hint)(const char *)) {
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    bool known = false;
    for (const char *const *k = allowed; *k && !known; k++) known = strcmp(*k, key) == 0;
    if (!known) {
      const char *h = hint ? hint(key) : NULL;
      return manifest_fail_in(rd, key, true, "%s has unknown key '%s'%s", what, key, h ? h : "");
    }
  }
  return WGK_OK;
}

static const char *variant_hint(const char *key) {
  return strcmp(key, "bindings") == 0    ? " (spec 2.0 lists bindings on each pass)"
         : strcmp(key, "constants") == 0 ? " (`derive` is the one value channel)"
                                         : NULL;
}

static const char *pass_hint(const char *key) {
  return strcmp(key, "source") == 0 || strcmp(key, "constants") == 0
             ? " (a pass spells `shader` and pass-level `derive`)"
             : NULL;
}

/* ---- intermediates ---- */

static const char *const intermediate_keys[] = {"id", "dtype", "shape", "zeroInit", NULL};

static wgk_status read_intermediate_shape(manifest_rd *rd, const json_t *obj, manifest_intermediate *it) {
  const json_t *shape = json_object_get(obj, "shape");
  if (!shape) return manifest_fail(rd, "intermediate %s requires shape", it->id);
  size_t mark = manifest_push_key(rd, "shape");
  wgk_status st = WGK_OK;
  if (json_is_string(shape)) {
    st = manifest_read_expr(rd, shape, &it->shape);
  } else {
    /* a list of dims, or one number (the loader wraps a non-list in a list) */
    bool list = json_is_array(shape);
    size_t n = list ? json_array_size(shape) : 1;
    if (list && n == 0) st = manifest_fail(rd, "intermediate %s shape must not be empty", it->id);
    manifest_expr *dims = st ? NULL : manifest_alloc(rd, n, sizeof *dims);
    if (!st && !dims) st = WGK_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; !st && i < n; i++) {
      size_t m2 = list ? manifest_push_index(rd, i) : rd->path.len;
      st = manifest_read_expr(rd, list ? json_array_get(shape, i) : shape, &dims[i]);
      manifest_pop(rd, m2);
    }
    it->shape_is_list = true;
    it->dims = dims;
    it->n_dims = st ? 0 : n;
  }
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_intermediates(manifest_rd *rd, const json_t *obj, manifest_variant *v) {
  const json_t *list = json_object_get(obj, "intermediates");
  if (!list) return WGK_OK;
  size_t mark = manifest_push_key(rd, "intermediates");
  wgk_status st = json_is_array(list) ? WGK_OK : manifest_fail(rd, "variant %s intermediates must be an array", v->id);
  size_t n = st ? 0 : json_array_size(list);
  manifest_intermediate *its = st ? NULL : manifest_alloc(rd, n, sizeof *its);
  if (!st && !its) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < n; i++) {
    const json_t *o = json_array_get(list, i);
    manifest_intermediate *it = &its[i];
    size_t m2 = manifest_push_index(rd, i);
    it->pos = manifest_here(rd);
    st = manifest_object(rd, o, "an intermediate object", intermediate_keys);
    if (!st) st = manifest_get_string(rd, o, "id", true, &it->id);
    if (!st && !*it->id) st = manifest_fail_in(rd, "id", false, "intermediate %zu id must be a non-empty string", i);
    if (!st) st = manifest_get_string(rd, o, "dtype", true, &it->dtype);
    /* wgk extension of the seed format: an intermediate typed by a constrained type variable ("$T") */
    bool seed_typevar = rd->seed && it->dtype && it->dtype[0] == '$' && manifest_find_type(rd->m, it->dtype + 1);
    if (!st && !seed_typevar && !manifest_spec21_dtype(it->dtype))
      st = manifest_fail_in(rd, "dtype", false,
                            "intermediate %s dtype must be a concrete WebGPU storage dtype, got "
                            "'%s'",
                            it->id, it->dtype);
    if (!st && strcmp(it->dtype, "int64") == 0)
      st = manifest_fail_in(rd, "dtype", false, "variant %s: opaque int64 intermediates are unsupported", v->id);
    const json_t *z = st ? NULL : json_object_get(o, "zeroInit");
    if (z && !json_is_true(z))
      st = manifest_fail_in(rd, "zeroInit", false,
                            "intermediate %s zeroInit must be true when present (omit the key "
                            "when the kernel does not require a zeroed buffer)",
                            it->id);
    it->zero_init = z != NULL;
    if (!st) st = read_intermediate_shape(rd, o, it);
    if (!st && manifest_find_port(rd->m, it->id))
      st = manifest_fail_in(rd, "id", false, "variant %s intermediate \"%s\" is also a tensor name", v->id, it->id);
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(its[j].id, it->id) == 0)
        st = manifest_fail_in(rd, "id", false, "duplicate intermediate id '%s' in variant '%s'", it->id, v->id);
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  v->intermediates = its;
  v->n_intermediates = st ? 0 : n;
  return st;
}

/* ---- passes ---- */

static wgk_status read_count_expr(manifest_rd *rd, const json_t *dj, const char *key, bool required, manifest_expr *out,
                                  const char *pass_id) {
  const json_t *v = json_object_get(dj, key);
  if (!v) return required ? manifest_fail(rd, "pass %s dispatch requires %s", pass_id, key) : WGK_OK;
  if (json_is_integer(v) && json_integer_value(v) < 0)
    return manifest_fail_in(rd, key, false,
                            "pass %s dispatch sizes must be expression strings or non-negative safe "
                            "integers",
                            pass_id);
  return manifest_get_expr(rd, dj, key, required, out);
}

static wgk_status read_dispatch(manifest_rd *rd, const json_t *obj, manifest_pass *p) {
  const json_t *dj = json_object_get(obj, "dispatch");
  if (!dj) return manifest_fail(rd, "pass %s requires dispatch", p->id);
  size_t mark = manifest_push_key(rd, "dispatch");
  manifest_dispatch *d = &p->dispatch;
  d->pos = manifest_here(rd);
  wgk_status st = manifest_expect(rd, dj, JSON_OBJECT, "a dispatch object");
  bool threads = json_object_get(dj, "threads") != NULL, groups = json_object_get(dj, "workgroups") != NULL;
  if (!st && json_object_get(dj, "gridStride"))
    st = manifest_fail_in(rd, "gridStride", true,
                          "pass %s dispatch uses gridStride, which spec 2.0 removed: write the "
                          "clamp explicitly, x = min(<count>, device.limits.maxComputeWorkgroupsPerDimension)",
                          p->id);
  if (!st && threads && groups)
    st = manifest_fail(rd, "pass %s dispatch must use exactly one of 'threads'+'workgroupSize' or 'workgroups'", p->id);
  if (!st && !threads && !groups) {
    static const char *const xyz[] = {"x", "y", "z", NULL};
    st = unknown_key(rd, dj, xyz, "dispatch", NULL);
    d->kind = WGK_DISPATCH_XYZ;
    if (!st) st = read_count_expr(rd, dj, "x", true, &d->x, p->id);
    if (!st) st = read_count_expr(rd, dj, "y", false, &d->y, p->id);
    if (!st) st = read_count_expr(rd, dj, "z", false, &d->z, p->id);
  } else if (!st) {
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)dj, key, v) {
      bool ok =
          threads ? (strcmp(key, "threads") == 0 || strcmp(key, "workgroupSize") == 0) : strcmp(key, "workgroups") == 0;
      if (!ok) {
        bool axis = strcmp(key, "x") == 0 || strcmp(key, "y") == 0 || strcmp(key, "z") == 0;
        st = manifest_fail_in(rd, key, true, "pass %s dispatch shorthand has unknown key '%s'%s", p->id, key,
                              axis ? " (spec 2.0 has no pinned axes; write the explicit x/y/z grid)" : "");
        break;
      }
    }
    if (!st && threads) {
      d->kind = WGK_DISPATCH_THREADS;
      if (!json_object_get(dj, "workgroupSize"))
        st = manifest_fail(rd, "pass %s dispatch shorthand requires both 'threads' and 'workgroupSize'", p->id);
      if (!st) st = read_count_expr(rd, dj, "threads", true, &d->threads, p->id);
      if (!st) st = read_count_expr(rd, dj, "workgroupSize", true, &d->workgroup_size, p->id);
    } else if (!st) {
      d->kind = WGK_DISPATCH_WORKGROUPS;
      st = read_count_expr(rd, dj, "workgroups", true, &d->workgroups, p->id);
    }
  }
  manifest_pop(rd, mark);
  return st;
}

/* `profile`, as the loader takes it: `{...profile ?? {}}` at load, so an object gives its members, a list its
 * elements, a string its characters, and null, a number or a boolean nothing; nothing is checked at load. Every
 * value is evaluated for each call (strings as expressions, lists and objects element by element) and a failure
 * refuses the call; the results are not used (the loader passes them to its profiler only). Values are kept as
 * literals so an expression is parsed at the call, as the loader parses it. */
static wgk_status read_profile(manifest_rd *rd, const json_t *prof, manifest_pass *p) {
  if (!prof || !(json_is_object(prof) || json_is_array(prof) || json_is_string(prof))) return WGK_OK;
  const json_t *items = prof;
  if (json_is_string(prof)) { /* "ab" spreads to {0: "a", 1: "b"} */
    json_t *chars = json_array();
    const char *text = json_string_value(prof);
    for (size_t i = 0; chars && i < json_string_length(prof); i++)
      if (json_array_append_new(chars, json_stringn(text + i, 1)) != 0) {
        json_decref(chars);
        chars = NULL;
      }
    if (!chars) return WGK_ERR_OUT_OF_MEMORY;
    if (!rd->m->expanded && !(rd->m->expanded = json_array())) {
      json_decref(chars);
      return WGK_ERR_OUT_OF_MEMORY;
    }
    if (json_array_append_new(rd->m->expanded, chars) != 0) return WGK_ERR_OUT_OF_MEMORY; /* owned by the model */
    items = chars;
  }
  bool list = json_is_array(items);
  size_t n = list ? json_array_size(items) : json_object_size(items);
  manifest_value *vals = n ? manifest_alloc(rd, n, sizeof *vals) : NULL;
  if (n && !vals) return WGK_ERR_OUT_OF_MEMORY;
  size_t mark = manifest_push_key(rd, "profile");
  void *it = list ? NULL : json_object_iter((json_t *)items);
  for (size_t i = 0; i < n; i++) {
    char index[24];
    snprintf(index, sizeof index, "%zu", i);
    const char *name = list ? manifest_strdup(rd, index) : json_object_iter_key(it);
    const json_t *x = list ? json_array_get(items, i) : json_object_iter_value(it);
    if (!list) it = json_object_iter_next((json_t *)items, it);
    if (!name) {
      manifest_pop(rd, mark);
      return WGK_ERR_OUT_OF_MEMORY;
    }
    size_t m2 = list ? manifest_push_index(rd, i) : manifest_push_key(rd, name);
    vals[i] = (manifest_value){.name = name, .literal = x, .pos = manifest_here(rd)};
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  p->profile = vals;
  p->n_profile = n;
  return WGK_OK;
}

static wgk_status read_view_alias(manifest_rd *rd, const json_t *obj, manifest_pass *p) {
  const json_t *list = json_object_get(obj, "viewAlias");
  if (!list) return WGK_OK;
  size_t mark = manifest_push_key(rd, "viewAlias");
  wgk_status st = WGK_OK;
  if (!json_is_array(list) || json_array_size(list) == 0)
    st =
        manifest_fail(rd, "pass %s viewAlias must be a non-empty array of { input, output } binding-name pairs", p->id);
  manifest_view_alias *vs = st ? NULL : manifest_alloc(rd, json_array_size(list), sizeof *vs);
  if (!st && !vs) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    const json_t *pair = json_array_get(list, i);
    size_t m2 = manifest_push_index(rd, i);
    const char *in = json_string_value(json_object_get(pair, "input"));
    const char *out = json_string_value(json_object_get(pair, "output"));
    const manifest_binding *bi = NULL, *bo = NULL;
    for (size_t k = 0; k < p->bindings->n_bindings; k++) {
      if (in && strcmp(p->bindings->bindings[k].name, in) == 0) bi = &p->bindings->bindings[k];
      if (out && strcmp(p->bindings->bindings[k].name, out) == 0) bo = &p->bindings->bindings[k];
    }
    if (!in || !out)
      st = manifest_fail(rd, "pass %s viewAlias pair must be { \"input\": <binding>, \"output\": <binding> }", p->id);
    else if (!bi || bi->buffer != WGK_BUFFER_READ_ONLY_STORAGE)
      st = manifest_fail(rd, "pass %s viewAlias.input \"%s\" must name a read-only-storage binding of the pass", p->id,
                         in);
    else if (!bo || bo->buffer != WGK_BUFFER_STORAGE)
      st = manifest_fail(rd, "pass %s viewAlias.output \"%s\" must name a storage (read_write) binding of the pass",
                         p->id, out);
    else
      vs[i] = (manifest_view_alias){in, out};
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  p->view_alias = vs;
  p->n_view_alias = st ? 0 : json_array_size(list);
  return st;
}

/* A `derive` object as the model's named values (a variant's derive, a pass's inputs). */
static wgk_status read_derive_values(manifest_rd *rd, const json_t *obj, const manifest_value **out, size_t *n) {
  manifest_derive *ds = NULL;
  size_t nd = 0;
  wgk_status st = manifest_spec21_derive(rd, obj, "derive", false, &ds, &nd);
  if (st || !nd) return st;
  manifest_value *vals = manifest_alloc(rd, nd, sizeof *vals);
  if (!vals) return WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < nd; i++)
    vals[i] = (manifest_value){.name = ds[i].name,
                               .is_expr = ds[i].expr.text != NULL,
                               .expr = ds[i].expr,
                               .literal = ds[i].literal,
                               .pos = ds[i].pos};
  *out = vals;
  *n = nd;
  return WGK_OK;
}

/* The pass's id: written (a non-empty string) or pass_<index>. */
static wgk_status read_pass_id(manifest_rd *rd, const json_t *obj, size_t index, manifest_pass *p) {
  const json_t *id = json_object_get(obj, "id");
  if (id && (!json_is_string(id) || json_string_length(id) == 0))
    return manifest_fail_in(rd, "id", false, "pass %zu id must be a non-empty string", index);
  if (id) {
    p->id = json_string_value(id);
    return WGK_OK;
  }
  char buf[32];
  snprintf(buf, sizeof buf, "pass_%zu", index);
  p->id = manifest_strdup(rd, buf);
  return p->id ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
}

/* subgroupCollectivesWidth: "portable" (-1) or a power of two in [4, 128]. */
static wgk_status read_subgroup_width(manifest_rd *rd, const json_t *obj, manifest_pass *p) {
  const json_t *sw = json_object_get(obj, "subgroupCollectivesWidth");
  if (!sw) return WGK_OK;
  json_int_t w = json_is_integer(sw) ? json_integer_value(sw) : 0;
  if (json_is_string(sw) && strcmp(json_string_value(sw), "portable") == 0)
    p->subgroup_collectives_width = -1;
  else if (w >= 4 && w <= 128 && (w & (w - 1)) == 0)
    p->subgroup_collectives_width = (int)w;
  else
    return manifest_fail_in(rd, "subgroupCollectivesWidth", false,
                            "pass %s subgroupCollectivesWidth must be "
                            "\"portable\" or a power of two in [4, 128]",
                            p->id);
  return WGK_OK;
}

static wgk_status read_pass(manifest_rd *rd, const json_t *obj, size_t index, const manifest_variant *v,
                            manifest_pass *p) {
  p->pos = manifest_here(rd);
  wgk_status st = manifest_expect(rd, obj, JSON_OBJECT, "a pass object");
  if (!st) st = read_pass_id(rd, obj, index, p);
  if (st) return st;
  char what[200];
  snprintf(what, sizeof what, "pass %s", p->id);
  st = unknown_key(rd, obj, pass_keys, what, pass_hint);
  if (!st) st = manifest_get_string(rd, obj, "name", false, &p->name);
  if (!st && p->name && !*p->name)
    st = manifest_fail_in(rd, "name", false, "pass %s name must be a non-empty string", p->id);
  if (!st && !p->name) p->name = p->id;
  if (!st && !json_object_get(obj, "shader")) st = manifest_fail(rd, "pass %s requires shader", p->id);
  if (!st) st = manifest_get_string(rd, obj, "shader", true, &p->shader);
  if (!st && !*p->shader) st = manifest_fail_in(rd, "shader", false, "pass %s requires shader", p->id);
  if (!st) st = manifest_get_bool(rd, obj, "submitAfter", false, &p->submit_after);
  if (!st) st = read_subgroup_width(rd, obj, p);
  if (!st) st = read_dispatch(rd, obj, p);
  manifest_binding_set *set = st ? NULL : manifest_alloc(rd, 1, sizeof *set);
  if (!st && !set) st = WGK_ERR_OUT_OF_MEMORY;
  if (!st) {
    size_t mark = manifest_push_key(rd, "bindings");
    st = manifest_spec21_pass_bindings(rd, json_object_get(obj, "bindings"), v, p->id, set);
    manifest_pop(rd, mark);
    p->bindings = set;
  }
  /* pass derives are the model's pass inputs */
  if (!st) st = read_derive_values(rd, obj, &p->inputs, &p->n_inputs);
  if (!st) st = read_profile(rd, json_object_get(obj, "profile"), p);
  if (!st) st = read_view_alias(rd, obj, p);
  return st;
}

/* ---- the pass sequence and repeat groups ---- */

typedef struct pass_sink {
  manifest_pass *passes; /* flat list, in order */
  size_t n, cap;
  bool has_repeat;
} pass_sink;

static size_t count_passes(const json_t *list) {
  size_t n = 0;
  for (size_t i = 0; i < json_array_size(list); i++) {
    const json_t *it = json_array_get(list, i);
    n += json_is_object(it) && json_object_get(it, "repeat") ? count_passes(json_object_get(it, "passes")) : 1;
  }
  return n;
}

static wgk_status read_sequence(manifest_rd *rd, const json_t *list, const manifest_variant *v, pass_sink *sink,
                                const char **outer, size_t n_outer, manifest_pass_item **out, size_t *n_out);

/* A repeat group's head: a stable id (repeat_<i> by default) and repeat {index, count}, the index an identifier
   that is no reserved member and shadows no outer index. */
static wgk_status read_repeat_head(manifest_rd *rd, const json_t *o, size_t i, const manifest_variant *v,
                                   const char **outer, size_t n_outer, manifest_pass_item *g) {
  wgk_status st = WGK_OK;
  const json_t *id = json_object_get(o, "id");
  char buf[32];
  snprintf(buf, sizeof buf, "repeat_%zu", i);
  g->id = id ? json_string_value(id) : manifest_strdup(rd, buf);
  if (!id && !g->id)
    st = WGK_ERR_OUT_OF_MEMORY;
  else if (!stable_id(g->id))
    st = manifest_fail(rd, "variant %s repeat group id must be stable, got %s", v->id, g->id ? g->id : "a non-string");
  const json_t *rep = json_object_get(o, "repeat");
  size_t mark = manifest_push_key(rd, "repeat");
  if (!st) st = manifest_expect(rd, rep, JSON_OBJECT, "an object {index, count}");
  if (!st) {
    g->index = json_string_value(json_object_get(rep, "index"));
    if (!manifest_identifier(g->index))
      st = manifest_fail(rd, "repeat group %s index must be an identifier", g->id);
    else if (strcmp(g->index, "index") == 0 || strcmp(g->index, "count") == 0)
      st = manifest_fail_in(rd, "index", false, "repeat group %s index cannot use reserved repeat member %s", g->id,
                            g->index);
    for (size_t k = 0; !st && k < n_outer; k++)
      if (strcmp(outer[k], g->index) == 0)
        st = manifest_fail_in(rd, "index", false, "repeat group %s index %s shadows an outer repeat index", g->id,
                              g->index);
    if (!st && !json_object_get(rep, "count")) st = manifest_fail(rd, "repeat group %s requires repeat.count", g->id);
    if (!st) st = manifest_get_expr(rd, rep, "count", true, &g->count);
  }
  manifest_pop(rd, mark);
  return st;
}

/* A repeat group: its head, then its passes read as a sequence inside the outer indices and its own. */
static wgk_status read_repeat_group(manifest_rd *rd, const json_t *o, size_t i, const manifest_variant *v,
                                    pass_sink *sink, const char **outer, size_t n_outer, manifest_pass_item *g) {
  sink->has_repeat = true;
  wgk_status st = read_repeat_head(rd, o, i, v, outer, n_outer, g);
  const json_t *passes = json_object_get(o, "passes");
  if (!st && (!json_is_array(passes) || json_array_size(passes) == 0))
    st = manifest_fail(rd, "repeat group %s requires passes", g->id);
  if (st) return st;
  const char *names[n_outer + 1];
  for (size_t k = 0; k < n_outer; k++) names[k] = outer[k];
  names[n_outer] = g->index;
  size_t mark = manifest_push_key(rd, "passes");
  manifest_pass_item *sub = NULL;
  st = read_sequence(rd, passes, v, sink, names, n_outer + 1, &sub, &g->n_items);
  g->items = sub;
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_sequence(manifest_rd *rd, const json_t *list, const manifest_variant *v, pass_sink *sink,
                                const char **outer, size_t n_outer, manifest_pass_item **out, size_t *n_out) {
  size_t n = json_array_size(list);
  manifest_pass_item *items = manifest_alloc(rd, n, sizeof *items);
  if (!items) return WGK_ERR_OUT_OF_MEMORY;
  wgk_status st = WGK_OK;
  for (size_t i = 0; !st && i < n; i++) {
    const json_t *o = json_array_get(list, i);
    size_t mark = manifest_push_index(rd, i);
    items[i].pos = manifest_here(rd);
    if (json_is_object(o) && json_object_get(o, "repeat"))
      st = read_repeat_group(rd, o, i, v, sink, outer, n_outer, &items[i]);
    else {
      manifest_pass *p = &sink->passes[sink->n++];
      st = read_pass(rd, o, i, v, p);
      items[i].pass = p;
    }
    manifest_pop(rd, mark);
  }
  *out = items;
  *n_out = n;
  return st;
}

static wgk_status read_passes(manifest_rd *rd, const json_t *obj, manifest_variant *v) {
  const json_t *list = json_object_get(obj, "passes");
  if (!json_is_array(list) || json_array_size(list) == 0) return manifest_fail(rd, "variant %s requires passes", v->id);
  pass_sink sink = {0};
  sink.cap = count_passes(list);
  sink.passes = manifest_alloc(rd, sink.cap, sizeof *sink.passes);
  if (!sink.passes) return WGK_ERR_OUT_OF_MEMORY;
  size_t mark = manifest_push_key(rd, "passes");
  manifest_pass_item *seq = NULL;
  size_t n_seq = 0;
  wgk_status st = read_sequence(rd, list, v, &sink, NULL, 0, &seq, &n_seq);
  for (size_t i = 0; !st && i < sink.n; i++)
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(sink.passes[i].id, sink.passes[j].id) == 0 && !sink.has_repeat)
        st = manifest_fail(rd, "variant %s has duplicate pass id '%s'", v->id, sink.passes[i].id);
  manifest_pop(rd, mark);
  v->passes = sink.passes;
  v->n_passes = st ? 0 : sink.n;
  if (sink.has_repeat) {
    v->sequence = seq;
    v->n_sequence = n_seq;
  }
  return st;
}

/* ---- requires merge (the loader's Oo) ---- */

static wgk_status merge_requires(manifest_rd *rd, const manifest_requires *a, const manifest_requires *b,
                                 const char *id, const manifest_requires **out) {
  if (!a || !b) {
    *out = a ? a : b;
    return WGK_OK;
  }
  if (a->subgroup_matrix_configs && b->subgroup_matrix_configs)
    return manifest_fail(rd,
                         "variant %s and the manifest both declare requires.subgroupMatrixConfigs; declare the "
                         "pattern list once",
                         id);
  manifest_requires *r = manifest_alloc(rd, 1, sizeof *r);
  const char **fs = manifest_alloc(rd, a->n_features + b->n_features, sizeof *fs);
  manifest_limit_min *ls = manifest_alloc(rd, a->n_limits + b->n_limits, sizeof *ls);
  if (!r || !fs || !ls) return WGK_ERR_OUT_OF_MEMORY;
  const manifest_requires *both[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    for (size_t i = 0; i < both[k]->n_features; i++) {
      bool dup = false;
      for (size_t j = 0; j < r->n_features && !dup; j++) dup = strcmp(fs[j], both[k]->features[i]) == 0;
      if (!dup) fs[r->n_features++] = both[k]->features[i];
    }
    for (size_t i = 0; i < both[k]->n_limits; i++) {
      size_t j = 0;
      while (j < r->n_limits && strcmp(ls[j].name, both[k]->limits[i].name) != 0) j++;
      if (j == r->n_limits)
        ls[r->n_limits++] = both[k]->limits[i];
      else if (both[k]->limits[i].min > ls[j].min)
        ls[j].min = both[k]->limits[i].min;
    }
  }
  r->features = fs;
  r->limits = ls;
  r->subgroup_min_size = a->subgroup_min_size > b->subgroup_min_size ? a->subgroup_min_size : b->subgroup_min_size;
  r->subgroup_matrix_configs = b->subgroup_matrix_configs ? b->subgroup_matrix_configs : a->subgroup_matrix_configs;
  *out = r;
  return WGK_OK;
}

static wgk_status read_names(manifest_rd *rd, const json_t *obj, const char *key, const char ***out, size_t *n) {
  const json_t *list = json_object_get(obj, key);
  if (!list) return WGK_OK;
  size_t mark = manifest_push_key(rd, key);
  wgk_status st = WGK_OK;
  if (!json_is_array(list) || json_array_size(list) == 0)
    st = manifest_fail(rd, "%s must be a non-empty string[]%s", key,
                       json_is_string(list) ? " (spec 2.0 has no single-string form: wrap it in a list)" : "");
  const char **names = st ? NULL : manifest_alloc(rd, json_array_size(list), sizeof *names);
  if (!st && !names) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    names[i] = json_string_value(json_array_get(list, i));
    if (!names[i] || !*names[i]) {
      size_t m2 = manifest_push_index(rd, i);
      st = manifest_fail(rd, "%s entries must be non-empty strings", key);
      manifest_pop(rd, m2);
    }
  }
  manifest_pop(rd, mark);
  if (!st) {
    *out = names;
    *n = json_array_size(list);
  }
  return st;
}

static wgk_status read_variant(manifest_rd *rd, const json_t *obj, size_t index, const spec21_ctx *ctx,
                               manifest_variant *v) {
  v->pos = manifest_here(rd);
  v->description = "";
  wgk_status st = manifest_expect(rd, obj, JSON_OBJECT, "a variant object");
  if (st) return st;
  const json_t *id = json_object_get(obj, "id");
  if (id)
    v->id = json_string_value(id);
  else {
    char buf[32];
    snprintf(buf, sizeof buf, "variant_%zu", index);
    v->id = manifest_strdup(rd, buf);
  }
  if (!stable_id(v->id)) {
    char shown[80];
    manifest_show(id, shown, sizeof shown);
    return id ? manifest_fail_in(rd, "id", false, "variant id must be stable ([A-Za-z0-9][A-Za-z0-9_]*), got %s", shown)
              : WGK_ERR_OUT_OF_MEMORY;
  }
  char what[200];
  snprintf(what, sizeof what, "variant %s", v->id);
  st = unknown_key(rd, obj, variant_keys, what, variant_hint);
  if (!st) st = manifest_get_string(rd, obj, "description", false, &v->description);
  const json_t *prio = st ? NULL : json_object_get(obj, "priority");
  if (prio && !(json_is_number(prio) && isfinite(json_number_value(prio))))
    st = manifest_fail_in(rd, "priority", false, "variant %s priority must be a finite number", v->id);
  if (prio && !st) v->priority = json_number_value(prio);
  const manifest_expr *when = NULL;
  size_t n_when = 0;
  if (!st) st = manifest_spec21_clauses(rd, obj, "when", &when, &n_when);
  if (!st) { /* the manifest's clauses first (fact 26) */
    manifest_expr *all = manifest_alloc(rd, ctx->n_when + n_when, sizeof *all);
    if (!all) return WGK_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < ctx->n_when; i++) all[i] = ctx->when[i];
    for (size_t i = 0; i < n_when; i++) all[ctx->n_when + i] = when[i];
    v->when = all;
    v->n_when = ctx->n_when + n_when;
  }
  if (!st) st = manifest_spec21_clauses(rd, obj, "demoteWhen", &v->demote_when, &v->n_demote_when);
  if (!st) st = read_names(rd, obj, "supersededBy", &v->superseded_by, &v->n_superseded_by);
  manifest_requires *req = NULL;
  if (!st) st = manifest_spec21_requires(rd, obj, "requires", &req);
  if (!st) st = merge_requires(rd, ctx->req, req, v->id, &v->requires);
  if (!st) st = manifest_spec21_tunables(rd, obj, &v->tunables, &v->n_tunables);
  if (!st) st = read_derive_values(rd, obj, &v->derive, &v->n_derive);
  if (!st) st = read_intermediates(rd, obj, v);
  if (!st) st = read_passes(rd, obj, v);
  return st;
}

wgk_status manifest_spec21_variants(manifest_rd *rd, const json_t *root) {
  spec21_ctx ctx = {0};
  wgk_status st = manifest_spec21_clauses(rd, root, "when", &ctx.when, &ctx.n_when);
  manifest_requires *req = NULL;
  if (!st) st = manifest_spec21_requires(rd, root, "requires", &req);
  ctx.req = req;
  if (st) return st;
  const json_t *list = json_object_get(root, "variants");
  if (!json_is_array(list) || json_array_size(list) == 0)
    return list ? manifest_fail_in(rd, "variants", false, "requires a non-empty variants list")
                : manifest_fail(rd, "missing required key 'variants' (a non-empty list)");
  manifest_family_item *items = NULL;
  size_t n = 0;
  st = manifest_spec21_expand(rd, list, &items, &n);
  if (st) return st;
  manifest_variant *vs = manifest_alloc(rd, n, sizeof *vs);
  util_strindex ids; /* id -> variant: duplicates and supersededBy names in O(1), not by a scan */
  if (!vs || !util_strindex_init(&ids, n)) return WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < n; i++) {
    size_t mark = rd->path.len;
    util_dynbuf_append_str(&rd->path, items[i].path);
    st = read_variant(rd, items[i].json, i, &ctx, &vs[i]);
    int added = st ? 1 : util_strindex_add(&ids, vs[i].id, i, NULL);
    if (added < 0) st = WGK_ERR_OUT_OF_MEMORY;
    if (added == 0) st = manifest_fail(rd, "duplicate expanded variant id \"%s\"", vs[i].id);
    manifest_pop(rd, mark);
  }
  for (size_t i = 0; !st && i < n; i++) {
    size_t mark = rd->path.len;
    util_dynbuf_append_str(&rd->path, items[i].path);
    manifest_push_key(rd, "supersededBy");
    size_t *index = vs[i].n_superseded_by ? manifest_alloc(rd, vs[i].n_superseded_by, sizeof *index) : NULL;
    if (vs[i].n_superseded_by && !index) st = WGK_ERR_OUT_OF_MEMORY;
    vs[i].superseded_by_index = index;
    for (size_t k = 0; !st && k < vs[i].n_superseded_by; k++) {
      const char *s = vs[i].superseded_by[k];
      size_t j = n;
      util_strindex_find(&ids, s, &j);
      index[k] = j;
      if (strcmp(s, vs[i].id) == 0)
        st = manifest_fail(rd, "variant \"%s\" lists itself in supersededBy", s);
      else if (j == n)
        st = manifest_fail(rd, "variant \"%s\" supersededBy names unknown variant \"%s\"", vs[i].id, s);
      else if (!(vs[j].priority > vs[i].priority || (vs[j].priority == vs[i].priority && j < i)))
        st = manifest_fail(rd,
                           "variant \"%s\" (priority %g) is supersededBy \"%s\" (priority %g), which does not "
                           "outrank it; supersededBy removes a variant where a higher-ranked sibling already "
                           "covers the shape",
                           vs[i].id, vs[i].priority, s, vs[j].priority);
    }
    manifest_pop(rd, mark);
  }
  util_strindex_free(&ids);
  rd->m->variants = vs;
  rd->m->n_variants = st ? 0 : n;
  return st;
}
