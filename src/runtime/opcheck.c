/* Host checks per op for rules the manifest language cannot state because they depend on tensor data. */
#include <string.h>

#include "runtime/runtime_internal.h"

wgk_status wgk_opcheck_rotary(const wgk_manifest *m, const wgk_opcheck_port *ports, const wgk_value *attrs,
                              wgk_error *err);
wgk_status wgk_opcheck_sparse(const wgk_manifest *m, const wgk_opcheck_port *ports, const wgk_value *attrs,
                              wgk_error *err);

static const struct { const char *op_id; wgk_opcheck_fn fn; } checks[] = {
    {"ai.onnx.RotaryEmbedding", wgk_opcheck_rotary},
    {"com.microsoft.SparseAttention", wgk_opcheck_sparse},
};

wgk_opcheck_fn wgk_opcheck_find(const char *op_id) {
  for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
    if (strcmp(checks[i].op_id, op_id) == 0) return checks[i].fn;
  return NULL;
}
