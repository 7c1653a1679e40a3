/* A package with no C: test.TwoPass names an op wgk has no hooks for (src/ops/registry.c), so its manifest's
 * rules are all its checks; it loads and runs through the public API like any other, against a double
 * reference on random inputs. Its test.json (inline expected data) runs through `wgk test` (tests.cmake). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ops/ops.h"
#include "wgk.h"
#include "util/wgk_test.h"

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
  wgk_test_run_two_pass(ctx, k, "no_hooks");
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

int main(void) {
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(pkg_path, sizeof pkg_path, "%s/tests/runtime/test.TwoPass", src ? src : ".");
  const struct CMUnitTest tests[] = {cmocka_unit_test(runs_without_op_hooks)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
