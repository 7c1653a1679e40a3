/* Argument checks for the SparseAttention reference: every index the computation uses is proven in range here. */
#include <inttypes.h>
#include <math.h>

#include "ops/com.microsoft.SparseAttention/host_check.h"
#include "ops/com.microsoft.SparseAttention/reference_geometry.h"

static bool is_float(const util_host_tensor *t) {
  return t && (t->dtype == WGK_DTYPE_FLOAT32 || t->dtype == WGK_DTYPE_FLOAT16);
}

static bool has_shape(const util_host_tensor *t, int rank, const int64_t *dims) {
  if (!t || t->rank != rank) return false;
  for (int i = 0; i < rank; i++)
    if (t->dims[i] != dims[i]) return false;
  return true;
}

static int32_t i32(const util_host_tensor *t, size_t i) { return (int32_t)util_host_tensor_get(t, i); }

static wgk_status check_qkv(const ops_ref_sparse_inputs *in, const ops_ref_sparse_attrs *a, ops_ref_sparse_geom *g,
                            util_error *err) {
  const util_host_tensor *q = in->query;
  if (!is_float(q) || q->rank != 3)
    return util_error_refuse(err, "query", "must be a float32/float16 tensor of rank 3");
  if (a->num_heads <= 0 || a->kv_num_heads <= 0 || a->num_heads % a->kv_num_heads)
    return util_error_refuse(err, "kv_num_heads", "%" PRId64 " must be positive and divide num_heads %" PRId64,
                             a->kv_num_heads, a->num_heads);
  if (!in->key != !in->value)
    return util_error_refuse(err, "key", "key and value must both be given or both be absent (packed QKV)");
  g->B = q->dims[0], g->S = q->dims[1], g->N = a->num_heads, g->KN = a->kv_num_heads, g->packed = !in->key;
  int64_t heads = g->packed ? g->N + 2 * g->KN : g->N;
  if (q->dims[2] % heads || q->dims[2] == 0)
    return util_error_refuse(err, "query", "width %" PRId64 " is not a positive multiple of %" PRId64 " heads",
                             q->dims[2], heads);
  g->H = q->dims[2] / heads;
  int64_t kv_dims[3] = {g->B, g->S, g->KN * g->H};
  if (!g->packed && (!is_float(in->key) || !has_shape(in->key, 3, kv_dims) || !is_float(in->value) ||
                     !has_shape(in->value, 3, kv_dims)))
    return util_error_refuse(err, "key", "key and value must be float (B %" PRId64 ", S %" PRId64 ", KN*H %" PRId64 ")",
                             g->B, g->S, g->KN * g->H);
  const util_host_tensor *pk = in->past_key;
  if (!is_float(pk) || pk->rank != 4 || pk->dims[0] != g->B || pk->dims[1] != g->KN || pk->dims[3] != g->H)
    return util_error_refuse(err, "past_key",
                             "must be float (B, KN, max_cache, H) = (%" PRId64 ", %" PRId64 ", *, %" PRId64 ")", g->B,
                             g->KN, g->H);
  if (!is_float(in->past_value) || !has_shape(in->past_value, 4, pk->dims))
    return util_error_refuse(err, "past_value", "must have past_key's shape");
  g->max_cache = pk->dims[2];
  g->scale = a->scale != 0.0 ? a->scale : 1.0 / sqrt((double)g->H);
  return WGK_OK;
}

/* The integer inputs as the op's host check sees them (int32 host data, checked to be int32 by the caller). */
static ops_hostcheck_tensor view(const util_host_tensor *t) {
  return (ops_hostcheck_tensor){true, WGK_DTYPE_INT32, t->rank, t->dims, t->data};
}

/* Dtypes and ranks here; the values' rules (CSR layout, total and key lengths) are the op's host check's
 * (host_check.c), one statement of them for the kernel and the reference. */
static wgk_status check_ints(const ops_ref_sparse_inputs *in, const ops_ref_sparse_attrs *a, ops_ref_sparse_geom *g,
                             util_error *err) {
  const util_host_tensor *r = in->block_row_indices, *c = in->block_col_indices;
  if (!r || !c || r->dtype != WGK_DTYPE_INT32 || c->dtype != WGK_DTYPE_INT32 || r->rank != 2 || c->rank != 2 ||
      r->dims[0] != c->dims[0] || r->dims[0] < 1 || r->dims[1] < 2)
    return util_error_refuse(err, "block_row_indices",
                             "row (L, max_blocks+1) and col (L, max_nnz) must be int32 with one L >= 1");
  g->L = r->dims[0], g->max_blocks = r->dims[1] - 1, g->max_nnz = c->dims[1];
  const util_host_tensor *t = in->total_sequence_length, *k = in->key_total_sequence_lengths;
  if (!t || t->dtype != WGK_DTYPE_INT32 || util_host_tensor_numel(t) != 1 || t->rank > 1)
    return util_error_refuse(err, "total_sequence_length", "must be an int32 scalar or one-element vector");
  if (!k || k->dtype != WGK_DTYPE_INT32 || k->rank != 1 || k->dims[0] != g->B)
    return util_error_refuse(err, "key_total_sequence_lengths", "must be int32 (B = %" PRId64 ")", g->B);
  if (a->sparse_block_size <= 0)
    return util_error_refuse(err, "sparse_block_size", "must be positive (got %" PRId64 ")", a->sparse_block_size);
  ops_sparse_check_args v = {.block_row_indices = view(r),
                             .block_col_indices = view(c),
                             .total_sequence_length = view(t),
                             .key_total_sequence_lengths = view(k),
                             .sparse_block_size = a->sparse_block_size,
                             .has_sparse_block_size = true};
  return ops_sparse_check_values(&v, g->B, g->S, g->max_cache, &g->total, err);
}

int64_t ops_ref_sparse_past(const ops_ref_sparse_inputs *in, const ops_ref_sparse_geom *g, int64_t b) {
  return g->total == g->S ? 0 : (int64_t)i32(in->key_total_sequence_lengths, (size_t)b) - g->S;
}

static wgk_status check_rotary(const ops_ref_sparse_inputs *in, const ops_ref_sparse_attrs *a, ops_ref_sparse_geom *g,
                               util_error *err) {
  g->rot = 0;
  if (a->do_rotary != 1) return WGK_OK;
  const util_host_tensor *c = in->cos_cache, *s = in->sin_cache;
  if (!is_float(c) || !is_float(s) || c->rank != 2 || !has_shape(s, 2, c->dims))
    return util_error_refuse(err, "cos_cache", "do_rotary needs float cos_cache and sin_cache of one 2D shape");
  g->rot = 2 * c->dims[1];
  if (g->rot == 0 || g->rot > g->H)
    return util_error_refuse(err, "cos_cache", "width %" PRId64 " must be in [1, H/2 = %" PRId64 "]", c->dims[1],
                             g->H / 2);
  for (int64_t b = 0; b < g->B; b++)
    if (ops_ref_sparse_past(in, g, b) + g->S > c->dims[0])
      return util_error_refuse(err, "cos_cache", "%" PRId64 " rows do not reach position %" PRId64, c->dims[0],
                               ops_ref_sparse_past(in, g, b) + g->S - 1);
  return WGK_OK;
}

wgk_status ops_ref_sparse_check(const ops_ref_sparse_inputs *in, const ops_ref_sparse_attrs *a, ops_ref_sparse_geom *g,
                                util_error *err) {
  wgk_status st = check_qkv(in, a, g, err);
  if (st == WGK_OK) st = check_ints(in, a, g, err);
  if (st == WGK_OK) st = check_rotary(in, a, g, err);
  return st;
}
