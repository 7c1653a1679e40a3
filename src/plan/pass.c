/* One pass of the chosen variant: bindings, rendered WGSL, uniform bytes and the folded dispatch. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner_internal.h"

/* The WGSL element type of a storage binding: the port's storage projection, else its type variable. */
static wgk_status element_type(const manifest_model *m, const manifest_binding *b, const expr_value *scope, char *out,
                               size_t size, util_error *err) {
  const char *t = b->element_type;
  bool spec21 = m->format == WGK_MANIFEST_SPEC21;
  if (!spec21 && b->port && b->port->storage_dtype) t = plan_wgsl_scalar(b->port->storage_dtype);
  if (t && t[0] == '$') {
    /* spec 2.1: `$X` resolves against {...dtypes, ...derives} (fact 18); the seed: type variables only */
    const expr_value *v = spec21 ? expr_value_dict_get(scope, t + 1) : NULL;
    if (!v || !expr_value_str(v)) {
      const expr_value *dtypes = expr_value_dict_get(scope, "dtypes");
      v = dtypes ? expr_value_dict_get(dtypes, t + 1) : NULL;
    }
    if (!v || !expr_value_str(v))
      return plan_fail_at(err, WGK_ERR_CALL, m, &b->pos, "binding %s: type variable %s is not bound by the call",
                          b->name, t);
    t = expr_value_str(v);
  }
  if (!t) return plan_fail_at(err, WGK_ERR_MANIFEST, m, &b->pos, "binding %s: no element type%s", b->name, "");
  snprintf(out, size, "%s", t);
  return WGK_OK;
}

static const char *scalar_name(manifest_scalar s) {
  return s == WGK_SCALAR_I32 ? "i32" : s == WGK_SCALAR_F32 ? "f32" : "u32";
}

/* The name of padding field k of b: `_pad<j>`, j counting up past the names the struct already has. */
static void pad_name(const manifest_binding *b, size_t k, char *buf, size_t size) {
  size_t j = 0;
  for (size_t made = 0;; j++) {
    snprintf(buf, size, "_pad%zu", j);
    bool taken = false;
    for (size_t f = 0; f < b->n_fields && !taken; f++) taken = strcmp(b->fields[f].name, buf) == 0;
    if (taken) continue;
    if (made++ == k) return;
  }
}

/* spec 2.1: the loader's text (fact 23): each struct on one line (once per name), then one line per
 * binding, `array<T, Nu>` for a fixed length; joined by newlines, no trailing newline. */
static void declarations_spec21(const manifest_pass *mp, const plan_pass *pass, util_dynbuf *out) {
  const manifest_binding_set *set = mp->bindings;
  bool first = true;
  for (size_t i = 0; i < set->n_bindings; i++) {
    const manifest_binding *b = &set->bindings[i];
    if (b->buffer != WGK_BUFFER_UNIFORM) continue;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = set->bindings[j].buffer == WGK_BUFFER_UNIFORM && strcmp(set->bindings[j].struct_name, b->struct_name) == 0;
    if (seen) continue;
    util_dynbuf_printf(out, "%sstruct %s { ", first ? "" : "\n", b->struct_name);
    first = false;
    size_t padded = (b->n_fields + 3) / 4 * 4;
    for (size_t f = 0; f < padded; f++) {
      char pad[32];
      if (f >= b->n_fields) pad_name(b, f - b->n_fields, pad, sizeof pad);
      util_dynbuf_printf(out, "%s%s: %s", f ? ", " : "", f < b->n_fields ? b->fields[f].name : pad,
                         f < b->n_fields ? scalar_name(b->fields[f].type) : "u32");
    }
    util_dynbuf_append_str(out, " };");
  }
  for (size_t i = 0; i < pass->n_bindings; i++) {
    const plan_binding *pb = &pass->bindings[i];
    const manifest_binding *b = &set->bindings[i];
    util_dynbuf_append_str(out, first ? "" : "\n");
    first = false;
    if (pb->buffer == WGK_BUFFER_UNIFORM)
      util_dynbuf_printf(out, "@group(0) @binding(%u) var<uniform> %s: %s;", pb->index, pb->name, b->struct_name);
    else if (pb->length)
      util_dynbuf_printf(out, "@group(0) @binding(%u) var<storage, %s> %s: array<%s, %" PRIu64 "u>;", pb->index,
                         pb->buffer == WGK_BUFFER_STORAGE ? "read_write" : "read", pb->name, pb->wgsl_type, pb->length);
    else
      util_dynbuf_printf(out, "@group(0) @binding(%u) var<storage, %s> %s: array<%s>;", pb->index,
                         pb->buffer == WGK_BUFFER_STORAGE ? "read_write" : "read", pb->name, pb->wgsl_type);
  }
}

