/* Intermediates (scratch buffers) through the public API, on the test package test.Scratch: Y = 2 * X
 * through a zero-initialised intermediate that two passes add into. Repeated calls of one plan reuse the
 * buffers and must clear them each call; calls in one batch must each see a cleared buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "wgk.h"
#include "util/wgk_test.h"

static char pkg_path[4096];

static wgk_context *context(void) {
  wgk_context *ctx = NULL;
  char *msg = NULL;
  if (wgk_context_create(NULL, &ctx, &msg) != WGK_OK) fail_msg("context: %s", msg ? msg : "?");
  wgk_test_need_gpu_context(ctx);
  return ctx;
}

static wgk_call *scratch_call(wgk_context *ctx, wgk_kernel *k, const float *x, int64_t n) {
  wgk_call *call = NULL;
  wgk_tensor *t = NULL;
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 1, &n, x, &t), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "x", t), WGK_OK);
  wgk_tensor_release(t);
  return call;
}

static void expect_twice(wgk_call *call, const float *x, int64_t n) {
  float *y = calloc((size_t)n, sizeof *y);
  assert_int_equal(wgk_tensor_read(wgk_call_output(call, "y"), y, (size_t)n * sizeof *y), WGK_OK);
  for (int64_t i = 0; i < n; i++)
    if (y[i] != 2 * x[i]) fail_msg("element %lld: got %g want %g", (long long)i, y[i], 2 * x[i]);
  free(y);
}

static void repeated_calls_clear_scratch(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = NULL;
  if (wgk_kernel_load(ctx, pkg_path, NULL, &k) != WGK_OK) fail_msg("load: %s", wgk_context_errmsg(ctx));
  enum { N = 1000 };
  float x[N];
  for (int i = 0; i < N; i++) x[i] = (float)(i % 17) - 8.0f;
  wgk_call *call = scratch_call(ctx, k, x, N);
  wgk_stats before, after;
  for (int r = 0; r < 3; r++) {
    if (wgk_call_run(call) != WGK_OK) fail_msg("run %d: %s", r, wgk_context_errmsg(ctx));
    expect_twice(call, x, N);
    if (r == 0) wgk_context_stats(ctx, &before);
  }
  wgk_context_stats(ctx, &after);
  assert_int_equal(after.plans_made, before.plans_made);
  assert_int_equal(after.plan_hits, before.plan_hits + 2);
  assert_string_equal(wgk_call_variant(call), "twice");
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

static void batched_calls_share_scratch(void **state) {
  (void)state;
  wgk_context *ctx = context();
  wgk_kernel *k = NULL;
  if (wgk_kernel_load(ctx, pkg_path, NULL, &k) != WGK_OK) fail_msg("load: %s", wgk_context_errmsg(ctx));
  enum { N = 300 };
  float a[N], b[N];
  for (int i = 0; i < N; i++) {
    a[i] = (float)i;
    b[i] = (float)(N - i) * 0.5f;
  }
  wgk_call *ca = scratch_call(ctx, k, a, N), *cb = scratch_call(ctx, k, b, N);
  wgk_batch *batch = NULL;
  assert_int_equal(wgk_batch_create(ctx, &batch), WGK_OK);
  assert_int_equal(wgk_batch_add(batch, ca), WGK_OK);
  assert_int_equal(wgk_batch_add(batch, cb), WGK_OK);
  assert_int_equal(wgk_batch_submit(batch), WGK_OK);
  expect_twice(ca, a, N);
  expect_twice(cb, b, N);
  wgk_batch_destroy(batch);
  wgk_call_destroy(ca);
  wgk_call_destroy(cb);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

int main(void) {
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(pkg_path, sizeof pkg_path, "%s/tests/runtime/test.Scratch", src ? src : ".");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(repeated_calls_clear_scratch),
      cmocka_unit_test(batched_calls_share_scratch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
