/* The seed format (docs/package-format.md) read through the spec 2.1 reader: one validator for both formats.
 *
 * The seed JSON is translated in memory into the spec 2.1 manifest `wgk convert` writes, except that each port keeps
 * its ONNX role as its key, so no expression or template text changes and every column inside an expression stays
 * exact. The spec 2.1 reader then checks and reads the translation, so one mistake gets one message in either format.
 * Each translated value remembers the seed value it came from (manifest_origin, origin.c): an error names the seed
 * file's line, column and JSON path.
 *
 * Checked here, because the translation needs it and spec 2.1 has no way to say it: a port list entry's role (the
 * key it becomes), a tensor arg's semantic, role and required (the port it binds), a pass's binding set name and the
 * shape of the seed-only objects (source, buffer, struct). Set after the read, because the seed model carries it and
 * spec 2.1 does not: each port's bind keys (the seed's tensor args), its declared rank, and the format (the planner
 * keeps the seed's semantics where the formats differ). */
#include <stdlib.h>
#include <string.h>

#include "manifest/reader.h"

/* ---- the translation ---- */

typedef struct seed_tr {
  manifest_rd *rd;      /* rd->path is the seed path of the value being translated */
  util_dynbuf to;       /* the translated path of the value being built */
  manifest_origin *map; /* what is recorded */
  const json_t *seed;   /* the seed root */
} seed_tr;

static size_t to_key(seed_tr *t, const char *key) { return util_manifest_path_push_key(&t->to, key); }

static size_t to_index(seed_tr *t, size_t i) { return util_manifest_path_push_index(&t->to, i); }

static void to_pop(seed_tr *t, size_t mark) { util_manifest_path_pop(&t->to, mark); }

/* Records that the value at the translated path came from the seed value at rd->path. */
static void note(seed_tr *t) { manifest_origin_add(t->map, util_dynbuf_str(&t->to), util_dynbuf_str(&t->rd->path)); }

/* note() for v and everything under it, the same steps on both sides. */
static void note_tree(seed_tr *t, const json_t *v) {
  note(t);
  if (json_is_array(v)) {
    for (size_t i = 0; i < json_array_size(v); i++) {
      size_t a = manifest_push_index(t->rd, i), b = to_index(t, i);
      note_tree(t, json_array_get(v, i));
      to_pop(t, b);
      manifest_pop(t->rd, a);
    }
  } else if (json_is_object(v)) {
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) {
      size_t a = manifest_push_key(t->rd, k), b = to_key(t, k);
      note_tree(t, x);
      to_pop(t, b);
      manifest_pop(t->rd, a);
    }
  }
}

/* o.to_key = a copy of the seed value at s.from_key. */
static void put_copy(seed_tr *t, json_t *o, const char *to_k, const json_t *s, const char *from_k) {
  const json_t *v = json_object_get(s, from_k);
  size_t a = manifest_push_key(t->rd, from_k), b = to_key(t, to_k);
  note_tree(t, v);
  json_object_set_new(o, to_k, json_deep_copy(v));
  to_pop(t, b);
  manifest_pop(t->rd, a);
}

/* o.to_key = v (made here), recorded as coming from the seed value at s.from_key (at s itself when from_k is NULL). */
static void put_new(seed_tr *t, json_t *o, const char *to_k, json_t *v, const char *from_k) {
  size_t a = from_k ? manifest_push_key(t->rd, from_k) : t->rd->path.len, b = to_key(t, to_k);
  note(t);
  json_object_set_new(o, to_k, v);
  to_pop(t, b);
  manifest_pop(t->rd, a);
}

/* ---- ports and tensor args ---- */

/* The seed port list entry (inputs or outputs) with this role, and its index; NULL when none. */
static const json_t *seed_port(const json_t *root, const char *list, const char *role, size_t *index) {
  const json_t *l = json_object_get(root, list);
  for (size_t i = 0; i < json_array_size(l); i++) {
    const char *r = json_string_value(json_object_get(json_array_get(l, i), "role"));
    if (r && strcmp(r, role) == 0) {
      if (index) *index = i;
      return json_array_get(l, i);
    }
  }
  return NULL;
}

