/* Lookups on a decoded model: the single node, opsets, attributes by name with defaults. */
#include <string.h>

#include "onnx/onnx_reader.h"

const onnx_node *onnx_model_single_node(const onnx_model *m, util_error *err) {
  if (m->node_count == 1) return &m->nodes[0];
  util_error_in(err, WGK_ERR_UNSUPPORTED, NULL, m->graph_name, "graph has %zu nodes, expected 1", m->node_count);
  return NULL;
}

static bool is_default_domain(const char *d) { return !d || !*d || strcmp(d, "ai.onnx") == 0; }

int64_t onnx_model_opset(const onnx_model *m, const char *domain) {
  for (size_t i = 0; i < m->n_opsets; i++) {
    const char *d = m->opsets[i].domain;
    if (is_default_domain(domain) ? is_default_domain(d) : strcmp(d, domain) == 0) return m->opsets[i].version;
  }
  return 0;
}

const onnx_attr *onnx_node_attr(const onnx_node *n, const char *name) {
  for (size_t i = 0; i < n->n_attrs; i++)
    if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
  return NULL;
}

int64_t onnx_attr_int_or(const onnx_node *n, const char *name, int64_t dflt) {
  const onnx_attr *a = onnx_node_attr(n, name);
  return a && a->type == WGK_ONNX_ATTR_INT ? a->i : dflt;
}

double onnx_attr_float_or(const onnx_node *n, const char *name, double dflt) {
  const onnx_attr *a = onnx_node_attr(n, name);
  return a && a->type == WGK_ONNX_ATTR_FLOAT ? a->f : dflt;
}

const char *onnx_attr_string_or(const onnx_node *n, const char *name, const char *dflt) {
  const onnx_attr *a = onnx_node_attr(n, name);
  return a && a->type == WGK_ONNX_ATTR_STRING && a->s ? a->s : dflt;
}

const char *onnx_node_input(const onnx_node *n, size_t i) { return i < n->n_inputs ? n->inputs[i] : NULL; }
