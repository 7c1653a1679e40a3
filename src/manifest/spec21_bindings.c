/* Manifest spec 2.1 bindings: top-level handles and each pass's list of handles, port keys, intermediate
 * ids and inline entries, with the public loader's defaults (docs/loader-semantics.md rules 17-18): name = name ??
 * handle ?? arg ?? scratch; buffer = uniform for a struct, storage for scratch, read-only-storage for an
 * input port, storage for an output or in/out; elementType = the scratch dtype's scalar, else the port's
 * storage scalar, else its concrete dtype's scalar, else "$<TypeVar>". */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/reader.h"
#include "util/dtype.h"

#define MANIFEST_MAX_UNIFORM_FIELDS 16384

static const char *const entry_keys[] = {"buffer", "name",       "arg",    "scratch", "elementType",
                                         "length", "structName", "struct", NULL};
static const char *const field_keys[] = {"name", "type", "value", "required", "internal", "default", NULL};

/* The WGSL scalar a concrete logical dtype is stored as (the loader's table); NULL when unknown. */
static const char *storage_scalar(const char *dt) { return util_dtype_storage_wgsl(dt); }

static wgk_status read_field(manifest_rd *rd, const json_t *obj, size_t i, manifest_field *f) {
  size_t mark = manifest_push_index(rd, i);
  wgk_status st = manifest_expect(rd, obj, JSON_OBJECT, "a field object");
  const char *name = st ? NULL : json_string_value(json_object_get(obj, "name"));
  if (!st && !manifest_identifier(name)) st = manifest_fail(rd, "field %zu name must be an identifier", i);
  if (!st) st = manifest_object(rd, obj, "a field object", field_keys);
  const char *type = NULL;
  if (!st) st = manifest_get_string(rd, obj, "type", true, &type);
  if (!st && strcmp(type, "u32") == 0)
    f->type = WGK_SCALAR_U32;
  else if (!st && strcmp(type, "i32") == 0)
    f->type = WGK_SCALAR_I32;
  else if (!st && strcmp(type, "f32") == 0)
    f->type = WGK_SCALAR_F32;
  else if (!st)
    st = manifest_fail_in(rd, "type", false, "field %s has invalid type %s (known: u32 i32 f32)", name, type);
  f->name = name;
  if (!st) st = manifest_get_bool(rd, obj, "internal", false, &f->internal);
  f->required = !f->internal;
  if (!st) st = manifest_get_bool(rd, obj, "required", false, &f->required);
  const json_t *v = st ? NULL : json_object_get(obj, "value");
  if (v) {
    size_t m2 = manifest_push_key(rd, "value");
    if (json_is_number(v)) { /* a literal value: kept as its text */
      char text[64];
      if (json_is_integer(v))
        snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
      else
        snprintf(text, sizeof text, "%.17g", json_real_value(v));
      f->value.pos = manifest_here(rd);
      f->value.text = manifest_strdup(rd, text);
      if (!f->value.text) st = WGK_ERR_OUT_OF_MEMORY;
    } else {
      st = manifest_read_expr(rd, v, &f->value);
    }
    manifest_pop(rd, m2);
  }
  if (!st) f->default_value = json_object_get(obj, "default");
  manifest_pop(rd, mark);
  return st;
}

static wgk_status read_struct(manifest_rd *rd, const json_t *e, manifest_binding *b, const char *what) {
  if (json_object_get(e, "elementType") || json_object_get(e, "length"))
    return manifest_fail(rd, "%s: a uniform binding takes struct fields, not elementType/length", what);
  const json_t *list = json_object_get(e, "struct");
  if (!json_is_array(list) || json_array_size(list) == 0)
    return manifest_fail(rd, "%s: a uniform binding requires a non-empty struct field list", what);
  if (json_array_size(list) > MANIFEST_MAX_UNIFORM_FIELDS) /* before any field is read: 20,000 ran out of memory */
    return manifest_fail_in(rd, "struct", false,
                            "%s: %zu struct fields, above the bound of %d (4-byte fields filling WebGPU's default "
                            "maxUniformBufferBindingSize of 64 KiB)",
                            what, json_array_size(list), MANIFEST_MAX_UNIFORM_FIELDS);
  b->struct_name = "Params";
  wgk_status st = manifest_get_string(rd, e, "structName", false, &b->struct_name);
  if (st) return st;
  size_t mark = manifest_push_key(rd, "struct");
  manifest_field *fs = manifest_alloc(rd, json_array_size(list), sizeof *fs);
  if (!fs) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    st = read_field(rd, json_array_get(list, i), i, &fs[i]);
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(fs[j].name, fs[i].name) == 0) {
        size_t m2 = manifest_push_index(rd, i);
        st = manifest_fail(rd, "%s repeats field %s", what, fs[i].name);
        manifest_pop(rd, m2);
      }
  }
  manifest_pop(rd, mark);
  b->fields = fs;
  b->n_fields = st ? 0 : json_array_size(list);
  return st;
}

