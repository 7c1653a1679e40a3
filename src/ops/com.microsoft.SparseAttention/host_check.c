/* SparseAttention host checks: attributes, shapes, then the CSR layout and the sequence lengths by value. */
#include "ops/com.microsoft.SparseAttention/host_check.h"

#include <inttypes.h>
#include <stddef.h>

/* The sizes the rules are stated in, taken from the shapes once they are known to be consistent. */
typedef struct geom {
  int64_t B, S, N, KN, H;         /* batch, new tokens, query heads, kv heads, head size */
  int64_t max_cache;              /* cache rows per (batch, kv head) */
  int64_t L, max_blocks, max_nnz; /* layouts, block rows, CSR column capacity */
  int64_t total;                  /* total_sequence_length */
} geom;

#define QUERY "queryT (query)"
#define KEY "keyT (key)"
#define VALUE "valueT (value)"
#define PAST_KEY "pastKeyT (past_key)"
#define PAST_VALUE "pastValueT (past_value)"
#define ROW "blockRowIndicesT (block_row_indices)"
#define COL "blockColIndicesT (block_col_indices)"
#define TOTAL "totalSequenceLengthT (total_sequence_length)"
#define KTOTAL "keyTotalSequenceLengthsT (key_total_sequence_lengths)"
#define COS "cosCacheT (cos_cache)"
#define SIN "sinCacheT (sin_cache)"

static int64_t at(const ops_hostcheck_tensor *t, int64_t i) { return ((const int32_t *)t->data)[i]; }

static bool has_data(const ops_hostcheck_tensor *t) { return t->present && t->data && t->dtype == WGK_DTYPE_INT32; }

static wgk_status check_heads(const ops_sparse_check_args *a, util_error *err) {
  if (!a->has_num_heads || a->num_heads < 1)
    return util_error_refuse(err, "num_heads", "must be given and at least 1 (got %" PRId64 ")", a->num_heads);
  if (!a->has_kv_num_heads || a->kv_num_heads < 1)
    return util_error_refuse(err, "kv_num_heads", "must be given and at least 1 (got %" PRId64 ")", a->kv_num_heads);
  if (a->num_heads % a->kv_num_heads)
    return util_error_refuse(err, "kv_num_heads", "%" PRId64 " does not divide num_heads %" PRId64, a->kv_num_heads,
                             a->num_heads);
  if (!a->has_sparse_block_size || (a->sparse_block_size != 16 && a->sparse_block_size != 32 &&
                                    a->sparse_block_size != 64 && a->sparse_block_size != 128))
    return util_error_refuse(err, "sparse_block_size", "must be one of 16, 32, 64, 128 (got %" PRId64 ")",
                             a->sparse_block_size);
  return WGK_OK;
}

static bool same_dims(const ops_hostcheck_tensor *t, int rank, const int64_t *dims) {
  if (t->rank != rank) return false;
  for (int i = 0; i < rank; i++)
    if (t->shape[i] != dims[i]) return false;
  return true;
}

/* query, key, value: packed [Q|K|V] exactly when key and value are both absent; H comes from the cache. */
static wgk_status check_qkv(const ops_sparse_check_args *a, geom *g, util_error *err) {
  if (a->key.present != a->value.present)
    return util_error_refuse(err, a->key.present ? VALUE : KEY,
                             "key and value must both be given (separate Q, K, V) or "
                             "both be absent (packed QKV); only %s is given",
                             a->key.present ? "key" : "value");
  const ops_hostcheck_tensor *q = &a->query, *pk = &a->past_key;
  if (q->rank != 3) return util_error_refuse(err, QUERY, "rank must be 3 (got %d)", q->rank);
  if (pk->rank != 4) return util_error_refuse(err, PAST_KEY, "rank must be 4 (got %d)", pk->rank);
  g->B = q->shape[0], g->S = q->shape[1], g->N = a->num_heads, g->KN = a->kv_num_heads, g->H = pk->shape[3];
  if (g->H < 8 || g->H % 8)
    return util_error_refuse(err, PAST_KEY, "head size (dim 3) %" PRId64 " must be a non-zero multiple of 8", g->H);
  bool packed = !a->key.present;
  int64_t heads = packed ? g->N + 2 * g->KN : g->N;
  if (q->shape[2] != heads * g->H)
    return util_error_refuse(
        err, QUERY, "width %" PRId64 " is not %s%" PRId64 " heads * head size %" PRId64 " = %" PRId64, q->shape[2],
        packed ? "packed (num_heads + 2 * kv_num_heads) = " : "num_heads ", heads, g->H, heads * g->H);
  int64_t kv[3] = {g->B, g->S, g->KN * g->H};
  if (!packed && !same_dims(&a->key, 3, kv))
    return util_error_refuse(
        err, KEY, "shape must be (batch %" PRId64 ", sequence %" PRId64 ", kv_num_heads * head size %" PRId64 ")",
        kv[0], kv[1], kv[2]);
  if (!packed && !same_dims(&a->value, 3, a->key.shape))
    return util_error_refuse(err, VALUE, "shape must equal key's (%" PRId64 ", %" PRId64 ", %" PRId64 ")", kv[0], kv[1],
                             kv[2]);
  return WGK_OK;
}

