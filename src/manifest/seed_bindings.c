/* Seed format: bindingSets, each an ordered list of storage buffers and at most one uniform struct. */
#include <string.h>

#include "manifest/reader.h"

static const char *const binding_keys[] = {"name",   "arg",         "intermediate", "semantic",
                                           "buffer", "elementType", "struct",       NULL};
static const char *const buffer_keys[] = {"type", NULL};
static const char *const struct_keys[] = {"name", "fields", NULL};
static const char *const field_keys[] = {"name", "type", "value", NULL};

static wgk_status read_buffer_type(manifest_rd *rd, const json_t *obj, manifest_buffer *out) {
  const json_t *buf = json_object_get(obj, "buffer");
  if (!buf) return manifest_fail(rd, "missing required key 'buffer'");
  size_t mark = manifest_push_key(rd, "buffer");
  const char *type = NULL;
  wgk_status st = manifest_object(rd, buf, "an object", buffer_keys);
  if (!st) st = manifest_get_string(rd, buf, "type", true, &type);
  if (!st && strcmp(type, "read-only-storage") == 0)
    *out = WGK_BUFFER_READ_ONLY_STORAGE;
  else if (!st && strcmp(type, "storage") == 0)
    *out = WGK_BUFFER_STORAGE;
  else if (!st && strcmp(type, "uniform") == 0)
    *out = WGK_BUFFER_UNIFORM;
  else if (!st)
    st = manifest_fail_in(rd, "type", false, "unknown buffer type '%s' (known: read-only-storage storage uniform)",
                          type);
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_field(manifest_rd *rd, const json_t *obj, manifest_field *f) {
  const char *type = NULL;
  wgk_status st = manifest_object(rd, obj, "a field object", field_keys);
  if (!st) st = manifest_get_string(rd, obj, "name", true, &f->name);
  if (!st) st = manifest_check_name(rd, "name", f->name, "field name", true);
  if (!st) st = manifest_get_string(rd, obj, "type", true, &type);
  if (!st && strcmp(type, "u32") == 0)
    f->type = WGK_SCALAR_U32;
  else if (!st && strcmp(type, "i32") == 0)
    f->type = WGK_SCALAR_I32;
  else if (!st && strcmp(type, "f32") == 0)
    f->type = WGK_SCALAR_F32;
  else if (!st)
    st = manifest_fail_in(rd, "type", false, "unknown field type '%s' (known: u32 i32 f32)", type);
  if (!st) st = manifest_get_expr(rd, obj, "value", true, &f->value);
  return st;
}

static wgk_status read_fields(manifest_rd *rd, const json_t *list, manifest_binding *b) {
  wgk_status st = manifest_expect(rd, list, JSON_ARRAY, "a list of fields");
  if (!st && json_array_size(list) == 0) st = manifest_fail(rd, "a uniform struct needs at least one field");
  manifest_field *fs = st ? NULL : manifest_alloc(rd, json_array_size(list), sizeof *fs);
  if (!st && !fs) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    size_t mark = manifest_push_index(rd, i);
    st = read_field(rd, json_array_get(list, i), &fs[i]);
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(fs[j].name, fs[i].name) == 0)
        st = manifest_fail_in(rd, "name", false, "duplicate field '%s'", fs[i].name);
    manifest_pop(rd, mark);
  }
  b->fields = fs;
  b->n_fields = st ? 0 : json_array_size(list);
  return st;
}

