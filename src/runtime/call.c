/* wgk_call: what a caller sets before running a kernel. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"

wgk_status wgk_call_create(wgk_kernel *k, wgk_call **out) {
  if (!k || !out) return WGK_ERR_INVALID_ARGUMENT;
  *out = NULL;
  wgk_rt_clear(k->ctx);
  wgk_call *c = calloc(1, sizeof *c);
  size_t n = k->m->n_ports ? k->m->n_ports : 1;
  if (c) {
    c->k = k;
    c->ports = calloc(n, sizeof *c->ports);
    c->outputs = calloc(n, sizeof *c->outputs);
    c->given = calloc(n, sizeof *c->given);
    c->attrs = wgk_value_dict();
    c->args = wgk_value_dict();
    c->tunables = wgk_value_dict();
  }
  if (!c || !c->ports || !c->outputs || !c->given || !c->attrs || !c->args || !c->tunables) {
    wgk_call_destroy(c);
    return wgk_rt_set(k->ctx, WGK_ERR_OUT_OF_MEMORY, "out of memory");
  }
  *out = c;
  return WGK_OK;
}

void wgk_call_destroy(wgk_call *c) {
  if (!c) return;
  for (size_t i = 0; c->k && i < c->k->m->n_ports; i++) {
    if (c->ports) wgk_tensor_release(c->ports[i]);
    if (c->outputs) wgk_tensor_release(c->outputs[i]);
  }
  free(c->ports);
  free(c->outputs);
  free(c->given);
  wgk_value_release(c->attrs);
  wgk_value_release(c->args);
  wgk_value_release(c->tunables);
  wgk_gpu_timer_destroy(c->timer);
  free(c);
}

/* A port by bind key or ONNX name. */
static int port_index(const wgk_manifest *m, const char *name) {
  const wgk_manifest_port *p = wgk_manifest_find_port_or_key(m, name);
  return p ? (int)(p - m->ports) : -1;
}

static void list_keys(const wgk_manifest *m, bool inputs, wgk_dynbuf *out) {
  for (size_t i = 0; i < m->n_ports; i++) {
    bool is_input = m->ports[i].dir != WGK_PORT_OUTPUT;
    if (is_input != inputs) continue;
    wgk_dynbuf_printf(out, "%s%s", out->len ? ", " : "", m->ports[i].n_bind_keys ? m->ports[i].bind_keys[0] : m->ports[i].name);
  }
}

static wgk_status unknown_port(wgk_call *c, const char *name, bool inputs) {
  wgk_dynbuf keys;
  wgk_dynbuf_init(&keys, 4096);
  list_keys(c->k->m, inputs, &keys);
  wgk_status st = wgk_rt_set(c->k->ctx, WGK_ERR_NOT_FOUND, "%s has no %s '%s' (%s: %s)", c->k->m->op_id,
                             inputs ? "input" : "output", name, inputs ? "inputs" : "outputs", wgk_dynbuf_str(&keys));
  wgk_dynbuf_free(&keys);
  return st;
}

wgk_status wgk_call_set_input(wgk_call *c, const char *name, wgk_tensor *t) {
  if (!c || !name) return WGK_ERR_INVALID_ARGUMENT;
  wgk_rt_clear(c->k->ctx);
  int i = port_index(c->k->m, name);
  if (i < 0 || c->k->m->ports[i].dir == WGK_PORT_OUTPUT) return unknown_port(c, name, true);
  if (t && t->ctx != c->k->ctx) return wgk_rt_set(c->k->ctx, WGK_ERR_INVALID_ARGUMENT, "input %s: tensor of another context", name);
  wgk_tensor_retain(t);
  wgk_tensor_release(c->ports[i]);
  c->ports[i] = t;
  c->given[i] = false;
  return WGK_OK;
}

wgk_status wgk_call_set_output(wgk_call *c, const char *name, wgk_tensor *t) {
  if (!c || !name) return WGK_ERR_INVALID_ARGUMENT;
  wgk_rt_clear(c->k->ctx);
  int i = port_index(c->k->m, name);
  if (i < 0 || c->k->m->ports[i].dir != WGK_PORT_OUTPUT) return unknown_port(c, name, false);
  if (t && t->ctx != c->k->ctx) return wgk_rt_set(c->k->ctx, WGK_ERR_INVALID_ARGUMENT, "output %s: tensor of another context", name);
  wgk_tensor_retain(t);
  wgk_tensor_release(c->ports[i]);
  c->ports[i] = t;
  c->given[i] = t != NULL;
  return WGK_OK;
}