/* The first tensor arg binding role that declares a storage dtype (its key), else NULL. */
static const char *storage_arg(const json_t *root, const char *role) {
  const char *key;
  const json_t *a;
  json_object_foreach((json_t *)json_object_get(root, "args"), key, a) {
    const char *sem = json_string_value(json_object_get(a, "semantic"));
    const char *kind = json_string_value(json_object_get(a, "kind"));
    if (kind && strcmp(kind, "tensor") == 0 && sem && strcmp(sem, role) == 0 && json_object_get(a, "dtype")) return key;
  }
  return NULL;
}

/* The role a tensor arg key binds, or NULL when key is not a tensor arg. */
static const char *role_of_arg(const json_t *root, const char *key) {
  const json_t *a = json_object_get(json_object_get(root, "args"), key);
  const char *kind = json_string_value(json_object_get(a, "kind"));
  if (!kind || strcmp(kind, "tensor") != 0) return NULL;
  return json_string_value(json_object_get(a, "semantic"));
}

static wgk_status check_arg_role(manifest_rd *rd, const json_t *obj, bool in, bool out) {
  const char *role = NULL, *sem = json_string_value(json_object_get(obj, "semantic"));
  wgk_status st = manifest_get_string(rd, obj, "role", false, &role);
  if (st || !role) return st;
  size_t mark = manifest_push_key(rd, "role");
  bool r_in = strcmp(role, "input") == 0, r_out = strcmp(role, "output") == 0;
  if (!r_in && !r_out)
    st = manifest_fail(rd, "unknown role '%s' (known: input output)", role);
  else if ((r_in && !in) || (r_out && !out))
    st = manifest_fail(rd, "role '%s' but port '%s' is an %s", role, sem, in ? "input" : "output");
  manifest_pop(rd, mark);
  return st;
}

static wgk_status check_arg_required(manifest_rd *rd, const json_t *obj, const json_t *port) {
  const json_t *opt = json_object_get(port, "optional");
  if (opt && !json_is_boolean(opt)) return WGK_OK; /* the reader refuses the port's own value */
  bool optional = json_is_true(opt), required = !optional;
  wgk_status st = manifest_get_bool(rd, obj, "required", false, &required);
  if (st || required == !optional) return st;
  size_t mark = manifest_push_key(rd, "required");
  st = manifest_fail(rd, "required is %s but port '%s' is %s", required ? "true" : "false",
                     json_string_value(json_object_get(port, "role")), optional ? "optional" : "not optional");
  manifest_pop(rd, mark);
  return st;
}

static const char *const tensor_arg_keys[] = {"kind",      "semantic", "role",        "dtype",
                                              "narrowing", "required", "description", NULL};
static const char *const source_keys[] = {"shader", "inputs", NULL};
static const char *const struct_keys[] = {"name", "fields", NULL};

/* A tensor arg names the port it binds (its bind key), in keeping with that port's direction and optionality. */
static wgk_status check_tensor_arg(seed_tr *t, const json_t *obj) {
  manifest_rd *rd = t->rd;
  const char *sem = NULL;
  wgk_status st = manifest_object(rd, obj, "an arg object", tensor_arg_keys);
  if (!st) st = manifest_get_string(rd, obj, "semantic", true, &sem);
  if (st) return st;
  const json_t *in = seed_port(t->seed, "inputs", sem, NULL), *out = seed_port(t->seed, "outputs", sem, NULL);
  if (!in && !out) return manifest_fail_in(rd, "semantic", false, "semantic '%s' names no port", sem);
  st = check_arg_role(rd, obj, in != NULL, out != NULL);
  if (!st) st = check_arg_required(rd, obj, in ? in : out);
  return st;
}

/* Scalar args become spec 2.1 args (semantic -> onnx, required false unless said); tensor args are checked and
 * leave their storage to the ports. */
