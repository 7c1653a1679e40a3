/* Manifest spec 2.1 (docs/package-format.md, docs/loader-semantics.md): the top level, typeConstraints, the port maps,
 * scalar args, attributes and their constraints, tunables, derives, `when` lists and `requires`. The
 * rules and the hints for the seed's keys are the public loader's; each error points at the value. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "manifest/reader.h"

static const char *const top_keys[] = {"$schema",
                                       "domain",
                                       "name",
                                       "description",
                                       "conformance",
                                       "sinceVersion",
                                       "inputs",
                                       "outputs",
                                       "args",
                                       "attributes",
                                       "attributeConstraints",
                                       "typeConstraints",
                                       "tunables",
                                       "derive",
                                       "when",
                                       "requires",
                                       "bindings",
                                       "variants",
                                       "onnx",
                                       NULL};

/* The seed's top-level keys, refused with the loader's hint. */
static const struct {
  const char *key, *hint;
} seed_hints[] = {
    {"attributeDescriptions", "an attribute's prose is `attributes.<name>.description`"},
    {"tunableDescriptions", "a tunable's prose is `tunables.<name>.description`"},
    {"attributeNames", "a default-less attribute is an `attributes` entry without `default`"},
    {"constants",
     "`derive` is the one value channel; every derive is template-visible and a pass is keyed by the "
     "derives its template reads"},
    {"variantFamilies", "a family is a `variants` member: { cases, variants }"},
    {"bindingSets", "spec 2.0 declares binding ENTRIES under `bindings` and passes list entry handles"},
    {"bindingEntries", "spec 2.0 declares binding entries under `bindings`"},
};

static const char *const reserved[] = {"repeat",
                                       "tunables",
                                       "dtypes",
                                       "logicalDtypes",
                                       "tensorDtypes",
                                       "ranks",
                                       "shapes",
                                       "present",
                                       "args",
                                       "attrs",
                                       "device",
                                       "env",
                                       "constants",
                                       "derive",
                                       "source",
                                       "DISPATCH_FOLD_WIDTH",
                                       "f16Ok",
                                       "ceil",
                                       "floor",
                                       "min",
                                       "max",
                                       "pow",
                                       "ceilDiv",
                                       "pow2ceil",
                                       "log2ceil",
                                       "numel",
                                       "dim",
                                       "rows",
                                       "outer",
                                       "inner",
                                       "prefix",
                                       "suffix",
                                       "fill",
                                       "moveAxis",
                                       "permuteShape",
                                       "reversedAxes",
                                       "broadcastShape",
                                       "matmulShape",
                                       "broadcastable",
                                       "sameShape",
                                       "hasAxis",
                                       "axisValue",
                                       "isUniqueIntList",
                                       "has",
                                       "dtypeBytes",
                                       "onnxDtypeCode",
                                       "pick",
                                       "true",
                                       "false",
                                       "none",
                                       "True",
                                       "False",
                                       "None",
                                       "range",
                                       "loop",
                                       "namespace",
                                       "dict",
                                       NULL};

bool manifest_reserved_name(const char *name) {
  for (const char *const *r = reserved; *r; r++)
    if (strcmp(*r, name) == 0) return true;
  return false;
}

/* The words of WGSL 15.1-15.3, one list per kind, kept as dense tables. */
/* clang-format off */
static const char *const wgsl_keywords[] = {
    "alias", "break", "case", "const", "const_assert", "continue", "continuing", "default", "diagnostic", "discard",
    "else", "enable", "false", "fn", "for", "if", "let", "loop", "override", "requires", "return", "struct",
    "switch", "true", "var", "while", NULL};
static const char *const wgsl_types[] = {
    "bool", "f16", "f32", "i32", "u32", "array", "atomic", "ptr", "sampler", "sampler_comparison", "vec2", "vec3",
    "vec4", "vec2f", "vec3f", "vec4f", "vec2h", "vec3h", "vec4h", "vec2i", "vec3i", "vec4i", "vec2u", "vec3u",
    "vec4u", "mat2x2", "mat2x3", "mat2x4", "mat3x2", "mat3x3", "mat3x4", "mat4x2", "mat4x3", "mat4x4",
    "mat2x2f", "mat2x3f", "mat2x4f", "mat3x2f", "mat3x3f", "mat3x4f", "mat4x2f", "mat4x3f", "mat4x4f",
    "mat2x2h", "mat2x3h", "mat2x4h", "mat3x2h", "mat3x3h", "mat3x4h", "mat4x2h", "mat4x3h", "mat4x4h", NULL};
static const char *const wgsl_reserved_words[] = {
    "NULL", "Self", "abstract", "active", "alignas", "alignof", "as", "asm", "asm_fragment", "async", "attribute",
    "auto", "await", "become", "cast", "catch", "class", "co_await", "co_return", "co_yield", "coherent",
    "column_major", "common", "compile", "compile_fragment", "concept", "const_cast", "consteval", "constexpr",
    "constinit", "crate", "debugger", "decltype", "delete", "demote", "demote_to_helper", "do", "dynamic_cast",
    "enum", "explicit", "export", "extends", "extern", "external", "fallthrough", "filter", "final", "finally",
    "friend", "from", "fxgroup", "get", "goto", "groupshared", "highp", "impl", "implements", "import", "inline",
    "instanceof", "interface", "layout", "lowp", "macro", "macro_rules", "match", "mediump", "meta", "mod",
    "module", "move", "mut", "mutable", "namespace", "new", "nil", "noexcept", "noinline", "nointerpolation",
    "non_coherent", "noncoherent", "noperspective", "null", "nullptr", "of", "operator", "package", "packoffset",
    "partition", "pass", "patch", "pixelfragment", "precise", "precision", "premerge", "priv", "protected", "pub",
    "public", "readonly", "ref", "regardless", "register", "reinterpret_cast", "require", "resource", "restrict",
    "self", "set", "shared", "sizeof", "smooth", "snorm", "static", "static_assert", "static_cast", "std",
    "subroutine", "super", "target", "template", "this", "thread_local", "throw", "trait", "try", "type",
    "typedef", "typeid", "typename", "typeof", "union", "unless", "unorm", "unsafe", "unsized", "use", "using",
    "varying", "virtual", "volatile", "wgsl", "where", "with", "writeonly", "yield", NULL};
