/* RotaryEmbedding-23 in double precision, straight from the definition: clarity over speed. */
#include "ops/ai.onnx.RotaryEmbedding/reference.h"

#include <inttypes.h>
#include <stdlib.h>

typedef struct rot_geom {
  int64_t B, N, S, H; /* batch, heads, sequence, head size */
  int64_t rot;        /* rotated width (even, <= H) */
  bool heads_first;   /* 4D (B, N, S, H) rather than 3D (B, S, N*H) */
} rot_geom;

static bool is_float(const util_host_tensor *t) {
  return t && (t->dtype == WGK_DTYPE_FLOAT32 || t->dtype == WGK_DTYPE_FLOAT16);
}

static wgk_status x_geometry(const util_host_tensor *x, const ops_ref_rotary_attrs *a, rot_geom *g, util_error *err) {
  if (!is_float(x) || (x->rank != 3 && x->rank != 4))
    return util_error_refuse(err, "X", "must be float32 or float16 of rank 3 or 4 (rank %d)", x ? x->rank : 0);
  g->B = x->dims[0];
  g->heads_first = x->rank == 4;
  if (g->heads_first) {
    g->N = x->dims[1], g->S = x->dims[2], g->H = x->dims[3];
    if (a->num_heads > 0 && a->num_heads != g->N)
      return util_error_refuse(err, "num_heads", "is %" PRId64 " but X has %" PRId64 " heads", a->num_heads, g->N);
  } else {
    if (a->num_heads <= 0)
      return util_error_refuse(err, "num_heads", "is required for 3D X (got %" PRId64 ")", a->num_heads);
    if (x->dims[2] % a->num_heads)
      return util_error_refuse(err, "num_heads", "hidden size %" PRId64 " is not a multiple of num_heads %" PRId64 "",
                               x->dims[2], a->num_heads);
    g->S = x->dims[1], g->N = a->num_heads, g->H = x->dims[2] / a->num_heads;
  }
  if (g->H % 2) return util_error_refuse(err, "X", "head size %" PRId64 " is odd", g->H);
  g->rot = a->rotary_embedding_dim ? a->rotary_embedding_dim : g->H;
  if (g->rot < 0 || g->rot % 2 || g->rot > g->H)
    return util_error_refuse(err, "rotary_embedding_dim",
                             "%" PRId64 " must be even and at most the head size %" PRId64 "", g->rot, g->H);
  if (a->interleaved != 0 && a->interleaved != 1)
    return util_error_refuse(err, "interleaved", "must be 0 or 1 (got %" PRId64 ")", a->interleaved);
  return WGK_OK;
}

static bool same_shape(const util_host_tensor *a, const util_host_tensor *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* Cache shapes against X, and every position id in range. */
static wgk_status check_caches(const util_host_tensor *cs, const util_host_tensor *sn, const util_host_tensor *pos,
                               const rot_geom *g, util_error *err) {
  if (!is_float(cs) || !is_float(sn) || !same_shape(cs, sn))
    return util_error_refuse(err, "cos_cache", "cos_cache and sin_cache must be float tensors of one shape");
  int want_rank = pos ? 2 : 3;
  if (cs->rank != want_rank || cs->dims[cs->rank - 1] != g->rot / 2)
    return util_error_refuse(err, "cos_cache", "must be rank %d with last dim rot/2 = %" PRId64 "", want_rank,
                             g->rot / 2);
  if (!pos)
    return cs->dims[0] == g->B && cs->dims[1] == g->S
               ? WGK_OK
               : util_error_refuse(err, "cos_cache",
                                   "without position_ids must be (batch %" PRId64 ", seq %" PRId64 ", rot/2)", g->B,
                                   g->S);
  if ((pos->dtype != WGK_DTYPE_INT64 && pos->dtype != WGK_DTYPE_INT32) || pos->rank != 2 || pos->dims[0] != g->B ||
      pos->dims[1] != g->S)
    return util_error_refuse(err, "position_ids", "must be int64 (batch %" PRId64 ", seq %" PRId64 ")", g->B, g->S);
  for (size_t i = 0; i < util_host_tensor_numel(pos); i++) {
    double p = util_host_tensor_get(pos, i);
    if (p < 0 || p >= (double)cs->dims[0])
      return util_error_refuse(err, "position_ids", "value %" PRId64 " out of range [0, %" PRId64 ")", (int64_t)p,
                               cs->dims[0]);
  }
  return WGK_OK;
}

static size_t x_index(const rot_geom *g, int64_t b, int64_t n, int64_t s, int64_t h) {
  return (size_t)(g->heads_first ? ((b * g->N + n) * g->S + s) * g->H + h : ((b * g->S + s) * g->N + n) * g->H + h);
}

static void rotate_head(const util_host_tensor *x, const util_host_tensor *cs, const util_host_tensor *sn, size_t row,
                        const rot_geom *g, bool inter, size_t base, double *out) {
  int64_t half = g->rot / 2;
  for (int64_t i = 0; i < half; i++) {
    size_t i1 = base + (size_t)(inter ? 2 * i : i), i2 = base + (size_t)(inter ? 2 * i + 1 : i + half);
    double c = util_host_tensor_get(cs, row * (size_t)half + (size_t)i);
    double s = util_host_tensor_get(sn, row * (size_t)half + (size_t)i);
    double x1 = util_host_tensor_get(x, i1), x2 = util_host_tensor_get(x, i2);
    out[i1] = c * x1 - s * x2;
    out[i2] = s * x1 + c * x2;
  }
  for (int64_t h = g->rot; h < g->H; h++) out[base + (size_t)h] = util_host_tensor_get(x, base + (size_t)h);
}

wgk_status ops_ref_rotary(const util_host_tensor *x, const util_host_tensor *cos_cache,
                          const util_host_tensor *sin_cache, const util_host_tensor *position_ids,
                          const ops_ref_rotary_attrs *attrs, double *out, util_error *err) {
  rot_geom g = {0};
  wgk_status st = x_geometry(x, attrs, &g, err);
  if (st == WGK_OK) st = check_caches(cos_cache, sin_cache, position_ids, &g, err);
  if (st != WGK_OK) return st;
  for (int64_t b = 0; b < g.B; b++)
    for (int64_t s = 0; s < g.S; s++) {
      size_t bs = (size_t)(b * g.S + s);
      size_t row = position_ids ? (size_t)util_host_tensor_get(position_ids, bs) : bs;
      for (int64_t n = 0; n < g.N; n++)
        rotate_head(x, cos_cache, sin_cache, row, &g, attrs->interleaved == 1, x_index(&g, b, n, s, 0), out);
    }
  return WGK_OK;
}
