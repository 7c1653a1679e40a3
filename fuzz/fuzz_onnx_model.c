/* libFuzzer entry: a serialized ONNX ModelProto (.onnx) decoded into plain structs, then queried the way
 * the node-test runner does (single node, opsets, attributes, inputs). Never a crash, leak or UB, and never
 * "out of memory" (an initializer's dims must be checked against its data before anything is allocated). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "onnx/onnx_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  util_error err;
  util_error_clear(&err);
  onnx_model *m = NULL;
  wgk_status st = onnx_model_parse(data, size, "fuzz.onnx", &m, &err);
  if (st == WGK_ERR_OUT_OF_MEMORY) abort();
  if (st != WGK_OK) return 0;
  (void)onnx_model_opset(m, "");
  (void)onnx_model_opset(m, "com.microsoft");
  const onnx_node *n = onnx_model_single_node(m, &err);
  if (n) {
    (void)onnx_attr_int_or(n, "interleaved", 0);
    (void)onnx_attr_int_or(n, "rotary_embedding_dim", 0);
    (void)onnx_attr_int_or(n, "num_heads", 0);
    (void)onnx_attr_float_or(n, "scale", 0.0);
    (void)onnx_attr_string_or(n, "mode", "");
    for (size_t i = 0; i <= n->n_attrs; i++) (void)onnx_node_attr(n, i < n->n_attrs ? n->attrs[i].name : "");
    for (size_t i = 0; i <= n->n_inputs; i++) (void)onnx_node_input(n, i);
  }
  onnx_model_free(m);
  return 0;
}
