/* One data set: node inputs and attributes onto a call, run it, compare every output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/node_test_internal.h"

/* The manifest port carrying ONNX input i, or NULL. */
static const manifest_port *input_port(const manifest_model *m, size_t i) {
  for (size_t p = 0; p < m->n_ports; p++)
    if (m->ports[p].dir != WGK_PORT_OUTPUT && m->ports[p].onnx_input_index == (int)i) return &m->ports[p];
  return NULL;
}

/* The port carrying ONNX output k: the one recording that position, else the k-th of the plain outputs
 * followed by the in/out ports (their ONNX outputs, present_*, come after the plain ones). */
static const manifest_port *output_port(const manifest_model *m, size_t k) {
  for (size_t p = 0; p < m->n_ports; p++)
    if (m->ports[p].dir != WGK_PORT_INPUT && m->ports[p].onnx_output_index == (int)k) return &m->ports[p];
  size_t seen = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t p = 0; p < m->n_ports; p++)
      if (m->ports[p].dir == (pass ? WGK_PORT_INOUT : WGK_PORT_OUTPUT) && seen++ == k) return &m->ports[p];
  return NULL;
}

static int graph_index(const onnx_value_info *v, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i].name, name) == 0) return (int)i;
  return -1;
}

static util_host_tensor *read_pb(const onnx_nt_case *c, const char *set, const char *kind, int i, util_error *why) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s/%s_%d.pb", c->dir, set, kind, i);
  util_host_tensor *t = NULL;
  onnx_tensor_read(path, &t, why);
  return t;
}

/* The value of node input `name`: a graph input's input_N.pb, else an initializer (cloned). */
static util_host_tensor *input_value(const onnx_nt_case *c, const char *set, const char *name, util_error *why) {
  int j = graph_index(c->model->inputs, c->model->n_inputs, name);
  if (j >= 0) return read_pb(c, set, "input", j, why);
  for (size_t i = 0; i < c->model->n_initializers; i++) {
    const util_host_tensor *init = c->model->initializers[i];
    util_host_tensor *t = NULL;
    if (init->name && strcmp(init->name, name) == 0 && util_host_tensor_clone(init, &t) == WGK_OK) return t;
  }
  util_error_plain(why, WGK_ERR_NOT_FOUND, "input '%s' is neither a graph input nor an initializer", name);
  return NULL;
}

static bool set_inputs(const onnx_nt_case *c, const char *set, wgk_call *call, util_error *why) {
  const manifest_model *m = pkg_manifest(c->k->pkg);
  for (size_t i = 0; i < c->node->n_inputs; i++) {
    const char *name = onnx_node_input(c->node, i);
    if (!name) continue; /* absent optional input */
    const manifest_port *port = input_port(m, i);
    if (!port) {
      util_error_plain(why, WGK_ERR_NOT_FOUND, "input %zu '%s': the manifest has no port for ONNX input %zu", i, name,
                       i);
      return false;
    }
    util_host_tensor *h = input_value(c, set, name, why);
    if (!h) return false;
    wgk_tensor *t = NULL;
    wgk_status st = wgk_tensor_create(c->r->ctx, (wgk_dtype)h->dtype, h->rank, h->dims, h->data, &t);
    if (st == WGK_OK) st = wgk_call_set_input(call, port->name, t);
    wgk_tensor_release(t);
    util_host_tensor_free(h);
    if (st != WGK_OK) {
      util_error_plain(why, st, "input %s: %s", port->name, wgk_context_errmsg(c->r->ctx));
      return false;
    }
  }
  return true;
}

