/* Manifest spec 2.1 variants: id, priority, when (the manifest's clauses first), demoteWhen, supersededBy,
 * requires (merged with the manifest's), tunables, derive, intermediates, and the pass sequence with
 * repeat groups; passes with shader, derive, bindings, the three dispatch forms, profile,
 * subgroupCollectivesWidth, submitAfter and viewAlias. Families are expanded first (spec21_family.c). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "manifest/reader.h"

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
  const wgk_manifest_expr *when; /* manifest `when`, prepended to every variant's */
  size_t n_when;
  const wgk_manifest_requires *req; /* manifest `requires` */
} spec21_ctx;

static wgk_status unknown_key(wgk_manifest_rd *rd, const json_t *obj, const char *const *allowed, const char *what,
                              const char *(*hint)(const char *)) {
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    bool known = false;
    for (const char *const *k = allowed; *k && !known; k++) known = strcmp(*k, key) == 0;
    if (!known) {
      const char *h = hint ? hint(key) : NULL;
      return wgk_manifest_fail_in(rd, key, true, "%s has unknown key '%s'%s", what, key, h ? h : "");
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

static wgk_status read_intermediate_shape(wgk_manifest_rd *rd, const json_t *obj, wgk_manifest_intermediate *it) {
  const json_t *shape = json_object_get(obj, "shape");
  if (!shape) return wgk_manifest_fail(rd, "intermediate %s requires shape", it->id);
  size_t mark = wgk_manifest_push_key(rd, "shape");
  wgk_status st = WGK_OK;
  if (json_is_string(shape)) {
    st = wgk_manifest_read_expr(rd, shape, &it->shape);
  } else {
    /* a list of dims, or one number (the loader wraps a non-list in a list) */
    bool list = json_is_array(shape);
    size_t n = list ? json_array_size(shape) : 1;
    if (list && n == 0) st = wgk_manifest_fail(rd, "intermediate %s shape must not be empty", it->id);
    wgk_manifest_expr *dims = st ? NULL : wgk_manifest_alloc(rd, n, sizeof *dims);
    if (!st && !dims) st = WGK_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; !st && i < n; i++) {
      size_t m2 = list ? wgk_manifest_push_index(rd, i) : rd->path.len;
      st = wgk_manifest_read_expr(rd, list ? json_array_get(shape, i) : shape, &dims[i]);
      wgk_manifest_pop(rd, m2);
    }
    it->shape_is_list = true;
    it->dims = dims;
    it->n_dims = st ? 0 : n;
  }
  wgk_manifest_pop(rd, mark);
  return st;
}

static wgk_status read_intermediates(wgk_manifest_rd *rd, const json_t *obj, wgk_manifest_variant *v) {
  const json_t *list = json_object_get(obj, "intermediates");
  if (!list) return WGK_OK;
  size_t mark = wgk_manifest_push_key(rd, "intermediates");
  wgk_status st =
      json_is_array(list) ? WGK_OK : wgk_manifest_fail(rd, "variant %s intermediates must be an array", v->id);
  size_t n = st ? 0 : json_array_size(list);
  wgk_manifest_intermediate *its = st ? NULL : wgk_manifest_alloc(rd, n, sizeof *its);
  if (!st && !its) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < n; i++) {
    const json_t *o = json_array_get(list, i);
    wgk_manifest_intermediate *it = &its[i];
    size_t m2 = wgk_manifest_push_index(rd, i);
    it->pos = wgk_manifest_here(rd);
    st = wgk_manifest_object(rd, o, "an intermediate object", intermediate_keys);
    if (!st) st = wgk_manifest_get_string(rd, o, "id", true, &it->id);
    if (!st && !*it->id)
      st = wgk_manifest_fail_in(rd, "id", false, "intermediate %zu id must be a non-empty string", i);
    if (!st) st = wgk_manifest_get_string(rd, o, "dtype", true, &it->dtype);
    if (!st && !wgk_manifest_spec21_dtype(it->dtype))
      st = wgk_manifest_fail_in(rd, "dtype", false,
                                "intermediate %s dtype must be a concrete WebGPU storage dtype, got "
                                "'%s'",
                                it->id, it->dtype);
    if (!st && strcmp(it->dtype, "int64") == 0)
      st = wgk_manifest_fail_in(rd, "dtype", false, "variant %s: opaque int64 intermediates are unsupported", v->id);
    const json_t *z = st ? NULL : json_object_get(o, "zeroInit");
    if (z && !json_is_true(z))
      st = wgk_manifest_fail_in(rd, "zeroInit", false,
                                "intermediate %s zeroInit must be true when present (omit the key "
                                "when the kernel does not require a zeroed buffer)",
                                it->id);
    it->zero_init = z != NULL;
    if (!st) st = read_intermediate_shape(rd, o, it);
    if (!st && wgk_manifest_find_port(rd->m, it->id))
      st = wgk_manifest_fail_in(rd, "id", false, "variant %s intermediate \"%s\" is also a tensor name", v->id, it->id);
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(its[j].id, it->id) == 0)
        st = wgk_manifest_fail_in(rd, "id", false, "duplicate intermediate id '%s' in variant '%s'", it->id, v->id);
    wgk_manifest_pop(rd, m2);
  }
  wgk_manifest_pop(rd, mark);
  v->intermediates = its;
  v->n_intermediates = st ? 0 : n;
  return st;
}

