/* Seed format: typeConstraints, inputs/outputs (the ports) and args (bind keys and scalar args). */
#include <string.h>

#include "manifest/reader.h"

static const char *const port_keys[] = {"role", "dtype", "rank", "optional", "shape", "description", NULL};
static const char *const arg_keys[] = {"kind",      "semantic", "role",        "dtype",
                                       "narrowing", "required", "description", NULL};

static wgk_status read_dtype_list(manifest_rd *rd, const json_t *list, manifest_type_constraint *tc) {
  wgk_status st = manifest_expect(rd, list, JSON_ARRAY, "a list of dtypes");
  if (st) return st;
  if (json_array_size(list) == 0) return manifest_fail(rd, "a type variable needs at least one dtype");
  const char **dts = manifest_alloc(rd, json_array_size(list), sizeof *dts);
  if (!dts) return WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < json_array_size(list) && !st; i++) {
    size_t mark = manifest_push_index(rd, i);
    const json_t *v = json_array_get(list, i);
    st = manifest_expect(rd, v, JSON_STRING, "a dtype name");
    const char *dt = st ? NULL : json_string_value(v);
    if (dt && !manifest_dtype_known(dt))
      st = manifest_fail(rd, "unknown dtype '%s' (known: float32 float16 int32 uint32 int64 int8 uint8 bool)", dt);
    for (size_t j = 0; dt && !st && j < i; j++)
      if (strcmp(dts[j], dt) == 0) st = manifest_fail(rd, "duplicate dtype '%s'", dt);
    dts[i] = dt;
    manifest_pop(rd, mark);
  }
  tc->dtypes = dts;
  tc->n_dtypes = json_array_size(list);
  return st;
}