/* Attributes by name; false (a SKIP) for a kind the call API does not carry. */
static bool set_attrs(const onnx_nt_case *c, wgk_call *call, util_error *why) {
  for (size_t i = 0; i < c->node->n_attrs; i++) {
    const onnx_attr *a = &c->node->attrs[i];
    wgk_status st;
    switch (a->type) {
    case WGK_ONNX_ATTR_INT:
      st = wgk_call_set_attr_int(call, a->name, a->i);
      break;
    case WGK_ONNX_ATTR_FLOAT:
      st = wgk_call_set_attr_float(call, a->name, a->f);
      break;
    case WGK_ONNX_ATTR_STRING:
      st = wgk_call_set_attr_string(call, a->name, a->s);
      break;
    case WGK_ONNX_ATTR_INTS:
      st = wgk_call_set_attr_ints(call, a->name, a->ints, a->n);
      break;
    default:
      util_error_plain(why, WGK_ERR_UNSUPPORTED, "attribute %s has ONNX type %d, which wgk calls do not take", a->name,
                       (int)a->type);
      return false;
    }
    if (st != WGK_OK) {
      util_error_plain(why, st, "attribute %s: %s", a->name, wgk_context_errmsg(c->r->ctx));
      return true; /* a contract refusal: FAIL, not SKIP */
    }
  }
  return true;
}

/* The output as a host tensor of its own dtype and shape. */
static util_host_tensor *download(wgk_tensor *t) {
  util_host_tensor *h = NULL;
  if (util_host_tensor_create((wgk_dtype)wgk_tensor_dtype(t), wgk_tensor_rank(t), wgk_tensor_shape(t), &h) != WGK_OK)
    return NULL;
  if (wgk_tensor_read(t, h->data, util_host_tensor_bytes(h)) != WGK_OK) {
    util_host_tensor_free(h);
    return NULL;
  }
  return h;
}

/* Compares graph output j (output_j.pb); why set on a mismatch. */
static void check_output(const onnx_nt_case *c, const char *set, wgk_call *call, size_t j, util_error *why) {
  const char *name = c->model->outputs[j].name;
  size_t k = 0;
  while (k < c->node->n_outputs && !(c->node->outputs[k] && strcmp(c->node->outputs[k], name) == 0)) k++;
  const manifest_port *port = output_port(pkg_manifest(c->k->pkg), k);
  if (k == c->node->n_outputs || !port) {
    util_error_plain(why, WGK_ERR_NOT_FOUND, "output %zu '%s': no manifest port for it", j, name);
    return;
  }
  util_host_tensor *want = read_pb(c, set, "output", (int)j, why);
  if (!want) return;
  wgk_tensor *t = wgk_call_output(call, port->name);
  util_host_tensor *got = t ? download(t) : NULL;
  if (!got)
    util_error_plain(why, t ? wgk_context_errcode(c->r->ctx) : WGK_ERR_NOT_FOUND, "output %zu (%s): %s", j, port->name,
                     t ? wgk_context_errmsg(c->r->ctx) : "not produced");
  else if (!onnx_nt_compare(got, want, c->r->opts.rtol, c->r->opts.atol, why))
    util_error_wrap(why, util_pos_make(NULL, 0, 0), port->name); /* "Y: worst element ..." */
  util_host_tensor_free(got);
  util_host_tensor_free(want);
}

bool onnx_nt_run_set(const onnx_nt_case *c, const char *set, util_error *why) {
  wgk_call *call = NULL;
  if (wgk_call_create(c->k->kernel, &call) != WGK_OK) {
    util_error_plain(why, wgk_context_errcode(c->r->ctx), "%s", wgk_context_errmsg(c->r->ctx));
    return true;
  }
  bool ran = set_attrs(c, call, why);
  if (ran && !util_error_is_set(why) && set_inputs(c, set, call, why)) {
    if (wgk_call_run(call) != WGK_OK)
      util_error_plain(why, wgk_context_errcode(c->r->ctx), "%s", wgk_context_errmsg(c->r->ctx));
    for (size_t j = 0; j < c->model->n_outputs && !util_error_is_set(why); j++) check_output(c, set, call, j, why);
  }
  wgk_call_destroy(call);
  return ran;
}