/* ---- passes ---- */

static wgk_status read_count_expr(wgk_manifest_rd *rd, const json_t *dj, const char *key, bool required,
                                  wgk_manifest_expr *out, const char *pass_id) {
  const json_t *v = json_object_get(dj, key);
  if (!v) return required ? wgk_manifest_fail(rd, "pass %s dispatch requires %s", pass_id, key) : WGK_OK;
  if (json_is_integer(v) && json_integer_value(v) < 0)
    return wgk_manifest_fail_in(rd, key, false,
                                "pass %s dispatch sizes must be expression strings or non-negative safe "
                                "integers",
                                pass_id);
  return wgk_manifest_get_expr(rd, dj, key, required, out);
}

static wgk_status read_dispatch(wgk_manifest_rd *rd, const json_t *obj, wgk_manifest_pass *p) {
  const json_t *dj = json_object_get(obj, "dispatch");
  if (!dj) return wgk_manifest_fail(rd, "pass %s requires dispatch", p->id);
  size_t mark = wgk_manifest_push_key(rd, "dispatch");
  wgk_manifest_dispatch *d = &p->dispatch;
  d->pos = wgk_manifest_here(rd);
  wgk_status st = wgk_manifest_expect(rd, dj, JSON_OBJECT, "a dispatch object");
  bool threads = json_object_get(dj, "threads") != NULL, groups = json_object_get(dj, "workgroups") != NULL;
  if (!st && json_object_get(dj, "gridStride"))
    st = wgk_manifest_fail_in(rd, "gridStride", true,
                              "pass %s dispatch uses gridStride, which spec 2.0 removed: write the "
                              "clamp explicitly, x = min(<count>, device.limits.maxComputeWorkgroupsPerDimension)",
                              p->id);
  if (!st && threads && groups)
    st = wgk_manifest_fail(rd, "pass %s dispatch must use exactly one of 'threads'+'workgroupSize' or 'workgroups'",
                           p->id);
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
        st = wgk_manifest_fail_in(rd, key, true, "pass %s dispatch shorthand has unknown key '%s'%s", p->id, key,
                                  axis ? " (spec 2.0 has no pinned axes; write the explicit x/y/z grid)" : "");
        break;
      }
    }
    if (!st && threads) {
      d->kind = WGK_DISPATCH_THREADS;
      if (!json_object_get(dj, "workgroupSize"))
        st = wgk_manifest_fail(rd, "pass %s dispatch shorthand requires both 'threads' and 'workgroupSize'", p->id);
      if (!st) st = read_count_expr(rd, dj, "threads", true, &d->threads, p->id);
      if (!st) st = read_count_expr(rd, dj, "workgroupSize", true, &d->workgroup_size, p->id);
    } else if (!st) {
      d->kind = WGK_DISPATCH_WORKGROUPS;
      st = read_count_expr(rd, dj, "workgroups", true, &d->workgroups, p->id);
    }
  }
  wgk_manifest_pop(rd, mark);
  return st;
}