/* `struct Params {...};` and one `@group(0) @binding(i) var<...>` line per binding. */
static void declarations(const manifest_pass *mp, const plan_pass *pass, util_dynbuf *out) {
  const manifest_binding_set *set = mp->bindings;
  for (size_t i = 0; i < set->n_bindings; i++) {
    const manifest_binding *b = &set->bindings[i];
    if (b->buffer != WGK_BUFFER_UNIFORM) continue;
    util_dynbuf_printf(out, "struct %s {\n", b->struct_name);
    size_t padded = (b->n_fields + 3) / 4 * 4;
    if (padded == 0) padded = 4;
    for (size_t f = 0; f < padded; f++) {
      if (f < b->n_fields)
        util_dynbuf_printf(out, "  %s: %s,\n", b->fields[f].name, scalar_name(b->fields[f].type));
      else
        util_dynbuf_printf(out, "  _pad%zu: u32,\n", f - b->n_fields);
    }
    util_dynbuf_append_str(out, "};\n");
  }
  for (size_t i = 0; i < pass->n_bindings; i++) {
    const plan_binding *pb = &pass->bindings[i];
    const manifest_binding *b = &set->bindings[i];
    if (pb->buffer == WGK_BUFFER_UNIFORM)
      util_dynbuf_printf(out, "@group(0) @binding(%u) var<uniform> %s: %s;\n", pb->index, pb->name, b->struct_name);
    else
      util_dynbuf_printf(out, "@group(0) @binding(%u) var<storage, %s> %s: array<%s>;\n", pb->index,
                         pb->buffer == WGK_BUFFER_STORAGE ? "read_write" : "read", pb->name, pb->wgsl_type);
  }
}

/* A field's value: its expression; spec 2.1 then the same-named arg, then `default` (an expression when a
 * string); a missing required field fails the call, a missing optional one is 0 (facts 20-21). */
static wgk_status uniform_value(plan_planner *p, const manifest_binding *b, const manifest_field *field,
                                const expr_value *scope, expr_value **out, util_error *err) {
  if (field->value.text) return plan_eval(p, &field->value, scope, out, err);
  const expr_value *args = expr_value_dict_get(scope, "args");
  const expr_value *arg = args ? expr_value_dict_get(args, field->name) : NULL;
  if (arg) {
    *out = expr_value_ref(arg);
    return WGK_OK;
  }
  if (field->default_value) return plan_literal(p, field->default_value, &b->pos, scope, out, err);
  if (field->required)
    return plan_fail_at(err, WGK_ERR_CALL, p->m, &b->pos,
                        "Missing uniform field %s.%s (no value, no arg '%s', no default)", b->struct_name, field->name,
                        field->name);
  *out = expr_value_int(0);
  return *out ? WGK_OK : util_error_oom(err, NULL, "planning a pass");
}

/* A uniform field's value as a number (a boolean as 0 or 1) in *d, and what is wrong with it for the field's
 * type (not a number, not whole or out of its range), NULL when nothing is. */