/* The loader's `lt`: one entry object normalized. handle is the default name (NULL inline); v gives the
 * intermediates (NULL for top-level handles). */
/* ---- elementType: a WGSL storage element type, checked at load (a bogus one was a WGSL syntax error) ---- */
static void et_space(const char **p) {
  while (**p == ' ' || **p == '\t' || **p == '\n') ++*p;
}

static bool et_word(const char **p, const char *w) {
  size_t n = strlen(w);
  if (strncmp(*p, w, n) != 0 || isalnum((unsigned char)(*p)[n]) || (*p)[n] == '_') return false;
  *p += n;
  return true;
}

static bool et_char(const char **p, char c) {
  et_space(p);
  if (**p != c) return false;
  ++*p;
  et_space(p);
  return true;
}

static bool et_scalar(const char **p) {
  return et_word(p, "f32") || et_word(p, "f16") || et_word(p, "i32") || et_word(p, "u32") || et_word(p, "bool");
}

/* A letter suffix ending the word: vec4f, mat2x2h. */
static bool et_suffix(const char **p, const char *letters) {
  if (!**p || !strchr(letters, **p) || isalnum((unsigned char)(*p)[1]) || (*p)[1] == '_') return false;
  ++*p;
  return true;
}

/* type := scalar | vecN<scalar> | vecN[fhiu] | atomic<i32|u32> | matCxR<f32|f16> | matCxR[fh] | array<type[, N]> */
static bool et_type(const char **p, int depth) {
  et_space(p);
  const char *s = *p;
  if (depth > 8) return false;
  if (et_scalar(p)) return true;
  if (strncmp(s, "vec", 3) == 0 && s[3] >= '2' && s[3] <= '4') {
    *p = s + 4;
    if (et_suffix(p, "fhiu")) return true;
    return et_char(p, '<') && et_scalar(p) && et_char(p, '>');
  }
  if (strncmp(s, "mat", 3) == 0 && s[3] >= '2' && s[3] <= '4' && s[4] == 'x' && s[5] >= '2' && s[5] <= '4') {
    *p = s + 6;
    if (et_suffix(p, "fh")) return true;
    return et_char(p, '<') && (et_word(p, "f32") || et_word(p, "f16")) && et_char(p, '>');
  }
  if (et_word(p, "atomic")) return et_char(p, '<') && (et_word(p, "i32") || et_word(p, "u32")) && et_char(p, '>');
  if (et_word(p, "array")) {
    if (!et_char(p, '<') || !et_type(p, depth + 1)) return false;
    if (et_char(p, ',')) {
      if (!isdigit((unsigned char)**p)) return false;
      while (isdigit((unsigned char)**p)) ++*p;
      if (**p == 'u' || **p == 'i') ++*p;
    }
    return et_char(p, '>');
  }
  return false;
}

/* et is a $placeholder or a WGSL storage element type. */
static bool element_type_ok(const char *et) {
  if (et[0] == '$') return manifest_identifier(et + 1);
  const char *p = et;
  if (!et_type(&p, 0)) return false;
  et_space(&p);
  return *p == '\0';
}

/* The entry's keys are known ones and its string keys non-empty strings. */
static wgk_status check_entry_keys(manifest_rd *rd, const json_t *e, const char *what) {
  const char *key;
  const json_t *x;
  json_object_foreach((json_t *)e, key, x) {
    bool known = false;
    for (const char *const *k = entry_keys; *k && !known; k++) known = strcmp(*k, key) == 0;
    if (!known)
      return manifest_fail_in(rd, key, true, "%s has unknown key '%s'%s", what, key,
                              strcmp(key, "semantic") == 0 ? " (spec 2.0 bindings resolve by arg/name and name "
                                                             "scratch explicitly)"
                                                           : "");
  }
  static const char *const strs[] = {"name", "arg", "scratch", "elementType", "structName", NULL};
  for (const char *const *k = strs; *k; k++) {
    const json_t *s = json_object_get(e, *k);
    if (s && (!json_is_string(s) || json_string_length(s) == 0))
      return manifest_fail_in(rd, *k, false, "%s.%s must be a non-empty string", what, *k);
  }
  return WGK_OK;
}

