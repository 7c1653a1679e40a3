/* RotaryEmbedding: every position id must name a row of the 2D caches (SYSTEM.md §5). ONNX Runtime's CUDA
 * and WebGPU kernels pass X through on a bad id; wgk refuses the call before anything runs. */
#include <inttypes.h>
#include <string.h>

#include "runtime/runtime_internal.h"

static const wgk_opcheck_port *find(const wgk_manifest *m, const wgk_opcheck_port *ports, const char *name) {
  for (size_t i = 0; i < m->n_ports; i++)
    if (strcmp(ports[i].port->name, name) == 0) return &ports[i];
  return NULL;
}

wgk_status wgk_opcheck_rotary(const wgk_manifest *m, const wgk_opcheck_port *ports, const wgk_value *attrs,
                              wgk_error *err) {
  (void)attrs;
  const wgk_opcheck_port *pos = find(m, ports, "position_ids"), *cos = find(m, ports, "cos_cache");
  if (!pos || !pos->tensor || !cos || !cos->tensor || cos->tensor->rank != 2) return WGK_OK;
  wgk_tensor *t = pos->tensor;
  if (t->dtype != WGK_DTYPE_INT64) return WGK_OK;
  const void *host;
  wgk_status st = wgk_rt_tensor_host(t, &host);
  if (st != WGK_OK) { *err = t->ctx->err; return st; }
  const int64_t *ids = host;
  int64_t rows = cos->tensor->shape[0];
  for (int64_t i = 0; i < t->numel; i++) {
    if (ids[i] < 0 || ids[i] >= rows) {
      int64_t s = t->rank == 2 ? t->shape[1] : 1;
      return wgk_error_set(err, WGK_ERR_CALL, m->source, pos->port->pos.line, pos->port->pos.column, pos->port->pos.path,
                           "port position_ids: position_ids[%" PRId64 "][%" PRId64 "] = %" PRId64
                           " is outside the cache rows [0, %" PRId64 ") (cos_cache has %" PRId64 " rows)",
                           s ? i / s : 0, s ? i % s : 0, ids[i], rows, rows);
    }
  }
  return WGK_OK;
}