/* Copy on write: a plan made earlier may hold a reference to the previous dict. */
static wgk_status set_value(wgk_call *c, wgk_value **slot, const char *what, const char *name, wgk_value *v) {
  if (!c || !name) { wgk_value_release(v); return WGK_ERR_INVALID_ARGUMENT; }
  wgk_rt_clear(c->k->ctx);
  wgk_value *copy = wgk_value_dict_copy(*slot);
  if (!v || !copy || !wgk_value_dict_set(copy, name, v)) {
    if (!copy) wgk_value_release(v);
    wgk_value_release(copy);
    return wgk_rt_set(c->k->ctx, WGK_ERR_OUT_OF_MEMORY, "%s %s: out of memory", what, name);
  }
  wgk_value_release(*slot);
  *slot = copy;
  return WGK_OK;
}

wgk_status wgk_call_set_attr_int(wgk_call *c, const char *name, int64_t value) {
  if (c && !wgk_value_int_ok(value))
    return wgk_rt_set(c->k->ctx, WGK_ERR_INVALID_ARGUMENT, "attribute %s: %lld is past 2^53", name, (long long)value);
  return set_value(c, c ? &c->attrs : NULL, "attribute", name, wgk_value_int(value));
}

wgk_status wgk_call_set_attr_float(wgk_call *c, const char *name, double value) {
  return set_value(c, c ? &c->attrs : NULL, "attribute", name, wgk_value_float(value));
}

wgk_status wgk_call_set_attr_string(wgk_call *c, const char *name, const char *value) {
  return set_value(c, c ? &c->attrs : NULL, "attribute", name, value ? wgk_value_string(value) : NULL);
}

wgk_status wgk_call_set_attr_ints(wgk_call *c, const char *name, const int64_t *values, size_t count) {
  wgk_value *list = wgk_value_list();
  for (size_t i = 0; list && i < count; i++)
    if (!wgk_value_list_append(list, wgk_value_int(values[i]))) { wgk_value_release(list); list = NULL; }
  return set_value(c, c ? &c->attrs : NULL, "attribute", name, list);
}

static wgk_status set_json(wgk_call *c, wgk_value **slot, const char *what, const char *name, const char *text) {
  if (!c || !name || !text) return WGK_ERR_INVALID_ARGUMENT;
  wgk_rt_clear(c->k->ctx);
  json_error_t jerr;
  json_t *j = json_loads(text, JSON_DECODE_ANY, &jerr);
  if (!j) return wgk_rt_set(c->k->ctx, WGK_ERR_PARSE, "%s %s: '%s' is not JSON: %s", what, name, text, jerr.text);
  wgk_value *v = wgk_value_from_json(j, &c->k->ctx->err);
  json_decref(j);
  if (!v) return wgk_rt_fail(c->k->ctx, WGK_ERR_PARSE);
  return set_value(c, slot, what, name, v);
}

wgk_status wgk_call_set_attr_json(wgk_call *c, const char *name, const char *json) {
  return set_json(c, c ? &c->attrs : NULL, "attribute", name, json);
}

wgk_status wgk_call_set_arg_json(wgk_call *c, const char *name, const char *json) {
  return set_json(c, c ? &c->args : NULL, "arg", name, json);
}

wgk_status wgk_call_set_tunable(wgk_call *c, const char *name, int64_t value) {
  return set_value(c, c ? &c->tunables : NULL, "tunable", name, wgk_value_int(value));
}

wgk_tensor *wgk_call_output(wgk_call *c, const char *name) {
  if (!c || !name) return NULL;
  int i = port_index(c->k->m, name);
  return i < 0 ? NULL : c->outputs[i];
}

const char *wgk_call_variant(const wgk_call *c) { return c ? c->variant : NULL; }

wgk_status wgk_call_enable_timing(wgk_call *c, bool on) {
  if (!c) return WGK_ERR_INVALID_ARGUMENT;
  c->timing = on;
  return WGK_OK;
}
