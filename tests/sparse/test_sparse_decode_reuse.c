/* SparseAttention decode: decode_merge reads only the `partial` records of the splits that ran. The seed-format
 * package's `partial` is not cleared between calls (no zeroInit), so a call whose query block row holds one key
 * block (one split runs) after a call of the same shapes whose row holds 19 (19 splits run) finds the first
 * call's records 1..18 in the scratch buffer; reading any of them would mix the other call's keys into the
 * output. Every call is checked against the double reference, its output poisoned first; so is the shipped
 * kernels/ package, whose intermediates wgk clears every call (the seed fixture: tests/cli/seed_packages.py).
 * Needs a real adapter (tests/util/wgk_test.h). */
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
#include "wgk.h"

/* Decode of one token after a past of 300: block row 18 of 32 blocks of 16; 2 query heads per kv head. */
enum { N = 4, KN = 2, H = 16, BLOCK = 16, CACHE = 512, MAXB = 32, PAST = 300, QB = PAST / BLOCK, NNZ = QB + 1 };

static float q[N * H], k[KN * H], v[KN * H], pk[KN * CACHE * H], pv[KN * CACHE * H];

static wgk_tensor *make(wgk_context *ctx, wgk_dtype dt, int rank, const int64_t *dims, const void *data) {
  wgk_tensor *t = NULL;
  if (wgk_tensor_create(ctx, dt, rank, dims, data, &t) != WGK_OK) fail_msg("tensor: %s", wgk_context_errmsg(ctx));
  return t;
}

static void set(wgk_call *c, const char *key, wgk_tensor *t) {
  assert_int_equal(wgk_call_set_input(c, key, t), WGK_OK);
  wgk_tensor_release(t);
}

/* Row QB of the one layout lists blocks [first, QB]; every earlier row is empty, every later one repeats it. */
static void layout(int first, int32_t *row, int32_t *col) {
  for (int r = 0; r <= MAXB; r++) row[r] = r <= QB ? 0 : QB + 1 - first;
  for (int i = 0; i < NNZ; i++) col[i] = i <= QB - first ? first + i : -1;
}

/* The double reference's output for the layout. */
static void expect(int first, double *out) {
  int32_t row[MAXB + 1], col[NNZ], total = PAST + 1, kts = PAST + 1;
  layout(first, row, col);
  int64_t dq[3] = {1, 1, N * H}, dk[3] = {1, 1, KN * H}, dc[4] = {1, KN, CACHE, H}, dr[2] = {1, MAXB + 1},
          dcol[2] = {1, NNZ}, one[1] = {1};
  util_host_tensor *t[9];
  const int64_t *dims[9] = {dq, dk, dk, dc, dc, dr, dcol, one, one};
  const int ranks[9] = {3, 3, 3, 4, 4, 2, 2, 1, 1};
  const void *data[9] = {q, k, v, pk, pv, row, col, &total, &kts};
  for (int i = 0; i < 9; i++) {
    assert_int_equal(util_host_tensor_create(i < 5 ? WGK_DTYPE_FLOAT32 : WGK_DTYPE_INT32, ranks[i], dims[i], &t[i]),
                     WGK_OK);
    memcpy(t[i]->data, data[i], util_host_tensor_bytes(t[i]));
  }
  ops_ref_sparse_inputs in = {t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], NULL, NULL};
  ops_ref_sparse_attrs a = {N, KN, 0, BLOCK, 0, 0};
  double *present = calloc(2 * (size_t)(KN * CACHE * H), sizeof(double));
  util_error e;
  util_error_clear(&e);
  if (ops_ref_sparse_attention(&in, &a, out, present, present + KN * CACHE * H, &e) != WGK_OK)
    fail_msg("%s: %s", e.path, e.message);
  free(present);
  for (int i = 0; i < 9; i++) util_host_tensor_free(t[i]);
}

/* One decode call of the layout [first, QB] with fresh caches and a NaN-poisoned output; checked against the
 * double reference. */
