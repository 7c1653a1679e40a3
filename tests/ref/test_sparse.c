/* The SparseAttention reference against plain causal attention written here, GQA against duplicated heads,
 * packed against separate QKV, and the Phi-3 layout generator's properties. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/com.microsoft.SparseAttention/reference.h"
#include "util/rng.h"
#include "util/wgk_test.h"

static util_rng rng;

static util_host_tensor *tensor(wgk_dtype d, int rank, int64_t a, int64_t b, int64_t c, int64_t e) {
  int64_t dims[4] = {a, b, c, e};
  util_host_tensor *t;
  assert_int_equal(util_host_tensor_create(d, rank, dims, &t), WGK_OK);
  return t;
}

static util_host_tensor *randn(int rank, int64_t a, int64_t b, int64_t c, int64_t e) {
  util_host_tensor *t = tensor(WGK_DTYPE_FLOAT32, rank, a, b, c, e);
  for (size_t i = 0; i < util_host_tensor_numel(t); i++) ((float *)t->data)[i] = (float)util_rng_normal(&rng, 0, 1);
  return t;
}

static util_host_tensor *ints(int rank, int64_t a, int64_t b, const int32_t *v) {
  util_host_tensor *t = tensor(WGK_DTYPE_INT32, rank, a, b, 0, 0);
  memcpy(t->data, v, util_host_tensor_bytes(t));
  return t;
}

typedef struct problem {
  int64_t B, S, N, KN, H, cache, past; /* past: rows already in the cache for every batch */
  ops_ref_sparse_inputs in;
  ops_ref_sparse_attrs a;
  double *out, *pk, *pv;
} problem;

/* Random Q/K/V/caches and a single dense block (block size >= total). */
static void make_dense(problem *p) {
  p->in.query = randn(3, p->B, p->S, p->N * p->H, 0);
  p->in.key = randn(3, p->B, p->S, p->KN * p->H, 0);
  p->in.value = randn(3, p->B, p->S, p->KN * p->H, 0);
  p->in.past_key = randn(4, p->B, p->KN, p->cache, p->H);
  p->in.past_value = randn(4, p->B, p->KN, p->cache, p->H);
  int32_t row[2] = {0, 1}, col[1] = {0}, total = (int32_t)(p->past + p->S), kts[8];
  for (int i = 0; i < 8; i++) kts[i] = total;
  p->in.block_row_indices = ints(2, 1, 2, row);
  p->in.block_col_indices = ints(2, 1, 1, col);
  p->in.total_sequence_length = ints(1, 1, 0, &total);
  p->in.key_total_sequence_lengths = ints(1, p->B, 0, kts);
  p->a = (ops_ref_sparse_attrs){p->N, p->KN, 0, 64, 0, 0};
}

static void run(problem *p) {
  size_t cache = util_host_tensor_numel(p->in.past_key);
  p->out = calloc((size_t)(p->B * p->S * p->N * p->H), sizeof(double));
  p->pk = calloc(cache, sizeof(double));
  p->pv = calloc(cache, sizeof(double));
  util_error e;
  util_error_clear(&e);
  if (ops_ref_sparse_attention(&p->in, &p->a, p->out, p->pk, p->pv, &e) != WGK_OK)
    fail_msg("%s: %s", e.path, e.message);
}

static void release(problem *p) {
  const util_host_tensor *all[] = {p->in.query,
                                   p->in.key,
                                   p->in.value,
                                   p->in.past_key,
                                   p->in.past_value,
                                   p->in.block_row_indices,
                                   p->in.block_col_indices,
                                   p->in.total_sequence_length,
                                   p->in.key_total_sequence_lengths,
                                   p->in.cos_cache,
                                   p->in.sin_cache};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) util_host_tensor_free((util_host_tensor *)all[i]);
  free(p->out);
  free(p->pk);
  free(p->pv);
}

static double at(const util_host_tensor *t, size_t i) { return util_host_tensor_get(t, i); }

/* Key or value row j of (b, kv head k): from the past cache below `past`, else the new token j - past. */
static double kv(const problem *p, const util_host_tensor *past, const util_host_tensor *cur, int64_t b, int64_t k,
                 int64_t j, int64_t e) {
  if (j < p->past) return at(past, (size_t)(((b * p->KN + k) * p->cache + j) * p->H + e));
  return at(cur, (size_t)(((b * p->S + (j - p->past)) * p->KN + k) * p->H + e));
}