static const char *field_problem(manifest_scalar type, const expr_value *v, double *d) {
  *d = expr_value_as_float(v);
  bool number = expr_value_is_number(v) || expr_value_kind_of(v) == WGK_VALUE_BOOL;
  if (expr_value_kind_of(v) == WGK_VALUE_BOOL) *d = expr_value_as_bool(v) ? 1 : 0;
  bool whole = number && *d == floor(*d);
  return !number                                                               ? "is not a number"
         : type == WGK_SCALAR_U32 && !(whole && *d >= 0 && *d <= 4294967295.0) ? "is not a whole number in [0, 2^32-1]"
         : type == WGK_SCALAR_I32 && !(whole && *d >= -2147483648.0 && *d <= 2147483647.0)
             ? "is not a whole number in [-2^31, 2^31-1]"
         : type == WGK_SCALAR_F32 && !isfinite(*d)      ? "is not a finite number"
         : type == WGK_SCALAR_F32 && fabs(*d) > FLT_MAX ? "is outside the f32 range (magnitude at most 3.4028235e38)"
                                                        : NULL;
}

/* The 4 bytes of a u32, i32 or f32 field. */
static void store_field(uint8_t *slot, manifest_scalar type, double d) {
  if (type == WGK_SCALAR_U32) {
    uint32_t u = (uint32_t)d;
    memcpy(slot, &u, 4);
  } else if (type == WGK_SCALAR_I32) {
    int32_t i = (int32_t)d;
    memcpy(slot, &i, 4);
  } else {
    float x = (float)d;
    memcpy(slot, &x, 4);
  }
}

/* Packs b's struct after the pass's earlier uniform structs (a pass may bind several, as the loader allows). */
static wgk_status pack_uniform(plan_planner *p, const manifest_binding *b, const expr_value *scope, plan_pass *pass,
                               plan_binding *pb, bool named, util_error *err) {
  size_t fields = (b->n_fields + 3) / 4 * 4;
  if (fields < 4) fields = 4;
  size_t offset = pass->uniform ? (pass->uniform_size + 255) / 256 * 256 : 0;
  uint8_t *bytes = realloc(pass->uniform, offset + fields * 4);
  if (!bytes) return util_error_oom(err, NULL, "planning a pass");
  memset(bytes + pass->uniform_size, 0, offset + fields * 4 - pass->uniform_size);
  pass->uniform = bytes;
  pass->uniform_size = offset + fields * 4;
  pb->uniform_offset = offset;
  pb->uniform_bytes = fields * 4;
  util_dynbuf text;
  util_dynbuf_init(&text, 1 << 16);
  if (pass->uniform_text) util_dynbuf_printf(&text, "%s | ", pass->uniform_text);
  if (named) util_dynbuf_printf(&text, "%s: ", b->name);
  for (size_t f = 0; f < b->n_fields; f++) {
    const manifest_field *field = &b->fields[f];
    expr_value *v = NULL;
    wgk_status st = uniform_value(p, b, field, scope, &v, err);
    if (st != WGK_OK) {
      util_dynbuf_free(&text);
      return st;
    }
    double d = 0;
    const char *bad = field_problem(field->type, v, &d);
    util_dynbuf shown;
    util_dynbuf_init(&shown, 256);
    expr_value_print(v, &shown);
    expr_value_release(v);
    if (bad) {
      plan_fail_at(err, WGK_ERR_CALL, p->m, &field->value.pos, "pass %s: uniform %s.%s (%s) = %s %s", pass->source->id,
                   b->struct_name, field->name, scalar_name(field->type), util_dynbuf_str(&shown), bad);
      util_dynbuf_free(&shown);
      util_dynbuf_free(&text);
      return WGK_ERR_CALL;
    }
    store_field(pass->uniform + offset + f * 4, field->type, d);
    if (shown.failed && !shown.over) text.failed = true; /* a value lost for memory: out of memory below */
    util_dynbuf_printf(&text, "%s%s=%s", f ? " " : "", field->name, util_dynbuf_str(&shown));
    util_dynbuf_free(&shown);
  }
  free(pass->uniform_text);
  pass->uniform_text = util_dynbuf_take(&text);
  return pass->uniform_text ? WGK_OK : util_error_oom(err, NULL, "planning a pass");
}