static wgk_status read_view_alias(wgk_manifest_rd *rd, const json_t *obj, wgk_manifest_pass *p) {
  const json_t *list = json_object_get(obj, "viewAlias");
  if (!list) return WGK_OK;
  size_t mark = wgk_manifest_push_key(rd, "viewAlias");
  wgk_status st = WGK_OK;
  if (!json_is_array(list) || json_array_size(list) == 0)
    st = wgk_manifest_fail(rd, "pass %s viewAlias must be a non-empty array of { input, output } binding-name pairs",
                           p->id);
  wgk_manifest_view_alias *vs = st ? NULL : wgk_manifest_alloc(rd, json_array_size(list), sizeof *vs);
  if (!st && !vs) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    const json_t *pair = json_array_get(list, i);
    size_t m2 = wgk_manifest_push_index(rd, i);
    const char *in = json_string_value(json_object_get(pair, "input"));
    const char *out = json_string_value(json_object_get(pair, "output"));
    const wgk_manifest_binding *bi = NULL, *bo = NULL;
    for (size_t k = 0; k < p->bindings->n_bindings; k++) {
      if (in && strcmp(p->bindings->bindings[k].name, in) == 0) bi = &p->bindings->bindings[k];
      if (out && strcmp(p->bindings->bindings[k].name, out) == 0) bo = &p->bindings->bindings[k];
    }
    if (!in || !out)
      st = wgk_manifest_fail(rd, "pass %s viewAlias pair must be { \"input\": <binding>, \"output\": <binding> }",
                             p->id);
    else if (!bi || bi->buffer != WGK_BUFFER_READ_ONLY_STORAGE)
      st = wgk_manifest_fail(rd, "pass %s viewAlias.input \"%s\" must name a read-only-storage binding of the pass",
                             p->id, in);
    else if (!bo || bo->buffer != WGK_BUFFER_STORAGE)
      st = wgk_manifest_fail(rd, "pass %s viewAlias.output \"%s\" must name a storage (read_write) binding of the pass",
                             p->id, out);
    else
      vs[i] = (wgk_manifest_view_alias){in, out};
    wgk_manifest_pop(rd, m2);
  }
  wgk_manifest_pop(rd, mark);
  p->view_alias = vs;
  p->n_view_alias = st ? 0 : json_array_size(list);
  return st;
}

/* A `derive` object as the model's named values (a variant's derive, a pass's inputs). */
static wgk_status read_derive_values(wgk_manifest_rd *rd, const json_t *obj, const wgk_manifest_value **out,
                                     size_t *n) {
  wgk_manifest_derive *ds = NULL;
  size_t nd = 0;
  wgk_status st = wgk_manifest_spec21_derive(rd, obj, "derive", false, &ds, &nd);
  if (st || !nd) return st;
  wgk_manifest_value *vals = wgk_manifest_alloc(rd, nd, sizeof *vals);
  if (!vals) return WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < nd; i++)
    vals[i] = (wgk_manifest_value){.name = ds[i].name,
                                   .is_expr = ds[i].expr.text != NULL,
                                   .expr = ds[i].expr,
                                   .literal = ds[i].literal,
                                   .pos = ds[i].pos};
  *out = vals;
  *n = nd;
  return WGK_OK;
}