static wgk_status check_caches(const ops_sparse_check_args *a, geom *g, util_error *err) {
  const int64_t *d = a->past_key.shape;
  if (d[0] != g->B || d[1] != g->KN)
    return util_error_refuse(err, PAST_KEY,
                             "shape (%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ") must be (batch %" PRId64
                             ", kv_num_heads %" PRId64 ", max_cache, head size)",
                             d[0], d[1], d[2], d[3], g->B, g->KN);
  if (!same_dims(&a->past_value, 4, d))
    return util_error_refuse(err, PAST_VALUE,
                             "shape must equal past_key's (%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ")", d[0],
                             d[1], d[2], d[3]);
  g->max_cache = d[2];
  return WGK_OK;
}

static wgk_status check_layout_shapes(const ops_sparse_check_args *a, geom *g, util_error *err) {
  const ops_hostcheck_tensor *r = &a->block_row_indices, *c = &a->block_col_indices;
  if (r->rank != 2 || r->shape[0] < 1 || r->shape[1] < 2)
    return util_error_refuse(err, ROW, "shape must be (num_layout >= 1, max_blocks + 1 >= 2) (rank %d)", r->rank);
  if (c->rank != 2 || c->shape[0] != r->shape[0])
    return util_error_refuse(err, COL, "shape must be (num_layout %" PRId64 ", max_nnz) like block_row_indices",
                             r->shape[0]);
  g->L = r->shape[0], g->max_blocks = r->shape[1] - 1, g->max_nnz = c->shape[1];
  if (g->N % g->L)
    return util_error_refuse(err, ROW, "num_heads %" PRId64 " is not a multiple of num_layout %" PRId64, g->N, g->L);
  return WGK_OK;
}

/* One layout's CSR row pointers and its active columns. */
static wgk_status check_layout_row(const ops_sparse_check_args *a, const geom *g, int64_t l, util_error *err) {
  const ops_hostcheck_tensor *r = &a->block_row_indices, *c = &a->block_col_indices;
  int64_t base = l * (g->max_blocks + 1);
  if (at(r, base) != 0)
    return util_error_refuse(err, ROW, "layout %" PRId64 " starts at %" PRId64 "; row pointers must start at 0", l,
                             at(r, base));
  for (int64_t k = 0; k < g->max_blocks; k++) {
    int64_t lo = at(r, base + k), hi = at(r, base + k + 1);
    if (hi < lo)
      return util_error_refuse(
          err, ROW, "layout %" PRId64 " decreases at block row %" PRId64 ": %" PRId64 " then %" PRId64, l, k, lo, hi);
    if (hi > g->max_nnz)
      return util_error_refuse(
          err, ROW, "layout %" PRId64 " block row %" PRId64 " ends at %" PRId64 ", beyond the column width %" PRId64, l,
          k, hi, g->max_nnz);
    for (int64_t j = lo; j < hi; j++)
      if (at(c, l * g->max_nnz + j) < 0 || at(c, l * g->max_nnz + j) >= g->max_blocks)
        return util_error_refuse(err, COL,
                                 "layout %" PRId64 " entry %" PRId64 " (block row %" PRId64 "): column %" PRId64
                                 " is outside [0, max_blocks %" PRId64 ")",
                                 l, j, k, at(c, l * g->max_nnz + j), g->max_blocks);
  }
  return WGK_OK;
}

static wgk_status check_total(const ops_sparse_check_args *a, geom *g, util_error *err) {
  const ops_hostcheck_tensor *t = &a->total_sequence_length, *k = &a->key_total_sequence_lengths;
  if (t->rank > 1 || (t->rank == 1 && t->shape[0] != 1))
    return util_error_refuse(err, TOTAL, "must be a scalar or a one-element vector (rank %d)", t->rank);
  if (k->rank != 1 || k->shape[0] != g->B)
    return util_error_refuse(err, KTOTAL, "shape must be (batch %" PRId64 ")", g->B);
  if (!has_data(t)) return WGK_OK;
  g->total = at(t, 0);
  int64_t capacity = g->max_blocks * a->sparse_block_size;
  if (g->total < g->S)
    return util_error_refuse(err, TOTAL, "%" PRId64 " is below sequence_length %" PRId64, g->total, g->S);
  if (g->total > g->max_cache)
    return util_error_refuse(err, TOTAL, "%" PRId64 " does not fit the cache: max_cache (past_key dim 2) is %" PRId64,
                             g->total, g->max_cache);
  if (g->total > capacity)
    return util_error_refuse(err, TOTAL,
                             "%" PRId64 " exceeds the layout's capacity max_blocks %" PRId64
                             " * sparse_block_size %" PRId64 " = %" PRId64,
                             g->total, g->max_blocks, a->sparse_block_size, capacity);
  return WGK_OK;
}