static wgk_status read_uniform(manifest_rd *rd, const json_t *obj, manifest_binding *b) {
  if (json_object_get(obj, "arg")) return manifest_fail_in(rd, "arg", true, "a uniform binding takes no arg");
  if (json_object_get(obj, "intermediate"))
    return manifest_fail_in(rd, "intermediate", true, "a uniform binding takes no intermediate");
  if (json_object_get(obj, "elementType"))
    return manifest_fail_in(rd, "elementType", true, "a uniform binding takes no elementType");
  const json_t *s = json_object_get(obj, "struct");
  if (!s) return manifest_fail(rd, "missing required key 'struct'");
  size_t mark = manifest_push_key(rd, "struct");
  wgk_status st = manifest_object(rd, s, "an object", struct_keys);
  if (!st) st = manifest_get_string(rd, s, "name", true, &b->struct_name);
  if (!st) st = manifest_check_name(rd, "name", b->struct_name, "struct name", true);
  if (!st && !json_object_get(s, "fields")) st = manifest_fail(rd, "missing required key 'fields'");
  if (!st) {
    size_t m2 = manifest_push_key(rd, "fields");
    st = read_fields(rd, json_object_get(s, "fields"), b);
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  return st;
}

static wgk_status check_element_type(manifest_rd *rd, const char *et) {
  static const char *const wgsl[] = {"f32", "f16", "i32", "u32", NULL};
  if (et[0] == '$') {
    if (manifest_find_type(rd->m, et + 1)) return WGK_OK;
    return manifest_fail_in(rd, "elementType", false, "type variable '%s' is not constrained in typeConstraints",
                            et + 1);
  }
  for (const char *const *w = wgsl; *w; w++)
    if (strcmp(*w, et) == 0) return WGK_OK;
  return manifest_fail_in(rd, "elementType", false, "unknown elementType '%s' (a $typevar or f32 f16 i32 u32)", et);
}

/* wgk extension: a storage binding of a variant intermediate (checked against the variant per pass). */
static wgk_status read_scratch(manifest_rd *rd, const json_t *obj, manifest_binding *b) {
  if (json_object_get(obj, "arg"))
    return manifest_fail_in(rd, "arg", true, "a binding takes an arg or an intermediate, not both");
  wgk_status st = manifest_get_string(rd, obj, "intermediate", true, &b->intermediate);
  if (!st && !*b->intermediate) st = manifest_fail_in(rd, "intermediate", false, "empty intermediate id");
  if (!st) st = manifest_get_string(rd, obj, "elementType", true, &b->element_type);
  if (!st) st = check_element_type(rd, b->element_type);
  return st;
}

static wgk_status read_storage(manifest_rd *rd, const json_t *obj, manifest_binding *b) {
  if (json_object_get(obj, "struct")) return manifest_fail_in(rd, "struct", true, "a storage binding takes no struct");
  if (json_object_get(obj, "intermediate")) return read_scratch(rd, obj, b);
  wgk_status st = manifest_get_string(rd, obj, "arg", true, &b->arg);
  if (!st) st = manifest_get_string(rd, obj, "elementType", true, &b->element_type);
  if (!st) st = check_element_type(rd, b->element_type);
  if (st) return st;
  b->port = manifest_find_bind_key(rd->m, b->arg);
  if (!b->port) return manifest_fail_in(rd, "arg", false, "arg '%s' names no tensor arg", b->arg);
  if (b->buffer == WGK_BUFFER_READ_ONLY_STORAGE && b->port->dir != WGK_PORT_INPUT)
    return manifest_fail_in(rd, "buffer", false, "port '%s' is written by the kernel but bound %s", b->port->name,
                            "read-only-storage");
  return WGK_OK;
}

static wgk_status read_binding(manifest_rd *rd, const json_t *obj, manifest_binding *b) {
  b->semantic = "";
  b->pos = manifest_here(rd);
  wgk_status st = manifest_object(rd, obj, "a binding object", binding_keys);
  if (!st) st = manifest_get_string(rd, obj, "name", true, &b->name);
  if (!st) st = manifest_check_name(rd, "name", b->name, "binding name", true);
  if (!st) st = manifest_get_string(rd, obj, "semantic", false, &b->semantic);
  if (!st) st = read_buffer_type(rd, obj, &b->buffer);
  if (!st) st = b->buffer == WGK_BUFFER_UNIFORM ? read_uniform(rd, obj, b) : read_storage(rd, obj, b);
  return st;
}

static wgk_status read_set(manifest_rd *rd, const json_t *list, manifest_binding_set *set) {
  set->pos = manifest_here(rd);
  wgk_status st = manifest_expect(rd, list, JSON_ARRAY, "a list of bindings");
  if (!st && json_array_size(list) == 0) st = manifest_fail(rd, "a binding set needs at least one binding");
  manifest_binding *bs = st ? NULL : manifest_alloc(rd, json_array_size(list), sizeof *bs);
  if (!st && !bs) st = WGK_ERR_OUT_OF_MEMORY;
  bool uniform = false;
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    size_t mark = manifest_push_index(rd, i);
    st = read_binding(rd, json_array_get(list, i), &bs[i]);
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(bs[j].name, bs[i].name) == 0)
        st = manifest_fail_in(rd, "name", false, "duplicate binding name '%s'", bs[i].name);
    if (!st && bs[i].buffer == WGK_BUFFER_UNIFORM && uniform)
      st = manifest_fail(rd, "a binding set has at most one uniform struct");
    uniform = uniform || (!st && bs[i].buffer == WGK_BUFFER_UNIFORM);
    manifest_pop(rd, mark);
  }
  set->bindings = bs;
  set->n_bindings = st ? 0 : json_array_size(list);
  return st;
}

wgk_status manifest_seed_bindings(manifest_rd *rd, const json_t *root) {
  const json_t *map = json_object_get(root, "bindingSets");
  if (!map) return manifest_fail(rd, "missing required key 'bindingSets'");
  size_t mark = manifest_push_key(rd, "bindingSets");
  wgk_status st = manifest_expect(rd, map, JSON_OBJECT, "an object");
  manifest_binding_set *sets = st ? NULL : manifest_alloc(rd, json_object_size(map), sizeof *sets);
  if (!st && !sets) st = WGK_ERR_OUT_OF_MEMORY;
  const char *name;
  const json_t *list;
  size_t n = 0;
  if (!st) json_object_foreach((json_t *)map, name, list) {
      size_t m2 = manifest_push_key(rd, name);
      sets[n].name = name;
      st = read_set(rd, list, &sets[n++]);
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  rd->m->binding_sets = sets;
  rd->m->n_binding_sets = n;
  return st;
}