static wgk_status read_pass(wgk_manifest_rd *rd, const json_t *obj, size_t index, const wgk_manifest_variant *v,
                            wgk_manifest_pass *p) {
  p->pos = wgk_manifest_here(rd);
  wgk_status st = wgk_manifest_expect(rd, obj, JSON_OBJECT, "a pass object");
  if (st) return st;
  const json_t *id = json_object_get(obj, "id");
  if (id && (!json_is_string(id) || json_string_length(id) == 0))
    return wgk_manifest_fail_in(rd, "id", false, "pass %zu id must be a non-empty string", index);
  if (id)
    p->id = json_string_value(id);
  else {
    char buf[32];
    snprintf(buf, sizeof buf, "pass_%zu", index);
    p->id = wgk_manifest_strdup(rd, buf);
    if (!p->id) return WGK_ERR_OUT_OF_MEMORY;
  }
  char what[200];
  snprintf(what, sizeof what, "pass %s", p->id);
  st = unknown_key(rd, obj, pass_keys, what, pass_hint);
  if (!st) st = wgk_manifest_get_string(rd, obj, "name", false, &p->name);
  if (!st && p->name && !*p->name)
    st = wgk_manifest_fail_in(rd, "name", false, "pass %s name must be a non-empty string", p->id);
  if (!st && !p->name) p->name = p->id;
  if (!st && !json_object_get(obj, "shader")) st = wgk_manifest_fail(rd, "pass %s requires shader", p->id);
  if (!st) st = wgk_manifest_get_string(rd, obj, "shader", true, &p->shader);
  if (!st && !*p->shader) st = wgk_manifest_fail_in(rd, "shader", false, "pass %s requires shader", p->id);
  if (!st) st = wgk_manifest_get_bool(rd, obj, "submitAfter", false, &p->submit_after);
  const json_t *sw = st ? NULL : json_object_get(obj, "subgroupCollectivesWidth");
  if (sw) {
    json_int_t w = json_is_integer(sw) ? json_integer_value(sw) : 0;
    if (json_is_string(sw) && strcmp(json_string_value(sw), "portable") == 0)
      p->subgroup_collectives_width = -1;
    else if (w >= 4 && w <= 128 && (w & (w - 1)) == 0)
      p->subgroup_collectives_width = (int)w;
    else
      st = wgk_manifest_fail_in(rd, "subgroupCollectivesWidth", false,
                                "pass %s subgroupCollectivesWidth must be "
                                "\"portable\" or a power of two in [4, 128]",
                                p->id);
  }
  if (!st) st = read_dispatch(rd, obj, p);
  wgk_manifest_binding_set *set = st ? NULL : wgk_manifest_alloc(rd, 1, sizeof *set);
  if (!st && !set) st = WGK_ERR_OUT_OF_MEMORY;
  if (!st) {
    size_t mark = wgk_manifest_push_key(rd, "bindings");
    st = wgk_manifest_spec21_pass_bindings(rd, json_object_get(obj, "bindings"), v, p->id, set);
    wgk_manifest_pop(rd, mark);
    p->bindings = set;
  }
  /* pass derives are the model's pass inputs */
  if (!st) st = read_derive_values(rd, obj, &p->inputs, &p->n_inputs);
  const json_t *prof = st ? NULL : json_object_get(obj, "profile");
  if (prof) {
    size_t mark = wgk_manifest_push_key(rd, "profile");
    st = wgk_manifest_expect(rd, prof, JSON_OBJECT, "an object");
    wgk_manifest_value *vals = st ? NULL : wgk_manifest_alloc(rd, json_object_size(prof), sizeof *vals);
    if (!st && !vals) st = WGK_ERR_OUT_OF_MEMORY;
    const char *key;
    const json_t *x;
    size_t n = 0;
    if (!st && vals) json_object_foreach((json_t *)prof, key, x) {
        size_t m2 = wgk_manifest_push_key(rd, key);
        vals[n] = (wgk_manifest_value){.name = key, .pos = wgk_manifest_here(rd)};
        if (json_is_string(x)) {
          vals[n].is_expr = true;
          st = wgk_manifest_read_expr(rd, x, &vals[n].expr);
        } else
          vals[n].literal = x;
        n++;
        wgk_manifest_pop(rd, m2);
        if (st) break;
      }
    p->profile = vals;
    p->n_profile = st ? 0 : n;
    wgk_manifest_pop(rd, mark);
  }
  if (!st) st = read_view_alias(rd, obj, p);
  return st;
}

/* ---- the pass sequence and repeat groups ---- */