/* The entry's buffer type: written, or defaulted from what it binds (uniform for struct fields, storage for an
   intermediate, read-only-storage for an input port, storage for an output). */
static wgk_status read_buffer(manifest_rd *rd, const json_t *e, bool intermediate, const manifest_port *port,
                              const char *bound, const char *what, manifest_binding *b) {
  const char *buffer = json_string_value(json_object_get(e, "buffer"));
  if (json_object_get(e, "buffer") && !buffer)
    return manifest_fail_in(rd, "buffer", false, "%s.buffer must be a string: read-only-storage, storage or uniform%s",
                            what,
                            json_is_object(json_object_get(e, "buffer")) ? " (the seed's {type} object is "
                                                                           "gone)"
                                                                         : "");
  if (!buffer)
    buffer = json_object_get(e, "struct") ? "uniform"
             : intermediate               ? "storage"
             : port                       ? (port->dir == WGK_PORT_INPUT ? "read-only-storage" : "storage")
                                          : NULL;
  if (!buffer)
    return manifest_fail(rd,
                         "%s binds \"%s\", which is neither a declared tensor nor an intermediate, so its buffer "
                         "type cannot default; write buffer",
                         what, bound);
  if (strcmp(buffer, "read-only-storage") == 0)
    b->buffer = WGK_BUFFER_READ_ONLY_STORAGE;
  else if (strcmp(buffer, "storage") == 0)
    b->buffer = WGK_BUFFER_STORAGE;
  else if (strcmp(buffer, "uniform") == 0)
    b->buffer = WGK_BUFFER_UNIFORM;
  else
    return manifest_fail_in(rd, "buffer", false, "%s.buffer must be read-only-storage, storage or uniform", what);
  return WGK_OK;
}

/* The element type a storage binding of a port takes when the entry writes none: the port's storage dtype, vec2<u32>
   for an opaque int64, its one dtype, or $T for its type variable; NULL in *et with an error when none applies. */
static wgk_status port_element_type(manifest_rd *rd, const manifest_port *port, const char *what, const char **et) {
  if (port->storage_dtype)
    *et = storage_scalar(port->storage_dtype);
  else if (port->opaque_int64)
    *et = "vec2<u32>";
  else if (!port->type_var && port->n_dtypes == 1 && !port->dtype_defaulted)
    *et = storage_scalar(port->dtypes[0]);
  else if (port->type_var) {
    char *t = manifest_alloc(rd, strlen(port->type_var) + 2, 1);
    if (!t) return WGK_ERR_OUT_OF_MEMORY;
    sprintf(t, "$%s", port->type_var);
    *et = t;
  } else {
    return manifest_fail(rd, "%s binds port \"%s\", which declares no dtype; write the entry's elementType", what,
                         port->name);
  }
  return WGK_OK;
}

/* A storage binding's element type: written or defaulted, a WGSL storage type or a $placeholder, vec2<u32> for an
   int64 tensor. */
static wgk_status read_element_type(manifest_rd *rd, const json_t *e, const manifest_variant *v,
                                    const manifest_intermediate *it, const manifest_port *port, const char *scratch,
                                    const char *what, manifest_binding *b) {
  const char *et = json_string_value(json_object_get(e, "elementType"));
  if (!et && it) et = storage_scalar(it->dtype);
  if (!et && port) {
    wgk_status st = port_element_type(rd, port, what, &et);
    if (st) return st;
  }
  if (!et)
    return scratch && !v ? manifest_fail(rd,
                                         "%s names scratch \"%s\" outside a variant, so its elementType cannot "
                                         "default; write elementType",
                                         what, scratch)
                         : manifest_fail(rd, "%s: a storage binding requires elementType", what);
  if (port && port->opaque_int64 && et[0] != '$') {
    char squeezed[64];
    size_t k = 0;
    for (const char *c = et; *c && k + 1 < sizeof squeezed; c++)
      if (*c != ' ' && *c != '\t' && *c != '\n') squeezed[k++] = *c;
    squeezed[k] = '\0';
    if (strcmp(squeezed, "vec2<u32>") != 0)
      return manifest_fail(rd, "%s: an int64 tensor binding must use vec2<u32>, got '%s'", what, et);
  }
  if (!element_type_ok(et))
    return manifest_fail_in(rd, "elementType", false,
                            "%s: elementType '%s' is not a WGSL storage element type (f32, f16, i32, u32, bool, "
                            "vecN<T>, matCxR<f32|f16>, atomic<i32|u32>, array<T[, N]>) nor a $placeholder",
                            what, et);
  b->element_type = et;
  return WGK_OK;
}