/* Textbook causal attention over [past rows | new rows], written without the reference's helpers. */
static void expect_causal(const problem *p) {
  int64_t group = p->N / p->KN;
  double *sc = calloc((size_t)(p->past + p->S), sizeof *sc);
  for (int64_t b = 0; b < p->B; b++)
    for (int64_t s = 0; s < p->S; s++)
      for (int64_t h = 0; h < p->N; h++) {
        int64_t pos = p->past + s, k = h / group;
        double mx = -1e300, sum = 0;
        for (int64_t j = 0; j <= pos; j++) {
          double d = 0;
          for (int64_t e = 0; e < p->H; e++)
            d += at(p->in.query, (size_t)(((b * p->S + s) * p->N + h) * p->H + e)) *
                 kv(p, p->in.past_key, p->in.key, b, k, j, e);
          sc[j] = d / sqrt((double)p->H);
          mx = fmax(mx, sc[j]);
        }
        for (int64_t j = 0; j <= pos; j++) sum += sc[j] = exp(sc[j] - mx);
        for (int64_t e = 0; e < p->H; e++) {
          double o = 0;
          for (int64_t j = 0; j <= pos; j++) o += sc[j] / sum * kv(p, p->in.past_value, p->in.value, b, k, j, e);
          double got = p->out[((b * p->S + s) * p->N + h) * p->H + e];
          if (fabs(got - o) > 1e-12 * (1 + fabs(o)))
            fail_msg("b%lld s%lld h%lld e%lld: ref %.17g, causal %.17g", (long long)b, (long long)s, (long long)h,
                     (long long)e, got, o);
        }
      }
  free(sc);
}

static void dense_layout_is_causal_attention(void **state) {
  (void)state;
  const problem shapes[] = {{.B = 2, .S = 7, .N = 2, .KN = 2, .H = 8, .cache = 16, .past = 0},
                            {.B = 2, .S = 3, .N = 4, .KN = 2, .H = 16, .cache = 20, .past = 9},
                            {.B = 1, .S = 1, .N = 4, .KN = 1, .H = 8, .cache = 40, .past = 30}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    problem p = shapes[i];
    make_dense(&p);
    run(&p);
    expect_causal(&p);
    /* the new rows landed in the caches at [past, past + S), the rest untouched */
    for (int64_t b = 0; b < p.B; b++)
      for (int64_t k = 0; k < p.KN; k++)
        for (int64_t j = 0; j < p.cache; j++)
          for (int64_t e = 0; e < p.H; e++) {
            size_t ci = (size_t)(((b * p.KN + k) * p.cache + j) * p.H + e);
            bool fresh = j >= p.past && j < p.past + p.S;
            assert_true(p.pk[ci] == (fresh ? kv(&p, p.in.past_key, p.in.key, b, k, j, e) : at(p.in.past_key, ci)));
            assert_true(p.pv[ci] ==
                        (fresh ? kv(&p, p.in.past_value, p.in.value, b, k, j, e) : at(p.in.past_value, ci)));
          }
    release(&p);
  }
}

/* A Phi-3-style sparse problem: blocks of 4, 3 layouts, rotary on (angles pos * theta_i), decode with a past. */
static void make_sparse(problem *p, bool interleaved) {
  make_dense(p);
  util_host_tensor_free((util_host_tensor *)p->in.block_row_indices);
  util_host_tensor_free((util_host_tensor *)p->in.block_col_indices);
  util_host_tensor *row, *col;
  util_error e;
  util_error_clear(&e);
  assert_int_equal(ops_ref_phi3_layout(3, 8, 2, 3, &row, &col, &e), WGK_OK);
  p->in.block_row_indices = row;
  p->in.block_col_indices = col;
  int64_t half = p->H / 4; /* partial rotary: rot = H/2 */
  util_host_tensor *c = tensor(WGK_DTYPE_FLOAT32, 2, 32, half, 0, 0), *s = tensor(WGK_DTYPE_FLOAT32, 2, 32, half, 0, 0);
  for (int64_t pos = 0; pos < 32; pos++)
    for (int64_t i = 0; i < half; i++) {
      double ang = (double)pos * pow(10000.0, -2.0 * (double)i / (double)(2 * half));
      ((float *)c->data)[pos * half + i] = (float)cos(ang);
      ((float *)s->data)[pos * half + i] = (float)sin(ang);
    }
  p->in.cos_cache = c;
  p->in.sin_cache = s;
  p->a = (ops_ref_sparse_attrs){p->N, p->KN, 0.3, 4, 1, interleaved};
}

/* (B, S, KN*H) -> (B, S, N*H) repeating each kv head for its group; caches likewise on axis 1. */
static util_host_tensor *repeat_heads(const util_host_tensor *t, int64_t heads_axis, int64_t group, int64_t H) {
  int64_t dims[4];
  memcpy(dims, t->dims, sizeof dims);
  int64_t outer = t->dims[0] * (heads_axis == 1 ? 1 : t->dims[1]);
  int64_t kn = heads_axis == 1 ? t->dims[1] : t->dims[2] / H, inner = heads_axis == 1 ? t->dims[2] * H : H;
  if (heads_axis == 1)
    dims[1] *= group;
  else
    dims[2] *= group;
  util_host_tensor *r;
  assert_int_equal(util_host_tensor_create(t->dtype, t->rank, dims, &r), WGK_OK);
  float *dst = r->data;
  const float *src = t->data;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t k = 0; k < kn * group; k++)
      memcpy(dst + (o * kn * group + k) * inner, src + (o * kn + k / group) * inner, (size_t)inner * sizeof(float));
  return r;
}