typedef struct pass_sink {
  wgk_manifest_pass *passes; /* flat list, in order */
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

static wgk_status read_sequence(wgk_manifest_rd *rd, const json_t *list, const wgk_manifest_variant *v, pass_sink *sink,
                                const char **outer, size_t n_outer, wgk_manifest_pass_item **out, size_t *n_out) {
  size_t n = json_array_size(list);
  wgk_manifest_pass_item *items = wgk_manifest_alloc(rd, n, sizeof *items);
  if (!items) return WGK_ERR_OUT_OF_MEMORY;
  wgk_status st = WGK_OK;
  for (size_t i = 0; !st && i < n; i++) {
    const json_t *o = json_array_get(list, i);
    size_t mark = wgk_manifest_push_index(rd, i);
    items[i].pos = wgk_manifest_here(rd);
    if (!(json_is_object(o) && json_object_get(o, "repeat"))) {
      wgk_manifest_pass *p = &sink->passes[sink->n++];
      st = read_pass(rd, o, i, v, p);
      items[i].pass = p;
      wgk_manifest_pop(rd, mark);
      continue;
    }
    sink->has_repeat = true;
    wgk_manifest_pass_item *g = &items[i];
    const json_t *id = json_object_get(o, "id");
    char buf[32];
    snprintf(buf, sizeof buf, "repeat_%zu", i);
    g->id = id ? json_string_value(id) : wgk_manifest_strdup(rd, buf);
    if (!id && !g->id)
      st = WGK_ERR_OUT_OF_MEMORY;
    else if (!stable_id(g->id))
      st = wgk_manifest_fail(rd, "variant %s repeat group id must be stable, got %s", v->id,
                             g->id ? g->id : "a non-string");
    const json_t *rep = json_object_get(o, "repeat");
    size_t m2 = wgk_manifest_push_key(rd, "repeat");
    if (!st) st = wgk_manifest_expect(rd, rep, JSON_OBJECT, "an object {index, count}");
    if (!st) {
      g->index = json_string_value(json_object_get(rep, "index"));
      if (!wgk_manifest_identifier(g->index))
        st = wgk_manifest_fail(rd, "repeat group %s index must be an identifier", g->id);
      else if (strcmp(g->index, "index") == 0 || strcmp(g->index, "count") == 0)
        st = wgk_manifest_fail_in(rd, "index", false, "repeat group %s index cannot use reserved repeat member %s",
                                  g->id, g->index);
      for (size_t k = 0; !st && k < n_outer; k++)
        if (strcmp(outer[k], g->index) == 0)
          st = wgk_manifest_fail_in(rd, "index", false, "repeat group %s index %s shadows an outer repeat index", g->id,
                                    g->index);
      if (!st && !json_object_get(rep, "count"))
        st = wgk_manifest_fail(rd, "repeat group %s requires repeat.count", g->id);
      if (!st) st = wgk_manifest_get_expr(rd, rep, "count", true, &g->count);
    }
    wgk_manifest_pop(rd, m2);
    const json_t *passes = json_object_get(o, "passes");
    if (!st && (!json_is_array(passes) || json_array_size(passes) == 0))
      st = wgk_manifest_fail(rd, "repeat group %s requires passes", g->id);
    if (!st) {
      const char *names[n_outer + 1];
      for (size_t k = 0; k < n_outer; k++) names[k] = outer[k];
      names[n_outer] = g->index;
      size_t m3 = wgk_manifest_push_key(rd, "passes");
      wgk_manifest_pass_item *sub = NULL;
      st = read_sequence(rd, passes, v, sink, names, n_outer + 1, &sub, &g->n_items);
      g->items = sub;
      wgk_manifest_pop(rd, m3);
    }
    wgk_manifest_pop(rd, mark);
  }
  *out = items;
  *n_out = n;
  return st;
}

static wgk_status read_passes(wgk_manifest_rd *rd, const json_t *obj, wgk_manifest_variant *v) {
  const json_t *list = json_object_get(obj, "passes");
  if (!json_is_array(list) || json_array_size(list) == 0)
    return wgk_manifest_fail(rd, "variant %s requires passes", v->id);
  pass_sink sink = {0};
  sink.cap = count_passes(list);
  sink.passes = wgk_manifest_alloc(rd, sink.cap, sizeof *sink.passes);
  if (!sink.passes) return WGK_ERR_OUT_OF_MEMORY;
  size_t mark = wgk_manifest_push_key(rd, "passes");
  wgk_manifest_pass_item *seq = NULL;
  size_t n_seq = 0;
  wgk_status st = read_sequence(rd, list, v, &sink, NULL, 0, &seq, &n_seq);
  for (size_t i = 0; !st && i < sink.n; i++)
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(sink.passes[i].id, sink.passes[j].id) == 0 && !sink.has_repeat)
        st = wgk_manifest_fail(rd, "variant %s has duplicate pass id '%s'", v->id, sink.passes[i].id);
  wgk_manifest_pop(rd, mark);
  v->passes = sink.passes;
  v->n_passes = st ? 0 : sink.n;
  if (sink.has_repeat) {
    v->sequence = seq;
    v->n_sequence = n_seq;
  }
  return st;
}