/* spec 2.1 `length`: a positive integer, or `$name` naming a derive (or a type variable's value). */
static wgk_status fixed_length(plan_planner *p, const manifest_binding *b, const expr_value *scope, uint64_t *out,
                               util_error *err) {
  double d = -1;
  if (b->length[0] == '$') {
    const expr_value *v = expr_value_dict_get(scope, b->length + 1);
    if (v && expr_value_is_number(v))
      d = expr_value_as_float(v);
    else if (v && expr_value_str(v))
      d = strtod(expr_value_str(v), NULL);
  } else {
    d = strtod(b->length, NULL);
  }
  if (!(d >= 1 && d <= 9007199254740991.0 && d == floor(d)))
    return plan_fail_at(err, WGK_ERR_CALL, p->m, &b->pos, "binding %s length must resolve to a positive integer (%s)",
                        b->name, b->length);
  *out = (uint64_t)d;
  return WGK_OK;
}

/* Two uniform structs of one name are one WGSL declaration, so they must have the same fields (name, type,
 * required, internal, default; `value` may differ), as the public loader requires of a pass's bindings. */
static bool same_struct(const manifest_binding *a, const manifest_binding *b) {
  if (a->n_fields != b->n_fields) return false;
  for (size_t f = 0; f < a->n_fields; f++) {
    const manifest_field *x = &a->fields[f], *y = &b->fields[f];
    if (strcmp(x->name, y->name) || x->type != y->type || x->required != y->required || x->internal != y->internal ||
        !(x->default_value == y->default_value ||
          (x->default_value && y->default_value && json_equal((json_t *)x->default_value, (json_t *)y->default_value))))
      return false;
  }
  return true;
}

static wgk_status make_bindings(plan_planner *p, const manifest_pass *mp, const expr_value *scope, plan_pass *pass,
                                util_error *err) {
  const manifest_binding_set *set = mp->bindings;
  pass->bindings = calloc(set->n_bindings ? set->n_bindings : 1, sizeof *pass->bindings);
  if (!pass->bindings) return util_error_oom(err, NULL, "planning a pass");
  pass->n_bindings = set->n_bindings;
  size_t uniforms = 0;
  for (size_t i = 0; i < set->n_bindings; i++) {
    const manifest_binding *b = &set->bindings[i];
    if (b->buffer != WGK_BUFFER_UNIFORM) continue;
    uniforms++;
    for (size_t j = 0; j < i; j++) {
      const manifest_binding *o = &set->bindings[j];
      if (o->buffer == WGK_BUFFER_UNIFORM && strcmp(o->struct_name, b->struct_name) == 0 && !same_struct(o, b))
        return plan_fail_at(err, WGK_ERR_MANIFEST, p->m, &b->pos,
                            "pass %s: uniform struct %s is declared with conflicting schemas by bindings %s and %s "
                            "(give one a structName of its own)",
                            mp->id, b->struct_name, o->name, b->name);
    }
  }
  for (size_t i = 0; i < set->n_bindings; i++) {
    const manifest_binding *b = &set->bindings[i];
    plan_binding *pb = &pass->bindings[i];
    pb->index = (uint32_t)i;
    pb->buffer = b->buffer;
    pb->name = b->name;
    pb->port = b->port ? (int)(b->port - p->m->ports) : -1;
    pb->intermediate = -1; /* set by plan_bind_intermediates */
    if (b->buffer == WGK_BUFFER_UNIFORM) {
      wgk_status st = pack_uniform(p, b, scope, pass, pb, uniforms > 1, err);
      if (st != WGK_OK) return st;
      continue;
    }
    wgk_status st = element_type(p->m, b, scope, pb->wgsl_type, sizeof pb->wgsl_type, err);
    if (st == WGK_OK && b->length) st = fixed_length(p, b, scope, &pb->length, err);
    if (st != WGK_OK) return st;
  }
  return WGK_OK;
}

