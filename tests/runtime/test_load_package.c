/* rt_kernel_load_package: a tool (wgk run, test, bench, tune) opens a package once to check its arguments before a
 * GPU context exists, then hands that same package to the library's load: the kernel holds the very package that
 * was checked (not a second read), plans and runs like a wgk_kernel_load one (against a double reference), and a
 * package handed to a load that fails is freed by it (LSan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>

#include "package/package.h"
#include "runtime/runtime_access.h"
#include "wgk.h"

static char pkg_path[4096];

static pkg_package *open_pkg(void) {
  pkg_options po = {0};
  pkg_package *pkg = NULL;
  util_error err;
  util_error_clear(&err);
  if (pkg_open(pkg_path, &po, &pkg, &err) != WGK_OK) fail_msg("open: %s", err.message);
  return pkg;
}

static void the_checked_package_runs(void **state) {
  (void)state;
  wgk_context *ctx = NULL;
  char *msg = NULL;
  if (wgk_context_create(NULL, &ctx, &msg) != WGK_OK) fail_msg("context: %s", msg ? msg : "?");
  pkg_package *pkg = open_pkg();
  wgk_kernel *k = NULL;
  if (rt_kernel_load_package(ctx, pkg, &k) != WGK_OK) fail_msg("load: %s", wgk_context_errmsg(ctx));
  assert_ptr_equal(rt_kernel_package(k), pkg); /* read once: the kernel holds the package the tool checked */
  assert_ptr_equal(rt_kernel_manifest(k), pkg_manifest(pkg));
  assert_string_equal(wgk_kernel_op_id(k), "test.TwoPass");
  enum { N = 100, NW = 3 };
  float x[N], w[NW] = {0.5f, -2.0f, 3.0f}, y[N];
  for (int i = 0; i < N; i++) x[i] = (float)(i % 17) - 8.0f;
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
    if (!(fabs(y[i] - want) <= 1e-6 * (1 + fabs(want)))) fail_msg("y[%d] = %g, want %g", i, y[i], want);
  }
  wgk_call_destroy(call);
  wgk_tensor_release(tx);
  wgk_tensor_release(tw);
  wgk_kernel_destroy(k);
  /* a load that cannot take the package still frees it (no leak under LSan), and says why */
  k = (wgk_kernel *)1;
  assert_int_equal(rt_kernel_load_package(ctx, open_pkg(), NULL), WGK_ERR_INVALID_ARGUMENT);
  assert_int_equal(rt_kernel_load_package(ctx, NULL, &k), WGK_ERR_INVALID_ARGUMENT);
  assert_null(k);
  wgk_context_destroy(ctx);
}

int main(void) {
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(pkg_path, sizeof pkg_path, "%s/tests/runtime/test.TwoPass", src ? src : ".");
  const struct CMUnitTest tests[] = {cmocka_unit_test(the_checked_package_runs)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