static void call(wgk_context *ctx, wgk_kernel *kern, int first) {
  int32_t row[MAXB + 1], col[NNZ], total = PAST + 1, kts = PAST + 1;
  layout(first, row, col);
  int64_t dq[3] = {1, 1, N * H}, dk[3] = {1, 1, KN * H}, dc[4] = {1, KN, CACHE, H}, dr[2] = {1, MAXB + 1},
          dcol[2] = {1, NNZ}, one[1] = {1};
  float poison[N * H];
  for (int i = 0; i < N * H; i++) poison[i] = NAN;
  wgk_call *c = NULL;
  assert_int_equal(wgk_call_create(kern, &c), WGK_OK);
  set(c, "queryT", make(ctx, WGK_DTYPE_FLOAT32, 3, dq, q));
  set(c, "keyT", make(ctx, WGK_DTYPE_FLOAT32, 3, dk, k));
  set(c, "valueT", make(ctx, WGK_DTYPE_FLOAT32, 3, dk, v));
  set(c, "pastKeyT", make(ctx, WGK_DTYPE_FLOAT32, 4, dc, pk));
  set(c, "pastValueT", make(ctx, WGK_DTYPE_FLOAT32, 4, dc, pv));
  set(c, "blockRowIndicesT", make(ctx, WGK_DTYPE_INT32, 2, dr, row));
  set(c, "blockColIndicesT", make(ctx, WGK_DTYPE_INT32, 2, dcol, col));
  set(c, "totalSequenceLengthT", make(ctx, WGK_DTYPE_INT32, 1, one, &total));
  set(c, "keyTotalSequenceLengthsT", make(ctx, WGK_DTYPE_INT32, 1, one, &kts));
  wgk_tensor *y = make(ctx, WGK_DTYPE_FLOAT32, 3, dq, poison);
  assert_int_equal(wgk_call_set_output(c, "outputT", y), WGK_OK);
  wgk_call_set_attr_int(c, "num_heads", N);
  wgk_call_set_attr_int(c, "kv_num_heads", KN);
  wgk_call_set_attr_int(c, "sparse_block_size", BLOCK);
  if (wgk_call_run(c) != WGK_OK) fail_msg("run: %s", wgk_context_errmsg(ctx));
  const char *variant = wgk_call_variant(c);
  assert_non_null(strstr(variant, "_decode"));
  float got[N * H];
  assert_int_equal(wgk_tensor_read_f32(y, got, N * H), WGK_OK);
  double want[N * H];
  expect(first, want);
  for (int i = 0; i < N * H; i++)
    if (!(fabs(got[i] - want[i]) <= 1e-5 * (1 + fabs(want[i]))))
      fail_msg("%s, blocks [%d, %d]: output %d is %.9g, the reference %.9g", variant, first, QB, i, got[i], want[i]);
  wgk_tensor_release(y);
  wgk_call_destroy(c);
}

static void run_package(const char *pkg) {
  util_rng rng;
  util_rng_seed(&rng, wgk_test_seed_value(16));
  float *all[5] = {q, k, v, pk, pv};
  size_t n[5] = {N * H, KN * H, KN * H, KN * CACHE * H, KN * CACHE * H};
  for (int a = 0; a < 5; a++)
    for (size_t i = 0; i < n[a]; i++) all[a][i] = (float)util_rng_uniform(&rng, -2, 2);
  wgk_context *ctx = wgk_test_context();
  wgk_kernel *kern = wgk_test_load(ctx, pkg);
  call(ctx, kern, 0);  /* 19 blocks: 19 splits write records */
  call(ctx, kern, QB); /* 1 block: split 0 alone; records 1..18 still hold the first call's */
  call(ctx, kern, 0);
  wgk_kernel_destroy(kern);
  wgk_context_destroy(ctx);
}

static void seed_package_partial_not_cleared(void **state) {
  (void)state;
  char path[4096];
  const char *build = getenv("WGK_BUILD_DIR"); /* seed_packages.py made the fixture whole there */
  snprintf(path, sizeof path, "%s/seed-packages/com.microsoft.SparseAttention", build ? build : ".");
  run_package(path);
}

static void kernels_package(void **state) {
  (void)state;
  run_package("webgpu-kernels/com.microsoft.SparseAttention");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(seed_package_partial_not_cleared),
      cmocka_unit_test(kernels_package),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
