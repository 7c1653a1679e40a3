/* libFuzzer entry: a serialized ONNX ModelProto (.onnx) decoded into plain structs, then queried the way
 * the node-test runner does (single node, opsets, attributes, inputs). Never a crash, leak or UB, and never
 * "out of memory" (an initializer's dims must be checked against its data before anything is allocated). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "onnx/onnx_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wgk_error err;
  wgk_error_clear(&err);
  wgk_onnx_model *m = NULL;
  wgk_status st = wgk_onnx_model_parse(data, size, "fuzz.onnx", &m, &err);
  if (st == WGK_ERR_OUT_OF_MEMORY) abort();
  if (st != WGK_OK) return 0;
  (void)wgk_onnx_model_opset(m, "");
  (void)wgk_onnx_model_opset(m, "com.microsoft");
  const wgk_onnx_node *n = wgk_onnx_model_single_node(m, &err);
  if (n) {
    (void)wgk_onnx_attr_int_or(n, "interleaved", 0);
    (void)wgk_onnx_attr_int_or(n, "rotary_embedding_dim", 0);
    (void)wgk_onnx_attr_int_or(n, "num_heads", 0);
    (void)wgk_onnx_attr_float_or(n, "scale", 0.0);
    (void)wgk_onnx_attr_string_or(n, "mode", "");
    for (size_t i = 0; i <= n->n_attrs; i++) (void)wgk_onnx_node_attr(n, i < n->n_attrs ? n->attrs[i].name : "");
    for (size_t i = 0; i <= n->n_inputs; i++) (void)wgk_onnx_node_input(n, i);
  }
  wgk_onnx_model_free(m);
  return 0;
}