/* length: a positive integer (kept as its decimal text) or a $derive reference. */
static wgk_status read_length(manifest_rd *rd, const json_t *e, const char *what, manifest_binding *b) {
  const json_t *len = json_object_get(e, "length");
  if (!len) return WGK_OK;
  char text[32];
  if (json_is_integer(len) && json_integer_value(len) > 0 && json_integer_value(len) <= 9007199254740991LL) {
    snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(len));
    b->length = manifest_strdup(rd, text);
    if (!b->length) return WGK_ERR_OUT_OF_MEMORY;
  } else if (json_is_string(len) && json_string_value(len)[0] == '$' && json_string_length(len) > 1) {
    b->length = json_string_value(len);
  } else {
    return manifest_fail_in(rd, "length", false,
                            "%s.length must be a positive integer or a $-prefixed derive "
                            "reference",
                            what);
  }
  return WGK_OK;
}

static wgk_status read_entry(manifest_rd *rd, const json_t *e, const char *handle, const manifest_variant *v,
                             const char *what, manifest_binding *b) {
  b->semantic = "";
  b->pos = manifest_here(rd);
  wgk_status st = manifest_expect(rd, e, JSON_OBJECT, "a binding entry object");
  if (!st) st = check_entry_keys(rd, e, what);
  if (st) return st;
  const char *name = json_string_value(json_object_get(e, "name"));
  const char *arg = json_string_value(json_object_get(e, "arg"));
  const char *scratch = json_string_value(json_object_get(e, "scratch"));
  if (!name) name = handle ? handle : arg ? arg : scratch;
  if (!name) return manifest_fail(rd, "%s: an inline binding entry needs a name (name, arg or scratch)", what);
  if (!manifest_identifier(name)) return manifest_fail(rd, "%s.name must be a WGSL identifier, got '%s'", what, name);
  b->name = name;
  const char *it_id = scratch ? scratch : (v && manifest_find_intermediate(v, name)) ? name : NULL;
  const manifest_intermediate *it = it_id ? manifest_find_intermediate(v, it_id) : NULL;
  const manifest_port *port = it_id ? NULL : manifest_find_port(rd->m, arg ? arg : name);
  st = read_buffer(rd, e, it_id != NULL, port, arg ? arg : name, what, b);
  if (st) return st;
  if (b->buffer == WGK_BUFFER_UNIFORM) return read_struct(rd, e, b, what);
  if (json_object_get(e, "struct") || json_object_get(e, "structName"))
    return manifest_fail(rd, "%s: a storage binding takes elementType, not struct fields", what);
  b->arg = arg ? arg : (it_id ? NULL : name);
  b->intermediate = scratch; /* resolved against the variant per pass */
  st = read_element_type(rd, e, v, it, port, scratch, what, b);
  return st ? st : read_length(rd, e, what, b);
}