static wgk_status translate_args(seed_tr *t, const json_t *args, json_t *root_out) {
  manifest_rd *rd = t->rd;
  size_t mark = manifest_push_key(rd, "args"), tmark = to_key(t, "args");
  wgk_status st = manifest_expect(rd, args, JSON_OBJECT, "an object");
  json_t *o = json_object();
  note(t);
  const char *key;
  const json_t *a;
  if (!st) json_object_foreach((json_t *)args, key, a) {
      size_t m2 = manifest_push_key(rd, key), t2 = to_key(t, key);
      const char *kind = json_string_value(json_object_get(a, "kind"));
      if (kind && strcmp(kind, "tensor") == 0) {
        st = check_tensor_arg(t, a);
      } else if (!json_is_object(a)) {
        note_tree(t, a);
        json_object_set_new(o, key, json_deep_copy(a));
      } else {
        json_t *x = json_object();
        note(t);
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)a, k, v) {
          if (strcmp(k, "semantic") == 0)
            put_copy(t, x, "onnx", a, k);
          else
            put_copy(t, x, k, a, k);
        }
        if (!json_object_get(a, "required")) put_new(t, x, "required", json_false(), NULL);
        json_object_set_new(o, key, x);
      }
      to_pop(t, t2);
      manifest_pop(rd, m2);
      if (st) break;
    }
  if (!st && json_object_size(o)) json_object_set(root_out, "args", o);
  json_decref(o);
  to_pop(t, tmark);
  manifest_pop(rd, mark);
  return st;
}

/* A tensor arg's dtype and narrowing as the port's storage and narrowing, recorded as coming from the arg. */
static void put_storage(seed_tr *t, json_t *o, const char *role, bool output) {
  const char *arg = storage_arg(t->seed, role);
  if (!arg) return;
  const json_t *a = json_object_get(json_object_get(t->seed, "args"), arg);
  util_dynbuf *path = &t->rd->path;
  char *saved = strdup(util_dynbuf_str(path));
  if (!saved) {
    t->map->failed = true;
    return;
  }
  util_dynbuf_reset(path);
  util_dynbuf_append_str(path, "");
  manifest_push_key(t->rd, "args");
  manifest_push_key(t->rd, arg);
  put_copy(t, o, "storage", a, "dtype");
  if (json_object_get(a, "narrowing") && !output) put_copy(t, o, "narrowing", a, "narrowing");
  util_dynbuf_reset(path);
  util_dynbuf_append_str(path, saved);
  free(saved);
}

/* A port list entry as a member of the port map, keyed by its role; a tensor arg's dtype/narrowing become the port's
 * storage/narrowing. */
static wgk_status translate_port(seed_tr *t, const json_t *p, bool output, json_t *map) {
  manifest_rd *rd = t->rd;
  const char *role = NULL;
  wgk_status st = manifest_expect(rd, p, JSON_OBJECT, "a port object");
  if (!st) st = manifest_get_string(rd, p, "role", true, &role);
  if (!st && !*role) st = manifest_fail_in(rd, "role", false, "role must not be empty");
  if (!st && json_object_get(map, role))
    st = manifest_fail_in(rd, "role", false, "duplicate %s '%s'", output ? "output" : "input", role);
  if (st) return st;
  size_t tmark = to_key(t, role);
  json_t *o = json_object();
  note(t);
  const char *k;
  const json_t *v;
  json_object_foreach((json_t *)p, k, v) {
    if (strcmp(k, "role") != 0) put_copy(t, o, k, p, k);
  }
  put_storage(t, o, role, output);
  json_object_set_new(map, role, o);
  to_pop(t, tmark);
  return WGK_OK;
}

static wgk_status translate_ports(seed_tr *t, const char *key, json_t *root_out) {
  manifest_rd *rd = t->rd;
  const json_t *list = json_object_get(t->seed, key);
  size_t mark = manifest_push_key(rd, key), tmark = to_key(t, key);
  wgk_status st = manifest_expect(rd, list, JSON_ARRAY, "a list of ports");
  json_t *map = json_object();
  note(t);
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    size_t m2 = manifest_push_index(rd, i);
    st = translate_port(t, json_array_get(list, i), strcmp(key, "outputs") == 0, map);
    manifest_pop(rd, m2);
  }
  json_object_set_new(root_out, key, map);
  to_pop(t, tmark);
  manifest_pop(rd, mark);
  return st;
}

