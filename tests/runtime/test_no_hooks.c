/* A package with no C: test.TwoPass names an op wgk has no hooks for (src/ops/registry.c), so its manifest's
 * rules are all its checks; it loads and runs through the public API like any other, against a double
 * reference on random inputs. Its test.json (inline expected data) runs through `wgk test` (tests.cmake). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ops/ops.h"
#include "util/rng.h"
#include "wgk.h"

static char pkg_path[4096];

static void runs_without_op_hooks(void **state) {
  (void)state;
  wgk_context *ctx = NULL;
  char *msg = NULL;
  if (wgk_context_create(NULL, &ctx, &msg) != WGK_OK) fail_msg("context: %s", msg ? msg : "?");
  wgk_kernel *k = NULL;
  if (wgk_kernel_load(ctx, pkg_path, NULL, &k) != WGK_OK) fail_msg("load: %s", wgk_context_errmsg(ctx));
  assert_string_equal(wgk_kernel_op_id(k), "test.TwoPass");
  assert_null(ops_find(wgk_kernel_op_id(k)));       /* no host check */
  assert_null(ops_tools_find(wgk_kernel_op_id(k))); /* no reference, no generators */
  enum { N = 1000, NW = 7 };
  float x[N], w[NW], y[N];
  util_rng rng;
  util_rng_seed(&rng, 11);
  for (int i = 0; i < N; i++) x[i] = (float)util_rng_uniform(&rng, -4, 4);
  for (int i = 0; i < NW; i++) w[i] = (float)util_rng_uniform(&rng, -2, 2);
  for (int i = 0; i < N; i++) y[i] = 1e30f; /* poison: every element must be written */
  int64_t n = N, nw = NW;
  wgk_tensor *tx = NULL, *tw = NULL;
  wgk_call *call = NULL;
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 1, &n, x, &tx), WGK_OK);
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 1, &nw, w, &tw), WGK_OK);
  assert_int_equal(wgk_call_create(k, &call), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "x", tx), WGK_OK);
  assert_int_equal(wgk_call_set_input(call, "w", tw), WGK_OK);
  if (wgk_call_run(call) != WGK_OK) fail_msg("run: %s", wgk_context_errmsg(ctx));
  assert_int_equal(wgk_tensor_read(wgk_call_output(call, "y"), y, sizeof y), WGK_OK);
  for (int i = 0; i < N; i++) {
    double want = ((double)x[i] + 1) * (double)w[i % NW];
    if (!(fabs(y[i] - want) <= 1e-6 + 1e-6 * fabs(want))) fail_msg("y[%d] = %g, want %g", i, y[i], want);
  }
  wgk_call_destroy(call);
  wgk_tensor_release(tx);
  wgk_tensor_release(tw);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

int main(void) {
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(pkg_path, sizeof pkg_path, "%s/tests/runtime/test.TwoPass", src ? src : ".");
  const struct CMUnitTest tests[] = {cmocka_unit_test(runs_without_op_hooks)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
