/*
 * com.microsoft.SparseAttention (ONNX Runtime contrib op, Phi-3-small) computed on the host in double precision.
 * Semantics: the op's kernel card, kernels/<op id>/README.md. float32/float16 inputs are widened to double.
 *
 * Usage:
 *   1. fill ops_ref_sparse_inputs (key and value NULL for packed QKV; cos/sin NULL unless do_rotary)
 *   2. allocate out (B*S*N*H doubles) and present_key / present_value (numel(past_key) doubles each)
 *   3. ops_ref_sparse_attention(...): present_* = past_* with the new (rotated) K and V rows written at
 *      [past_b, past_b + S) of each batch, the way the operator updates its caches in place.
 * Invalid arguments return WGK_ERR_CALL with a message naming the input.
 */
#ifndef WGK_REF_SPARSE_ATTENTION_H
#define WGK_REF_SPARSE_ATTENTION_H

#include "util/error.h"
#include "util/tensor_host.h"

typedef struct ops_ref_sparse_attrs {
  int64_t num_heads;          /* N, query heads */
  int64_t kv_num_heads;       /* KN, divides N */
  double scale;               /* 0 -> 1/sqrt(H) */
  int64_t sparse_block_size;  /* tokens per block */
  int64_t do_rotary;          /* 1 = rotate Q and K; any other value = off */
  int64_t rotary_interleaved; /* 1 = GPT-J pairs (2i, 2i+1); other = NeoX halves */
} ops_ref_sparse_attrs;

typedef struct ops_ref_sparse_inputs {
  const util_host_tensor *query;                      /* (B, S, N*H) or packed (B, S, (N+2KN)*H) */
  const util_host_tensor *key;                        /* (B, S, KN*H) or NULL (packed) */
  const util_host_tensor *value;                      /* (B, S, KN*H) or NULL (packed) */
  const util_host_tensor *past_key;                   /* (B, KN, max_cache, H) */
  const util_host_tensor *past_value;                 /* (B, KN, max_cache, H) */
  const util_host_tensor *block_row_indices;          /* int32 (num_layout, max_blocks + 1) */
  const util_host_tensor *block_col_indices;          /* int32 (num_layout, max_nnz), -1 padded */
  const util_host_tensor *total_sequence_length;      /* int32 scalar or (1) */
  const util_host_tensor *key_total_sequence_lengths; /* int32 (B) */
  const util_host_tensor *cos_cache;                  /* (max_rot_seq, rot/2) or NULL */
  const util_host_tensor *sin_cache;                  /* (max_rot_seq, rot/2) or NULL */
} ops_ref_sparse_inputs;

wgk_status ops_ref_sparse_attention(const ops_ref_sparse_inputs *in, const ops_ref_sparse_attrs *attrs,
                                    double *out /* B*S*N*H */, double *present_key /* numel(past_key) */,
                                    double *present_value /* numel(past_value) */, util_error *err);

/* Phi-3-small block layouts as CSR tensors: row (num_layout, max_blocks + 1) int32 pointers starting at 0,
 * col (num_layout, max_nnz) int32 padded with -1, max_nnz the largest row count of any layout.
 *   step = max(1, vert_stride / num_layout); vert[l][k] = ((k + l*step + 1) % vert_stride == 0)
 *   mask[l][q][k] = q >= k && (q - k < local_blocks || vert[l][k])                                         */
wgk_status ops_ref_phi3_layout(int64_t num_layout, int64_t max_blocks, int64_t local_blocks, int64_t vert_stride,
                               util_host_tensor **row /* OUT */, util_host_tensor **col /* OUT */, util_error *err);

#endif