/* Prepends the enable directives the rendered source needs and lacks, as the public loader infers them
 * (tmpl_wgsl_missing_enables: real uses outside comments; docs/call-semantics.md step 7). */
static wgk_status add_enables(plan_pass *pass, char *rendered, util_error *err) {
  unsigned need = tmpl_wgsl_missing_enables(rendered);
  if (need & WGK_ENABLE_OOM) {
    free(rendered);
    return util_error_oom(err, NULL, "planning a pass");
  }
  util_dynbuf out;
  util_dynbuf_init(&out, 0);
  int lines = 0;
  if (need & WGK_ENABLE_F16) util_dynbuf_append_str(&out, "enable f16;\n"), lines++;
  if (need & WGK_ENABLE_SUBGROUPS) util_dynbuf_append_str(&out, "enable subgroups;\n"), lines++;
  if (need & WGK_ENABLE_SUBGROUP_SIZE_CONTROL) util_dynbuf_append_str(&out, "enable subgroup_size_control;\n"), lines++;
  util_dynbuf_append_str(&out, rendered);
  free(rendered);
  pass->wgsl = util_dynbuf_take(&out);
  pass->wgsl_line_offset = lines;
  return pass->wgsl ? WGK_OK : util_error_oom(err, NULL, "planning a pass");
}

static wgk_status render(plan_planner *p, const manifest_pass *mp, const expr_value *scope, plan_pass *pass,
                         util_error *err) {
  const tmpl_template *t = plan_template(p, mp->shader, err);
  if (!t) return err ? err->status : WGK_ERR_NOT_FOUND;
  util_dynbuf out;
  util_dynbuf_init(&out, WGK_TMPL_MAX_OUTPUT);
  tmpl_linemap_init(&pass->linemap);
  wgk_status st = tmpl_render_parsed(t, scope, &out, &pass->linemap, err);
  if (st != WGK_OK) {
    util_dynbuf_free(&out);
    return st;
  }
  char *text = util_dynbuf_take(&out);
  return text ? add_enables(pass, text, err) : util_error_oom(err, NULL, "planning a pass");
}

static bool is_ident(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* " (tunable NAME = V, ...)" for the tunables an expression text names (or, with text NULL, whose value is
 * `value`), so a limit error points at the knob that was turned; "" when none. */
static void tunable_note(const expr_value *scope, const char *text, uint64_t value, char *buf, size_t size) {
  const expr_value *tunables = expr_value_dict_get(scope, "tunables");
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; tunables && i < expr_value_len(tunables); i++) {
    const char *name = expr_value_dict_key_at(tunables, i);
    const expr_value *v = expr_value_dict_value_at(tunables, i);
    bool named = false;
    if (text) {
      size_t n = strlen(name);
      for (const char *s = strstr(text, name); s && !named; s = strstr(s + 1, name)) {
        char c = s[n];
        char l = s > text ? s[-1] : ' ';
        named = !is_ident(l) && !is_ident(c);
      }
    } else {
      named = expr_value_is_number(v) && expr_value_as_float(v) == (double)value;
    }
    if (!named) continue;
    util_dynbuf shown;
    util_dynbuf_init(&shown, 64);
    expr_value_print(v, &shown);
    int k = snprintf(buf + used, size - used, "%s%s = %s", used ? ", " : " (tunable ", name, util_dynbuf_str(&shown));
    util_dynbuf_free(&shown);
    if (k < 0 || (size_t)k >= size - used - 1) {
      buf[used] = '\0';
      break;
    }
    used += (size_t)k;
  }
  if (used) snprintf(buf + used, size - used, ")");
}

/* A workgroup of `size` invocations must fit the device (maxComputeInvocationsPerWorkgroup, maxComputeWorkgroupSizeX).
 */
