/* SparseAttention in double precision: append the new K/V rows to copies of the caches, then for each query
 * a softmax over the keys its causal, block-sparse, length-limited mask allows. */
#include "ops/com.microsoft.SparseAttention/reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/com.microsoft.SparseAttention/reference_geometry.h"

/* Rotates row[0..rot) at position pos: NeoX pairs (i, i + rot/2) or interleaved (2i, 2i+1). */
static void rotate(double *row, const ops_ref_sparse_inputs *in, const ops_ref_sparse_geom *g, bool inter,
                   int64_t pos) {
  int64_t half = g->rot / 2;
  for (int64_t i = 0; i < half; i++) {
    int64_t i1 = inter ? 2 * i : i, i2 = inter ? 2 * i + 1 : i + half;
    double c = util_host_tensor_get(in->cos_cache, (size_t)(pos * half + i));
    double s = util_host_tensor_get(in->sin_cache, (size_t)(pos * half + i));
    double x1 = row[i1], x2 = row[i2];
    row[i1] = c * x1 - s * x2;
    row[i2] = s * x1 + c * x2;
  }
}

/* Head `head` of token (b, s) from t, whose rows hold `heads` heads, into row[H]. */
static void load_head(const util_host_tensor *t, const ops_ref_sparse_geom *g, int64_t heads, int64_t b, int64_t s,
                      int64_t head, double *row) {
  size_t base = (size_t)(((b * g->S + s) * heads + head) * g->H);
  for (int64_t h = 0; h < g->H; h++) row[h] = util_host_tensor_get(t, base + (size_t)h);
}

static size_t cache_index(const ops_ref_sparse_geom *g, int64_t b, int64_t k, int64_t pos) {
  return (size_t)(((b * g->KN + k) * g->max_cache + pos) * g->H);
}

static void append_kv(const ops_ref_sparse_inputs *in, const ops_ref_sparse_attrs *a, const ops_ref_sparse_geom *g,
                      double *pk, double *pv, double *row) {
  int64_t heads = g->packed ? g->N + 2 * g->KN : g->KN, koff = g->packed ? g->N : 0,
          voff = g->packed ? g->N + g->KN : 0;
  const util_host_tensor *kt = g->packed ? in->query : in->key, *vt = g->packed ? in->query : in->value;
  for (int64_t b = 0; b < g->B; b++) {
    int64_t past = ops_ref_sparse_past(in, g, b);
    for (int64_t s = 0; s < g->S; s++)
      for (int64_t k = 0; k < g->KN; k++) {
        load_head(kt, g, heads, b, s, koff + k, row);
        if (g->rot) rotate(row, in, g, a->rotary_interleaved == 1, past + s);
        memcpy(pk + cache_index(g, b, k, past + s), row, (size_t)g->H * sizeof *row);
        load_head(vt, g, heads, b, s, voff + k, row);
        memcpy(pv + cache_index(g, b, k, past + s), row, (size_t)g->H * sizeof *row);
      }
  }
}

/* Is key block kb listed in row qb of layout l? */
static bool block_on(const ops_ref_sparse_inputs *in, const ops_ref_sparse_geom *g, int64_t l, int64_t qb, int64_t kb) {
  size_t r = (size_t)(l * (g->max_blocks + 1) + qb);
  int32_t lo = (int32_t)util_host_tensor_get(in->block_row_indices, r);
  int32_t hi = (int32_t)util_host_tensor_get(in->block_row_indices, r + 1);
  for (int32_t j = lo; j < hi; j++)
    if ((int64_t)util_host_tensor_get(in->block_col_indices, (size_t)(l * g->max_nnz + j)) == kb) return true;
  return false;
}

/* One query row q (already rotated) of head h at absolute position p: softmax-weighted V rows into out[H]. */
static void attend(const ops_ref_sparse_inputs *in, const ops_ref_sparse_attrs *a, const ops_ref_sparse_geom *g,
                   const double *pk, const double *pv, int64_t b, int64_t h, int64_t p, const double *q, double *w,
                   double *out) {
  int64_t kvh = h / (g->N / g->KN), l = h % g->L, bs = a->sparse_block_size;
  int64_t limit = (int64_t)util_host_tensor_get(in->key_total_sequence_lengths, (size_t)b);
  double mx = -INFINITY, sum = 0;
  for (int64_t j = 0; j < limit && j <= p; j++) {
    w[j] = -INFINITY;
    if (!block_on(in, g, l, p / bs, j / bs)) continue;
    const double *k = pk + cache_index(g, b, kvh, j);
    double dot = 0;
    for (int64_t e = 0; e < g->H; e++) dot += q[e] * k[e];
    w[j] = dot * g->scale;
    mx = fmax(mx, w[j]);
  }
  memset(out, 0, (size_t)g->H * sizeof *out);
  if (mx == -INFINITY) /* nothing attended: a zero row */
    return;
  for (int64_t j = 0; j < limit && j <= p; j++) sum += (w[j] = w[j] == -INFINITY ? 0 : exp(w[j] - mx));
  for (int64_t j = 0; j < limit && j <= p; j++) {
    const double *v = pv + cache_index(g, b, kvh, j);
    for (int64_t e = 0; e < g->H; e++) out[e] += w[j] / sum * v[e];
  }
}

wgk_status ops_ref_sparse_attention(const ops_ref_sparse_inputs *in, const ops_ref_sparse_attrs *a, double *out,
                                    double *present_key, double *present_value, util_error *err) {
  ops_ref_sparse_geom g;
  wgk_status st = ops_ref_sparse_check(in, a, &g, err);
  if (st != WGK_OK) return st;
  double *row = malloc((size_t)g.H * sizeof *row), *w = malloc((size_t)(g.max_cache + 1) * sizeof *w);
  if (!row || !w) {
    free(row);
    free(w);
    return util_error_oom(err, NULL, "SparseAttention");
  }
  util_host_tensor_to_double(in->past_key, present_key);
  util_host_tensor_to_double(in->past_value, present_value);
  append_kv(in, a, &g, present_key, present_value, row);
  int64_t heads = g.packed ? g.N + 2 * g.KN : g.N;
  for (int64_t b = 0; b < g.B; b++) {
    int64_t past = ops_ref_sparse_past(in, &g, b);
    for (int64_t s = 0; s < g.S; s++)
      for (int64_t h = 0; h < g.N; h++) {
        load_head(in->query, &g, heads, b, s, h, row);
        if (g.rot) rotate(row, in, &g, a->rotary_interleaved == 1, past + s);
        attend(in, a, &g, present_key, present_value, b, h, past + s, row, w, out + ((b * g.S + s) * g.N + h) * g.H);
      }
  }
  free(row);
  free(w);
  return WGK_OK;
}