wgk_status manifest_spec21_handles(manifest_rd *rd, const json_t *root) {
  const json_t *map = json_object_get(root, "bindings");
  if (!map) return WGK_OK;
  size_t mark = manifest_push_key(rd, "bindings");
  wgk_status st = manifest_expect(rd, map, JSON_OBJECT, "an object of binding handles");
  manifest_binding *bs = st ? NULL : manifest_alloc(rd, json_object_size(map), sizeof *bs);
  const char **names = st ? NULL : manifest_alloc(rd, json_object_size(map), sizeof *names);
  if (!st && (!bs || !names)) st = WGK_ERR_OUT_OF_MEMORY;
  const char *handle;
  const json_t *e;
  size_t n = 0;
  if (!st) json_object_foreach((json_t *)map, handle, e) {
      size_t m2 = manifest_push_key(rd, handle);
      char what[200];
      snprintf(what, sizeof what, "bindings.%s", handle);
      if (!manifest_identifier(handle))
        st = manifest_fail_key(rd, "binding handle \"%s\" must be an identifier", handle);
      else
        st = read_entry(rd, e, handle, NULL, what, &bs[n]);
      names[n++] = handle;
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  rd->handles = bs;
  rd->handle_names = names;
  rd->n_handles = st ? 0 : n;
  return st;
}

/* The loader's Go check, per pass: every storage binding is an intermediate of the variant or a port. */
static wgk_status resolve(manifest_rd *rd, manifest_binding *b, const manifest_variant *v, const char *pass_id) {
  if (b->buffer == WGK_BUFFER_UNIFORM) return WGK_OK;
  if (b->intermediate) {
    if (!manifest_find_intermediate(v, b->intermediate))
      return manifest_fail(rd,
                           "variant %s pass %s binding \"%s\" names scratch \"%s\", which the variant does not "
                           "declare as an intermediate",
                           v->id, pass_id, b->name, b->intermediate);
    b->arg = NULL;
    b->port = NULL;
    return WGK_OK;
  }
  if (manifest_find_intermediate(v, b->name) && (!b->arg || strcmp(b->arg, b->name) == 0)) {
    b->intermediate = b->name;
    b->arg = NULL;
    b->port = NULL;
    return WGK_OK;
  }
  const char *key = b->arg ? b->arg : b->name;
  b->port = manifest_find_port(rd->m, key);
  if (!b->port)
    return manifest_fail(rd,
                         "variant %s pass %s binding \"%s\" names request tensor \"%s\", which is neither an "
                         "input, an output nor an intermediate of the variant",
                         v->id, pass_id, b->name, key);
  b->arg = b->port->name;
  return WGK_OK;
}

wgk_status manifest_spec21_pass_bindings(manifest_rd *rd, const json_t *list, const manifest_variant *v,
                                         const char *pass_id, manifest_binding_set *set) {
  set->name = pass_id;
  set->pos = manifest_here(rd);
  if (!json_is_array(list) || json_array_size(list) == 0)
    return manifest_fail(rd, "pass %s requires a non-empty bindings list", pass_id);
  size_t n = json_array_size(list);
  manifest_binding *bs = manifest_alloc(rd, n, sizeof *bs);
  if (!bs) return WGK_ERR_OUT_OF_MEMORY;
  wgk_status st = WGK_OK;
  for (size_t i = 0; !st && i < n; i++) {
    const json_t *item = json_array_get(list, i);
    size_t mark = manifest_push_index(rd, i);
    char what[200];
    snprintf(what, sizeof what, "pass %s bindings[%zu]", pass_id, i);
    if (json_is_string(item)) {
      const char *s = json_string_value(item);
      const manifest_binding *h = NULL;
      for (size_t k = 0; k < rd->n_handles && !h; k++)
        if (strcmp(rd->handle_names[k], s) == 0) h = &rd->handles[k];
      if (h) {
        bs[i] = *h;
        bs[i].pos = manifest_here(rd);
      } else if (manifest_find_port(rd->m, s)) {
        json_t *empty = json_object();
        st = empty ? read_entry(rd, empty, s, v, what, &bs[i]) : WGK_ERR_OUT_OF_MEMORY;
        json_decref(empty);
      } else if (manifest_find_intermediate(v, s)) {
        json_t *e = json_pack("{ss}", "scratch", s);
        st = e ? read_entry(rd, e, s, v, what, &bs[i]) : WGK_ERR_OUT_OF_MEMORY;
        bs[i].intermediate = manifest_find_intermediate(v, s)->id; /* the entry's string died with e */
        json_decref(e);
      } else {
        st = manifest_fail(rd,
                           "%s \"%s\" is neither a binding entry handle, a declared tensor nor an intermediate of "
                           "the variant",
                           what, s);
      }
    } else if (json_is_object(item)) {
      st = read_entry(rd, item, NULL, v, what, &bs[i]);
    } else {
      st = manifest_fail(rd, "%s must be a handle, a tensor or intermediate name, or an inline binding entry", what);
    }
    if (!st) st = resolve(rd, &bs[i], v, pass_id);
    for (size_t j = 0; !st && j < i; j++)
      if (strcmp(bs[j].name, bs[i].name) == 0)
        st = manifest_fail(rd, "pass %s binds the WGSL name \"%s\" twice", pass_id, bs[i].name);
    manifest_pop(rd, mark);
  }
  set->bindings = bs;
  set->n_bindings = st ? 0 : n;
  return st;
}