static wgk_status check_size(plan_planner *p, const plan_pass *pass, const manifest_expr *e, const expr_value *scope,
                             uint64_t size, util_error *err) {
  const device_limits *lim = &p->device->limits;
  const char *which = size > lim->maxComputeInvocationsPerWorkgroup ? "maxComputeInvocationsPerWorkgroup"
                      : size > lim->maxComputeWorkgroupSizeX        ? "maxComputeWorkgroupSizeX"
                                                                    : NULL;
  if (!which) return WGK_OK;
  char note[300];
  tunable_note(scope, e->text, 0, note, sizeof note);
  return plan_fail_at(err, WGK_ERR_LIMIT, p->m, &e->pos,
                      "pass %s: workgroupSize %s = %" PRIu64 "%s exceeds the device's %s %u", pass->source->id, e->text,
                      size, note, which,
                      size > lim->maxComputeInvocationsPerWorkgroup ? lim->maxComputeInvocationsPerWorkgroup
                                                                    : lim->maxComputeWorkgroupSizeX);
}

/* The rendered `@workgroup_size(x, y, z)` (integer literals) against the device's limits: what the WGSL compiler
 * would refuse later, refused here naming the pass and the tunables behind it. */
static wgk_status check_workgroup_attr(plan_planner *p, const plan_pass *pass, const expr_value *scope,
                                       util_error *err) {
  const char *at = strstr(pass->wgsl, "@workgroup_size(");
  if (!at) return WGK_OK;
  const char *s = at + strlen("@workgroup_size(");
  uint64_t dim[3] = {1, 1, 1};
  for (int i = 0; i < 3; i++) {
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    if (*s < '0' || *s > '9') return WGK_OK; /* not a literal: the WGSL compiler checks it */
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9') {
      v = v > UINT32_MAX ? v : v * 10 + (uint64_t)(*s - '0');
      s++;
    }
    if (*s == 'u' || *s == 'i') s++;
    dim[i] = v;
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    if (*s == ',') {
      s++;
      continue;
    }
    break;
  }
  const device_limits *lim = &p->device->limits;
  const uint32_t max_dim[3] = {lim->maxComputeWorkgroupSizeX, lim->maxComputeWorkgroupSizeY,
                               lim->maxComputeWorkgroupSizeZ};
  static const char *const dim_name[3] = {"maxComputeWorkgroupSizeX", "maxComputeWorkgroupSizeY",
                                          "maxComputeWorkgroupSizeZ"};
  uint64_t total = dim[0] * dim[1] * dim[2]; /* each <= 2^32 + 9, and 0 stops below */
  const char *which = NULL;
  uint64_t value = 0, limit = 0;
  for (int i = 0; i < 3 && !which; i++)
    if (dim[i] == 0 || dim[i] > max_dim[i]) {
      which = dim[i] == 0 ? "minimum" : dim_name[i];
      value = dim[i];
      limit = dim[i] == 0 ? 1 : max_dim[i];
    }
  if (!which && total > lim->maxComputeInvocationsPerWorkgroup) {
    which = "maxComputeInvocationsPerWorkgroup";
    value = total;
    limit = lim->maxComputeInvocationsPerWorkgroup;
  }
  if (!which) return WGK_OK;
  char note[300];
  tunable_note(scope, NULL, value, note, sizeof note);
  const char *end = strchr(at, ')');
  int len = end ? (int)(end - at) + 1 : (int)strlen("@workgroup_size(");
  if (len > 80) len = 80;
  return plan_fail_at(err, WGK_ERR_LIMIT, p->m, &pass->source->pos,
                      "pass %s: %.*s gives %" PRIu64 " invocations%s, over the device's %s %" PRIu64, pass->source->id,
                      len, at, value, note, which, limit);
}

