/* wgk_call: what a caller sets before running a kernel. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"
#include "util/suggest.h"

wgk_status wgk_call_create(wgk_kernel *k, wgk_call **out) {
  if (out) *out = NULL;
  if (!k) return WGK_ERR_INVALID_ARGUMENT;
  wgk_context *ctx = k->ctx;
  rt_lock(ctx);
  rt_clear(ctx);
  if (!out) {
    wgk_status st = util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "call create: out is NULL");
    rt_unlock(ctx);
    return st;
  }
  wgk_call *c = calloc(1, sizeof *c);
  size_t n = k->m->n_ports ? k->m->n_ports : 1;
  if (c) {
    c->ports = calloc(n, sizeof *c->ports);
    c->outputs = calloc(n, sizeof *c->outputs);
    c->given = calloc(n, sizeof *c->given);
    c->wanted = calloc(n, sizeof *c->wanted);
    c->want_dtype = calloc(n, sizeof *c->want_dtype);
    c->key_ports = calloc(2 * n, sizeof *c->key_ports);
    c->attrs = expr_value_dict();
    c->args = expr_value_dict();
    c->tunables = expr_value_dict();
  }
  if (!c || !c->ports || !c->outputs || !c->given || !c->wanted || !c->want_dtype || !c->key_ports || !c->attrs ||
      !c->args || !c->tunables) {
    if (c) {
      free(c->ports);
      free(c->outputs);
      free(c->given);
      free(c->wanted);
      free(c->want_dtype);
      free(c->key_ports);
    }
    if (c) {
      expr_value_release(c->attrs);
      expr_value_release(c->args);
      expr_value_release(c->tunables);
    }
    free(c);
    wgk_status st = util_error_oom(&ctx->err, NULL, "call create");
    rt_unlock(ctx);
    return st;
  }
  rt_kernel_retain(k);
  c->k = k;
  *out = c;
  rt_unlock(ctx);
  return WGK_OK;
}

/* The call's kernel reference goes last: the kernel (and its context) may go with it. */
void wgk_call_destroy(wgk_call *c) {
  if (!c) return;
  wgk_kernel *k = c->k;
  rt_lock(k->ctx);
  for (size_t i = 0; i < k->m->n_ports; i++) {
    wgk_tensor_release(c->ports[i]);
    wgk_tensor_release(c->outputs[i]);
  }
  rt_plan_unpin(c->last_entry);
  free(c->ports);
  free(c->outputs);
  free(c->given);
  free(c->wanted);
  free(c->want_dtype);
  free(c->key_ports);
  expr_value_release(c->attrs);
  expr_value_release(c->args);
  expr_value_release(c->tunables);
  gpu_timer_destroy(c->timer);
  free(c);
  rt_unlock(k->ctx);
  rt_kernel_release(k);
}

int rt_port_index(const manifest_model *m, const char *name) {
  const manifest_port *p = manifest_find_port_or_key(m, name);
  return p ? (int)(p - m->ports) : -1;
}

static void list_keys(const manifest_model *m, bool inputs, util_dynbuf *out) {
  for (size_t i = 0; i < m->n_ports; i++) {
    bool is_input = m->ports[i].dir != WGK_PORT_OUTPUT;
    if (is_input != inputs) continue;
    util_dynbuf_printf(out, "%s%s", out->len ? ", " : "",
                       m->ports[i].n_bind_keys ? m->ports[i].bind_keys[0] : m->ports[i].name);
  }
}

wgk_status rt_unknown_port(wgk_call *c, const char *name, bool inputs) {
  util_dynbuf keys;
  util_dynbuf_init(&keys, 4096);
  list_keys(c->k->m, inputs, &keys);
  wgk_status st =
      util_error_plain(&c->k->ctx->err, WGK_ERR_NOT_FOUND, "%s has no %s '%s' (%s: %s)", c->k->m->op_id,
                       inputs ? "input" : "output", name, inputs ? "inputs" : "outputs", util_dynbuf_str(&keys));
  util_dynbuf_free(&keys);
  return st;
}

static wgk_status set_input_locked(wgk_call *c, const char *name, wgk_tensor *t) {
  if (!name)
    return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: set_input: the port name is NULL",
                            c->k->m->op_id);
  int i = rt_port_index(c->k->m, name);
  if (i < 0 || c->k->m->ports[i].dir == WGK_PORT_OUTPUT) return rt_unknown_port(c, name, true);
  if (t && t->ctx != c->k->ctx)
    return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT,
                            "%s: input %s: the tensor belongs to another context", c->k->m->op_id, name);
  wgk_tensor_retain(t);
  wgk_tensor_release(c->ports[i]);
  c->ports[i] = t;
  c->given[i] = false;
  return WGK_OK;
}