/* ---- attributes and tunables ---- */

/* attributes (defaults), attributeDescriptions and the names attributeConstraints adds, as one spec 2.1 map of
 * {default?, description?}. A seed map that is not an object is passed on for the reader to refuse. */
static wgk_status translate_attributes(seed_tr *t, json_t *root_out) {
  manifest_rd *rd = t->rd;
  const json_t *defs = json_object_get(t->seed, "attributes");
  const json_t *descs = json_object_get(t->seed, "attributeDescriptions");
  const json_t *cons = json_object_get(t->seed, "attributeConstraints");
  if (defs && !json_is_object(defs)) {
    put_copy(t, root_out, "attributes", t->seed, "attributes");
    return WGK_OK;
  }
  if (descs) {
    size_t mark = manifest_push_key(rd, "attributeDescriptions");
    wgk_status st = manifest_expect(rd, descs, JSON_OBJECT, "an object");
    manifest_pop(rd, mark);
    if (st) return st;
  }
  size_t tmark = to_key(t, "attributes");
  size_t mark = manifest_push_key(rd, defs ? "attributes" : descs ? "attributeDescriptions" : "attributeConstraints");
  json_t *map = json_object();
  note(t);
  manifest_pop(rd, mark);
  const struct {
    const char *key;
    const json_t *obj;
  } parts[] = {{"attributes", defs}, {"attributeDescriptions", descs}, {"attributeConstraints", cons}};
  for (size_t p = 0; p < 3; p++) {
    if (!json_is_object(parts[p].obj)) continue;
    size_t m1 = manifest_push_key(rd, parts[p].key);
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)parts[p].obj, name, v) {
      json_t *a = json_object_get(map, name);
      if (!a) {
        a = json_object();
        put_new(t, map, name, a, name);
      }
      size_t t2 = to_key(t, name);
      if (p == 0) put_copy(t, a, "default", parts[p].obj, name);
      if (p == 1) put_copy(t, a, "description", parts[p].obj, name);
      to_pop(t, t2);
    }
    manifest_pop(rd, m1);
  }
  to_pop(t, tmark);
  if (json_object_size(map) || defs)
    json_object_set_new(root_out, "attributes", map);
  else
    json_decref(map);
  return WGK_OK;
}

/* tunables: name -> default becomes name -> {default}. */
static void translate_tunables(seed_tr *t, const json_t *map, json_t *root_out) {
  if (!json_is_object(map)) {
    put_copy(t, root_out, "tunables", t->seed, "tunables");
    return;
  }
  size_t mark = manifest_push_key(t->rd, "tunables"), tmark = to_key(t, "tunables");
  json_t *o = json_object();
  note(t);
  const char *name;
  const json_t *v;
  json_object_foreach((json_t *)map, name, v) {
    json_t *x = json_object();
    put_new(t, o, name, x, name);
    size_t t2 = to_key(t, name);
    put_copy(t, x, "default", map, name);
    to_pop(t, t2);
  }
  json_object_set_new(root_out, "tunables", o);
  to_pop(t, tmark);
  manifest_pop(t->rd, mark);
}

/* ---- variants, passes and bindings ---- */

/* Starts list's next entry, translated from v: an object gets a new empty entry, noted at its path and returned
 * for the caller to fill and hand to entry_end; anything else is copied as it is (the 2.1 checks refuse it at the
 * same path) and NULL is returned, nothing left open. */
static json_t *entry_begin(seed_tr *t, const json_t *v, json_t *list, size_t *tmark) {
  *tmark = to_index(t, json_array_size(list));
  if (!json_is_object(v)) {
    note_tree(t, v);
    json_array_append_new(list, json_deep_copy(v));
    to_pop(t, *tmark);
    return NULL;
  }
  note(t);
  return json_object();
}

static wgk_status entry_end(seed_tr *t, json_t *list, json_t *e, size_t tmark, wgk_status st) {
  json_array_append_new(list, e);
  to_pop(t, tmark);
  return st;
}