static void gqa_equals_duplicated_heads(void **state) {
  (void)state;
  for (int inter = 0; inter < 2; inter++) {
    problem g = {.B = 2, .S = 5, .N = 6, .KN = 2, .H = 8, .cache = 32, .past = 14};
    make_sparse(&g, inter);
    run(&g);
    problem d = g;
    d.KN = d.N;
    d.a.kv_num_heads = d.N;
    d.in.key = repeat_heads(g.in.key, 2, 3, g.H);
    d.in.value = repeat_heads(g.in.value, 2, 3, g.H);
    d.in.past_key = repeat_heads(g.in.past_key, 1, 3, g.H);
    d.in.past_value = repeat_heads(g.in.past_value, 1, 3, g.H);
    run(&d);
    size_t n = (size_t)(g.B * g.S * g.N * g.H);
    for (size_t i = 0; i < n; i++) assert_true(fabs(g.out[i] - d.out[i]) <= 1e-12 * (1 + fabs(g.out[i])));
    util_host_tensor *mine[] = {(util_host_tensor *)d.in.key, (util_host_tensor *)d.in.value,
                                (util_host_tensor *)d.in.past_key, (util_host_tensor *)d.in.past_value};
    for (int i = 0; i < 4; i++) util_host_tensor_free(mine[i]);
    free(d.out);
    free(d.pk);
    free(d.pv);
    release(&g);
  }
}

static void packed_equals_separate(void **state) {
  (void)state;
  problem s = {.B = 2, .S = 4, .N = 4, .KN = 2, .H = 8, .cache = 32, .past = 10};
  make_sparse(&s, false);
  run(&s);
  int64_t W = (s.N + 2 * s.KN) * s.H;
  util_host_tensor *qkv = tensor(WGK_DTYPE_FLOAT32, 3, s.B, s.S, W, 0);
  for (int64_t t = 0; t < s.B * s.S; t++) {
    float *dst = (float *)qkv->data + t * W;
    memcpy(dst, (float *)s.in.query->data + t * s.N * s.H, (size_t)(s.N * s.H) * 4);
    memcpy(dst + s.N * s.H, (float *)s.in.key->data + t * s.KN * s.H, (size_t)(s.KN * s.H) * 4);
    memcpy(dst + (s.N + s.KN) * s.H, (float *)s.in.value->data + t * s.KN * s.H, (size_t)(s.KN * s.H) * 4);
  }
  problem p = s;
  p.in.query = qkv;
  p.in.key = p.in.value = NULL;
  run(&p);
  size_t n = (size_t)(s.B * s.S * s.N * s.H), c = util_host_tensor_numel(s.in.past_key);
  assert_memory_equal(p.out, s.out, n * sizeof(double));
  assert_memory_equal(p.pk, s.pk, c * sizeof(double));
  assert_memory_equal(p.pv, s.pv, c * sizeof(double));
  util_host_tensor_free(qkv);
  free(p.out);
  free(p.pk);
  free(p.pv);
  release(&s);
}

static void identity_rotary_changes_nothing(void **state) {
  (void)state;
  problem r = {.B = 1, .S = 6, .N = 2, .KN = 1, .H = 8, .cache = 16, .past = 0};
  make_sparse(&r, false);
  for (size_t i = 0; i < util_host_tensor_numel(r.in.cos_cache); i++) {
    ((float *)r.in.cos_cache->data)[i] = 1;
    ((float *)r.in.sin_cache->data)[i] = 0;
  }
  int32_t total = 6;
  memcpy(r.in.total_sequence_length->data, &total, 4);
  memcpy(r.in.key_total_sequence_lengths->data, &total, 4);
  run(&r);
  problem o = r;
  o.a.do_rotary = 0;
  run(&o);
  assert_memory_equal(r.out, o.out, (size_t)(r.S * r.N * r.H) * sizeof(double));
  free(o.out);
  free(o.pk);
  free(o.pv);
  release(&r);
}