/* clang-format on */

/* What a WGSL identifier may not be: the keywords, the predeclared types and type generators a binding
 * named so would shadow or collide with, and the names WGSL reserves (WGSL 15.1-15.3). NULL when the name is
 * free, else which kind of word it is. */
const char *manifest_wgsl_word(const char *s) {
  if (!s) return NULL;
  for (const char *const *k = wgsl_keywords; *k; k++)
    if (strcmp(*k, s) == 0) return "a WGSL keyword";
  for (const char *const *k = wgsl_types; *k; k++)
    if (strcmp(*k, s) == 0) return "a WGSL type";
  if (strncmp(s, "texture_", 8) == 0) return "a WGSL type";
  for (const char *const *k = wgsl_reserved_words; *k; k++)
    if (strcmp(*k, s) == 0) return "a word WGSL reserves";
  if (strcmp(s, "_") == 0 || strncmp(s, "__", 2) == 0) return "not a WGSL identifier ('_' alone or a leading '__')";
  return NULL;
}

bool manifest_identifier(const char *s) {
  if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (const char *c = s; *c; c++)
    if (!(isalnum((unsigned char)*c) || *c == '_')) return false;
  return true;
}

bool manifest_spec21_dtype(const char *dtype) { return manifest_dtype_known(dtype); }

/* Opens the optional object obj.key (pushing the key): *map NULL when absent. */
static wgk_status open_map(manifest_rd *rd, const json_t *obj, const char *key, const json_t **map, size_t *mark) {
  *map = json_object_get(obj, key);
  *mark = manifest_push_key(rd, key);
  return *map ? manifest_expect(rd, *map, JSON_OBJECT, "an object") : WGK_OK;
}

wgk_status manifest_spec21_top(manifest_rd *rd, const json_t *root) {
  manifest_model *m = rd->m;
  m->format = WGK_MANIFEST_SPEC21;
  wgk_status st = manifest_expect(rd, root, JSON_OBJECT, "an object");
  if (st) return st;
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)root, key, v) {
    bool known = false;
    for (const char *const *k = top_keys; *k && !known; k++) known = strcmp(*k, key) == 0;
    if (known) continue;
    const char *hint = NULL;
    for (size_t i = 0; i < sizeof seed_hints / sizeof seed_hints[0]; i++)
      if (strcmp(seed_hints[i].key, key) == 0) hint = seed_hints[i].hint;
    size_t mark = manifest_push_key(rd, key);
    st = hint ? manifest_fail_key(rd, "unknown top-level key '%s' (%s)", key, hint)
              : manifest_fail_key(rd, "unknown top-level key '%s'", key);
    manifest_pop(rd, mark);
    return st;
  }
  m->domain = "ai.onnx";
  st = manifest_get_string(rd, root, "domain", false, &m->domain);
  if (!st) st = manifest_get_string(rd, root, "name", true, &m->name);
  if (!st) st = manifest_get_string(rd, root, "description", false, &m->description);
  if (!st) st = manifest_get_string(rd, root, "conformance", false, &m->conformance);
  if (st) return st;
  const json_t *since = json_object_get(root, "sinceVersion");
  if (json_is_integer(since) && json_integer_value(since) > 0 && json_integer_value(since) < 1000000)
    m->since_version = (int)json_integer_value(since);
  if (!*m->name) return manifest_fail_in(rd, "name", false, "name must not be empty");
  bool dom_ok = islower((unsigned char)m->domain[0]);
  for (const char *c = m->domain; dom_ok && *c; c++)
    dom_ok = isalnum((unsigned char)*c) || *c == '_' || (*c == '.' && isalpha((unsigned char)c[1]));
  if (!dom_ok)
    return manifest_fail_in(rd, "domain", false, "domain must be a dotted canonical domain, got '%s'", m->domain);
  if (m->conformance && strcmp(m->conformance, "internal-lowering") != 0 &&
      strcmp(m->conformance, "legacy-default-domain") != 0)
    return manifest_fail_in(rd, "conformance", false,
                            "invalid conformance '%s' (known: internal-lowering legacy-default-domain)",
                            m->conformance);
  if (!json_is_object(json_object_get(root, "inputs")))
    return json_object_get(root, "inputs") ? manifest_fail_in(rd, "inputs", false, "inputs must be a map of ports")
                                           : manifest_fail(rd, "missing required key 'inputs' (a map of ports)");
  if (!json_is_object(json_object_get(root, "outputs")))
    return json_object_get(root, "outputs") ? manifest_fail_in(rd, "outputs", false, "outputs must be a map of ports")
                                            : manifest_fail(rd, "missing required key 'outputs' (a map of ports)");
  size_t n = strlen(m->domain) + strlen(m->name) + 2;
  char *id = manifest_alloc(rd, n, 1);
  if (!id) return WGK_ERR_OUT_OF_MEMORY;
  snprintf(id, n, "%s.%s", m->domain, m->name);
  m->op_id = id;
  return WGK_OK;
}

/* ---- typeConstraints ---- */