typedef wgk_status (*translate_entry_fn)(seed_tr *t, const json_t *v, json_t *list);

/* The seed array items (at rd->path, translated at t->to), each through one, into a new list (*out). */
static wgk_status translate_each(seed_tr *t, const json_t *items, translate_entry_fn one, json_t **out) {
  *out = json_array();
  note(t);
  wgk_status st = WGK_OK;
  for (size_t i = 0; !st && i < json_array_size(items); i++) {
    size_t mark = manifest_push_index(t->rd, i);
    st = one(t, json_array_get(items, i), *out);
    manifest_pop(t->rd, mark);
  }
  return st;
}

/* One seed binding as a spec 2.1 inline entry: buffer {type} -> buffer, intermediate -> scratch, struct {name, fields}
 * -> structName + struct, arg (a bind key) -> the port's role; semantic is a label only and goes. */
static wgk_status translate_binding(seed_tr *t, const json_t *b, json_t *list) {
  manifest_rd *rd = t->rd;
  size_t tmark;
  json_t *e = entry_begin(t, b, list, &tmark);
  if (!e) return WGK_OK;
  wgk_status st = WGK_OK;
  const char *k;
  const json_t *v;
  json_object_foreach((json_t *)b, k, v) {
    if (strcmp(k, "semantic") == 0) continue;
    if (strcmp(k, "intermediate") == 0) {
      put_copy(t, e, "scratch", b, k);
    } else if (strcmp(k, "arg") == 0 && json_is_string(v) && role_of_arg(t->seed, json_string_value(v))) {
      put_new(t, e, "arg", json_string(role_of_arg(t->seed, json_string_value(v))), k);
    } else if (strcmp(k, "buffer") == 0 && json_is_object(v) && json_object_get(v, "type")) {
      size_t m1 = manifest_push_key(rd, k);
      put_copy(t, e, "buffer", v, "type");
      manifest_pop(rd, m1);
    } else if (strcmp(k, "struct") == 0 && json_is_object(v)) {
      size_t m1 = manifest_push_key(rd, k);
      st = manifest_object(rd, v, "an object", struct_keys);
      if (!st && json_object_get(v, "name")) put_copy(t, e, "structName", v, "name");
      if (!st && json_object_get(v, "fields")) put_copy(t, e, "struct", v, "fields");
      manifest_pop(rd, m1);
    } else {
      put_copy(t, e, k, b, k);
    }
    if (st) break;
  }
  return entry_end(t, list, e, tmark, st);
}

/* A pass's binding set name -> that set's bindings, inline (each pass its own copy, as spec 2.1 lists them). */
static wgk_status translate_pass_bindings(seed_tr *t, const json_t *pass, json_t *out) {
  manifest_rd *rd = t->rd;
  const json_t *name = json_object_get(pass, "bindings");
  if (!json_is_string(name)) {
    put_copy(t, out, "bindings", pass, "bindings");
    return WGK_OK;
  }
  const json_t *set = json_object_get(json_object_get(t->seed, "bindingSets"), json_string_value(name));
  if (!set)
    return manifest_fail_in(rd, "bindings", false, "binding set '%s' does not exist in bindingSets",
                            json_string_value(name));
  /* the entries are recorded as the set's, where they are written */
  char *saved = strdup(util_dynbuf_str(&rd->path));
  if (!saved) return util_error_oom(rd->err, rd->m->source, NULL);
  util_dynbuf_reset(&rd->path);
  util_dynbuf_append_str(&rd->path, "");
  manifest_push_key(rd, "bindingSets");
  manifest_push_key(rd, json_string_value(name));
  size_t tmark = to_key(t, "bindings");
  wgk_status st = WGK_OK;
  if (!json_is_array(set)) {
    note_tree(t, set);
    json_object_set_new(out, "bindings", json_deep_copy(set));
  } else {
    json_t *list;
    st = translate_each(t, set, translate_binding, &list);
    json_object_set_new(out, "bindings", list);
  }
  to_pop(t, tmark);
  util_dynbuf_reset(&rd->path);
  util_dynbuf_append_str(&rd->path, saved);
  free(saved);
  return st;
}

