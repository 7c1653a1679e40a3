/* Seed format: attributes (+ descriptions, constraints), tunables and derive. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "manifest/reader.h"

static const char *const constraint_keys[] = {"values", "required", NULL};

/* Opens the optional object root.key: *map NULL when absent. Pushes the key; the caller pops mark. */
static wgk_status open_map(manifest_rd *rd, const json_t *root, const char *key, const json_t **map, size_t *mark) {
  *map = json_object_get(root, key);
  *mark = manifest_push_key(rd, key);
  return *map ? manifest_expect(rd, *map, JSON_OBJECT, "an object") : WGK_OK;
}

/* Finds or appends the attribute called name. */
static manifest_attribute *attribute(manifest_model *m, const char *name) {
  manifest_attribute *attrs = (manifest_attribute *)m->attributes;
  for (size_t i = 0; i < m->n_attributes; i++)
    if (strcmp(attrs[i].name, name) == 0) return &attrs[i];
  manifest_attribute *a = &attrs[m->n_attributes++];
  a->name = name;
  a->description = "";
  return a;
}

static wgk_status read_defaults(manifest_rd *rd, const json_t *root) {
  const json_t *map, *v;
  size_t mark;
  const char *name;
  wgk_status st = open_map(rd, root, "attributes", &map, &mark);
  if (!st && map) json_object_foreach((json_t *)map, name, v) {
      size_t m2 = manifest_push_key(rd, name);
      if (json_is_null(v))
        st = manifest_fail(rd, "a default must not be null; leave the attribute out");
      else if (json_is_real(v) && fabs(json_real_value(v)) > FLT_MAX) /* ONNX float attributes are f32 */
        st = manifest_fail(rd, "default %.9g is outside the f32 range (magnitude at most 3.4028235e38)",
                           json_real_value(v));
      else if (json_is_object(v) || json_is_boolean(v))
        st = manifest_fail(rd, "a default is a number, a string or a list of them, not %s",
                           json_is_object(v) ? "an object" : "a boolean");
      manifest_attribute *a = attribute(rd->m, name);
      a->default_value = v;
      a->pos = manifest_here(rd);
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_descriptions(manifest_rd *rd, const json_t *root) {
  const json_t *map, *v;
  size_t mark;
  const char *name;
  wgk_status st = open_map(rd, root, "attributeDescriptions", &map, &mark);
  if (!st && map) json_object_foreach((json_t *)map, name, v) {
      size_t m2 = manifest_push_key(rd, name);
      st = manifest_expect(rd, v, JSON_STRING, "a string");
      manifest_attribute *a = attribute(rd->m, name);
      if (!st) a->description = json_string_value(v);
      if (!a->default_value) a->pos = manifest_here(rd);
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_values(manifest_rd *rd, const json_t *obj, manifest_attribute *a) {
  const json_t *vals = json_object_get(obj, "values");
  if (!vals) return WGK_OK;
  size_t mark = manifest_push_key(rd, "values");
  wgk_status st = manifest_expect(rd, vals, JSON_ARRAY, "a list of values");
  if (!st && json_array_size(vals) == 0) st = manifest_fail(rd, "values must not be empty");
  const json_t **list = st ? NULL : manifest_alloc(rd, json_array_size(vals), sizeof *list);
  if (!st && !list) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(vals); i++) list[i] = json_array_get(vals, i);
  if (!st) {
    a->values = list;
    a->n_values = json_array_size(vals);
  }
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_constraint(manifest_rd *rd, const char *name, const json_t *obj) {
  wgk_status st = manifest_object(rd, obj, "a constraint object", constraint_keys);
  manifest_attribute *a = attribute(rd->m, name);
  if (!a->default_value && !*a->description) a->pos = manifest_here(rd);
  if (!st) st = manifest_get_bool(rd, obj, "required", false, &a->required);
  if (!st) st = read_values(rd, obj, a);
  return st;
}

/* A default outside the allowed values is an error at the default. */
static wgk_status check_default(manifest_rd *rd, const manifest_attribute *a) {
  if (!a->default_value || !a->values) return WGK_OK;
  for (size_t i = 0; i < a->n_values; i++)
    if (json_equal((json_t *)a->values[i], (json_t *)a->default_value)) return WGK_OK;
  char shown[80];
  manifest_show(a->default_value, shown, sizeof shown);
  size_t mark = manifest_push_key(rd, "attributes");
  size_t m2 = manifest_push_key(rd, a->name);
  wgk_status st = manifest_fail(rd, "default %s is not among the values of attributeConstraints.%s", shown, a->name);
  manifest_pop(rd, m2);
  manifest_pop(rd, mark);
  return st;
}

wgk_status manifest_seed_attributes(manifest_rd *rd, const json_t *root) {
  size_t cap = json_object_size(json_object_get(root, "attributes")) +
               json_object_size(json_object_get(root, "attributeDescriptions")) +
               json_object_size(json_object_get(root, "attributeConstraints"));
  rd->m->attributes = manifest_alloc(rd, cap, sizeof *rd->m->attributes);
  if (!rd->m->attributes) return WGK_ERR_OUT_OF_MEMORY;
  wgk_status st = read_defaults(rd, root);
  if (!st) st = read_descriptions(rd, root);
  const json_t *map = NULL, *v;
  size_t mark = 0;
  const char *name;
  if (!st) {
    st = open_map(rd, root, "attributeConstraints", &map, &mark);
    if (!st && map) json_object_foreach((json_t *)map, name, v) {
        size_t m2 = manifest_push_key(rd, name);
        st = read_constraint(rd, name, v);
        manifest_pop(rd, m2);
        if (st) break;
      }
    manifest_pop(rd, mark);
  }
  for (size_t i = 0; !st && i < rd->m->n_attributes; i++) st = check_default(rd, &rd->m->attributes[i]);
  return st;
}

wgk_status manifest_seed_tunables(manifest_rd *rd, const json_t *root) {
  const json_t *map, *v;
  size_t mark;
  const char *name;
  wgk_status st = open_map(rd, root, "tunables", &map, &mark);
  manifest_tunable *ts = (!st && map) ? manifest_alloc(rd, json_object_size(map), sizeof *ts) : NULL;
  if (!st && map && !ts) st = WGK_ERR_OUT_OF_MEMORY;
  size_t n = 0;
  if (!st && map) json_object_foreach((json_t *)map, name, v) {
      size_t m2 = manifest_push_key(rd, name);
      if (!json_is_number(v) && !json_is_boolean(v)) {
        char shown[80];
        manifest_show(v, shown, sizeof shown);
        st = manifest_fail(rd, "a tunable default must be a number or a boolean, got %s", shown);
      }
      ts[n++] = (manifest_tunable){name, v, manifest_here(rd)};
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  rd->m->tunables = ts;
  rd->m->n_tunables = n;
  return st;
}

wgk_status manifest_seed_derives(manifest_rd *rd, const json_t *root) {
  const json_t *map, *v;
  size_t mark;
  const char *name;
  wgk_status st = open_map(rd, root, "derive", &map, &mark);
  manifest_derive *ds = (!st && map) ? manifest_alloc(rd, json_object_size(map), sizeof *ds) : NULL;
  if (!st && map && !ds) st = WGK_ERR_OUT_OF_MEMORY;
  size_t n = 0;
  if (!st && map) json_object_foreach((json_t *)map, name, v) {
      size_t m2 = manifest_push_key(rd, name);
      ds[n].name = name;
      st = manifest_read_expr(rd, v, &ds[n++].expr);
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  rd->m->derives = ds;
  rd->m->n_derives = n;
  return st;
}
