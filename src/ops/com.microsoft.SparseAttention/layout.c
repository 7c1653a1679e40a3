/* Phi-3-small's block-sparse layouts (local window plus strided vertical columns, shifted per layout) as CSR. */
#include <inttypes.h>
#include <stdlib.h>

#include "ops/com.microsoft.SparseAttention/reference.h"

#define MAX_LAYOUT_BLOCKS 16384 /* keeps a layout's entry count in int32; Phi-3-small: 128k tokens / 64 = 2048 */

static bool on(int64_t l, int64_t q, int64_t k, int64_t local, int64_t vert_stride, int64_t step) {
  bool vert = (k + l * step + 1) % vert_stride == 0;
  return q >= k && (q - k < local || vert);
}

static int64_t count_row(int64_t l, int64_t q, int64_t local, int64_t vs, int64_t step) {
  int64_t n = 0;
  for (int64_t k = 0; k <= q; k++) n += on(l, q, k, local, vs, step);
  return n;
}

wgk_status ops_ref_phi3_layout(int64_t num_layout, int64_t max_blocks, int64_t local_blocks, int64_t vert_stride,
                               util_host_tensor **row, util_host_tensor **col, util_error *err) {
  *row = *col = NULL;
  if (num_layout < 1 || num_layout > 1024 || max_blocks < 1 || max_blocks > MAX_LAYOUT_BLOCKS || local_blocks < 0 ||
      vert_stride < 1)
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, NULL, "phi3_layout",
                         "num_layout %" PRId64 " (1..1024), max_blocks %" PRId64 " (1..16384), local %" PRId64
                         " (>= 0), vert_stride %" PRId64 " (>= 1)",
                         num_layout, max_blocks, local_blocks, vert_stride);
  int64_t step = vert_stride / num_layout > 1 ? vert_stride / num_layout : 1, max_nnz = 1;
  for (int64_t l = 0; l < num_layout; l++) {
    int64_t n = 0;
    for (int64_t q = 0; q < max_blocks; q++) n += count_row(l, q, local_blocks, vert_stride, step);
    max_nnz = n > max_nnz ? n : max_nnz;
  }
  int64_t rdims[2] = {num_layout, max_blocks + 1}, cdims[2] = {num_layout, max_nnz};
  wgk_status st = util_host_tensor_create(WGK_DTYPE_INT32, 2, rdims, row);
  if (st == WGK_OK) st = util_host_tensor_create(WGK_DTYPE_INT32, 2, cdims, col);
  if (st != WGK_OK) {
    util_host_tensor_free(*row);
    *row = NULL;
    return util_error_in(err, st, NULL, "phi3_layout", "cannot allocate the layout");
  }
  int32_t *r = (*row)->data, *c = (*col)->data;
  for (int64_t l = 0; l < num_layout; l++) {
    int32_t *rl = r + l * (max_blocks + 1), *cl = c + l * max_nnz, n = 0;
    for (int64_t q = 0; q < max_blocks; q++) {
      rl[q] = n;
      for (int64_t k = 0; k <= q; k++)
        if (on(l, q, k, local_blocks, vert_stride, step)) cl[n++] = (int32_t)k;
    }
    rl[max_blocks] = n;
    for (int64_t j = n; j < max_nnz; j++) cl[j] = -1;
  }
  return WGK_OK;
}