static wgk_status count_of(plan_planner *p, const plan_pass *pass, const manifest_expr *e, const expr_value *scope,
                           uint64_t *out, util_error *err) {
  expr_value *v = NULL;
  wgk_status st = plan_eval(p, e, scope, &v, err);
  if (st != WGK_OK) return st;
  double d = expr_value_is_number(v) ? expr_value_as_float(v) : -1;
  util_dynbuf shown;
  util_dynbuf_init(&shown, 256);
  expr_value_print(v, &shown);
  expr_value_release(v);
  if (!(d >= 0 && d == floor(d) && d < 18446744073709551616.0)) {
    plan_fail_at(err, WGK_ERR_CALL, p->m, &e->pos, "pass %s: dispatch %s = %s is not a non-negative whole number",
                 pass->source->id, e->text, util_dynbuf_str(&shown));
    util_dynbuf_free(&shown);
    return WGK_ERR_CALL;
  }
  util_dynbuf_free(&shown);
  *out = (uint64_t)d;
  return WGK_OK;
}

/* {threads, workgroupSize} and {workgroups} fold N workgroups into x = min(N, 65535), y = ceilDiv(N, 65535). */
static wgk_status dispatch(plan_planner *p, const manifest_dispatch *d, const expr_value *scope, plan_pass *pass,
                           util_error *err) {
  uint64_t n = 0, c[3] = {1, 1, 1};
  wgk_status st = WGK_OK;
  const uint32_t limit = p->device->limits.maxComputeWorkgroupsPerDimension;
  if (d->kind == WGK_DISPATCH_XYZ) {
    const manifest_expr *axes[3] = {&d->x, &d->y, &d->z};
    for (int i = 0; i < 3 && st == WGK_OK; i++)
      if (axes[i]->text) st = count_of(p, pass, axes[i], scope, &c[i], err);
  } else {
    uint64_t threads = 0, size = 1;
    if (d->kind == WGK_DISPATCH_THREADS) {
      st = count_of(p, pass, &d->threads, scope, &threads, err);
      if (st == WGK_OK) st = count_of(p, pass, &d->workgroup_size, scope, &size, err);
      if (st == WGK_OK && size == 0)
        return plan_fail_at(err, WGK_ERR_CALL, p->m, &d->pos, "pass %s: dispatch workgroupSize %s is 0",
                            pass->source->id, d->workgroup_size.text);
      if (st == WGK_OK) st = check_size(p, pass, &d->workgroup_size, scope, size, err);
      n = size ? threads / size + (threads % size != 0) : 0; /* threads + size - 1 could wrap */
    } else {
      st = count_of(p, pass, &d->workgroups, scope, &n, err);
    }
    c[0] = n < WGK_DISPATCH_FOLD_WIDTH ? n : WGK_DISPATCH_FOLD_WIDTH;
    c[1] = (n + WGK_DISPATCH_FOLD_WIDTH - 1) / WGK_DISPATCH_FOLD_WIDTH;
    c[2] = 1;
    if (n == 0) c[1] = 0;
  }
  if (st != WGK_OK) return st;
  for (int i = 0; i < 3; i++) {
    if (c[i] > limit && c[i] > 0) {
      char note[300];
      tunable_note(scope,
                   d->kind == WGK_DISPATCH_XYZ       ? (i == 0   ? d->x.text
                                                        : i == 1 ? d->y.text
                                                                 : d->z.text)
                   : d->kind == WGK_DISPATCH_THREADS ? d->threads.text
                                                     : d->workgroups.text,
                   0, note, sizeof note);
      return plan_fail_at(err, WGK_ERR_LIMIT, p->m, &d->pos,
                          "pass %s: dispatch of %" PRIu64
                          " workgroups on axis %c exceeds the device's "
                          "maxComputeWorkgroupsPerDimension %u%s",
                          pass->source->id, c[i], "xyz"[i], limit, note);
    }
    pass->workgroups[i] = (uint32_t)c[i];
  }
  pass->skip = c[0] == 0 || c[1] == 0 || c[2] == 0;
  return WGK_OK;
}