/* Each key total: at most total; at least 1 in a prompt (total == S), else at least S (past_b >= 0). */
static wgk_status check_key_totals(const ops_sparse_check_args *a, const geom *g, util_error *err) {
  const ops_hostcheck_tensor *k = &a->key_total_sequence_lengths;
  if (!has_data(k) || !has_data(&a->total_sequence_length)) return WGK_OK;
  bool prompt = g->total == g->S;
  for (int64_t b = 0; b < g->B; b++) {
    int64_t v = at(k, b), low = prompt ? 1 : g->S;
    if (v > g->total)
      return util_error_refuse(err, KTOTAL, "batch %" PRId64 ": %" PRId64 " exceeds total_sequence_length %" PRId64, b,
                               v, g->total);
    if (v < low)
      return util_error_refuse(
          err, KTOTAL, "batch %" PRId64 ": %" PRId64 " is below %" PRId64 " (%s)", b, v, low,
          prompt ? "a prompt needs at least one key" : "past_b = key total - sequence_length must be >= 0");
  }
  return WGK_OK;
}

/* cos/sin given exactly when do_rotary is 1; width a multiple of 8 up to H/2; rows reach total. */
static wgk_status check_rotary(const ops_sparse_check_args *a, const geom *g, util_error *err) {
  const ops_hostcheck_tensor *c = &a->cos_cache, *s = &a->sin_cache;
  if (a->do_rotary != 1) {
    if (c->present || s->present)
      return util_error_refuse(err, c->present ? COS : SIN, "given while do_rotary is %" PRId64 " (rotary off)",
                               a->do_rotary);
    return WGK_OK;
  }
  if (!c->present || !s->present) return util_error_refuse(err, c->present ? SIN : COS, "required when do_rotary is 1");
  if (c->rank != 2) return util_error_refuse(err, COS, "rank must be 2 (got %d)", c->rank);
  if (!same_dims(s, 2, c->shape))
    return util_error_refuse(err, SIN, "shape must equal cos_cache's (%" PRId64 ", %" PRId64 ")", c->shape[0],
                             c->shape[1]);
  if (c->shape[1] < 8 || c->shape[1] % 8 || 2 * c->shape[1] > g->H)
    return util_error_refuse(err, COS,
                             "width %" PRId64
                             " (rotary dim / 2) must be a multiple of 8 no larger than head size / 2 "
                             "= %" PRId64,
                             c->shape[1], g->H / 2);
  if (has_data(&a->total_sequence_length) && c->shape[0] < g->total)
    return util_error_refuse(err, COS, "%" PRId64 " rows do not reach total_sequence_length %" PRId64, c->shape[0],
                             g->total);
  return WGK_OK;
}

/* The rules on the values of the integer inputs (CSR layout, total and key lengths), alone: shared with the
 * reference's argument checks (reference_check.c), which state the shape rules for its own wider domain. */
wgk_status ops_sparse_check_values(const ops_sparse_check_args *a, int64_t batch, int64_t seq, int64_t max_cache,
                                   int64_t *total, util_error *err) {
  geom g = {.B = batch,
            .S = seq,
            .max_cache = max_cache,
            .L = a->block_row_indices.shape[0],
            .max_blocks = a->block_row_indices.shape[1] - 1,
            .max_nnz = a->block_col_indices.shape[1]};
  wgk_status st = WGK_OK;
  if (has_data(&a->block_row_indices) && has_data(&a->block_col_indices))
    for (int64_t l = 0; !st && l < g.L; l++) st = check_layout_row(a, &g, l, err);
  if (!st) st = check_total(a, &g, err);
  if (!st) st = check_key_totals(a, &g, err);
  *total = g.total;
  return st;
}

wgk_status ops_sparse_check(const ops_sparse_check_args *a, util_error *err) {
  geom g = {0};
  wgk_status st = check_heads(a, err);
  if (!st) st = check_qkv(a, &g, err);
  if (!st) st = check_caches(a, &g, err);
  if (!st) st = check_layout_shapes(a, &g, err);
  if (!st && has_data(&a->block_row_indices) && has_data(&a->block_col_indices))
    for (int64_t l = 0; !st && l < g.L; l++) st = check_layout_row(a, &g, l, err);
  if (!st) st = check_total(a, &g, err);
  if (!st) st = check_key_totals(a, &g, err);
  if (!st) st = check_rotary(a, &g, err);
  return st;
}