static wgk_status set_output_locked(wgk_call *c, const char *name, wgk_tensor *t) {
  if (!name)
    return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: set_output: the port name is NULL",
                            c->k->m->op_id);
  int i = rt_port_index(c->k->m, name);
  if (i < 0 || c->k->m->ports[i].dir != WGK_PORT_OUTPUT) return rt_unknown_port(c, name, false);
  if (t && t->ctx != c->k->ctx)
    return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT,
                            "%s: output %s: the tensor belongs to another context", c->k->m->op_id, name);
  wgk_tensor_retain(t);
  wgk_tensor_release(c->ports[i]);
  c->ports[i] = t;
  c->given[i] = t != NULL;
  c->wanted[i] = false;
  c->want_dtype[i] = WGK_DTYPE_INVALID;
  return WGK_OK;
}

static wgk_status want_output_locked(wgk_call *c, const char *name, bool want, wgk_dtype dtype) {
  if (!name)
    return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: want_output: the port name is NULL",
                            c->k->m->op_id);
  int i = rt_port_index(c->k->m, name);
  if (i < 0 || c->k->m->ports[i].dir != WGK_PORT_OUTPUT) return rt_unknown_port(c, name, false);
  if (want && dtype != WGK_DTYPE_INVALID && wgk_dtype_size(dtype) == 0)
    return util_error_plain(&c->k->ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: want_output %s: invalid dtype %d",
                            c->k->m->op_id, name, (int)dtype);
  wgk_tensor_release(c->ports[i]);
  c->ports[i] = NULL;
  c->given[i] = false;
  c->wanted[i] = want;
  c->want_dtype[i] = want ? dtype : WGK_DTYPE_INVALID;
  return WGK_OK;
}

wgk_status wgk_call_want_output(wgk_call *c, const char *name, bool want, wgk_dtype dtype) {
  if (!c) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(c->k->ctx);
  rt_clear(c->k->ctx);
  wgk_status st = want_output_locked(c, name, want, dtype);
  rt_unlock(c->k->ctx);
  return st;
}

wgk_status wgk_call_set_input(wgk_call *c, const char *name, wgk_tensor *t) {
  if (!c) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(c->k->ctx);
  rt_clear(c->k->ctx);
  wgk_status st = set_input_locked(c, name, t);
  rt_unlock(c->k->ctx);
  return st;
}

wgk_status wgk_call_set_output(wgk_call *c, const char *name, wgk_tensor *t) {
  if (!c) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(c->k->ctx);
  rt_clear(c->k->ctx);
  wgk_status st = set_output_locked(c, name, t);
  rt_unlock(c->k->ctx);
  return st;
}

/* Copy on write: a plan made earlier may hold a reference to the previous dict. Takes v (NULL: out of memory). */
static wgk_status set_value_locked(wgk_call *c, expr_value **slot, const char *what, const char *name, expr_value *v) {
  expr_value *copy = expr_value_dict_copy(*slot);
  if (!v || !copy || !expr_value_dict_set(copy, name, v)) {
    if (!copy) expr_value_release(v);
    expr_value_release(copy);
    char path[WGK_ERROR_PATH_MAX];
    snprintf(path, sizeof path, "%s %s", what, name);
    return util_error_oom(&c->k->ctx->err, NULL, path);
  }
  expr_value_release(*slot);
  *slot = copy;
  c->values_gen++; /* a dict's address may come back with other values: the plan key is rebuilt */
  return WGK_OK;
}

typedef enum { V_INT, V_FLOAT, V_STRING, V_INTS, V_JSON } value_kind;
typedef struct {
  value_kind kind;
  int64_t i;
  double f;
  const char *s; /* string, or JSON text */
  const int64_t *ints;
  size_t count;
} value_in;

static const char *setter_name(value_kind kind) {
  static const char *names[] = {"int", "float", "string", "ints", "json"};
  return names[kind];
}

static const char *attr_name_at(const void *list, size_t i) {
  return ((const manifest_model *)list)->attributes[i].name;
}

/* An attribute the contract does not declare is refused when it is set (not only when the call runs), with the
 * nearest declared name when it looks like a misspelling of one. */