/* source {shader, inputs} -> shader + pass derive; bindings (a set name) -> the set's entries. */
static wgk_status translate_pass(seed_tr *t, const json_t *p, json_t *list) {
  manifest_rd *rd = t->rd;
  size_t tmark;
  json_t *o = entry_begin(t, p, list, &tmark);
  if (!o) return WGK_OK;
  wgk_status st = WGK_OK;
  const char *k;
  const json_t *v;
  json_object_foreach((json_t *)p, k, v) {
    if (strcmp(k, "source") == 0) {
      size_t m1 = manifest_push_key(rd, k);
      st = manifest_object(rd, v, "an object", source_keys);
      if (!st && json_object_get(v, "shader")) put_copy(t, o, "shader", v, "shader");
      if (!st && json_object_get(v, "inputs")) put_copy(t, o, "derive", v, "inputs");
      manifest_pop(rd, m1);
    } else if (strcmp(k, "bindings") == 0) {
      st = translate_pass_bindings(t, p, o);
    } else {
      put_copy(t, o, k, p, k);
    }
    if (st) break;
  }
  return entry_end(t, list, o, tmark, st);
}

/* intermediates: as they are, but zeroInit false is spelled by leaving the key out in spec 2.1. */
static void translate_intermediates(seed_tr *t, const json_t *v, json_t *out) {
  put_copy(t, out, "intermediates", v, "intermediates");
  json_t *list = json_object_get(out, "intermediates");
  for (size_t i = 0; i < json_array_size(list); i++) {
    json_t *it = json_array_get(list, i);
    if (json_is_false(json_object_get(it, "zeroInit"))) json_object_del(it, "zeroInit");
  }
}

static wgk_status translate_variant(seed_tr *t, const json_t *v, json_t *list) {
  manifest_rd *rd = t->rd;
  size_t tmark;
  json_t *o = entry_begin(t, v, list, &tmark);
  if (!o) return WGK_OK;
  wgk_status st = WGK_OK;
  const char *k;
  const json_t *x;
  json_object_foreach((json_t *)v, k, x) {
    if (strcmp(k, "constants") == 0) {
      put_copy(t, o, "derive", v, k);
    } else if (strcmp(k, "intermediates") == 0) {
      translate_intermediates(t, v, o);
    } else if (strcmp(k, "passes") == 0 && json_is_array(x)) {
      size_t m1 = manifest_push_key(rd, k), t1 = to_key(t, k);
      json_t *passes;
      st = translate_each(t, x, translate_pass, &passes);
      json_object_set_new(o, k, passes);
      to_pop(t, t1);
      manifest_pop(rd, m1);
    } else {
      put_copy(t, o, k, v, k);
    }
    if (st) break;
  }
  return entry_end(t, list, o, tmark, st);
}

static wgk_status translate_variants(seed_tr *t, const json_t *vs, json_t *root_out) {
  if (!json_is_array(vs)) {
    put_copy(t, root_out, "variants", t->seed, "variants");
    return WGK_OK;
  }
  manifest_rd *rd = t->rd;
  size_t mark = manifest_push_key(rd, "variants"), tmark = to_key(t, "variants");
  json_t *list;
  wgk_status st = translate_each(t, vs, translate_variant, &list);
  json_object_set_new(root_out, "variants", list);
  to_pop(t, tmark);
  manifest_pop(rd, mark);
  return st;
}

/* ---- the root ---- */