wgk_status manifest_seed_types(manifest_rd *rd, const json_t *root) {
  const json_t *map = json_object_get(root, "typeConstraints");
  if (!map) return manifest_fail(rd, "missing required key 'typeConstraints'");
  size_t mark = manifest_push_key(rd, "typeConstraints");
  wgk_status st = manifest_expect(rd, map, JSON_OBJECT, "an object");
  manifest_type_constraint *tcs = st ? NULL : manifest_alloc(rd, json_object_size(map), sizeof *tcs);
  if (!st && !tcs) st = WGK_ERR_OUT_OF_MEMORY;
  const char *name;
  const json_t *list;
  size_t n = 0;
  if (!st) json_object_foreach((json_t *)map, name, list) {
      size_t m2 = manifest_push_key(rd, name);
      manifest_type_constraint *tc = &tcs[n++];
      tc->name = name;
      tc->pos = manifest_here(rd);
      st = read_dtype_list(rd, list, tc);
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  rd->m->type_constraints = tcs;
  rd->m->n_type_constraints = n;
  return st;
}

static wgk_status read_rank(manifest_rd *rd, const json_t *obj, manifest_port *p) {
  const json_t *v = json_object_get(obj, "rank");
  if (!v) return WGK_OK;
  p->has_rank = true;
  size_t mark = manifest_push_key(rd, "rank");
  wgk_status st = WGK_OK;
  if (json_is_integer(v)) {
    if (json_integer_value(v) < 0 || json_integer_value(v) > 64)
      st = manifest_fail(rd, "rank %" JSON_INTEGER_FORMAT " is out of range 0..64", json_integer_value(v));
    p->rank = (int)json_integer_value(v);
  } else {
    st = manifest_read_expr(rd, v, &p->rank_expr);
  }
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_port_type(manifest_rd *rd, const json_t *obj, manifest_port *p) {
  wgk_status st = manifest_get_string(rd, obj, "dtype", true, &p->type_var);
  if (st) return st;
  const manifest_type_constraint *tc = manifest_find_type(rd->m, p->type_var);
  if (tc) {
    p->dtypes = tc->dtypes;
    p->n_dtypes = tc->n_dtypes;
    return WGK_OK;
  }
  size_t mark = manifest_push_key(rd, "dtype");
  st = manifest_fail(rd, "type variable '%s' is not constrained in typeConstraints", p->type_var);
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_port(manifest_rd *rd, const json_t *obj, manifest_port *p) {
  p->description = "";
  p->pos = manifest_here(rd);
  wgk_status st = manifest_object(rd, obj, "a port object", port_keys);
  if (!st) st = manifest_get_string(rd, obj, "role", true, &p->onnx);
  if (!st && !*p->onnx) {
    size_t mark = manifest_push_key(rd, "role");
    st = manifest_fail(rd, "role must not be empty");
    manifest_pop(rd, mark);
  }
  p->name = p->onnx;
  if (!st) st = read_port_type(rd, obj, p);
  if (!st) st = read_rank(rd, obj, p);
  if (!st) st = manifest_get_bool(rd, obj, "optional", false, &p->optional);
  if (!st) st = manifest_get_expr(rd, obj, "shape", false, &p->shape);
  if (!st) st = manifest_get_string(rd, obj, "description", false, &p->description);
  return st;
}

/* An output whose role is also an input makes that input in/out. */
static wgk_status merge_output(manifest_rd *rd, manifest_port *in, const manifest_port *out, int index) {
  if (in->dir != WGK_PORT_INPUT) return manifest_fail(rd, "duplicate output '%s'", out->name);
  if (strcmp(in->type_var, out->type_var) != 0)
    return manifest_fail(rd, "in/out tensor '%s' has dtype '%s' as input but '%s' as output", out->name, in->type_var,
                         out->type_var);
  in->dir = WGK_PORT_INOUT;
  in->onnx_output_index = index;
  if (out->shape.text) in->shape = out->shape;
  if (out->has_rank && !in->has_rank) {
    in->has_rank = true;
    in->rank = out->rank;
    in->rank_expr = out->rank_expr;
  }
  return WGK_OK;
}

static wgk_status read_port_list(manifest_rd *rd, const json_t *root, const char *key, bool output,
                                 manifest_port *ports, size_t *n) {
  const json_t *list = json_object_get(root, key);
  if (!list) return manifest_fail(rd, "missing required key '%s'", key);
  size_t mark = manifest_push_key(rd, key);
  wgk_status st = manifest_expect(rd, list, JSON_ARRAY, "a list of ports");
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    size_t m2 = manifest_push_index(rd, i);
    manifest_port p = {.onnx_input_index = output ? -1 : (int)i,
                       .onnx_output_index = output ? (int)i : -1,
                       .dir = output ? WGK_PORT_OUTPUT : WGK_PORT_INPUT};
    st = read_port(rd, json_array_get(list, i), &p);
    manifest_port *same = NULL;
    for (size_t j = 0; !st && j < *n && !same; j++)
      if (strcmp(ports[j].name, p.name) == 0) same = &ports[j];
    if (!st && same && !output)
      st = manifest_fail(rd, "duplicate input '%s'", p.name);
    else if (!st && same)
      st = merge_output(rd, same, &p, (int)i);
    else if (!st)
      ports[(*n)++] = p;
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  return st;
}

wgk_status manifest_seed_ports(manifest_rd *rd, const json_t *root) {
  size_t cap = json_array_size(json_object_get(root, "inputs")) + json_array_size(json_object_get(root, "outputs"));
  manifest_port *ports = manifest_alloc(rd, cap, sizeof *ports);
  if (!ports) return WGK_ERR_OUT_OF_MEMORY;
  size_t n = 0;
  wgk_status st = read_port_list(rd, root, "inputs", false, ports, &n);
  if (!st) st = read_port_list(rd, root, "outputs", true, ports, &n);
  rd->m->ports = ports;
  rd->m->n_ports = n;
  return st;
}

/* ---- args ---- */

static wgk_status read_narrowing(manifest_rd *rd, const json_t *obj, manifest_port *p) {
  const char *nar = NULL;
  wgk_status st = manifest_get_string(rd, obj, "narrowing", false, &nar);
  if (st) return st;
  size_t mark = manifest_push_key(rd, nar ? "narrowing" : "dtype");
  if (nar && strcmp(nar, "checked") == 0)
    p->narrowing = WGK_NARROW_CHECKED;
  else if (nar && strcmp(nar, "saturating") == 0)
    p->narrowing = WGK_NARROW_SATURATING;
  else if (nar)
    st = manifest_fail(rd, "unknown narrowing '%s' (known: checked saturating)", nar);
  if (!st && nar && !p->storage_dtype) st = manifest_fail(rd, "narrowing needs a storage dtype");
  if (!st && !nar && p->storage_dtype)
    st = manifest_fail(rd, "storage dtype '%s' needs narrowing: checked or saturating", p->storage_dtype);
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_storage(manifest_rd *rd, const json_t *obj, manifest_port *p) {
  const char *dt = NULL;
  wgk_status st = manifest_get_string(rd, obj, "dtype", false, &dt);
  if (!st && dt && !manifest_dtype_known(dt)) {
    size_t mark = manifest_push_key(rd, "dtype");
    st = manifest_fail(rd, "unknown dtype '%s' (known: float32 float16 int32 uint32 int64 int8 uint8 bool)", dt);
    manifest_pop(rd, mark);
  }
  if (!st && dt) p->storage_dtype = dt;
  if (!st) st = read_narrowing(rd, obj, p);
  return st;
}

static wgk_status check_arg_role(manifest_rd *rd, const json_t *obj, const manifest_port *p) {
  const char *role = NULL;
  wgk_status st = manifest_get_string(rd, obj, "role", false, &role);
  if (st || !role) return st;
  size_t mark = manifest_push_key(rd, "role");
  bool in = strcmp(role, "input") == 0, out = strcmp(role, "output") == 0;
  if (!in && !out)
    st = manifest_fail(rd, "unknown role '%s' (known: input output)", role);
  else if ((in && p->dir == WGK_PORT_OUTPUT) || (out && p->dir == WGK_PORT_INPUT))
    st = manifest_fail(rd, "role '%s' but port '%s' is an %s", role, p->name,
                       p->dir == WGK_PORT_INPUT ? "input" : "output");
  manifest_pop(rd, mark);
  return st;
}

static wgk_status check_required(manifest_rd *rd, const json_t *obj, const manifest_port *p) {
  bool required = !p->optional;
  wgk_status st = manifest_get_bool(rd, obj, "required", false, &required);
  if (st || required == !p->optional) return st;
  size_t mark = manifest_push_key(rd, "required");
  st = manifest_fail(rd, "required is %s but port '%s' is %s", required ? "true" : "false", p->name,
                     p->optional ? "optional" : "not optional");
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_tensor_arg(manifest_rd *rd, const char *key, const json_t *obj) {
  const char *sem = NULL;
  wgk_status st = manifest_get_string(rd, obj, "semantic", true, &sem);
  if (st) return st;
  manifest_port *p = (manifest_port *)manifest_find_port(rd->m, sem);
  if (!p) {
    size_t mark = manifest_push_key(rd, "semantic");
    st = manifest_fail(rd, "semantic '%s' names no port", sem);
    manifest_pop(rd, mark);
    return st;
  }
  st = check_arg_role(rd, obj, p);
  if (!st) st = check_required(rd, obj, p);
  if (!st) st = read_storage(rd, obj, p);
  if (st) return st;
  const char **keys = manifest_alloc(rd, p->n_bind_keys + 1, sizeof *keys);
  if (!keys) return WGK_ERR_OUT_OF_MEMORY;
  if (p->n_bind_keys) memcpy(keys, p->bind_keys, p->n_bind_keys * sizeof *keys);
  keys[p->n_bind_keys++] = key;
  p->bind_keys = keys;
  return WGK_OK;
}

static wgk_status read_scalar_arg(manifest_rd *rd, const char *key, const char *kind, const json_t *obj) {
  manifest_scalar_arg *a = (manifest_scalar_arg *)&rd->m->scalar_args[rd->m->n_scalar_args++];
  a->name = key;
  a->kind = kind;
  a->description = "";
  a->pos = manifest_here(rd);
  const char *bad = json_object_get(obj, "dtype")       ? "dtype"
                    : json_object_get(obj, "narrowing") ? "narrowing"
                    : json_object_get(obj, "role")      ? "role"
                                                        : NULL;
  if (bad) {
    size_t mark = manifest_push_key(rd, bad);
    wgk_status st = manifest_fail_key(rd, "'%s' is only for tensor args", bad);
    manifest_pop(rd, mark);
    return st;
  }
  wgk_status st = manifest_get_string(rd, obj, "semantic", false, &a->onnx);
  if (!st) st = manifest_get_bool(rd, obj, "required", false, &a->required);
  if (!st) st = manifest_get_string(rd, obj, "description", false, &a->description);
  return st;
}

static wgk_status read_arg(manifest_rd *rd, const char *key, const json_t *obj) {
  const char *kind = NULL;
  wgk_status st = manifest_object(rd, obj, "an arg object", arg_keys);
  if (!st) st = manifest_get_string(rd, obj, "kind", true, &kind);
  if (st) return st;
  if (strcmp(kind, "tensor") == 0) return read_tensor_arg(rd, key, obj);
  static const char *const scalars[] = {"u32", "i32", "f32", "bool", "string", NULL};
  for (const char *const *s = scalars; *s; s++)
    if (strcmp(*s, kind) == 0) return read_scalar_arg(rd, key, *s, obj);
  size_t mark = manifest_push_key(rd, "kind");
  st = manifest_fail(rd, "unknown arg kind '%s' (known: tensor u32 i32 f32 bool string)", kind);
  manifest_pop(rd, mark);
  return st;
}

wgk_status manifest_seed_args(manifest_rd *rd, const json_t *root) {
  const json_t *map = json_object_get(root, "args");
  if (!map) return WGK_OK;
  size_t mark = manifest_push_key(rd, "args");
  wgk_status st = manifest_expect(rd, map, JSON_OBJECT, "an object");
  if (!st) {
    rd->m->scalar_args = manifest_alloc(rd, json_object_size(map), sizeof *rd->m->scalar_args);
    if (!rd->m->scalar_args) st = WGK_ERR_OUT_OF_MEMORY;
  }
  const char *key;
  const json_t *obj;
  if (!st) json_object_foreach((json_t *)map, key, obj) {
      size_t m2 = manifest_push_key(rd, key);
      st = read_arg(rd, key, obj);
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  return st;
}
