/* Seed format: variants, their `when` clauses, constants and passes (source, bindings, dispatch). */
#include <ctype.h>
#include <string.h>

#include "manifest/reader.h"

static const char *const variant_keys[] = {"id", "when", "constants", "intermediates", "passes", NULL};
static const char *const pass_keys[] = {"id", "name", "source", "bindings", "dispatch", NULL};
static const char *const source_keys[] = {"shader", "inputs", NULL};
static const char *const dispatch_keys[] = {"threads", "workgroupSize", "workgroups", "x", "y", "z", NULL};

/* Names a bare `when` identifier may be besides the derives (docs/expressions.md scope and literals). */
static const char *const scope_names[] = {"attrs",
                                          "args",
                                          "shapes",
                                          "ranks",
                                          "present",
                                          "dtypes",
                                          "logicalDtypes",
                                          "tunables",
                                          "derive",
                                          "device",
                                          "DISPATCH_FOLD_WIDTH",
                                          "true",
                                          "True",
                                          "false",
                                          "False",
                                          "none",
                                          "None",
                                          NULL};

/* The trimmed text when it is one identifier, else NULL. Writes into buf. */
static const char *bare_identifier(const char *text, char *buf, size_t size) {
  while (isspace((unsigned char)*text)) text++;
  size_t n = strlen(text);
  while (n > 0 && isspace((unsigned char)text[n - 1])) n--;
  if (n == 0 || n >= size || !(isalpha((unsigned char)text[0]) || text[0] == '_')) return NULL;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)text[i]) && text[i] != '_') return NULL;
  memcpy(buf, text, n);
  buf[n] = '\0';
  return buf;
}

static bool known_name(const manifest_model *m, const manifest_variant *v, const char *name) {
  for (const char *const *s = scope_names; *s; s++)
    if (strcmp(*s, name) == 0) return true;
  for (size_t i = 0; i < m->n_derives; i++)
    if (strcmp(m->derives[i].name, name) == 0) return true;
  for (size_t i = 0; i < v->n_derive; i++)
    if (strcmp(v->derive[i].name, name) == 0) return true;
  return false;
}

static wgk_status read_when(manifest_rd *rd, const json_t *obj, manifest_variant *v) {
  const json_t *list = json_object_get(obj, "when");
  if (!list) return WGK_OK;
  size_t mark = manifest_push_key(rd, "when");
  wgk_status st = manifest_expect(rd, list, JSON_ARRAY, "a list of expressions");
  manifest_expr *when = st ? NULL : manifest_alloc(rd, json_array_size(list), sizeof *when);
  if (!st && !when) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    size_t m2 = manifest_push_index(rd, i);
    st = manifest_read_expr(rd, json_array_get(list, i), &when[i]);
    char buf[256];
    const char *id = st ? NULL : bare_identifier(when[i].text, buf, sizeof buf);
    if (id && !known_name(rd->m, v, id))
      st = manifest_fail(rd, "'%s' is not a derive, a variant constant or a scope name", id);
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  v->when = when;
  v->n_when = st ? 0 : json_array_size(list);
  return st;
}

static wgk_status check_shader(manifest_rd *rd, const char *shader) {
  static const char suffix[] = ".wgsl.jinja";
  size_t n = strlen(shader), k = sizeof suffix - 1;
  const char *why = NULL;
  if (n <= k || strcmp(shader + n - k, suffix) != 0)
    why = "a template file must end in .wgsl.jinja";
  else if (shader[0] == '/')
    why = "a template path must be relative";
  else if (strstr(shader, ".."))
    why = "a template path must not contain '..'";
  if (!why) return WGK_OK;
  return manifest_fail_in(rd, "shader", false, "%s, got '%s'", why, shader);
}

