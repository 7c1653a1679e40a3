/* SparseAttention's sizes, derived and checked once; shared by the reference's files. */
#ifndef WGK_REF_SPARSE_GEOMETRY_H
#define WGK_REF_SPARSE_GEOMETRY_H

#include "ops/com.microsoft.SparseAttention/reference.h"

typedef struct ops_ref_sparse_geom {
  int64_t B, S, N, KN, H;         /* batch, new tokens, query heads, kv heads, head size */
  int64_t max_cache;              /* cache rows per (batch, kv head) */
  int64_t L, max_blocks, max_nnz; /* layouts, block rows, CSR column capacity */
  int64_t total;                  /* total_sequence_length */
  int64_t rot;                    /* rotated width, 0 without rotary */
  bool packed;                    /* Q, K and V in one tensor */
  double scale;                   /* effective scale */
} ops_ref_sparse_geom;

wgk_status ops_ref_sparse_check(const ops_ref_sparse_inputs *in, const ops_ref_sparse_attrs *a,
                                ops_ref_sparse_geom *g /* OUT */, util_error *err);
/* Past length of batch b: 0 for a prompt (total == S), else key_total_sequence_lengths[b] - S. */
int64_t ops_ref_sparse_past(const ops_ref_sparse_inputs *in, const ops_ref_sparse_geom *g, int64_t b);

#endif
