/*
 * Host checks for com.microsoft.SparseAttention that its manifest cannot express (the op's kernel card, kernels/<op
 * id>/README.md): the values inside the int32 tensors (CSR layout, total_sequence_length, key_total_sequence_lengths),
 * and the shape rules, stated with their values instead of a bare "sparseContract is false". Run after the manifest's
 * own validation and before anything is dispatched, so a refused call leaves the KV caches as they were.
 *
 * The runtime calls ops_sparse_check through the op's host-check hook (host_hook.c, src/ops/registry.c).
 */
#ifndef WGK_OPS_SPARSE_CHECK_H
#define WGK_OPS_SPARSE_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/hostcheck.h"
#include "util/error.h"

typedef struct ops_sparse_check_args {
  ops_hostcheck_tensor query, key, value, past_key, past_value; /* float tensors: shapes only */
  ops_hostcheck_tensor block_row_indices, block_col_indices;    /* int32 CSR layout, with data */
  ops_hostcheck_tensor total_sequence_length;                   /* int32 scalar or (1), with data */
  ops_hostcheck_tensor key_total_sequence_lengths;              /* int32 (B), with data */
  ops_hostcheck_tensor cos_cache, sin_cache;                    /* rotary caches, shapes only */
  bool has_num_heads, has_kv_num_heads, has_sparse_block_size;  /* the attributes were given */
  int64_t num_heads, kv_num_heads, sparse_block_size;           /* their values */
  int64_t do_rotary;                                            /* 1 = rotary on; any other value off */
} ops_sparse_check_args;

/* WGK_OK, or WGK_ERR_CALL with the error's path naming the port ("blockRowIndicesT (block_row_indices)") or
 * attribute and the message the rule and the values. Integer tensors without host data are not
 * value-checked here. */
wgk_status ops_sparse_check(const ops_sparse_check_args *a, util_error *err);

/* Only the rules on the integer inputs' values: each layout's CSR row pointers and columns, total_sequence_length
 * in [seq, min(max_cache, max_blocks * sparse_block_size)], each key total in range (shapes of the layout already
 * checked: rank 2, one num_layout >= 1, max_blocks + 1 >= 2). *total: total_sequence_length's value. */
wgk_status ops_sparse_check_values(const ops_sparse_check_args *a, int64_t batch, int64_t seq, int64_t max_cache,
                                   int64_t *total, util_error *err);

#endif