/* A pass's `profile` values are evaluated for every call, in the pass's scope, and a failure refuses the call, as
 * the loader evaluates them (fact: `Qi(pass.profile, scope)` when it plans each pass); the values are not used. */
static wgk_status profile(plan_planner *p, const manifest_pass *mp, const expr_value *scope, util_error *err) {
  for (size_t i = 0; i < mp->n_profile; i++) {
    expr_value *v = NULL;
    wgk_status st = plan_value(p, &mp->profile[i], scope, &v, err);
    expr_value_release(v);
    if (st != WGK_OK) return st;
  }
  return WGK_OK;
}

wgk_status plan_pass_make(plan_planner *p, const manifest_pass *mp, const expr_value *variant_scope, plan_pass *pass,
                          util_error *err) {
  memset(pass, 0, sizeof *pass);
  pass->source = mp;
  expr_value *scope = expr_value_dict_copy(variant_scope);
  if (!scope) return util_error_oom(err, NULL, "planning a pass");
  wgk_status st = WGK_OK;
  if (p->m->format == WGK_MANIFEST_SPEC21) { /* pass derives and templates see {...dtypes, ...derives} (fact 27) */
    const expr_value *dtypes = expr_value_dict_get(scope, "dtypes");
    for (size_t i = 0; dtypes && i < expr_value_len(dtypes) && st == WGK_OK; i++) {
      const char *name = expr_value_dict_key_at(dtypes, i);
      if (!expr_value_dict_get(scope, name) &&
          !expr_value_dict_set(scope, name, expr_value_ref(expr_value_dict_value_at(dtypes, i))))
        st = util_error_oom(err, NULL, "planning a pass");
    }
  }
  for (size_t i = 0; i < mp->n_inputs && st == WGK_OK; i++) {
    expr_value *v = NULL;
    st = plan_value(p, &mp->inputs[i], scope, &v, err);
    if (st == WGK_OK && !expr_value_dict_set(scope, mp->inputs[i].name, v))
      st = util_error_oom(err, NULL, "planning a pass");
  }
  if (st == WGK_OK) st = make_bindings(p, mp, scope, pass, err);
  if (st == WGK_OK) {
    util_dynbuf decl;
    util_dynbuf_init(&decl, 0);
    if (p->m->format == WGK_MANIFEST_SPEC21)
      declarations_spec21(mp, pass, &decl);
    else
      declarations(mp, pass, &decl);
    expr_value *env = expr_value_dict(), *wgsl = expr_value_dict();
    bool ok = env && wgsl && !decl.failed &&
              expr_value_dict_set(wgsl, "resourceDeclarations", expr_value_string(util_dynbuf_str(&decl)));
    if (ok) {
      ok = expr_value_dict_set(env, "wgsl", wgsl);
      wgsl = NULL;
    } /* set takes its value */
    if (ok)
      ok = expr_value_dict_set(env, "device", expr_value_ref(expr_value_dict_get(scope, "device"))); /* env.device */
    if (ok) {
      ok = expr_value_dict_set(scope, "env", env);
      env = NULL;
    }
    expr_value_release(wgsl);
    expr_value_release(env);
    if (!ok) st = util_error_oom(err, NULL, "planning a pass");
    util_dynbuf_free(&decl);
  }
  if (st == WGK_OK) st = profile(p, mp, scope, err);
  if (st == WGK_OK) st = dispatch(p, &mp->dispatch, scope, pass, err);
  if (st == WGK_OK) st = render(p, mp, scope, pass, err);
  if (st == WGK_OK) st = check_workgroup_attr(p, pass, scope, err);
  expr_value_release(scope);
  return st;
}

void plan_pass_free(plan_pass *pass) {
  if (!pass) return;
  free(pass->label);
  free(pass->id);
  free(pass->wgsl);
  tmpl_linemap_free(&pass->linemap);
  free(pass->bindings);
  free(pass->uniform);
  free(pass->uniform_text);
}