static void phi3_layout_properties(void **state) {
  (void)state;
  const int64_t cfg[][4] = {{8, 32, 16, 8}, {3, 8, 2, 3}, {1, 5, 1, 2}, {4, 20, 3, 16}, {2, 9, 0, 1}};
  for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
    int64_t L = cfg[c][0], M = cfg[c][1], local = cfg[c][2], vs = cfg[c][3];
    int64_t step = vs / L > 1 ? vs / L : 1, widest = 0;
    util_host_tensor *row, *col;
    util_error e;
    util_error_clear(&e);
    assert_int_equal(ops_ref_phi3_layout(L, M, local, vs, &row, &col, &e), WGK_OK);
    assert_int_equal(row->dims[0], L);
    assert_int_equal(row->dims[1], M + 1);
    int64_t nnz = col->dims[1];
    const int32_t *r = row->data, *cl = col->data;
    for (int64_t l = 0; l < L; l++) {
      const int32_t *rl = r + l * (M + 1), *cc = cl + l * nnz;
      assert_int_equal(rl[0], 0);
      for (int64_t q = 0; q < M; q++) {
        assert_true(rl[q + 1] >= rl[q]);
        int32_t j = rl[q];
        for (int64_t k = 0; k < M; k++) { /* the listed columns are exactly the mask's, in order */
          bool want = q >= k && (q - k < local || (k + l * step + 1) % vs == 0);
          if (want) {
            assert_true(j < rl[q + 1]);
            assert_int_equal(cc[j++], k);
          }
        }
        assert_int_equal(j, rl[q + 1]);
      }
      for (int64_t j = rl[M]; j < nnz; j++) assert_int_equal(cc[j], -1);
      widest = rl[M] > widest ? rl[M] : widest;
    }
    assert_int_equal(widest, nnz); /* max_nnz is the widest layout, no slack */
    util_host_tensor_free(row);
    util_host_tensor_free(col);
  }
  util_host_tensor *row, *col;
  util_error e;
  util_error_clear(&e);
  assert_int_equal(ops_ref_phi3_layout(0, 8, 1, 1, &row, &col, &e), WGK_ERR_INVALID_ARGUMENT);
  assert_null(row);
  assert_null(col);
}

static void invalid_arguments_refused(void **state) {
  (void)state;
  problem p = {.B = 1, .S = 4, .N = 4, .KN = 2, .H = 8, .cache = 16, .past = 4};
  make_dense(&p);
  double out[256], pk[256], pv[256];
  util_error e;
  util_error_clear(&e);
  p.a.kv_num_heads = 3;
  assert_int_equal(ops_ref_sparse_attention(&p.in, &p.a, out, pk, pv, &e), WGK_ERR_CALL);
  assert_string_equal(e.path, "kv_num_heads");
  p.a.kv_num_heads = 2;
  ((int32_t *)p.in.block_col_indices->data)[0] = 1; /* only one block row: column 1 is out of range */
  util_error_clear(&e);
  assert_int_equal(ops_ref_sparse_attention(&p.in, &p.a, out, pk, pv, &e), WGK_ERR_CALL);
  assert_string_equal(e.path, "blockColIndicesT (block_col_indices)"); /* the op's host-check rule */
  ((int32_t *)p.in.block_col_indices->data)[0] = 0;
  int32_t big = 100;
  memcpy(p.in.key_total_sequence_lengths->data, &big, 4);
  util_error_clear(&e);
  assert_int_equal(ops_ref_sparse_attention(&p.in, &p.a, out, pk, pv, &e), WGK_ERR_CALL);
  assert_string_equal(e.path, "keyTotalSequenceLengthsT (key_total_sequence_lengths)");
  int32_t eight = 8;
  memcpy(p.in.key_total_sequence_lengths->data, &eight, 4);
  p.a.do_rotary = 1; /* no caches given */
  util_error_clear(&e);
  assert_int_equal(ops_ref_sparse_attention(&p.in, &p.a, out, pk, pv, &e), WGK_ERR_CALL);
  assert_string_equal(e.path, "cos_cache");
  p.a.do_rotary = 0;
  const util_host_tensor *v = p.in.value;
  p.in.value = NULL;
  util_error_clear(&e);
  assert_int_equal(ops_ref_sparse_attention(&p.in, &p.a, out, pk, pv, &e), WGK_ERR_CALL);
  p.in.value = v;
  util_error_clear(&e);
  assert_int_equal(ops_ref_sparse_attention(&p.in, &p.a, out, pk, pv, &e), WGK_OK);
  p.out = p.pk = p.pv = NULL;
  release(&p);
}

int main(void) {
  uint64_t seed = wgk_test_seed_value(0x5a115eedULL);
  printf("seed: WGK_TEST_SEED=0x%llx\n", (unsigned long long)seed);
  util_rng_seed(&rng, seed);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(dense_layout_is_causal_attention), cmocka_unit_test(gqa_equals_duplicated_heads),
      cmocka_unit_test(packed_equals_separate),           cmocka_unit_test(identity_rotary_changes_nothing),
      cmocka_unit_test(phi3_layout_properties),           cmocka_unit_test(invalid_arguments_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