/* ---- requires merge (the loader's Oo) ---- */

static wgk_status merge_requires(wgk_manifest_rd *rd, const wgk_manifest_requires *a, const wgk_manifest_requires *b,
                                 const char *id, const wgk_manifest_requires **out) {
  if (!a || !b) {
    *out = a ? a : b;
    return WGK_OK;
  }
  if (a->subgroup_matrix_configs && b->subgroup_matrix_configs)
    return wgk_manifest_fail(rd,
                             "variant %s and the manifest both declare requires.subgroupMatrixConfigs; declare the "
                             "pattern list once",
                             id);
  wgk_manifest_requires *r = wgk_manifest_alloc(rd, 1, sizeof *r);
  const char **fs = wgk_manifest_alloc(rd, a->n_features + b->n_features, sizeof *fs);
  wgk_manifest_limit_min *ls = wgk_manifest_alloc(rd, a->n_limits + b->n_limits, sizeof *ls);
  if (!r || !fs || !ls) return WGK_ERR_OUT_OF_MEMORY;
  const wgk_manifest_requires *both[2] = {a, b};
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

static wgk_status read_names(wgk_manifest_rd *rd, const json_t *obj, const char *key, const char ***out, size_t *n) {
  const json_t *list = json_object_get(obj, key);
  if (!list) return WGK_OK;
  size_t mark = wgk_manifest_push_key(rd, key);
  wgk_status st = WGK_OK;
  if (!json_is_array(list) || json_array_size(list) == 0)
    st = wgk_manifest_fail(rd, "%s must be a non-empty string[]%s", key,
                           json_is_string(list) ? " (spec 2.0 has no single-string form: wrap it in a list)" : "");
  const char **names = st ? NULL : wgk_manifest_alloc(rd, json_array_size(list), sizeof *names);
  if (!st && !names) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    names[i] = json_string_value(json_array_get(list, i));
    if (!names[i] || !*names[i]) {
      size_t m2 = wgk_manifest_push_index(rd, i);
      st = wgk_manifest_fail(rd, "%s entries must be non-empty strings", key);
      wgk_manifest_pop(rd, m2);
    }
  }
  wgk_manifest_pop(rd, mark);
  if (!st) {
    *out = names;
    *n = json_array_size(list);
  }
  return st;
}

static wgk_status read_variant(wgk_manifest_rd *rd, const json_t *obj, size_t index, const spec21_ctx *ctx,
                               wgk_manifest_variant *v) {
  v->pos = wgk_manifest_here(rd);
  v->description = "";
  wgk_status st = wgk_manifest_expect(rd, obj, JSON_OBJECT, "a variant object");
  if (st) return st;
  const json_t *id = json_object_get(obj, "id");
  if (id)
    v->id = json_string_value(id);
  else {
    char buf[32];
    snprintf(buf, sizeof buf, "variant_%zu", index);
    v->id = wgk_manifest_strdup(rd, buf);
  }
  if (!stable_id(v->id)) {
    char shown[80];
    wgk_manifest_show(id, shown, sizeof shown);
    return id ? wgk_manifest_fail_in(rd, "id", false, "variant id must be stable ([A-Za-z0-9][A-Za-z0-9_]*), got %s",
                                     shown)
              : WGK_ERR_OUT_OF_MEMORY;
  }
  char what[200];
  snprintf(what, sizeof what, "variant %s", v->id);
  st = unknown_key(rd, obj, variant_keys, what, variant_hint);
  if (!st) st = wgk_manifest_get_string(rd, obj, "description", false, &v->description);
  const json_t *prio = st ? NULL : json_object_get(obj, "priority");
  if (prio && !(json_is_number(prio) && isfinite(json_number_value(prio))))
    st = wgk_manifest_fail_in(rd, "priority", false, "variant %s priority must be a finite number", v->id);
  if (prio && !st) v->priority = json_number_value(prio);
  const wgk_manifest_expr *when = NULL;
  size_t n_when = 0;
  if (!st) st = wgk_manifest_spec21_clauses(rd, obj, "when", &when, &n_when);
  if (!st) { /* the manifest's clauses first (fact 26) */
    wgk_manifest_expr *all = wgk_manifest_alloc(rd, ctx->n_when + n_when, sizeof *all);
    if (!all) return WGK_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < ctx->n_when; i++) all[i] = ctx->when[i];
    for (size_t i = 0; i < n_when; i++) all[ctx->n_when + i] = when[i];
    v->when = all;
    v->n_when = ctx->n_when + n_when;
  }
  if (!st) st = wgk_manifest_spec21_clauses(rd, obj, "demoteWhen", &v->demote_when, &v->n_demote_when);
  if (!st) st = read_names(rd, obj, "supersededBy", &v->superseded_by, &v->n_superseded_by);
  wgk_manifest_requires *req = NULL;
  if (!st) st = wgk_manifest_spec21_requires(rd, obj, "requires", &req);
  if (!st) st = merge_requires(rd, ctx->req, req, v->id, &v->requires);
  if (!st) st = wgk_manifest_spec21_tunables(rd, obj, &v->tunables, &v->n_tunables);
  if (!st) st = read_derive_values(rd, obj, &v->derive, &v->n_derive);
  if (!st) st = read_intermediates(rd, obj, v);
  if (!st) st = read_passes(rd, obj, v);
  return st;
}