static wgk_status unknown_attribute(wgk_call *c, const char *name) {
  const manifest_model *m = c->k->m;
  for (size_t i = 0; i < m->n_attributes; i++)
    if (strcmp(m->attributes[i].name, name) == 0) return WGK_OK;
  util_dynbuf known;
  util_dynbuf_init(&known, 4096);
  for (size_t i = 0; i < m->n_attributes; i++) util_dynbuf_printf(&known, "%s%s", i ? ", " : "", m->attributes[i].name);
  const char *near = util_suggest(name, m, m->n_attributes, attr_name_at);
  wgk_status st = util_error_plain(
      &c->k->ctx->err, WGK_ERR_NOT_FOUND, "%s has no attribute '%s'%s%s%s (attributes: %s)", m->op_id, name,
      near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "", known.len ? util_dynbuf_str(&known) : "none");
  util_dynbuf_free(&known);
  return st;
}

/* Every value set on a call is part of its plan key (RT_PLAN_KEY_MAX bytes), printed as the expressions print it:
 * one value may take RT_VALUE_MAX_TEXT bytes of that text. A string, a list or JSON text clearly over it is
 * refused before a value is built from it (a 64 MiB string or a 2^24-element list was a bare "out of memory" when
 * the call was planned). */
static const char *value_kind_text(const value_in *in) {
  return in->kind == V_STRING ? "a string" : in->kind == V_INTS ? "a list" : "JSON text";
}

static wgk_status check_size(wgk_context *ctx, const char *op, const char *what, const char *name, const value_in *in) {
  size_t n = in->kind == V_INTS ? in->count : in->kind == V_STRING || in->kind == V_JSON ? strlen(in->s) : 0;
  size_t max = in->kind == V_INTS   ? RT_VALUE_MAX_TEXT / 2
               : in->kind == V_JSON ? 4 * RT_VALUE_MAX_TEXT
                                    : RT_VALUE_MAX_TEXT;
  if (n <= max) return WGK_OK;
  return util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT,
                          "%s: %s %s: %s of %zu %s, above the bound of %zu %s (a value takes at most %d bytes as "
                          "text: every value is part of the call's plan key)",
                          op, what, name, value_kind_text(in), n, in->kind == V_INTS ? "values" : "bytes", max,
                          in->kind == V_INTS ? "values" : "bytes", RT_VALUE_MAX_TEXT);
}

/* The value built: its printed text within RT_VALUE_MAX_TEXT bytes. */
static wgk_status check_text(wgk_context *ctx, const char *op, const char *what, const char *name, const value_in *in,
                             const expr_value *v) {
  util_dynbuf text;
  util_dynbuf_init(&text, RT_VALUE_MAX_TEXT);
  bool ok = !v || expr_value_print(v, &text);
  bool over = !ok && text.over;
  util_dynbuf_free(&text);
  if (ok) return WGK_OK;
  if (!over) return util_error_oom(&ctx->err, NULL, name);
  return util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT,
                          "%s: %s %s: %s whose value takes more than %d bytes as text, the bound of one value (every "
                          "value is part of the call's plan key)",
                          op, what, name, value_kind_text(in), RT_VALUE_MAX_TEXT);
}

/* The setter's arguments before any value is built: a name, a value in wgk's exact range, within its size. */
static wgk_status check_input(wgk_context *ctx, const char *op, const char *what, const char *name,
                              const value_in *in) {
  wgk_status st = WGK_OK;
  if (!name)
    st = util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: set %s %s: the name is NULL", op, what,
                          setter_name(in->kind));
  else if (in->kind == V_INT && !expr_value_int_ok(in->i))
    st = util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT,
                          "%s: %s %s: %lld is past 2^53, the largest integer wgk keeps exactly", op, what, name,
                          (long long)in->i);
  else if ((in->kind == V_STRING || in->kind == V_JSON) && !in->s)
    st = util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: %s %s: the value is NULL", op, what, name);
  else if (in->kind == V_INTS && in->count && !in->ints)
    st = util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT, "%s: %s %s: %zu values at NULL", op, what, name,
                          in->count);
  else
    st = check_size(ctx, op, what, name, in);
  for (size_t i = 0; st == WGK_OK && in->kind == V_INTS && i < in->count; i++)
    if (!expr_value_int_ok(in->ints[i]))
      st = util_error_plain(&ctx->err, WGK_ERR_INVALID_ARGUMENT,
                            "%s: %s %s: element %zu is %lld, past 2^53, the largest integer wgk keeps exactly", op,
                            what, name, i, (long long)in->ints[i]);
  return st;
}