wgk_status manifest_spec21_types(manifest_rd *rd, const json_t *root) {
  const json_t *map;
  size_t mark;
  wgk_status st = open_map(rd, root, "typeConstraints", &map, &mark);
  /* room for the constrained variables and for the unconstrained ones ports name (added by the ports) */
  size_t cap = json_object_size(map) + json_object_size(json_object_get(root, "inputs")) +
               json_object_size(json_object_get(root, "outputs"));
  manifest_type_constraint *tcs = st ? NULL : manifest_alloc(rd, cap, sizeof *tcs);
  if (!st && !tcs) st = WGK_ERR_OUT_OF_MEMORY;
  const char *name;
  const json_t *list;
  size_t n = 0;
  if (!st && map) json_object_foreach((json_t *)map, name, list) {
      size_t m2 = manifest_push_key(rd, name);
      manifest_type_constraint *tc = &tcs[n++];
      tc->name = name;
      tc->pos = manifest_here(rd);
      if (!json_is_array(list) || json_array_size(list) == 0)
        st = manifest_fail(rd, "typeConstraints.%s must be a non-empty list of dtypes", name);
      const char **dts = st ? NULL : manifest_alloc(rd, json_array_size(list), sizeof *dts);
      if (!st && !dts) st = WGK_ERR_OUT_OF_MEMORY;
      for (size_t i = 0; !st && i < json_array_size(list); i++) {
        size_t m3 = manifest_push_index(rd, i);
        const char *dt = json_string_value(json_array_get(list, i));
        if (!manifest_spec21_dtype(dt)) {
          char shown[80];
          manifest_show(json_array_get(list, i), shown, sizeof shown);
          st = manifest_fail(rd,
                             "typeConstraints.%s has unsupported logical dtype %s (known: float32 float16 int32 "
                             "uint32 int64 int16 int8 uint8 bool)",
                             name, shown);
        }
        dts[i] = dt;
        manifest_pop(rd, m3);
      }
      tc->dtypes = dts;
      tc->n_dtypes = st ? 0 : json_array_size(list);
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  rd->m->type_constraints = tcs;
  rd->m->n_type_constraints = n;
  return st;
}

/* ---- ports ---- */

static const char *const port_keys[] = {"description", "onnx",  "dtype",   "rank",      "optional",
                                        "layout",      "shape", "storage", "narrowing", NULL};

/* A shape written as a list: one expression text "[(e0), (e1), 3]" evaluated like the loader's list. */
static wgk_status read_shape(manifest_rd *rd, const json_t *obj, manifest_port *p) {
  const json_t *shape = json_object_get(obj, "shape");
  if (!shape) return WGK_OK;
  if (!json_is_array(shape)) return manifest_get_expr(rd, obj, "shape", false, &p->shape);
  size_t mark = manifest_push_key(rd, "shape");
  util_dynbuf text;
  util_dynbuf_init(&text, 1 << 16);
  util_dynbuf_append_char(&text, '[');
  wgk_status st = WGK_OK;
  for (size_t i = 0; !st && i < json_array_size(shape); i++) {
    const json_t *d = json_array_get(shape, i);
    size_t m2 = manifest_push_index(rd, i);
    if (json_is_integer(d))
      util_dynbuf_printf(&text, "%s%" JSON_INTEGER_FORMAT, i ? ", " : "", json_integer_value(d));
    else if (json_is_string(d) && json_string_length(d))
      util_dynbuf_printf(&text, "%s(%s)", i ? ", " : "", json_string_value(d));
    else
      st = manifest_fail(rd, "a shape dimension must be an expression string or an integer");
    manifest_pop(rd, m2);
  }
  util_dynbuf_append_char(&text, ']');
  p->shape.pos = manifest_here(rd);
  if (!st && text.failed)
    st = text.over ? manifest_fail(rd, "shape list is longer than %zu bytes", text.limit) : WGK_ERR_OUT_OF_MEMORY;
  if (!st) p->shape.text = manifest_strdup(rd, util_dynbuf_str(&text));
  if (!st && !p->shape.text) st = WGK_ERR_OUT_OF_MEMORY;
  util_dynbuf_free(&text);
  manifest_pop(rd, mark);
  return st;
}

/* The type constraint a port's dtype names; an unconstrained type variable gets an open one (any dtype). */
static const manifest_type_constraint *type_of(manifest_rd *rd, const char *type_var) {
  const manifest_type_constraint *tc = manifest_find_type(rd->m, type_var);
  if (tc) return tc;
  manifest_type_constraint *tcs = (manifest_type_constraint *)rd->m->type_constraints;
  manifest_type_constraint *open = &tcs[rd->m->n_type_constraints++];
  open->name = type_var;
  open->pos = manifest_here(rd);
  return open;
}

static bool is_int64_only(const char **dts, size_t n) { return n == 1 && strcmp(dts[0], "int64") == 0; }

/* narrowing: checked or saturating, on a projected int64 input only, and required there. */
static wgk_status read_narrowing(manifest_rd *rd, const char *nar, const char *what, bool output, bool projected,
                                 manifest_port *p) {
  if (nar) {
    if (strcmp(nar, "checked") && strcmp(nar, "saturating"))
      return manifest_fail_in(rd, "narrowing", false, "%s.narrowing must be checked or saturating, got '%s'", what,
                              nar);
    if (output || !projected)
      return manifest_fail_in(rd, "narrowing", false, "%s.narrowing is valid only on a projected logical int64 input",
                              what);
    p->narrowing = strcmp(nar, "checked") == 0 ? WGK_NARROW_CHECKED : WGK_NARROW_SATURATING;
  } else if (!output && projected) {
    return manifest_fail_in(rd, "storage", false,
                            "%s: a projected int64 input must declare narrowing as checked or "
                            "saturating",
                            what);
  }
  return WGK_OK;
}

/* layout: packed, on an input whose dtype resolves to uint8 only. */
static wgk_status read_layout(manifest_rd *rd, const char *layout, const char *what, bool output, const char **dts,
                              size_t n_dts, bool resolved, manifest_port *p) {
  if (output) return manifest_fail_in(rd, "layout", true, "%s cannot declare a storage layout", what);
  if (strcmp(layout, "packed") != 0)
    return manifest_fail_in(rd, "layout", false, "%s has unsupported storage layout '%s' (known: packed)", what,
                            layout);
  bool u8 = resolved && n_dts > 0;
  for (size_t i = 0; u8 && i < n_dts; i++) u8 = strcmp(dts[i], "uint8") == 0;
  if (!u8)
    return manifest_fail_in(rd, "layout", false,
                            "%s declares the packed storage layout but its dtype does not "
                            "resolve to uint8 only",
                            what);
  p->packed = true;
  return WGK_OK;
}

static wgk_status read_storage(manifest_rd *rd, const json_t *obj, const char *what, bool output, manifest_port *p,
                               const char **dts, size_t n_dts, bool resolved) {
  const char *storage = NULL, *nar = NULL, *layout = NULL;
  wgk_status st = manifest_get_string(rd, obj, "storage", false, &storage);
  if (!st) st = manifest_get_string(rd, obj, "narrowing", false, &nar);
  if (!st) st = manifest_get_string(rd, obj, "layout", false, &layout);
  if (st) return st;
  bool i64 = resolved && is_int64_only(dts, n_dts);
  if (storage) {
    if (!manifest_spec21_dtype(storage))
      return manifest_fail_in(rd, "storage", false, "%s.storage %s is not a WebGPU storage dtype", what, storage);
    if (!resolved)
      return manifest_fail_in(rd, "storage", false,
                              "%s declares a storage dtype but its dtype is not a known "
                              "logical dtype or type variable",
                              what);
    if (i64) {
      if (strcmp(storage, "int32") && strcmp(storage, "uint32") && strcmp(storage, "int64"))
        return manifest_fail_in(rd, "storage", false,
                                "%s: an int64 port requires int64 storage or an int32/uint32 "
                                "projection",
                                what);
    } else if (n_dts != 1 || strcmp(dts[0], storage) != 0) {
      return manifest_fail_in(rd, "storage", false,
                              "%s.storage %s does not exactly match its logical dtype; only "
                              "int64 -> int32/uint32 projection is supported",
                              what, storage);
    }
  }
  bool projected = i64 && storage && (strcmp(storage, "int32") == 0 || strcmp(storage, "uint32") == 0);
  st = read_narrowing(rd, nar, what, output, projected, p);
  if (st) return st;
  if (projected) p->storage_dtype = storage;
  p->opaque_int64 = (storage && strcmp(storage, "int64") == 0) || (!storage && i64);
  return layout ? read_layout(rd, layout, what, output, dts, n_dts, resolved, p) : WGK_OK;
}
static wgk_status read_port(manifest_rd *rd, const char *name, const json_t *obj, bool output, manifest_port *p) {
  char what[160];
  snprintf(what, sizeof what, "%s.%s", output ? "outputs" : "inputs", name);
  p->name = name;
  p->description = "";
  p->pos = manifest_here(rd);
  p->dir = output ? WGK_PORT_OUTPUT : WGK_PORT_INPUT;
  p->onnx_input_index = p->onnx_output_index = -1;
  if (!manifest_identifier(name)) return manifest_fail_key(rd, "%s is not a WGSL-compatible tensor name", what);
  const char *word = manifest_wgsl_word(name);
  if (word)
    return manifest_fail_key(rd, "port name '%s' is %s; its binding in the shader would not compile (rename the port)",
                             name, word);
  wgk_status st = manifest_object(rd, obj, "a port object", port_keys);
  if (!st) st = manifest_get_string(rd, obj, "onnx", false, &p->onnx);
  if (!st && p->onnx && !*p->onnx) st = manifest_fail_in(rd, "onnx", false, "%s.onnx must be a non-empty string", what);
  if (!st) st = manifest_get_string(rd, obj, "description", false, &p->description);
  if (!st) st = manifest_get_bool(rd, obj, "optional", false, &p->optional);
  if (!st) st = manifest_get_string(rd, obj, "dtype", false, &p->type_var);
  if (st) return st;
  if (!p->onnx) p->onnx = name;
  const char **dts = NULL;
  size_t n_dts = 0;
  bool resolved = false;
  if (p->type_var && manifest_spec21_dtype(p->type_var)) { /* a concrete dtype */
    dts = manifest_alloc(rd, 1, sizeof *dts);
    if (!dts) return WGK_ERR_OUT_OF_MEMORY;
    dts[0] = p->type_var;
    n_dts = 1;
    p->type_var = NULL;
    resolved = true;
  } else if (p->type_var) {
    size_t mark = manifest_push_key(rd, "dtype");
    const manifest_type_constraint *tc = type_of(rd, p->type_var);
    manifest_pop(rd, mark);
    dts = tc->dtypes;
    n_dts = tc->n_dtypes;
    resolved = n_dts > 0;
  } else if (output) { /* an output without dtype is float32 (fact 14) */
    dts = manifest_alloc(rd, 1, sizeof *dts);
    if (!dts) return WGK_ERR_OUT_OF_MEMORY;
    dts[0] = "float32";
    n_dts = 1;
    p->dtype_defaulted = true;
  }
  p->dtypes = dts;
  p->n_dtypes = n_dts;
  st = read_storage(rd, obj, what, output, p, dts, n_dts, resolved);
  if (!st && output) st = read_shape(rd, obj, p);
  return st;
}

/* Whether type_var is a type variable: declared under typeConstraints or the dtype of an input. An output's dtype
 * naming neither (a misspelt "flaot32") loaded as an open type variable that nothing can bind. */
static bool type_var_named(manifest_rd *rd, const json_t *ins, const char *type_var) {
  const manifest_type_constraint *tc = manifest_find_type(rd->m, type_var);
  if (tc && tc->n_dtypes > 0) return true;
  const char *name;
  const json_t *obj;
  json_object_foreach((json_t *)ins, name, obj) {
    const char *d = json_string_value(json_object_get(obj, "dtype"));
    if (d && strcmp(d, type_var) == 0) return true;
  }
  return false;
}

static bool same_string(const json_t *a, const json_t *b) {
  if (!a || !b) return a == b;
  return json_equal((json_t *)a, (json_t *)b);
}

/* An output named as an input is one in/out tensor: the same dtype and storage under both maps (fact 11); the
 * input's port becomes in/out, with the output's index and shape expression. */
static wgk_status merge_inout(manifest_rd *rd, const json_t *in_obj, const json_t *out_obj, const manifest_port *p,
                              int index, manifest_port *same) {
  if (!same_string(json_object_get(in_obj, "dtype"), json_object_get(out_obj, "dtype")) ||
      !same_string(json_object_get(in_obj, "storage"), json_object_get(out_obj, "storage")))
    return manifest_fail(rd,
                         "in/out tensor '%s' must declare the same dtype and storage under inputs and "
                         "outputs",
                         same->name);
  same->dir = WGK_PORT_INOUT;
  same->onnx_output_index = index;
  if (p->shape.text) same->shape = p->shape;
  return WGK_OK;
}

wgk_status manifest_spec21_ports(manifest_rd *rd, const json_t *root) {
  const json_t *ins = json_object_get(root, "inputs"), *outs = json_object_get(root, "outputs");
  manifest_port *ports = manifest_alloc(rd, json_object_size(ins) + json_object_size(outs), sizeof *ports);
  if (!ports) return WGK_ERR_OUT_OF_MEMORY;
  rd->m->ports = ports;
  size_t n = 0;
  wgk_status st = WGK_OK;
  const char *name;
  const json_t *obj;
  for (int out = 0; out < 2 && !st; out++) {
    const json_t *map = out ? outs : ins;
    size_t mark = manifest_push_key(rd, out ? "outputs" : "inputs");
    int index = 0;
    json_object_foreach((json_t *)map, name, obj) {
      size_t m2 = manifest_push_key(rd, name);
      manifest_port *same = NULL;
      for (size_t j = 0; j < n && !same; j++)
        if (strcmp(ports[j].name, name) == 0) same = &ports[j];
      manifest_port p = {0};
      st = read_port(rd, name, obj, out, &p);
      if (!st && out && !same && p.type_var && !type_var_named(rd, ins, p.type_var))
        st = manifest_fail_in(rd, "dtype", false,
                              "output '%s' has dtype '%s', which is neither a dtype (float32 float16 int32 uint32 "
                              "int64 int16 int8 uint8 bool) nor a type variable (a typeConstraints entry, or the "
                              "dtype of an input), so no call could give it a dtype",
                              name, p.type_var);
      if (!st && same) {
        st = merge_inout(rd, json_object_get(ins, name), obj, &p, index, same);
      } else if (!st) {
        if (out)
          p.onnx_output_index = index;
        else
          p.onnx_input_index = index;
        const char **keys = manifest_alloc(rd, 1, sizeof *keys);
        if (!keys)
          st = WGK_ERR_OUT_OF_MEMORY;
        else {
          keys[0] = name;
          p.bind_keys = keys;
          p.n_bind_keys = 1;
        }
        ports[n++] = p;
        rd->m->n_ports = n;
      }
      index++;
      manifest_pop(rd, m2);
      if (st) break;
    }
    manifest_pop(rd, mark);
  }
  return st;
}

/* ---- args ---- */

static const char *const arg_keys[] = {"kind", "description", "onnx", "required", "oneOf", NULL};

static wgk_status read_arg(manifest_rd *rd, const char *name, const json_t *obj, manifest_scalar_arg *a) {
  a->name = name;
  a->description = "";
  a->required = true; /* the loader: required unless `required: false` */
  a->pos = manifest_here(rd);
  if (!manifest_identifier(name)) return manifest_fail_key(rd, "args.%s is not a valid arg name", name);
  if (manifest_find_port(rd->m, name))
    return manifest_fail_key(rd, "arg '%s' collides with a tensor of the same name", name);
  wgk_status st = manifest_expect(rd, obj, JSON_OBJECT, "an arg object");
  if (!st) st = manifest_get_string(rd, obj, "kind", true, &a->kind);
  if (st) return st;
  static const char *const kinds[] = {"u32", "i32", "f32", "bool", "string", NULL};
  bool known = false;
  for (const char *const *k = kinds; *k && !known; k++) known = strcmp(*k, a->kind) == 0;
  if (!known)
    return manifest_fail_in(rd, "kind", false, "args.%s has unsupported kind '%s' (known: u32 i32 f32 bool string)%s",
                            name, a->kind,
                            strcmp(a->kind, "tensor") == 0 ? " (tensors are inputs/outputs ports in "
                                                             "spec 2.0)"
                                                           : "");
  st = manifest_object(rd, obj, "an arg object", arg_keys);
  if (!st) st = manifest_get_string(rd, obj, "description", false, &a->description);
  if (!st) st = manifest_get_string(rd, obj, "onnx", false, &a->onnx);
  if (!st) st = manifest_get_bool(rd, obj, "required", false, &a->required);
  const json_t *one = json_object_get(obj, "oneOf");
  if (!st && one) {
    if (strcmp(a->kind, "string") != 0 || !json_is_array(one) || json_array_size(one) == 0)
      return manifest_fail_in(rd, "oneOf", false, "args.%s.oneOf is valid only on a non-empty string arg", name);
    a->one_of = one;
  }
  return st;
}

wgk_status manifest_spec21_args(manifest_rd *rd, const json_t *root) {
  const json_t *map, *obj;
  size_t mark;
  const char *name;
  wgk_status st = open_map(rd, root, "args", &map, &mark);
  manifest_scalar_arg *as = st ? NULL : manifest_alloc(rd, json_object_size(map), sizeof *as);
  if (!st && !as) st = WGK_ERR_OUT_OF_MEMORY;
  size_t n = 0;
  if (!st && map) json_object_foreach((json_t *)map, name, obj) {
      size_t m2 = manifest_push_key(rd, name);
      st = read_arg(rd, name, obj, &as[n++]);
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  rd->m->scalar_args = as;
  rd->m->n_scalar_args = st ? 0 : n;
  return st;
}

/* ---- attributes ---- */

static bool finite_scalar(const json_t *v) {
  return json_is_null(v) || json_is_string(v) || json_is_boolean(v) || json_is_integer(v) ||
         (json_is_real(v) && isfinite(json_real_value(v)));
}

/* The loader compares numbers as float32 values (Math.fround), anything else by identity. */
static bool same_value(const json_t *a, const json_t *b) {
  if (json_is_number(a) && json_is_number(b)) return (float)json_number_value(a) == (float)json_number_value(b);
  return json_equal((json_t *)a, (json_t *)b);
}

/* attributeConstraints.NAME.values: a non-empty list of distinct finite scalars. */
static wgk_status read_constraint_values(manifest_rd *rd, const char *name, const json_t *vals, manifest_attribute *a) {
  size_t mark = manifest_push_key(rd, "values");
  wgk_status st = WGK_OK;
  if (!json_is_array(vals) || json_array_size(vals) == 0)
    st = manifest_fail(rd, "attributeConstraints.%s.values must be a non-empty list", name);
  const json_t **list = st ? NULL : manifest_alloc(rd, json_array_size(vals), sizeof *list);
  if (!st && !list) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(vals); i++) {
    const json_t *x = json_array_get(vals, i);
    size_t m2 = manifest_push_index(rd, i);
    if (!finite_scalar(x))
      st = manifest_fail(rd,
                         "attributeConstraints.%s.values must contain only finite JSON "
                         "scalars",
                         name);
    for (size_t j = 0; !st && j < i; j++)
      if (same_value(list[j], x)) {
        char shown[80];
        manifest_show(x, shown, sizeof shown);
        st = manifest_fail(rd, "attributeConstraints.%s.values contains duplicate %s", name, shown);
      }
    list[i] = x;
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  if (st) return st;
  a->values = list;
  a->n_values = json_array_size(vals);
  return WGK_OK;
}

static wgk_status read_constraint(manifest_rd *rd, const char *name, const json_t *obj) {
  manifest_attribute *a = (manifest_attribute *)manifest_find_attribute(rd->m, name);
  if (!a) return manifest_fail_key(rd, "attributeConstraints.%s does not name a declared attribute", name);
  wgk_status st = manifest_expect(rd, obj, JSON_OBJECT, "a constraint object");
  if (st) return st;
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    if (strcmp(key, "required") && strcmp(key, "values"))
      return manifest_fail_in(rd, key, true, "attributeConstraints.%s has unknown field '%s'", name, key);
  }
  st = manifest_get_bool(rd, obj, "required", false, &a->required);
  if (st) return st;
  if (a->required && a->default_value)
    return manifest_fail_in(rd, "required", false,
                            "attributeConstraints.%s.required is redundant because the "
                            "attribute has a default",
                            name);
  const json_t *vals = json_object_get(obj, "values");
  if (vals && (st = read_constraint_values(rd, name, vals, a))) return st;
  if (!a->required && !a->values)
    return manifest_fail(rd, "attributeConstraints.%s must declare required: true and/or values", name);
  if (a->default_value && a->values) {
    bool in = false;
    for (size_t i = 0; i < a->n_values && !in; i++) in = same_value(a->values[i], a->default_value);
    if (!in) {
      char shown[80];
      manifest_show(a->default_value, shown, sizeof shown);
      return manifest_fail_in(rd, "values", false, "default attribute %s=%s is not in attributeConstraints.%s.values",
                              name, shown, name);
    }
  }
  return WGK_OK;
}

wgk_status manifest_spec21_attributes(manifest_rd *rd, const json_t *root) {
  const json_t *map, *obj, *v;
  size_t mark;
  const char *name, *key;
  wgk_status st = open_map(rd, root, "attributes", &map, &mark);
  manifest_attribute *as = st ? NULL : manifest_alloc(rd, json_object_size(map), sizeof *as);
  if (!st && !as) st = WGK_ERR_OUT_OF_MEMORY;
  rd->m->attributes = as;
  size_t n = 0;
  if (!st && map) json_object_foreach((json_t *)map, name, obj) {
      size_t m2 = manifest_push_key(rd, name);
      manifest_attribute *a = &as[n];
      a->name = name;
      a->description = "";
      a->pos = manifest_here(rd);
      if (!*name)
        st = manifest_fail_key(rd, "attribute names must be non-empty");
      else if (!json_is_object(obj)) {
        char *bare = json_dumps(obj, JSON_ENCODE_ANY | JSON_COMPACT);
        st = manifest_fail(rd,
                           "attributes.%s must be an object { default?, description? } (a bare value is the spec "
                           "2.0 draft spelling; write { \"default\": %s })",
                           name, bare ? bare : "?");
        free(bare);
      }
      if (!st) json_object_foreach((json_t *)obj, key, v) {
          if (strcmp(key, "default") && strcmp(key, "description")) {
            st = manifest_fail_in(rd, key, true, "attributes.%s has unknown key '%s'", name, key);
            break;
          }
        }
      if (!st) st = manifest_get_string(rd, obj, "description", false, &a->description);
      if (!st && json_object_get(obj, "default")) {
        a->default_value = json_object_get(obj, "default");
        size_t m3 = manifest_push_key(rd, "default");
        a->pos = manifest_here(rd);
        manifest_pop(rd, m3);
      }
      n++;
      rd->m->n_attributes = n;
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  if (st) return st;
  st = open_map(rd, root, "attributeConstraints", &map, &mark);
  if (!st && map) json_object_foreach((json_t *)map, name, obj) {
      size_t m2 = manifest_push_key(rd, name);
      st = read_constraint(rd, name, obj);
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  return st;
}

/* ---- tunables ---- */

wgk_status manifest_spec21_tunables(manifest_rd *rd, const json_t *obj, const manifest_tunable **out, size_t *count) {
  const json_t *map, *t, *v;
  size_t mark;
  const char *name, *key;
  wgk_status st = open_map(rd, obj, "tunables", &map, &mark);
  manifest_tunable *ts = (!st && map) ? manifest_alloc(rd, json_object_size(map), sizeof *ts) : NULL;
  if (!st && map && !ts) st = WGK_ERR_OUT_OF_MEMORY;
  size_t n = 0;
  if (!st && map) json_object_foreach((json_t *)map, name, t) {
      size_t m2 = manifest_push_key(rd, name);
      if (!manifest_identifier(name))
        st = manifest_fail_key(rd, "tunables.%s: tunable names must be identifiers", name);
      else if (!json_is_object(t)) {
        char *bare = json_dumps(t, JSON_ENCODE_ANY | JSON_COMPACT);
        st = manifest_fail(rd, "tunables.%s must be an object { default, description? }; got %s", name,
                           bare ? bare : "?");
        free(bare);
      }
      if (!st) json_object_foreach((json_t *)t, key, v) {
          if (strcmp(key, "default") && strcmp(key, "description")) {
            st = manifest_fail_in(rd, key, true, "tunables.%s has unknown key '%s'", name, key);
            break;
          }
        }
      const json_t *d = st ? NULL : json_object_get(t, "default");
      if (!st && !(json_is_string(d) || json_is_boolean(d) || json_is_integer(d) ||
                   (json_is_real(d) && isfinite(json_real_value(d)))))
        st = d ? manifest_fail_in(rd, "default", false,
                                  "tunables.%s.default must be a finite number, string or boolean", name)
               : manifest_fail(rd, "tunables.%s.default must be a finite number, string or boolean", name);
      const char *desc = NULL;
      if (!st) st = manifest_get_string(rd, t, "description", false, &desc);
      if (!st) {
        size_t m3 = manifest_push_key(rd, "default");
        ts[n++] = (manifest_tunable){name, d, manifest_here(rd)};
        manifest_pop(rd, m3);
      }
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  *out = ts;
  *count = st ? 0 : n;
  return st;
}

/* ---- derive ---- */

/* The strings inside a literal derive (a list or object) are expressions, evaluated when a call evaluates the
 * derive: each is parsed here, at load, as a string derive is, so that an empty or broken one is refused naming
 * its own path (derive.o.k) rather than failing every call with the parser's bare "unexpected end of expression".
 * Depth is bounded by the JSON reader's. */
static wgk_status check_literal_strings(manifest_rd *rd, const json_t *v) {
  wgk_status st = WGK_OK;
  if (json_is_string(v)) {
    manifest_expr e = {0};
    return manifest_read_expr(rd, v, &e);
  }
  if (json_is_array(v)) {
    for (size_t i = 0; !st && i < json_array_size(v); i++) {
      size_t m = manifest_push_index(rd, i);
      st = check_literal_strings(rd, json_array_get(v, i));
      manifest_pop(rd, m);
    }
  } else if (json_is_object(v)) {
    const char *k;
    const json_t *x;
    json_object_foreach((json_t *)v, k, x) {
      size_t m = manifest_push_key(rd, k);
      st = check_literal_strings(rd, x);
      manifest_pop(rd, m);
      if (st) break;
    }
  }
  return st;
}

wgk_status manifest_spec21_derive(manifest_rd *rd, const json_t *obj, const char *key, bool manifest_level,
                                  manifest_derive **out, size_t *count) {
  (void)manifest_level;
  const json_t *map, *v;
  size_t mark;
  const char *name;
  *out = NULL;
  *count = 0;
  wgk_status st = open_map(rd, obj, key, &map, &mark);
  if (!st && map && json_object_get(map, "$use"))
    st = manifest_fail_in(rd, "$use", true,
                          "derive still carries an unexpanded \"$use\" shared-derive splice; expand "
                          "the shared libraries before normalizing");
  manifest_derive *ds = (!st && map) ? manifest_alloc(rd, json_object_size(map), sizeof *ds) : NULL;
  if (!st && map && !ds) st = WGK_ERR_OUT_OF_MEMORY;
  size_t n = 0;
  if (!st && map) json_object_foreach((json_t *)map, name, v) {
      size_t m2 = manifest_push_key(rd, name);
      manifest_derive *d = &ds[n];
      d->name = name;
      d->pos = manifest_here(rd);
      if (!manifest_identifier(name))
        st = manifest_fail_key(rd, "%s.%s: derive names must be identifiers", key, name);
      else if (manifest_reserved_name(name) || manifest_find_type(rd->m, name))
        st = manifest_fail_key(rd,
                               "%s.%s would shadow a scope name templates and expressions already bind; rename the "
                               "derive",
                               key, name);
      else if (json_is_string(v))
        st = manifest_read_expr(rd, v, &d->expr);
      else if (!(st = check_literal_strings(rd, v)))
        d->literal = v;
      n++;
      manifest_pop(rd, m2);
      if (st) break;
    }
  manifest_pop(rd, mark);
  *out = ds;
  *count = st ? 0 : n;
  return st;
}

wgk_status manifest_spec21_clauses(manifest_rd *rd, const json_t *obj, const char *key, const manifest_expr **out,
                                   size_t *count) {
  const json_t *list = json_object_get(obj, key);
  *out = NULL;
  *count = 0;
  if (!list) return WGK_OK;
  size_t mark = manifest_push_key(rd, key);
  wgk_status st = WGK_OK;
  if (!json_is_array(list))
    st = manifest_fail(rd, "%s must be a list of expression strings%s", key,
                       json_is_string(list) ? " (spec 2.0 has no single-string form: wrap it in a list)" : "");
  else if (json_array_size(list) == 0)
    st = manifest_fail(rd, "%s must not be an empty list (omit the key for an always-eligible variant)", key);
  manifest_expr *es = st ? NULL : manifest_alloc(rd, json_array_size(list), sizeof *es);
  if (!st && !es) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    size_t m2 = manifest_push_index(rd, i);
    const json_t *c = json_array_get(list, i);
    if (!json_is_string(c) || json_string_length(c) == 0) {
      char shown[80];
      manifest_show(c, shown, sizeof shown);
      st = manifest_fail(rd, "%s[] entries must be non-empty expression strings, got %s", key, shown);
    } else {
      st = manifest_read_expr(rd, c, &es[i]);
    }
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  if (!st) {
    *out = es;
    *count = json_array_size(list);
  }
  return st;
}

/* ---- requires ---- */

static const char *const features[] = {"shader-f16",
                                       "subgroups",
                                       "subgroup-size-control",
                                       "chromium-experimental-subgroup-matrix",
                                       "timestamp-query",
                                       "texture-formats-tier1",
                                       "texture-formats-tier2",
                                       NULL};
static const char *const limit_names[] = {"maxTextureDimension1D",
                                          "maxTextureDimension2D",
                                          "maxTextureDimension3D",
                                          "maxTextureArrayLayers",
                                          "maxBindGroups",
                                          "maxBindGroupsPlusVertexBuffers",
                                          "maxBindingsPerBindGroup",
                                          "maxDynamicUniformBuffersPerPipelineLayout",
                                          "maxDynamicStorageBuffersPerPipelineLayout",
                                          "maxSampledTexturesPerShaderStage",
                                          "maxSamplersPerShaderStage",
                                          "maxStorageBuffersPerShaderStage",
                                          "maxStorageTexturesPerShaderStage",
                                          "maxUniformBuffersPerShaderStage",
                                          "maxUniformBufferBindingSize",
                                          "maxStorageBufferBindingSize",
                                          "minUniformBufferOffsetAlignment",
                                          "minStorageBufferOffsetAlignment",
                                          "maxVertexBuffers",
                                          "maxBufferSize",
                                          "maxVertexAttributes",
                                          "maxVertexBufferArrayStride",
                                          "maxInterStageShaderVariables",
                                          "maxColorAttachments",
                                          "maxColorAttachmentBytesPerSample",
                                          "maxComputeWorkgroupStorageSize",
                                          "maxComputeInvocationsPerWorkgroup",
                                          "maxComputeWorkgroupSizeX",
                                          "maxComputeWorkgroupSizeY",
                                          "maxComputeWorkgroupSizeZ",
                                          "maxComputeWorkgroupsPerDimension",
                                          "maxImmediateSize",
                                          "maxStorageBuffersInVertexStage",
                                          "maxStorageBuffersInFragmentStage",
                                          "maxStorageTexturesInVertexStage",
                                          "maxStorageTexturesInFragmentStage",
                                          NULL};

static bool in_list(const char *const *list, const char *s) {
  for (; *list; list++)
    if (strcmp(*list, s) == 0) return true;
  return false;
}

static wgk_status read_matrix_configs(manifest_rd *rd, const json_t *list) {
  size_t mark = manifest_push_key(rd, "subgroupMatrixConfigs");
  static const char *const types[] = {"f32", "f16", "u32", "i32", "u8", "i8", NULL};
  wgk_status st = WGK_OK;
  if (!json_is_array(list) || json_array_size(list) == 0)
    st = manifest_fail(rd, "requires.subgroupMatrixConfigs must be a non-empty array of config patterns");
  for (size_t i = 0; !st && i < json_array_size(list); i++) {
    const json_t *c = json_array_get(list, i);
    size_t m2 = manifest_push_index(rd, i);
    static const char *const keys[] = {"componentType", "resultComponentType", "M", "N", "K", NULL};
    st = manifest_object(rd, c, "an object with optional componentType/resultComponentType/M/N/K", keys);
    for (int k = 0; !st && k < 2; k++) {
      const json_t *t = json_object_get(c, keys[k]);
      if (t && !(json_is_string(t) && in_list(types, json_string_value(t))))
        st = manifest_fail_in(rd, keys[k], false, "%s must be one of f32, f16, u32, i32, u8, i8", keys[k]);
    }
    for (int k = 2; !st && k < 5; k++) {
      const json_t *t = json_object_get(c, keys[k]);
      if (t && !(json_is_integer(t) && json_integer_value(t) >= 1))
        st = manifest_fail_in(rd, keys[k], false, "%s must be a positive integer", keys[k]);
    }
    if (!st && json_object_size(c) == 0)
      st = manifest_fail(rd, "a pattern must constrain at least one field (an empty pattern matches everything)");
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  return st;
}

/* requires.features: known feature names. */
static wgk_status read_required_features(manifest_rd *rd, const json_t *fs, manifest_requires *r) {
  size_t mark = manifest_push_key(rd, "features");
  wgk_status st = WGK_OK;
  if (!json_is_array(fs)) st = manifest_fail(rd, "requires.features must be an array of strings");
  r->features = st ? NULL : manifest_alloc(rd, json_array_size(fs), sizeof *r->features);
  if (!st && !r->features) st = WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; !st && i < json_array_size(fs); i++) {
    size_t m2 = manifest_push_index(rd, i);
    const char *f = json_string_value(json_array_get(fs, i));
    if (!f)
      st = manifest_fail(rd, "requires.features must be an array of strings");
    else if (!in_list(features, f))
      st = manifest_fail(rd,
                         "requires.features has unknown feature \"%s\"; expected one of shader-f16, subgroups, "
                         "subgroup-size-control, chromium-experimental-subgroup-matrix, timestamp-query, "
                         "texture-formats-tier1, texture-formats-tier2",
                         f);
    else
      r->features[r->n_features++] = f;
    manifest_pop(rd, m2);
  }
  manifest_pop(rd, mark);
  return st;
}

/* requires.limits: canonical WebGPU limit names to finite minimums. */
static wgk_status read_required_limits(manifest_rd *rd, const json_t *ls, manifest_requires *r) {
  size_t mark = manifest_push_key(rd, "limits");
  wgk_status st = manifest_expect(rd, ls, JSON_OBJECT, "an object of limit minimums");
  manifest_limit_min *lm = st ? NULL : manifest_alloc(rd, json_object_size(ls), sizeof *lm);
  if (!st && !lm) st = WGK_ERR_OUT_OF_MEMORY;
  const char *name;
  const json_t *v;
  if (!st) json_object_foreach((json_t *)ls, name, v) {
      size_t m2 = manifest_push_key(rd, name);
      if (!in_list(limit_names, name))
        st = manifest_fail_key(rd, "requires.limits has unknown limit \"%s\"; not a canonical WebGPU limit name", name);
      else if (!json_is_number(v) || !isfinite(json_number_value(v)))
        st = manifest_fail(rd, "requires.limits.%s must be a finite number", name);
      else
        lm[r->n_limits++] = (manifest_limit_min){name, json_number_value(v)};
      manifest_pop(rd, m2);
      if (st) break;
    }
  r->limits = lm;
  manifest_pop(rd, mark);
  return st;
}

wgk_status manifest_spec21_requires(manifest_rd *rd, const json_t *obj, const char *key, manifest_requires **out) {
  *out = NULL;
  const json_t *req = json_object_get(obj, key);
  if (!req) return WGK_OK;
  size_t mark = manifest_push_key(rd, key);
  static const char *const keys[] = {"features", "limits", "subgroupMinSize", "subgroupMatrixConfigs", NULL};
  wgk_status st = manifest_object(rd, req, "an object", keys);
  manifest_requires *r = st ? NULL : manifest_alloc(rd, 1, sizeof *r);
  if (!st && !r) st = WGK_ERR_OUT_OF_MEMORY;
  const json_t *fs = st ? NULL : json_object_get(req, "features");
  if (fs) st = read_required_features(rd, fs, r);
  const json_t *ls = st ? NULL : json_object_get(req, "limits");
  if (ls) st = read_required_limits(rd, ls, r);
  const json_t *sms = st ? NULL : json_object_get(req, "subgroupMinSize");
  if (sms) {
    if (!json_is_integer(sms) || json_integer_value(sms) < 1 || json_integer_value(sms) > 1 << 20)
      st = manifest_fail_in(rd, "subgroupMinSize", false, "requires.subgroupMinSize must be a positive integer");
    else
      r->subgroup_min_size = (int)json_integer_value(sms);
  }
  const json_t *smc = st ? NULL : json_object_get(req, "subgroupMatrixConfigs");
  if (smc) {
    st = read_matrix_configs(rd, smc);
    r->subgroup_matrix_configs = smc;
  }
  manifest_pop(rd, mark);
  if (!st && (r->n_features || r->n_limits || r->subgroup_min_size || r->subgroup_matrix_configs)) *out = r;
  return st;
}
