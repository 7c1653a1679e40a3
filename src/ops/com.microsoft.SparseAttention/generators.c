/* SparseAttention's input generators: the Phi-3-small block layout (layout.c) as CSR row pointers
 * (num_layout, max_blocks + 1) or column indices (num_layout, max_nnz), -1 padded. */
#include <stdlib.h>

#include "ops/com.microsoft.SparseAttention/reference.h"
#include "ops/ops.h"

static wgk_status make(const double *params, int *rank, int64_t *dims, double **values, util_error *err, bool row) {
  util_host_tensor *r = NULL, *c = NULL;
  wgk_status st =
      ops_ref_phi3_layout((int64_t)params[0], (int64_t)params[1], (int64_t)params[2], (int64_t)params[3], &r, &c, err);
  if (st) return st;
  util_host_tensor *keep = row ? r : c;
  double *vals = malloc(sizeof(double) * (util_host_tensor_numel(keep) + 1));
  if (vals) {
    util_host_tensor_to_double(keep, vals);
    *rank = keep->rank;
    for (int i = 0; i < keep->rank; i++) dims[i] = keep->dims[i];
  }
  util_host_tensor_free(r);
  util_host_tensor_free(c);
  if (!vals) return util_error_oom(err, NULL, NULL);
  *values = vals;
  return WGK_OK;
}

static wgk_status make_row(const ops_generator *g, const double *params, int *rank, int64_t *dims, double **values,
                           util_error *err) {
  return make(params, rank, dims, values, err, true);
}

static wgk_status make_col(const ops_generator *g, const double *params, int *rank, int64_t *dims, double **values,
                           util_error *err) {
  return make(params, rank, dims, values, err, false);
}

#define LAYOUT_PARAMS                                                                                                 \
  {                                                                                                                   \
    {.name = "num_layout", .required = true, .count = true}, {.name = "max_blocks", .required = true, .count = true}, \
        {.name = "local_blocks", .required = true, .count = true}, {                                                  \
      .name = "vert_stride", .required = true, .count = true                                                          \
    }                                                                                                                 \
  }

const ops_generator ops_sparse_generators[2] = {
    {.name = "phi3_layout_row", .params = LAYOUT_PARAMS, .own_shape = true, .make = make_row},
    {.name = "phi3_layout_col", .params = LAYOUT_PARAMS, .own_shape = true, .make = make_col},
};