static wgk_status translate(seed_tr *t, json_t **out) {
  manifest_rd *rd = t->rd;
  const json_t *s = t->seed;
  *out = NULL;
  wgk_status st = manifest_expect(rd, s, JSON_OBJECT, "an object");
  if (st) return st;
  json_t *o = json_object();
  note(t);
  bool attrs_done = false;
  const char *k;
  const json_t *v;
  json_object_foreach((json_t *)s, k, v) {
    if (strcmp(k, "inputs") == 0 || strcmp(k, "outputs") == 0)
      st = translate_ports(t, k, o);
    else if (strcmp(k, "args") == 0)
      st = translate_args(t, v, o);
    else if (strcmp(k, "attributes") == 0 || strcmp(k, "attributeDescriptions") == 0 ||
             strcmp(k, "attributeConstraints") == 0) {
      if (!attrs_done) st = translate_attributes(t, o);
      attrs_done = true;
      if (!st && strcmp(k, "attributeConstraints") == 0) put_copy(t, o, k, s, k);
    } else if (strcmp(k, "tunables") == 0)
      translate_tunables(t, v, o);
    else if (strcmp(k, "variants") == 0)
      st = translate_variants(t, v, o);
    else if (strcmp(k, "bindingSets") != 0)
      put_copy(t, o, k, s, k);
    if (st) break;
  }
  if (!st && t->map->failed) st = util_error_oom(rd->err, rd->m->source, NULL);
  if (st) {
    json_decref(o);
    return st;
  }
  *out = o;
  return WGK_OK;
}

wgk_status manifest_seed_translate(manifest_rd *rd, const json_t *seed, json_t **out, manifest_origin *map) {
  seed_tr t = {.rd = rd, .map = map, .seed = seed};
  util_dynbuf_init(&t.to, 1 << 16);
  util_dynbuf_append_str(&t.to, "");
  wgk_status st = translate(&t, out);
  util_dynbuf_free(&t.to);
  if (!st) manifest_origin_sort(map);
  return st;
}

/* ---- what the seed model carries beyond spec 2.1 ---- */

/* A port's declared rank (an integer 0..64 or an expression), read at its seed path. */
static wgk_status read_rank(manifest_rd *rd, const json_t *obj, manifest_port *p, bool output) {
  const json_t *v = json_object_get(obj, "rank");
  if (!v || (output && p->has_rank)) return WGK_OK; /* an in/out port's input rank stands */
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

wgk_status manifest_seed_finish(manifest_rd *rd, const json_t *seed) {
  manifest_model *m = rd->m;
  m->format = WGK_MANIFEST_SEED;
  wgk_status st = WGK_OK;
  for (int out = 0; !st && out < 2; out++) {
    const char *key = out ? "outputs" : "inputs";
    const json_t *list = json_object_get(seed, key);
    size_t mark = manifest_push_key(rd, key);
    for (size_t i = 0; !st && i < json_array_size(list); i++) {
      const json_t *obj = json_array_get(list, i);
      manifest_port *p = (manifest_port *)manifest_find_port(m, json_string_value(json_object_get(obj, "role")));
      size_t m2 = manifest_push_index(rd, i);
      if (p) st = read_rank(rd, obj, p, out);
      manifest_pop(rd, m2);
    }
    manifest_pop(rd, mark);
  }
  /* each pass's bindings keep the name of the seed binding set they came from */
  const json_t *vs = json_object_get(seed, "variants");
  for (size_t i = 0; i < m->n_variants && i < json_array_size(vs); i++) {
    const json_t *ps = json_object_get(json_array_get(vs, i), "passes");
    for (size_t k = 0; k < m->variants[i].n_passes && k < json_array_size(ps); k++) {
      const char *set = json_string_value(json_object_get(json_array_get(ps, k), "bindings"));
      manifest_binding_set *b = (manifest_binding_set *)m->variants[i].passes[k].bindings;
      if (set && b) b->name = set;
    }
  }
  /* the bind keys are the tensor args naming the port, in args order (none: the port is bound by its role) */
  for (size_t i = 0; !st && i < m->n_ports; i++) {
    manifest_port *p = (manifest_port *)&m->ports[i];
    const json_t *args = json_object_get(seed, "args");
    const char **keys = manifest_alloc(rd, json_object_size(args) + 1, sizeof *keys);
    if (!keys) return WGK_ERR_OUT_OF_MEMORY;
    size_t n = 0;
    const char *key;
    const json_t *a;
    json_object_foreach((json_t *)args, key, a) {
      const char *role = role_of_arg(seed, key);
      if (role && strcmp(role, p->name) == 0) keys[n++] = key;
    }
    p->bind_keys = keys;
    p->n_bind_keys = n;
  }
  return st;
}
