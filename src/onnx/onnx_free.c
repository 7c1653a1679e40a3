/* Freeing a decoded model; every pointer may be NULL (a partially copied model after a failure). */
#include <stdlib.h>

#include "onnx/onnx_reader.h"

static void free_strings(char **s, size_t n) {
  for (size_t i = 0; s && i < n; i++) free(s[i]);
  free(s);
}

static void free_node(onnx_node *n) {
  free(n->name);
  free(n->domain);
  free(n->op_type);
  free_strings(n->inputs, n->n_inputs);
  free_strings(n->outputs, n->n_outputs);
  for (size_t i = 0; n->attrs && i < n->n_attrs; i++) {
    onnx_attr *a = &n->attrs[i];
    free(a->name);
    free(a->s);
    free(a->floats);
    free(a->ints);
    free_strings(a->strings, a->strings ? a->n : 0);
    util_host_tensor_free(a->t);
  }
  free(n->attrs);
}

static void free_values(onnx_value_info *v, size_t n) {
  for (size_t i = 0; v && i < n; i++) free(v[i].name);
  free(v);
}

void onnx_model_free(onnx_model *m) {
  if (!m) return;
  for (size_t i = 0; m->opsets && i < m->n_opsets; i++) free(m->opsets[i].domain);
  free(m->opsets);
  free(m->graph_name);
  for (size_t i = 0; m->nodes && i < m->node_count; i++) free_node(&m->nodes[i]);
  free(m->nodes);
  free_values(m->inputs, m->n_inputs);
  free_values(m->outputs, m->n_outputs);
  for (size_t i = 0; m->initializers && i < m->n_initializers; i++) util_host_tensor_free(m->initializers[i]);
  free(m->initializers);
  free(m);
}