/* The value of a checked setter input (*out NULL when out of memory, which check_text reports). */
static wgk_status build_value(wgk_context *ctx, const char *op, const char *what, const char *name, const value_in *in,
                              expr_value **out) {
  *out = NULL;
  if (in->kind == V_INT) *out = expr_value_int(in->i);
  if (in->kind == V_FLOAT) *out = expr_value_float(in->f);
  if (in->kind == V_STRING) *out = expr_value_string(in->s);
  if (in->kind == V_INTS) *out = expr_value_int_list(in->ints, in->count);
  if (in->kind != V_JSON) return WGK_OK;
  json_error_t jerr;
  json_t *j = json_loads(in->s, JSON_DECODE_ANY, &jerr);
  if (!j)
    return util_error_plain(&ctx->err, WGK_ERR_PARSE, "%s: %s %s: '%s' is not JSON: %s", op, what, name, in->s,
                            jerr.text);
  *out = expr_value_from_json(j, &ctx->err);
  json_decref(j);
  return *out ? WGK_OK : ctx->err.status;
}

/* Every setter: the call's context locked and cleared, a message for every refusal naming the setter and name. */
static wgk_status set_any(wgk_call *c, expr_value **slot, const char *what, const char *name, const value_in *in) {
  if (!c) return WGK_ERR_INVALID_ARGUMENT;
  wgk_context *ctx = c->k->ctx;
  rt_lock(ctx);
  rt_clear(ctx);
  expr_value *v = NULL;
  const char *op = c->k->m->op_id;
  wgk_status st = check_input(ctx, op, what, name, in);
  if (st == WGK_OK) st = build_value(ctx, op, what, name, in, &v);
  if (st == WGK_OK) st = check_text(ctx, op, what, name, in, v);
  if (st == WGK_OK && slot == &c->attrs) st = unknown_attribute(c, name); /* after the value's own checks */
  if (st == WGK_OK)
    st = set_value_locked(c, slot, what, name, v);
  else
    expr_value_release(v);
  rt_unlock(ctx);
  return st;
}

wgk_status wgk_call_set_attr_int(wgk_call *c, const char *name, int64_t value) {
  return set_any(c, c ? &c->attrs : NULL, "attribute", name, &(value_in){.kind = V_INT, .i = value});
}

wgk_status wgk_call_set_attr_float(wgk_call *c, const char *name, double value) {
  return set_any(c, c ? &c->attrs : NULL, "attribute", name, &(value_in){.kind = V_FLOAT, .f = value});
}

wgk_status wgk_call_set_attr_string(wgk_call *c, const char *name, const char *value) {
  return set_any(c, c ? &c->attrs : NULL, "attribute", name, &(value_in){.kind = V_STRING, .s = value});
}

wgk_status wgk_call_set_attr_ints(wgk_call *c, const char *name, const int64_t *values, size_t count) {
  return set_any(c, c ? &c->attrs : NULL, "attribute", name,
                 &(value_in){.kind = V_INTS, .ints = values, .count = count});
}

wgk_status wgk_call_set_attr_json(wgk_call *c, const char *name, const char *json) {
  return set_any(c, c ? &c->attrs : NULL, "attribute", name, &(value_in){.kind = V_JSON, .s = json});
}

wgk_status wgk_call_set_arg_json(wgk_call *c, const char *name, const char *json) {
  return set_any(c, c ? &c->args : NULL, "arg", name, &(value_in){.kind = V_JSON, .s = json});
}

wgk_status wgk_call_set_tunable(wgk_call *c, const char *name, int64_t value) {
  return set_any(c, c ? &c->tunables : NULL, "tunable", name, &(value_in){.kind = V_INT, .i = value});
}

wgk_tensor *wgk_call_output(wgk_call *c, const char *name) {
  if (!c || !name) return NULL;
  rt_lock(c->k->ctx);
  int i = rt_port_index(c->k->m, name);
  wgk_tensor *t = i < 0 ? NULL : c->outputs[i];
  rt_unlock(c->k->ctx);
  return t;
}

const char *wgk_call_variant(const wgk_call *c) { return c ? c->variant : NULL; }

wgk_status wgk_call_enable_timing(wgk_call *c, bool on) {
  if (!c) return WGK_ERR_INVALID_ARGUMENT;
  rt_lock(c->k->ctx);
  rt_clear(c->k->ctx);
  c->timing = on;
  rt_unlock(c->k->ctx);
  return WGK_OK;
}