static wgk_status read_source(manifest_rd *rd, const json_t *obj, manifest_pass *p) {
  const json_t *src = json_object_get(obj, "source");
  if (!src) return manifest_fail(rd, "missing required key 'source'");
  size_t mark = manifest_push_key(rd, "source");
  wgk_status st = manifest_object(rd, src, "an object", source_keys);
  if (!st) st = manifest_get_string(rd, src, "shader", true, &p->shader);
  if (!st) st = check_shader(rd, p->shader);
  if (!st) st = manifest_get_values(rd, src, "inputs", &p->inputs, &p->n_inputs);
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_dispatch(manifest_rd *rd, const json_t *obj, manifest_dispatch *d) {
  const json_t *dj = json_object_get(obj, "dispatch");
  if (!dj) return manifest_fail(rd, "missing required key 'dispatch'");
  size_t mark = manifest_push_key(rd, "dispatch");
  d->pos = manifest_here(rd);
  wgk_status st = manifest_object(rd, dj, "an object", dispatch_keys);
  bool threads = json_object_get(dj, "threads") || json_object_get(dj, "workgroupSize");
  bool groups = json_object_get(dj, "workgroups") != NULL;
  bool xyz = json_object_get(dj, "x") || json_object_get(dj, "y") || json_object_get(dj, "z");
  if (!st && threads + groups + xyz != 1)
    st = manifest_fail(rd, "a dispatch is {threads, workgroupSize}, {workgroups} or {x, y, z}");
  if (!st && threads) {
    d->kind = WGK_DISPATCH_THREADS;
    st = manifest_get_expr(rd, dj, "threads", true, &d->threads);
    if (!st) st = manifest_get_expr(rd, dj, "workgroupSize", true, &d->workgroup_size);
  } else if (!st && groups) {
    d->kind = WGK_DISPATCH_WORKGROUPS;
    st = manifest_get_expr(rd, dj, "workgroups", true, &d->workgroups);
  } else if (!st) {
    d->kind = WGK_DISPATCH_XYZ;
    st = manifest_get_expr(rd, dj, "x", true, &d->x);
    if (!st) st = manifest_get_expr(rd, dj, "y", false, &d->y);
    if (!st) st = manifest_get_expr(rd, dj, "z", false, &d->z);
  }
  manifest_pop(rd, mark);
  return st;
}

static wgk_status resolve_set(manifest_rd *rd, const json_t *obj, manifest_pass *p) {
  const char *name = NULL;
  wgk_status st = manifest_get_string(rd, obj, "bindings", true, &name);
  if (st) return st;
  for (size_t i = 0; i < rd->m->n_binding_sets; i++)
    if (strcmp(rd->m->binding_sets[i].name, name) == 0) {
      p->bindings = &rd->m->binding_sets[i];
      return WGK_OK;
    }
  return manifest_fail_in(rd, "bindings", false, "binding set '%s' does not exist in bindingSets", name);
}

static wgk_status read_pass(manifest_rd *rd, const json_t *obj, manifest_pass *p, const manifest_variant *v) {
  p->pos = manifest_here(rd);
  wgk_status st = manifest_object(rd, obj, "a pass object", pass_keys);
  if (!st) st = manifest_get_string(rd, obj, "id", true, &p->id);
  if (!st) st = manifest_check_name(rd, "id", p->id, "pass id", false);
  if (!st) st = manifest_get_string(rd, obj, "name", true, &p->name);
  if (!st) st = read_source(rd, obj, p);
  if (!st) st = resolve_set(rd, obj, p);
  if (!st) st = manifest_seed_pass_intermediates(rd, p, v);
  if (!st) st = read_dispatch(rd, obj, &p->dispatch);
  return st;
}

static wgk_status read_passes(manifest_rd *rd, const json_t *obj, manifest_variant *v) {
  const json_t *list = json_object_get(obj, "passes");
  if (!list) return manifest_fail(rd, "missing required key 'passes'");
  size_t mark = manifest_push_key(rd, "passes");
  wgk_status st = manifest_expect(rd, list, JSON_ARRAY, "a list of passes");
  if (!st && json_array_size(list) == 0) st = manifest_fail(rd, "a variant needs at least one pass");
  manifest_pass *ps = st ? NULL : manifest_alloc(rd, json_array_size(list), sizeof *ps);
  if (!st && !ps) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    size_t m2 = manifest_push_index(rd, i);
    st = read_pass(rd, json_array_get(list, i), &ps[i], v);
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(ps[j].id, ps[i].id) == 0)
        st = manifest_fail_in(rd, "id", false, "duplicate pass id '%s' in variant '%s'", ps[i].id, v->id);
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  v->passes = ps;
  v->n_passes = st ? 0 : json_array_size(list);
  return st;
}

static wgk_status read_variant(manifest_rd *rd, const json_t *obj, manifest_variant *v) {
  v->pos = manifest_here(rd);
  wgk_status st = manifest_object(rd, obj, "a variant object", variant_keys);
  if (!st) st = manifest_get_string(rd, obj, "id", true, &v->id);
  if (!st && !*v->id) st = manifest_fail_in(rd, "id", false, "a variant id must not be empty");
  if (!st) st = manifest_check_name(rd, "id", v->id, "variant id", false);
  if (!st) st = manifest_get_values(rd, obj, "constants", &v->derive, &v->n_derive);
  if (!st) st = read_when(rd, obj, v);
  if (!st) st = manifest_seed_intermediates(rd, obj, v);
  if (!st) st = read_passes(rd, obj, v);
  return st;
}

wgk_status manifest_seed_variants(manifest_rd *rd, const json_t *root) {
  const json_t *list = json_object_get(root, "variants");
  if (!list) return manifest_fail(rd, "missing required key 'variants'");
  size_t mark = manifest_push_key(rd, "variants");
  wgk_status st = manifest_expect(rd, list, JSON_ARRAY, "a list of variants");
  if (!st && json_array_size(list) == 0) st = manifest_fail(rd, "a manifest needs at least one variant");
  manifest_variant *vs = st ? NULL : manifest_alloc(rd, json_array_size(list), sizeof *vs);
  if (!st && !vs) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    size_t m2 = manifest_push_index(rd, i);
    st = read_variant(rd, json_array_get(list, i), &vs[i]);
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(vs[j].id, vs[i].id) == 0)
        st = manifest_fail_in(rd, "id", false, "duplicate variant id '%s' (also variants[%zu])", vs[i].id, j);
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  rd->m->variants = vs;
  rd->m->n_variants = st ? 0 : json_array_size(list);
  return st;
}