wgk_status wgk_manifest_spec21_variants(wgk_manifest_rd *rd, const json_t *root) {
  spec21_ctx ctx = {0};
  wgk_status st = wgk_manifest_spec21_clauses(rd, root, "when", &ctx.when, &ctx.n_when);
  wgk_manifest_requires *req = NULL;
  if (!st) st = wgk_manifest_spec21_requires(rd, root, "requires", &req);
  ctx.req = req;
  if (st) return st;
  const json_t *list = json_object_get(root, "variants");
  if (!json_is_array(list) || json_array_size(list) == 0)
    return list ? wgk_manifest_fail_in(rd, "variants", false, "requires a non-empty variants list")
                : wgk_manifest_fail(rd, "missing required key 'variants' (a non-empty list)");
  wgk_manifest_family_item *items = NULL;
  size_t n = 0;
  st = wgk_manifest_spec21_expand(rd, list, &items, &n);
  if (st) return st;
  wgk_manifest_variant *vs = wgk_manifest_alloc(rd, n, sizeof *vs);
  if (!vs) return WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < n; i++) {
    size_t mark = rd->path.len;
    wgk_dynbuf_append_str(&rd->path, items[i].path);
    st = read_variant(rd, items[i].json, i, &ctx, &vs[i]);
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(vs[j].id, vs[i].id) == 0) st = wgk_manifest_fail(rd, "duplicate expanded variant id \"%s\"", vs[i].id);
    wgk_manifest_pop(rd, mark);
  }
  for (size_t i = 0; !st && i < n; i++) {
    size_t mark = rd->path.len;
    wgk_dynbuf_append_str(&rd->path, items[i].path);
    wgk_manifest_push_key(rd, "supersededBy");
    for (size_t k = 0; !st && k < vs[i].n_superseded_by; k++) {
      const char *s = vs[i].superseded_by[k];
      size_t j = 0;
      while (j < n && strcmp(vs[j].id, s) != 0) j++;
      if (strcmp(s, vs[i].id) == 0)
        st = wgk_manifest_fail(rd, "variant \"%s\" lists itself in supersededBy", s);
      else if (j == n)
        st = wgk_manifest_fail(rd, "variant \"%s\" supersededBy names unknown variant \"%s\"", vs[i].id, s);
      else if (!(vs[j].priority > vs[i].priority || (vs[j].priority == vs[i].priority && j < i)))
        st = wgk_manifest_fail(rd,
                               "variant \"%s\" (priority %g) is supersededBy \"%s\" (priority %g), which does not "
                               "outrank it; supersededBy removes a variant where a higher-ranked sibling already "
                               "covers the shape",
                               vs[i].id, vs[i].priority, s, vs[j].priority);
    }
    wgk_manifest_pop(rd, mark);
  }
  rd->m->variants = vs;
  rd->m->n_variants = st ? 0 : n;
  return st;
}
