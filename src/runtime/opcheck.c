/* Host checks per op for rules the manifest language cannot state because they depend on tensor data. */
#include <string.h>

#include "kernels_host/hostcheck.h"
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

wgk_status wgk_opcheck_view(const wgk_manifest *m, const wgk_opcheck_port *ports, const char *name, bool want_data,
                            wgk_hostcheck_tensor *out, wgk_error *err) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < m->n_ports; i++) {
    wgk_tensor *t = ports[i].tensor;
    const wgk_manifest_port *pp = ports[i].port; /* by ONNX name: the seed port name, spec 2.1 `onnx` */
    if ((strcmp(pp->name, name) != 0 && !(pp->onnx && strcmp(pp->onnx, name) == 0)) || !t) continue;
    *out = (wgk_hostcheck_tensor){true, t->dtype, t->rank, t->shape, NULL};
    bool integer = t->dtype == WGK_DTYPE_INT64 || t->dtype == WGK_DTYPE_INT32;
    if (want_data && integer) {
      wgk_status st = wgk_rt_tensor_host(t, &out->data);
      if (st != WGK_OK) { *err = t->ctx->err; return st; }
    }
  }
  return WGK_OK;
}
