/* rt_kernel_load_package: a tool (wgk run, test, bench, tune) opens a package once to check its arguments before a
 * GPU context exists, then hands that same package to the library's load: the kernel holds the very package that
 * was checked (not a second read), plans and runs like a wgk_kernel_load one (against a double reference), and a
 * package handed to a load that fails is freed by it (LSan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "package/package.h"
#include "runtime/runtime_access.h"
#include "wgk.h"
#include "util/wgk_test.h"

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
  wgk_test_run_two_pass(ctx, k, "load_package");
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
